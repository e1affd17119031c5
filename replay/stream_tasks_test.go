package replay_test

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// taskTrace is mixedJobs(n) with tasks for most jobs: jobs k%6 == 2 have
// none (their tasks are synthesized from their sizes), the others 1 to 12
// maps and 0 to 3 reduces with observed starts and finishes on hosts
// h0..h15 of racks r0, r1, the maps' preferred hosts, and for k%4 == 0 a
// setup and a cleanup task. No task starts in the first 20 s.
func taskTrace(n int) *trace.Trace {
	jobs := mixedJobs(n)
	var tasks []trace.Task
	for k := range jobs {
		j := &jobs[k]
		if k%6 == 2 {
			continue
		}
		host := func(i int) (string, string) {
			h := (k*7 + i) % 16
			return fmt.Sprintf("h%d", h), fmt.Sprintf("r%d", h/8)
		}
		add := func(typ trace.TaskType, i int, startMs, durMs int64) {
			if k < 3 {
				startMs += 100_000 // the cluster comes up after the first jobs' submit (clusterUpUs)
			}
			t := trace.NewTask(j.ID, fmt.Sprintf("%s_%s_%d", j.ID, typ, i), typ, int32(i))
			t.Status, t.StartMs, t.FinishMs = trace.StatusSucceeded, j.SubmitMs+startMs, j.SubmitMs+startMs+durMs
			t.Host, t.Rack = host(i)
			switch typ {
			case trace.Map:
				t.InputBytes, t.OutputBytes = int64(1+i%3)<<24, int64(i%5)<<20
				h1, r1 := host(i + 1)
				h2, r2 := host(i + 5)
				t.PreferredHosts, t.PreferredRacks = []string{h1, h2}, []string{r1, r2}
			case trace.Reduce:
				t.ShuffleBytes, t.OutputBytes = int64(1+i)<<22, 1<<20
			}
			tasks = append(tasks, t)
		}
		maps := 1 + k%12
		for i := range maps {
			add(trace.Map, i, 3000+int64(i%4)*9000, 5000+int64(k%7)*1000)
		}
		for i := range k % 4 {
			add(trace.Reduce, i, 40_000, 8000+int64(i)*500)
		}
		if k%4 == 0 {
			add(trace.Setup, 0, 1000, 1500)
			add(trace.Cleanup, 0, 60_000, 1200)
		}
	}
	return &trace.Trace{Jobs: jobs, Tasks: tasks, Meta: trace.Meta{SourceFormat: "synthetic"}}
}

// streamDir writes tr as a trace directory and returns it read whole and
// opened for streaming with opt, with its tasks (and with opt.Attempts its
// attempts).
func streamDir(t *testing.T, tr *trace.Trace, opt ...trace.StreamOptions) (dir string, held, streamed *trace.Trace) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "trace")
	if err := trace.Write(dir, tr); err != nil {
		t.Fatal(err)
	}
	held, err := trace.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	streamed, ok, err := trace.OpenTaskStream(dir, opt...)
	if err != nil || !ok || !streamed.Stream.HasTasks() || streamed.Stream.NumTasks() != len(held.Tasks) ||
		streamed.Stream.NumAttempts() != len(held.Attempts) || streamed.Stream.HasAttempts() != (len(opt) > 0 && opt[0].Attempts) {
		t.Fatalf("OpenTaskStream: %v %v", ok, err)
	}
	return dir, held, streamed
}

