package trace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

// spansOf is what each hands out as spans, in order, with their positions.
func spansOf(t *testing.T, each func(func(int, *Span) error) error) []Span {
	t.Helper()
	var got []Span
	err := each(func(i int, sp *Span) error {
		if i != len(got) {
			t.Fatalf("position %d, want %d", i, len(got))
		}
		got = append(got, *sp)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// rowSpans is the spans of whole rows: EachTask's tasks and EachAttempt's
// attempts cut down to a Span, and the tasks' with their launch lags.
func rowSpans(t *testing.T, s *JobStream) (tasks, attempts, lags []Span) {
	t.Helper()
	err := s.EachTask(func(_ int, k *Task) error {
		tasks = append(tasks, Span{k.JobID, k.TaskID, k.Host, k.Type, k.StartMs, k.FinishMs, Unknown})
		lags = append(lags, Span{k.JobID, k.TaskID, k.Host, k.Type, k.StartMs, k.FinishMs, k.LaunchLagMs})
		return nil
	})
	if err == nil {
		err = s.EachAttempt(func(_ int, a *Attempt) error {
			attempts = append(attempts, Span{a.JobID, a.TaskID, a.Host, a.Type, a.StartMs, a.FinishMs, Unknown})
			return nil
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return tasks, attempts, lags
}

// rowTestDirs is the trace directories the column readers are checked on
// against whole rows: a synthetic trace with failed and killed attempts,
// unknown times and lags and hostless tasks, every schema version's sample
// trace, and every history of testdata (each folder and file) ingested and
// written (historyTraceDirs, written once for the tests that call this).
func rowTestDirs(t *testing.T) []string {
	t.Helper()
	jobs := streamJobs(300)
	tasks := streamTasks(jobs)
	for i := range tasks {
		switch i % 11 {
		case 3:
			tasks[i].Host = ""
		case 5:
			tasks[i].StartMs, tasks[i].FinishMs = Unknown, Unknown
		}
		if i%7 != 2 {
			tasks[i].LaunchLagMs = int64(i % 13 * 100)
		}
	}
	dirs := []string{writeAttemptDir(t, jobs, tasks, streamAttempts(jobs, tasks))}
	for _, v := range []string{"sample-trace", "sample-trace-v1", "sample-trace-v2", "sample-trace-v2.1", "sample-trace-v2.2", "sample-trace-v2.3"} {
		dirs = append(dirs, filepath.Join("testdata", v))
	}
	histories, err := historyTraceDirs()
	if err != nil {
		t.Fatal(err)
	}
	return append(dirs, histories...)
}

// historyTraceDirs is every history of testdata (each folder and file)
// ingested and written, once, under historyTraceRoot, which TestMain
// removes; the tests only read these directories.
var historyTraceDirs = sync.OnceValues(func() ([]string, error) {
	root, err := os.MkdirTemp("", "trace-histories-")
	if err != nil {
		return nil, err
	}
	historyTraceRoot.Store(&root)
	var dirs []string
	for _, sub := range []string{"jhist", "hadoop1", "rumen"} {
		err := filepath.WalkDir(filepath.Join("testdata", sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			tr, _, err := ReadTree(context.Background(), p, TreeOptions{})
			if err != nil || len(tr.Tasks) == 0 {
				return nil // a folder of configurations or topologies
			}
			dir := filepath.Join(root, fmt.Sprint(len(dirs)))
			if err := Write(dir, tr); err != nil {
				return err
			}
			dirs = append(dirs, dir)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return dirs, nil
})

// historyTraceRoot is the directory historyTraceDirs wrote, if it ran.
var historyTraceRoot atomic.Pointer[string]

// TestSpansAsRows: EachTaskSpan and EachAttemptSpan, which read six columns,
// hand out what EachTask and EachAttempt do, cut down to a span, and
// EachTaskLagSpan, which reads seven, the tasks' with their launch lags: on a
// synthetic trace with failed and killed attempts, unknown times and lags and
// hostless tasks, on every schema version's sample trace, and on every history of testdata (each folder and file) ingested and
// written.
func TestSpansAsRows(t *testing.T) {
	t.Parallel()
	dirs := rowTestDirs(t)
	withAttempts, lags := 0, int64(0)
	for _, dir := range dirs {
		tr, ok, err := OpenTaskStream(dir, StreamOptions{Attempts: true})
		if err != nil || !ok {
			t.Fatalf("%s: OpenTaskStream: %v %v", dir, ok, err)
		}
		wantTasks, wantAttempts, wantLags := rowSpans(t, tr.Stream)
		if len(wantTasks) == 0 {
			t.Fatalf("%s: no tasks", dir)
		}
		if got := spansOf(t, tr.Stream.EachTaskSpan); !reflect.DeepEqual(got, wantTasks) {
			t.Errorf("%s: EachTaskSpan differs from EachTask (%d and %d spans)", dir, len(got), len(wantTasks))
		}
		if got := spansOf(t, tr.Stream.EachTaskLagSpan); !reflect.DeepEqual(got, wantLags) {
			t.Errorf("%s: EachTaskLagSpan differs from EachTask (%d and %d spans)", dir, len(got), len(wantLags))
		}
		for _, k := range wantLags {
			lags += min(1, max(0, k.LaunchLagMs))
		}
		if got := spansOf(t, tr.Stream.EachAttemptSpan); !reflect.DeepEqual(got, wantAttempts) {
			t.Errorf("%s: EachAttemptSpan differs from EachAttempt (%d and %d spans)", dir, len(got), len(wantAttempts))
		}
		if len(wantAttempts) > 0 {
			withAttempts++
		}
	}
	if len(dirs) < 24 || withAttempts < 18 {
		t.Fatalf("%d traces, %d with attempts: the testdata histories were not found", len(dirs), withAttempts)
	}
	if lags < 1000 {
		t.Errorf("only %d tasks with a positive launch lag", lags)
	}
}

// TestSpanStopsAtFnError: an error of fn stops the read and comes back as
// it is, in a trace of the current schema and of the first.
func TestSpanStopsAtFnError(t *testing.T) {
	jobs := streamJobs(20)
	tasks := streamTasks(jobs)
	stop := errors.New("stop")
	for _, dir := range []string{writeAttemptDir(t, jobs, tasks, streamAttempts(jobs, tasks)), filepath.Join("testdata", "sample-trace-v1")} {
		tr, ok, err := OpenTaskStream(dir, StreamOptions{Attempts: true})
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		n := 0
		err = tr.Stream.EachTaskSpan(func(int, *Span) error {
			if n++; n == 3 {
				return stop
			}
			return nil
		})
		if err != stop || n != 3 {
			t.Fatalf("%s: %v after %d spans, want stop after 3", dir, err, n)
		}
	}
}

// TestSpanFileGone: a tasks.parquet removed after the trace was opened is
// the row reader's error.
func TestSpanFileGone(t *testing.T) {
	jobs := streamJobs(5)
	dir := writeTraceDir(t, jobs, streamTasks(jobs))
	tr, ok, err := OpenTaskStream(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := os.Remove(filepath.Join(dir, TasksFile)); err != nil {
		t.Fatal(err)
	}
	want := tr.Stream.EachTask(func(int, *Task) error { return nil })
	got := tr.Stream.EachTaskSpan(func(int, *Span) error { return nil })
	if want == nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("EachTaskSpan: %v; want EachTask's %v", got, want)
	}
}
