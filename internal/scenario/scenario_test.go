package scenario

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/golden"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// dir holds the scenario files.
const dir = "testdata/schedules"

// A scenario file is, in order:
//
//	# comment lines (what the scenario shows, which rule it checks)
//	policy SPEC                 a registry spec: fifo, fair:node-delay=2s, ...
//	seed N                      the run's seed (placement, heartbeats); 1 if absent
//	hardware                    then TOML over replay.DefaultHardware
//	jobs                        then one job a line:
//	  NAME SUBMIT [queue Q] maps M... [reduces R...]
//	launches                    then what the runner writes: the expected log
//
// SUBMIT is in seconds. A map M is "IN" or "IN/OUT" in MB (1e6 bytes) of input
// and output; a reduce R is "OUT" or "SHUFFLE/OUT" in MB. With disk_mb_per_s = 1
// and task_startup = "0s" an MB is a second of disk. Blank lines and lines
// starting with # are ignored outside the launches part; everything from the
// launches line on is rewritten by go test ./internal/scenario -update.
type scenario struct {
	policy   string
	seed     uint64
	hardware string
	jobs     []trace.Job
	tasks    []trace.Task
	input    []byte // the file up to and including the launches line
}

// parse reads a scenario file.
func parse(name string, b []byte) (*scenario, error) {
	sc := &scenario{seed: 1}
	section := ""
	var hw strings.Builder
	lines := bytes.SplitAfter(b, []byte("\n"))
	for n, raw := range lines {
		line := strings.TrimSpace(string(raw))
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n+1, fmt.Sprintf(format, a...))
		}
		switch {
		case line == "launches":
			sc.input = bytes.Join(lines[:n+1], nil)
			if !bytes.HasSuffix(sc.input, []byte("\n")) {
				sc.input = append(sc.input, '\n')
			}
			sc.hardware = hw.String()
			if sc.policy == "" || len(sc.jobs) == 0 {
				return nil, bad("a scenario needs a policy line and jobs")
			}
			return sc, nil
		case line == "hardware" || line == "jobs":
			section = line
		case section == "hardware":
			hw.WriteString(string(raw))
		case line == "" || strings.HasPrefix(line, "#"):
		case section == "jobs":
			if err := sc.addJob(strings.Fields(line)); err != nil {
				return nil, bad("%v", err)
			}
		default:
			key, val, _ := strings.Cut(line, " ")
			switch key {
			case "policy":
				sc.policy = strings.TrimSpace(val)
			case "seed":
				s, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
				if err != nil {
					return nil, bad("seed: %v", err)
				}
				sc.seed = s
			default:
				return nil, bad("unknown line %q: want policy, seed, hardware, jobs or launches", line)
			}
		}
	}
	return nil, fmt.Errorf("%s: no launches line", name)
}

// addJob adds one job line: NAME SUBMIT [queue Q] maps M... [reduces R...].
func (sc *scenario) addJob(f []string) error {
	if len(f) < 2 {
		return fmt.Errorf("job line %q: want NAME SUBMIT maps ...", strings.Join(f, " "))
	}
	id := f[0]
	submit, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		return fmt.Errorf("job %s: submit %q: %v", id, f[1], err)
	}
	j := trace.NewJob(id)
	j.SubmitMs = int64(submit * 1000)
	j.Status = trace.StatusSucceeded
	var maps, reduces [][2]int64
	list := ""
	for _, w := range f[2:] {
		switch w {
		case "maps", "reduces", "queue":
			list = w
			continue
		}
		if list == "queue" {
			j.Queue = w
			continue
		}
		a, b, two := strings.Cut(w, "/")
		x, err1 := strconv.ParseInt(a, 10, 64)
		y, err2 := strconv.ParseInt(b, 10, 64)
		if err1 != nil || two && err2 != nil || list == "" {
			return fmt.Errorf("job %s: %q: want MB or MB/MB after maps or reduces", id, w)
		}
		switch {
		case list == "maps" && two:
			maps = append(maps, [2]int64{x, y})
		case list == "maps":
			maps = append(maps, [2]int64{x, 0})
		case two:
			reduces = append(reduces, [2]int64{x, y})
		default:
			reduces = append(reduces, [2]int64{0, x})
		}
	}
	if len(maps) == 0 {
		return fmt.Errorf("job %s has no maps", id)
	}
	sc.jobs = append(sc.jobs, j)
	for k, m := range maps {
		t := trace.NewTask(id, fmt.Sprintf("%s_m_%d", id, k), trace.Map, int32(k))
		t.InputBytes, t.OutputBytes = m[0]*1e6, m[1]*1e6
		sc.tasks = append(sc.tasks, t)
	}
	for k, r := range reduces {
		t := trace.NewTask(id, fmt.Sprintf("%s_r_%d", id, k), trace.Reduce, int32(k))
		t.ShuffleBytes, t.OutputBytes = r[0]*1e6, r[1]*1e6
		sc.tasks = append(sc.tasks, t)
	}
	return nil
}