// replaysAsHeld replays held and streamed on hw with policy (and Alone's
// one-job workloads when alone) and fails unless the results are the same.
func replaysAsHeld(t *testing.T, hw replay.Hardware, policyName string, held, streamed *trace.Trace, alone bool) *replay.Result {
	t.Helper()
	run := func(tr *trace.Trace) *replay.Result {
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 3), 3, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := policy.New(policyName)
		if err != nil {
			t.Fatal(err)
		}
		opt := replay.Options{Seed: 3, Timeline: true, RecordTasks: true, CheckInvariants: true}
		if alone {
			opt.Alone = func() (replay.Policy, error) { return policy.New(policyName) }
		}
		res, err := replay.Run(w, p, opt)
		if err != nil {
			t.Fatal(err)
		}
		res.Wall = 0
		return res
	}
	a, b := run(held), run(streamed)
	if a.Summary.Jobs == 0 || !reflect.DeepEqual(a.Jobs, b.Jobs) || !reflect.DeepEqual(a.Tasks, b.Tasks) ||
		!reflect.DeepEqual(a.Timeline, b.Timeline) || !reflect.DeepEqual(a.NodeNet, b.NodeNet) || !reflect.DeepEqual(a.Summary, b.Summary) {
		t.Fatalf("streamed run differs from held: %d jobs %d events, streamed %d jobs %d events",
			a.Summary.Jobs, a.Summary.Events, b.Summary.Jobs, b.Summary.Events)
	}
	return a
}

// TestStreamedTasksReplayAsHeld: a trace with tasks read as its jobs arrive,
// each with its tasks, replays to the same results as the same trace read
// whole: in model mode and with the observed task times, with the
// lifecycle (setup and cleanup tasks from the trace, the cluster's start
// from the earliest task), under network = "flow", on the cluster derived
// from the trace (its hosts and the maps' preferred hosts), and with
// --alone's one-job workloads; its identity (read for it, and hashed as
// OpenTaskStream checks it) and its workload's length are the same too,
// and so is its observed schedule (TestObservedStreamedAsHeld for the
// files).
func TestStreamedTasksReplayAsHeld(t *testing.T) {
	// 1,500 jobs: 10,750 tasks, two 4,096-row batches crossed; the fast
	// lane's streams read batches of 512 rows from an eighth of the jobs,
	// and cross two too.
	jobs, opt := 1500, trace.StreamOptions{}
	if testgate.IsFast() {
		jobs, opt.Batch = 1500/8, 4096/8
	}
	dir, held, streamed := streamDir(t, taskTrace(jobs), opt)
	if b := cmp.Or(opt.Batch, 4096); streamed.Stream.NumTasks() <= 2*b {
		t.Fatalf("%d tasks: two batches of %d rows not crossed", streamed.Stream.NumTasks(), b)
	}
	h := replay.NewTraceHash()
	if _, ok, err := trace.OpenTaskStream(dir, trace.StreamOptions{Visit: h.Visit}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if a, b, c := replay.TraceSHA256(held), replay.TraceSHA256(streamed), h.Sum(); a != b || a != c || a == "" {
		t.Fatalf("TraceSHA256: held %s, streamed %s, hashed as checked %s", a, b, c)
	}
	if !replay.HasObservedSchedule(streamed) {
		t.Fatal("HasObservedSchedule: false for the streamed trace")
	}
	base := streamHardware
	baseHW, err := replay.ParseHardware([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	derived, ok, err := replay.TraceHardware(held, baseHW)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, c := range []struct {
		name, extra, policy string
		hw                  *replay.Hardware
		alone               bool
	}{
		{"fair model", `task_times = "model"`, "fair", nil, false},
		{"fifo trace times", `task_times = "trace"`, "fifo", nil, false},
		{"lifecycle trace times", "task_times = \"trace\"\nlifecycle = true", "fair", nil, false},
		{"lifecycle model", "task_times = \"model\"\nlifecycle = true", "capacity", nil, false},
		{"flow", "network = \"flow\"\nmap_compute_mb_per_s = 40", "fair", nil, false},
		{"derived cluster", "", "fair", &derived, false},
		{"alone", "", "fifo", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var hw replay.Hardware
			if c.hw != nil {
				hw = *c.hw
			} else if hw, err = replay.ParseHardware([]byte(base + c.extra)); err != nil {
				t.Fatal(err)
			}
			h, s := held, streamed
			if c.alone {
				n := 120
				if testgate.IsFast() {
					n = 30 // a run a job, twice; every kind of job of taskTrace still in
				}
				_, h, s = streamDir(t, taskTrace(n))
			}
			replaysAsHeld(t, hw, c.policy, h, s, c.alone)
		})
	}
	hw := derived
	observed := func(tr *trace.Trace) *replay.Result {
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := replay.Observed(w, replay.Options{Seed: 1, RecordTasks: true, Timeline: true})
		if err != nil {
			t.Fatal(err)
		}
		res.Wall = 0
		return res
	}
	if got, want := observed(streamed), observed(held); !reflect.DeepEqual(got, want) {
		t.Errorf("Observed on streamed tasks: %+v\nwant the held trace's %+v", got.Summary, want.Summary)
	}
}

// TestStreamedTasksRefusedAsHeld: the workload's checks refuse a trace
// with streamed tasks with a held one's errors: the per-hour and total
// task limits, counted from the listed tasks (setup and cleanup too) and
// the synthesized ones.
func TestStreamedTasksRefusedAsHeld(t *testing.T) {
	_, held, streamed := streamDir(t, taskTrace(1500))
	hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		opt       replay.WorkloadOptions
		wantError bool
	}{
		{"per hour", replay.WorkloadOptions{MaxTasksPerHour: 900}, true},
		{"total", replay.WorkloadOptions{MaxTasks: 9_000}, true},
		{"fits", replay.WorkloadOptions{}, false},
		{"incomplete too", replay.WorkloadOptions{IncludeIncomplete: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			wh, eh := replay.NewWorkload(held, &hw, replay.NewTopology(&hw, 1), 1, c.opt)
			ws, es := replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, c.opt)
			if (eh != nil) != c.wantError || fmt.Sprint(eh) != fmt.Sprint(es) {
				t.Fatalf("held: %v\nstreamed: %v", eh, es)
			}
			if eh == nil && wh.Len() != ws.Len() {
				t.Fatalf("held %d jobs, streamed %d", wh.Len(), ws.Len())
			}
			t.Log(eh)
		})
	}
}

