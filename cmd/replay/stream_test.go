package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/summary"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestStreamedTraceDir: a job-level trace directory, which replay reads as
// its jobs arrive, gives the table the same trace gives read whole from its
// source file; its bad input (a corrupt jobs.parquet, too many tasks an
// hour) exits 2 naming the file or the jobs, and writes nothing.
func TestStreamedTraceDir(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "fb2009-first50") // the table names the trace by its base name
	writeTraceDir(t, first50, dir)
	if _, ok, err := trace.OpenJobStream(dir); !ok || err != nil {
		t.Fatalf("not streamed: %v %v", ok, err)
	}
	code, held, errOut := runCmd("--trace", first50, "--policy", "fair,fifo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, streamed, errOut := runCmd("--trace", dir, "--policy", "fair,fifo")
	if code != 0 || streamed != held {
		t.Fatalf("streamed: exit %d, %s\n%s\nwant the held trace's table\n%s", code, errOut, streamed, held)
	}

	out := filepath.Join(tmp, "out")
	corrupt := filepath.Join(tmp, "corrupt")
	os.MkdirAll(corrupt, 0o755)
	os.WriteFile(filepath.Join(corrupt, trace.JobsFile), []byte("not parquet"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", corrupt, "--out", out}, "corrupt/jobs.parquet: not a readable Parquet file"},
		{[]string{"--trace", dir, "--out", out, "--max-tasks-per-hour", "100"}, "too many tasks: the "},
	} {
		code, _, errOut := runCmd(c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("replay %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("replay %v left %s behind", c.args, out)
		}
	}
}

// synthTasksDir writes a generated trace with tasks (the synthetic
// generator: jobs a minute apart, 40 maps and 4 reduces each, observed task
// times) as a trace directory under tmp.
func synthTasksDir(t *testing.T, tmp string) (string, *trace.Trace) {
	t.Helper()
	tr, err := trace.Synthetic().Make(trace.GenParams{"jobs": 60, "arrival": "fixed", "interarrival_s": 60,
		"maps_mean": 40, "reduces_mean": 4, "map_time": "exponential", "map_time_mean_s": 20, "map_input_mb": 64}, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "synth-tasks")
	if err := trace.Write(dir, tr); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := trace.OpenTaskStream(dir); !ok || err != nil {
		t.Fatalf("not streamed: %v %v", ok, err)
	}
	return dir, tr
}

// TestStreamedTasksDir: a trace directory with tasks replayed on a given
// hardware model (its tasks read as its jobs arrive) exits 2 naming the file
// and the row, and writes nothing, when its tasks.parquet is corrupt and when
// it goes bad between two runs of one command (the second cell's workload
// reads it mid-stream, after the first cell's results were written to the
// temporary output).
func TestStreamedTasksDir(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir, tr := synthTasksDir(t, tmp)
	hw := filepath.Join("..", "..", "samples", "hardware", "fb-600.toml")
	out := filepath.Join(tmp, "out")
	code, _, errOut := runCmd("--trace", dir, "--hardware", hw, "--policy", "fair", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	os.RemoveAll(out)

	corruptExits2(t, tmp, tr, trace.TasksFile, hw, out)

	// The first cell runs on the good file; then row 1500's type goes bad.
	path := filepath.Join(dir, trace.TasksFile)
	goBad := badRowWriter(t, path, func(rows []trace.TaskRow) { rows[1500].Type = "SHUFFLE" })
	goneBadExits2(t, []string{"--trace", dir, "--hardware", hw, "--policy", "fair,fifo"}, out,
		goBad, fmt.Sprintf("%s: row 1500: ", path), `type "SHUFFLE"`)
}

// corruptExits2: replay of tr written under tmp with its file (tasks.parquet,
// attempts.parquet) not Parquet, on the hardware model hw, exits 2 naming
// the file, and writes nothing at out.
func corruptExits2(t *testing.T, tmp string, tr *trace.Trace, file, hw, out string) {
	t.Helper()
	corrupt := filepath.Join(tmp, "corrupt")
	if err := trace.Write(corrupt, tr); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(corrupt, file), []byte("not parquet"), 0o644)
	code, _, errOut := runCmd("--trace", corrupt, "--hardware", hw, "--out", out)
	if want := "corrupt/" + file + ": not a readable Parquet file"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("corrupt %s: exit %d, stderr %q; want exit 2 and %q", file, code, errOut, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("corrupt %s left %s behind", file, out)
	}
}

// goneBadExits2: replay with args (two cells, run one at a time) to out,
// where bad spoils the trace after the first cell, exits 2 after both cells
// with every one of want in its stderr, and writes nothing at out.
func goneBadExits2(t *testing.T, args []string, out string, bad func() error, want ...string) {
	t.Helper()
	cells := 0
	ctx := context.WithValue(context.Background(), cellDoneKey{}, func() {
		if cells++; cells == 1 {
			if err := bad(); err != nil {
				t.Error(err)
			}
		}
	})
	var stderr strings.Builder
	code := run(ctx, append(args, "--parallel", "1", "--out", out, "--quiet"), strings.NewReader(""), &strings.Builder{}, &stderr)
	for _, w := range want {
		if code != 2 || !strings.Contains(stderr.String(), w) || cells != 2 {
			t.Errorf("gone bad after the first of 2 cells (%d ran): exit %d, stderr %q; want exit 2 and %q", cells, code, stderr.String(), w)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a file gone bad mid-stream left %s behind", out)
	}
}

// TestStreamedTasksPolicyAll: --policy all on a given hardware model adds
// the observed row only for a trace that records a schedule (streamed as
// well: TestStreamedObserved); one without has its observed row dropped.
func TestStreamedTasksPolicyAll(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir, tr := synthTasksDir(t, tmp)
	hw := filepath.Join("..", "..", "samples", "hardware", "fb-600.toml")
	code, out, errOut := runCmd("--trace", dir, "--hardware", hw, "--policy", "all,fifo", "--parallel", "2")
	if code != 0 || strings.Contains(out, "observed") {
		t.Fatalf("no schedule: exit %d, %s\n%s", code, errOut, out)
	}
	for i := range tr.Tasks {
		tr.Tasks[i].Host = fmt.Sprintf("h%d", i%7)
	}
	sched := filepath.Join(tmp, "sched")
	if err := trace.Write(sched, tr); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd("--trace", sched, "--hardware", hw, "--policy", "all,fifo", "--parallel", "2")
	if code != 0 || !strings.Contains(out, "observed") {
		t.Fatalf("with a schedule: exit %d, %s\n%s", code, errOut, out)
	}
}

// TestStreamedWorkloadKept: the workload prepareJobs builds to check a
// streamed trace's cells is kept for the run of the cell it was built for
// (building it again reads the trace's files once more), one per trace and
// hardware model, and dropped once the cell has run; a held trace's is not
// kept. The run gives the table of a run that builds its workload again.
func TestStreamedWorkloadKept(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir, _ := synthTasksDir(t, tmp)
	hw := filepath.Join("..", "..", "samples", "hardware", "fb-600.toml")
	for _, c := range []struct {
		trace string
		kept  []bool
	}{
		{dir, []bool{true, false}},
		{first50, []bool{false, false}},
	} {
		cfg := &config{tracePath: c.trace, format: "auto", hwPath: hw, policies: []string{"fair", "fifo"}, seed: 1,
			parallel: 1, maxTasksPerHour: replay.DefaultMaxTasksPerHour, maxTasks: replay.DefaultMaxTasks}
		inputs := map[string]string{}
		cls, err := plainCells(cfg, inputs)
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := prepareJobs(cfg, cls, strings.NewReader(""), inputs, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != len(c.kept) {
			t.Fatalf("%s: %d jobs, want %d", c.trace, len(jobs), len(c.kept))
		}
		var tables []summary.Run
		for i, j := range jobs {
			if (j.workload != nil) != c.kept[i] {
				t.Errorf("%s: cell %s keeps a workload: %v, want %v", c.trace, j.cell.Dir, j.workload != nil, c.kept[i])
			}
			if j.workload != nil {
				// The kept workload replays as one built for the run.
				again := &job{cell: j.cell, traceSrc: j.traceSrc, trace: j.trace}
				if err := runAll(context.Background(), []*job{again}, cfg, newProgress(io.Discard, 1), ""); err != nil {
					t.Fatal(err)
				}
				tables = append(tables, again.run)
			}
		}
		if err := runAll(context.Background(), jobs, cfg, newProgress(io.Discard, len(jobs)), ""); err != nil {
			t.Fatal(err)
		}
		for i, j := range jobs {
			if j.workload != nil {
				t.Errorf("%s: cell %s keeps its workload after its run", c.trace, j.cell.Dir)
			}
			if c.kept[i] && len(tables) > 0 && !reflect.DeepEqual(j.run, tables[0]) {
				t.Errorf("%s: cell %s on the kept workload: %+v, built again: %+v", c.trace, j.cell.Dir, j.run.Summary, tables[0].Summary)
			}
		}
	}
}

// TestStreamedWorkloadObservedShared: the observed cell of a streamed
// trace takes the workload an earlier cell of the same trace, hardware
// model and seed built to check it (prepareJobs), rather than build it
// again, in trace mode and on a given model; a simulated cell does not, and
// an observed cell of another seed does not. The observed run on the taken
// workload writes the files of one that builds its own.
func TestStreamedWorkloadObservedShared(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "history")
	writeTraceDir(t, jobTrackerLogs, dir)
	hw := filepath.Join("..", "..", "samples", "hardware", "fb-600.toml")
	for _, c := range []struct {
		hw       string
		policies []string
		seeds    []uint64
		shared   []bool // per job: takes the workload of job 0
	}{
		{"", []string{"fair", "fifo", "observed"}, nil, []bool{true, false, true}},
		{hw, []string{"fair", "observed"}, nil, []bool{true, true}},
		{"", []string{"fair", "observed"}, []uint64{1, 2}, []bool{true, true, false, false}},
	} {
		cfg := &config{tracePath: dir, format: "auto", hwPath: c.hw, policies: c.policies, seed: 1,
			parallel: 1, maxTasksPerHour: replay.DefaultMaxTasksPerHour, maxTasks: replay.DefaultMaxTasks}
		inputs := map[string]string{}
		cls, err := plainCells(cfg, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if c.seeds != nil {
			// The cells of a second seed, after the first's.
			var more []replay.Cell
			for _, cl := range cls {
				cl.Seed, cl.Dir = c.seeds[1], cl.Dir+"-seed2"
				more = append(more, cl)
			}
			cls = append(cls, more...)
		}
		jobs, err := prepareJobs(cfg, cls, strings.NewReader(""), inputs, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != len(c.shared) {
			t.Fatalf("%v: %d jobs, want %d", c.policies, len(jobs), len(c.shared))
		}
		for i, j := range jobs {
			if got := j.workload != nil && j.workload == jobs[0].workload; got != c.shared[i] {
				t.Errorf("hardware %q, %v, cell %s (seed %d): takes the first cell's workload %v, want %v",
					c.hw, c.policies, j.cell.Dir, j.cell.Seed, got, c.shared[i])
			}
		}
		last := jobs[len(c.policies)-1]
		if last.cell.Policy != replay.ObservedPolicy || last.workload == nil {
			t.Fatalf("%v: cell %s, workload %v: want the observed cell, with a workload", c.policies, last.cell.Dir, last.workload != nil)
		}
		// The observed run on the taken workload and on one built again.
		var files []map[string][]byte
		for _, w := range []*replay.Workload{last.workload, nil} {
			out := filepath.Join(t.TempDir(), "out")
			j := &job{cell: last.cell, traceSrc: last.traceSrc, trace: last.trace, workload: w}
			run := *cfg
			run.tasks = true
			if err := runAll(context.Background(), []*job{j}, &run, newProgress(io.Discard, 1), out); err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			for _, name := range []string{replay.JobsFile, replay.TasksFile, replay.TimelineFile, replay.SummaryFile} {
				b, err := os.ReadFile(filepath.Join(out, j.cell.Dir, name))
				if err != nil {
					t.Fatal(err)
				}
				got[name] = b
			}
			files = append(files, got)
		}
		if !reflect.DeepEqual(files[0], files[1]) {
			t.Errorf("hardware %q, %v: the observed run on the taken workload wrote other files than on its own", c.hw, c.policies)
		}
	}
}

// jobTrackerLogs is a Hadoop 1 history of 4 jobs and 283 attempts (69
// killed, 4 failed).
const jobTrackerLogs = "../../internal/validation/testdata/traces/hadoop1/apache-hadoop-branch-1-rumen-testdata/sample-job-tracker-logs.gz"

// TestStreamedAttemptsDir: a trace directory with attempts (an ingested
// job history) replayed on a given hardware model is read as its jobs
// arrive, attempts too, and gives the table of the history file read
// whole, with and without the lifecycle, and in trace mode (no
// --hardware: the cluster derived from passes over it); --alone reads it
// whole. A corrupt attempts.parquet exits 2 naming the file, and so does
// one gone bad between two cells of a lifecycle run (the second cell's
// workload reads it), writing nothing, in trace mode too.
func TestStreamedAttemptsDir(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, filepath.Base(jobTrackerLogs))
	tr := writeTraceDir(t, jobTrackerLogs, dir)
	if len(tr.Attempts) == 0 {
		t.Fatalf("%s: no attempts", jobTrackerLogs)
	}
	hw := filepath.Join("..", "..", "samples", "hardware", "fb-600.toml")
	for _, c := range []struct {
		hw       string
		alone    bool
		streamed bool
	}{
		{hw, false, true},
		{hw, true, false},
		{"", false, true},
	} {
		cfg := &config{tracePath: dir, format: "auto", hwPath: c.hw, policies: []string{"fair"}, seed: 1, alone: c.alone,
			parallel: 1, maxTasksPerHour: replay.DefaultMaxTasksPerHour, maxTasks: replay.DefaultMaxTasks}
		inputs := map[string]string{}
		cls, err := plainCells(cfg, inputs)
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := prepareJobs(cfg, cls, strings.NewReader(""), inputs, io.Discard)
		if err != nil || len(jobs) != 1 {
			t.Fatal(len(jobs), err)
		}
		s := jobs[0].trace.Stream
		if got := s != nil && s.HasAttempts() && len(jobs[0].trace.Attempts) == 0; got != c.streamed {
			t.Errorf("hardware %q, alone %v: attempts streamed %v, want %v", c.hw, c.alone, got, c.streamed)
		}
	}
	for _, set := range [][]string{nil, {"--set", "lifecycle=true"}, {"--set", "lifecycle=true", "--set", "task_times=trace"}, {"trace mode"}} {
		args := append([]string{"--hardware", hw, "--policy", "fair,fifo"}, set...)
		if len(set) == 1 && set[0] == "trace mode" {
			args = []string{"--policy", "fair,fifo"}
		}
		code, held, errOut := runCmd(append([]string{"--trace", jobTrackerLogs}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		code, streamed, errOut := runCmd(append([]string{"--trace", dir}, args...)...)
		if code != 0 || streamed != held {
			t.Fatalf("%v: streamed: exit %d, %s\n%s\nwant the held trace's table\n%s", set, code, errOut, streamed, held)
		}
	}

	out := filepath.Join(tmp, "out")
	corruptExits2(t, tmp, tr, trace.AttemptsFile, hw, out)

	// The first cell runs on the good file; then row 200's type goes bad.
	path := filepath.Join(dir, trace.AttemptsFile)
	var id string
	goBad := badRowWriter(t, path, func(rows []trace.AttemptRow) { rows[200].Type, id = "SHUFFLE", rows[200].AttemptID })
	goneBadExits2(t, []string{"--trace", dir, "--hardware", hw, "--policy", "fair,fifo", "--set", "lifecycle=true"}, out,
		goBad, fmt.Sprintf("%s: row 200: attempt %q: type \"SHUFFLE\"", path, id))
	// So in trace mode, whose cluster was derived from the good file.
	if err := trace.Write(dir, tr); err != nil {
		t.Fatal(err)
	}
	goneBadExits2(t, []string{"--trace", dir, "--policy", "fair,fifo"}, out,
		goBad, fmt.Sprintf("%s: row 200: attempt %q: type \"SHUFFLE\"", path, id))
}

// badRowWriter reads the rows of the Parquet file at path, lets bad edit
// them, and returns what writes them back (the file going bad mid-run).
func badRowWriter[T any](t *testing.T, path string, bad func([]T)) func() error {
	t.Helper()
	rows, meta, err := trace.ReadParquetFile[T](path)
	if err != nil {
		t.Fatal(err)
	}
	bad(rows)
	return func() error { return trace.WriteParquetFile(path, rows, meta) }
}

// TestStreamedObserved: a trace directory of a job history (attempts
// too) is read as its jobs arrive for every cell, the observed row's too
// (replay.Observed reads it job by job), whether the row is named or added
// by --policy all, in trace mode and on a given hardware model; its table
// is the one of the history file read whole, with and without --tasks.
// One gone bad between the cells of a trace-mode run with the observed row
// exits 2 and writes nothing.
func TestStreamedObserved(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, filepath.Base(jobTrackerLogs))
	tr := writeTraceDir(t, jobTrackerLogs, dir)
	hw := filepath.Join("..", "..", "samples", "hardware", "fb-600.toml")
	for _, c := range []struct {
		hw       string
		policies []string
	}{
		{"", []string{"fair", "observed"}},
		{"", []string{"all"}},
		{hw, []string{"observed"}},
	} {
		cfg := &config{tracePath: dir, format: "auto", hwPath: c.hw, policies: c.policies, seed: 1,
			parallel: 1, maxTasksPerHour: replay.DefaultMaxTasksPerHour, maxTasks: replay.DefaultMaxTasks}
		inputs := map[string]string{}
		cls, err := plainCells(cfg, inputs)
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := prepareJobs(cfg, cls, strings.NewReader(""), inputs, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		observed := 0
		for _, j := range jobs {
			if j.cell.Policy == replay.ObservedPolicy {
				observed++
			}
			if s := j.trace.Stream; s == nil || !s.HasAttempts() || len(j.trace.Tasks) > 0 {
				t.Errorf("hardware %q, policies %v: cell %s's trace read whole", c.hw, c.policies, j.cell.Dir)
			}
		}
		if observed != 1 {
			t.Errorf("hardware %q, policies %v: %d observed cells, want 1", c.hw, c.policies, observed)
		}
	}
	for _, args := range [][]string{
		{"--policy", "fair,observed"},
		{"--policy", "fair,observed", "--tasks"},
		{"--hardware", hw, "--policy", "observed", "--tasks"},
	} {
		heldOut, streamedOut := filepath.Join(tmp, "held"), filepath.Join(tmp, "streamed")
		code, held, errOut := runCmd(append([]string{"--trace", jobTrackerLogs, "--out", heldOut}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		code, streamed, errOut := runCmd(append([]string{"--trace", dir, "--out", streamedOut}, args...)...)
		if code != 0 || streamed != held || !strings.Contains(held, "observed") {
			t.Fatalf("%v: streamed: exit %d, %s\n%s\nwant the held trace's table\n%s", args, code, errOut, streamed, held)
		}
		os.RemoveAll(heldOut)
		os.RemoveAll(streamedOut)
	}

	// The first cell runs on the good file; then row 100's type goes bad.
	out := filepath.Join(tmp, "out")
	path := filepath.Join(dir, trace.TasksFile)
	var id string
	goBad := badRowWriter(t, path, func(rows []trace.TaskRow) { rows[100].Type, id = "SHUFFLE", rows[100].TaskID })
	goneBadExits2(t, []string{"--trace", dir, "--policy", "fair,observed", "--tasks"}, out,
		goBad, fmt.Sprintf("%s: row 100: task %q: type \"SHUFFLE\"", path, id))
	// So with its first page header spoiled in place: the observed cell
	// finds it as it starts (bad input naming the file, not a trace without
	// a schedule).
	if err := trace.Write(dir, tr); err != nil {
		t.Fatal(err)
	}
	spoil := func() error {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteAt(bytes.Repeat([]byte{0xff}, 20), 4)
		return err
	}
	goneBadExits2(t, []string{"--trace", dir, "--policy", "fair,observed", "--tasks"}, out,
		spoil, fmt.Sprintf("%s: not a readable Parquet file", path))
}

// writeTraceDir reads the raw trace file src and writes it as the trace
// directory dir (trace.Write), which replay then reads as its jobs arrive.
func writeTraceDir(t *testing.T, src, dir string) *trace.Trace {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(src, f, "auto", trace.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if err := trace.Write(dir, tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestStreamedObservedAlone: the observed cell of a streamed trace that
// no simulated cell shares builds its workload for the observed run only
// (replay.WorkloadOptions.Observed, its lifecycle maps made job by job),
// and writes the files it writes beside fair, whose full workload it takes
// then; in trace mode and on a given model with the lifecycle. A simulated
// cell after such an observed cell (in run order, as an experiment may
// order them) builds its own workload and runs (replay.Run refuses one
// built for the observed run only).
func TestStreamedObservedAlone(t *testing.T) {
	t.Parallel()
	// The validation histories: in the jhist tree's a job failed by a
	// task, in the Hadoop 1 tree's observed speculative copies set jobs'
	// ideals (docs/performance.md, h-obsleft).
	var dirs []string
	for _, sub := range []string{"jhist", "hadoop1"} {
		tr, _, err := trace.ReadTree(context.Background(), filepath.Join("..", "..", "internal", "validation", "testdata", "traces", sub), trace.TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), sub)
		if err := trace.Write(dir, tr); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	hw := filepath.Join("..", "..", "samples", "hardware", "fb-600.toml")
	for _, run := range [][]string{{dirs[0]}, {dirs[1]}, {dirs[1], "--hardware", hw, "--set", "lifecycle=true", "--set", "task_times=trace"}} {
		dir, set := run[0], run[1:]
		var files []map[string][]byte
		for _, policies := range []string{"observed", "fair,observed"} {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"--trace", dir, "--policy", policies, "--tasks", "--parallel", "1", "--quiet", "--out", out}, set...)
			if code, _, errOut := runCmd(args...); code != 0 {
				t.Fatalf("%s %v %s: exit %d: %s", dir, set, policies, code, errOut)
			}
			got := map[string][]byte{}
			for _, name := range []string{replay.JobsFile, replay.TasksFile, replay.TimelineFile, replay.SummaryFile} {
				b, err := os.ReadFile(filepath.Join(out, "policy=observed", name))
				if err != nil {
					t.Fatal(err)
				}
				got[name] = b
			}
			files = append(files, got)
		}
		for name, b := range files[0] {
			if !bytes.Equal(b, files[1][name]) {
				t.Errorf("%s %v: the observed cell's %s differs alone and beside fair", filepath.Base(dir), set, name)
			}
		}
	}
	cfg := &config{tracePath: dirs[1], format: "auto", policies: []string{"fair", "observed"}, seed: 1,
		parallel: 1, maxTasksPerHour: replay.DefaultMaxTasksPerHour, maxTasks: replay.DefaultMaxTasks}
	inputs := map[string]string{}
	cls, err := plainCells(cfg, inputs)
	if err != nil || len(cls) != 2 || cls[1].Policy != replay.ObservedPolicy {
		t.Fatalf("%d cells, %v", len(cls), err)
	}
	cls[0], cls[1] = cls[1], cls[0] // the observed cell first
	jobs, err := prepareJobs(cfg, cls, strings.NewReader(""), inputs, io.Discard)
	if err != nil || len(jobs) != 2 {
		t.Fatal(len(jobs), err)
	}
	if jobs[0].workload == nil || jobs[1].workload != nil {
		t.Fatalf("observed cell's workload kept %v, fair's %v; want kept, and none", jobs[0].workload != nil, jobs[1].workload != nil)
	}
	if err := runAll(context.Background(), jobs, cfg, newProgress(io.Discard, 2), ""); err != nil {
		t.Fatal(err)
	}
}