// run replays the scenario the way cmd/replay does and returns the file it
// should be: its input part, then the launch log and each job's flowtime.
func (sc *scenario) run() ([]byte, error) {
	hw, err := replay.ParseHardware([]byte(sc.hardware))
	if err != nil {
		return nil, fmt.Errorf("hardware: %w", err)
	}
	tr := &trace.Trace{Jobs: sc.jobs, Tasks: sc.tasks}
	tr.Sort()
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, sc.seed), sc.seed, replay.WorkloadOptions{})
	if err != nil {
		return nil, err
	}
	p, err := policy.New(sc.policy)
	if err != nil {
		return nil, err
	}
	res, err := replay.Run(w, p, replay.Options{Seed: sc.seed, RecordTasks: true, CheckInvariants: true})
	if err != nil {
		return nil, err
	}
	tasks := slices.Clone(res.Tasks)
	slices.SortFunc(tasks, func(a, b replay.TaskResult) int {
		return cmp.Or(cmp.Compare(a.LaunchUs, b.LaunchUs), cmp.Compare(a.Node, b.Node),
			cmp.Compare(a.JobIndex, b.JobIndex), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Index, b.Index))
	})
	var out bytes.Buffer
	out.Write(sc.input)
	bw := bufio.NewWriter(&out)
	fmt.Fprintf(bw, "%8s %7s  %-6s  %-3s  %-9s  %s\n", "# launch", "end", "node", "job", "task", "locality")
	for _, t := range tasks {
		fmt.Fprintf(bw, "%8s %7s  %-6s  %-3s  %-6s %2d  %s\n", secs(t.LaunchUs), secs(t.FinishUs), t.Host, t.JobID,
			strings.ToLower(t.Type), t.Index, locality(t.Locality))
	}
	for _, j := range res.Jobs {
		fmt.Fprintf(bw, "# job %s flowtime %s\n", j.JobID, secs(j.FlowtimeUs))
	}
	bw.Flush()
	return out.Bytes(), nil
}

// secs writes microseconds as seconds with three decimals.
func secs(us int64) string { return strconv.FormatFloat(float64(us)/1e6, 'f', 3, 64) }

// locality shortens the results' locality names; reduces have none.
func locality(l string) string {
	switch l {
	case "NODE_LOCAL":
		return "node"
	case "RACK_LOCAL":
		return "rack"
	case "OFF_SWITCH":
		return "off"
	case "":
		return "-"
	}
	return l
}

// TestSchedules replays every scenario file and compares the launch log;
// go test ./internal/scenario -update rewrites the logs.
func TestSchedules(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no scenario files in %s", dir)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := parse(path, b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sc.run()
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			golden.Check(t, path, got)
		})
	}
}

// TestParseErrors: a malformed file names its line.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"policy fifo\njobs\nA 0 maps 1\n", "no launches line"},
		{"policy fifo\nlaunches\n", "x:2: a scenario needs a policy line and jobs"},
		{"policy fifo\njobs\nA zero maps 1\nlaunches\n", `x:3: job A: submit "zero"`},
		{"policy fifo\njobs\nA 0 maps x\nlaunches\n", `x:3: job A: "x": want MB`},
		{"policy fifo\njobs\nA 0\nlaunches\n", "x:3: job A has no maps"},
		{"speed 3\n", `x:1: unknown line "speed 3"`},
	} {
		_, err := parse("x", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parse(%q) = %v, want an error containing %q", c.text, err, c.want)
		}
	}
}