// TestStreamedTasksMidRunError: a tasks.parquet that goes bad after the
// workload checked it (replaced by one with an unknown task type two
// thirds in) fails the run when the job of that task arrives, with an
// error naming the file and the row that is bad input, and the run's
// results directory is not left behind half-written.
func TestStreamedTasksMidRunError(t *testing.T) {
	tr := taskTrace(1500)
	dir, _, streamed := streamDir(t, tr)
	hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad := 2 * len(tr.Tasks) / 3
	rewriteRow(t, filepath.Join(dir, trace.TasksFile), func(rows []trace.TaskRow) { rows[bad].Type = "SHUFFLE" })
	out := filepath.Join(t.TempDir(), "run")
	rw, err := replay.NewRunWriter(out)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := policy.New("fair")
	_, err = replay.Run(w, p, replay.Options{Seed: 1, Out: rw, Timeline: true})
	want := fmt.Sprintf("%s: row %d: task %q: type \"SHUFFLE\"", filepath.Join(dir, trace.TasksFile), bad, tr.Tasks[bad].TaskID)
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, trace.ErrBadInput) {
		t.Fatalf("run: %v\nwant bad input with %q", err, want)
	}
	rw.Abort()
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("%s left with %d files", out, len(ents))
	}
}

// rewriteRow rewrites the Parquet file path of rows R after edit, keeping
// its metadata.
func rewriteRow[R any](t *testing.T, path string, edit func(rows []R)) {
	t.Helper()
	rows, meta, err := trace.ReadParquetFile[R](path)
	if err != nil {
		t.Fatal(err)
	}
	edit(rows)
	if err := trace.WriteParquetFile(path, rows, meta); err != nil {
		t.Fatal(err)
	}
}
