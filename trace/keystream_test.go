package trace

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"testing"
)

// taskKeys and attemptKeys are tasks and attempts cut down to the fields
// OpenAttemptKeys reads.
func taskKeys(ts []Task) []Task {
	var out []Task
	for _, k := range ts {
		out = append(out, Task{JobID: k.JobID, TaskID: k.TaskID, Type: k.Type})
	}
	return out
}

func attemptKeys(as []Attempt) []Attempt {
	var out []Attempt
	for _, a := range as {
		out = append(out, Attempt{JobID: a.JobID, TaskID: a.TaskID, AttemptID: a.AttemptID, Type: a.Type, Status: a.Status,
			StartMs: a.StartMs, FinishMs: a.FinishMs})
	}
	return out
}

// openRowsAndKeys opens the streamed trace dir with opt, and on it the
// jobs with their whole attempts (OpenAttempts) and with their keys
// (OpenAttemptKeys).
func openRowsAndKeys(t *testing.T, dir string, opt StreamOptions) (tr *Trace, rows, keys *JobCursor) {
	t.Helper()
	tr, ok, err := OpenTaskStream(dir, opt)
	if err != nil || !ok {
		t.Fatalf("%s: OpenTaskStream: %v %v", dir, ok, err)
	}
	if rows, err = tr.Stream.OpenAttempts(); err != nil {
		t.Fatal(err)
	}
	if keys, err = tr.Stream.OpenAttemptKeys(); err != nil {
		t.Fatal(err)
	}
	return tr, rows, keys
}

// TestAttemptKeysAsRows: OpenAttemptKeys, which reads three columns of the
// tasks and seven of the attempts, hands out OpenAttempts' jobs, each with
// its tasks and attempts cut down to those fields, on the traces
// TestSpansAsRows reads (every schema version's, every testdata history).
func TestAttemptKeysAsRows(t *testing.T) {
	t.Parallel()
	withAttempts := 0
	for _, dir := range rowTestDirs(t) {
		tr, rows, keys := openRowsAndKeys(t, dir, StreamOptions{Attempts: true})
		tasks, attempts := 0, 0
		for i := 0; ; i++ {
			want, werr := rows.Next()
			got, err := keys.Next()
			if errors.Is(werr, io.EOF) && errors.Is(err, io.EOF) {
				break
			}
			if werr != nil || err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: job %d: %+v, %v; want %+v, %v", dir, i, got, err, want, werr)
			}
			if g, w := keys.Tasks(), taskKeys(rows.Tasks()); !reflect.DeepEqual(g, w) {
				t.Fatalf("%s: job %d: tasks %+v, want %+v", dir, i, g, w)
			}
			if g, w := keys.Attempts(), attemptKeys(rows.Attempts()); !reflect.DeepEqual(g, w) {
				t.Fatalf("%s: job %d: attempts %+v, want %+v", dir, i, g, w)
			}
			tasks += len(keys.Tasks())
			attempts += len(keys.Attempts())
		}
		rows.Close()
		keys.Close()
		if tasks != tr.Stream.NumTasks() || attempts != tr.Stream.NumAttempts() || tasks == 0 {
			t.Fatalf("%s: %d tasks and %d attempts handed out, want %d and %d", dir, tasks, attempts, tr.Stream.NumTasks(), tr.Stream.NumAttempts())
		}
		if attempts > 0 {
			withAttempts++
		}
	}
	if withAttempts < 18 {
		t.Fatalf("%d traces with attempts: the testdata histories were not found", withAttempts)
	}
}

// TestAttemptKeysMidStreamError: a tasks.parquet or attempts.parquet that
// goes bad after it was checked fails OpenAttemptKeys' cursor at that job
// with OpenTasks' or OpenAttempts' error, naming the file, the row and its
// id.
func TestAttemptKeysMidStreamError(t *testing.T) {
	t.Parallel()
	for _, k := range []streamRows{streamedTasks(), streamedAttempts()} {
		k.open = (*JobStream).OpenAttemptKeys
		testMidStreamError(t, k, 3_000, 4_000, 500)
	}
}

// TestJobAttemptsAsAttemptKeys: StreamOptions.JobAttempts is called, as the
// check reads the attempts, once with each job that has attempts, in trace
// order, with OpenAttemptKeys' tasks of it and OpenAttempts' attempts, on
// the traces TestAttemptKeysAsRows reads and on one read 7 rows a batch
// (jobs, tasks and attempts change batch mid-job).
func TestJobAttemptsAsAttemptKeys(t *testing.T) {
	t.Parallel()
	jobs := streamJobs(200)
	tasks := streamTasks(jobs)
	type dirBatch struct {
		dir   string
		batch int // StreamOptions.Batch
	}
	cases := []dirBatch{{writeAttemptDir(t, jobs, tasks, streamAttempts(jobs, tasks)), 7}}
	for _, dir := range rowTestDirs(t) {
		cases = append(cases, dirBatch{dir, 0})
	}
	for _, c := range cases {
		type seen struct {
			job      Job
			tasks    []Task
			attempts []Attempt
		}
		var got []seen
		visit := func(j *Job, ts []Task, as []Attempt) {
			got = append(got, seen{*j, slices.Clone(ts), slices.Clone(as)})
		}
		_, rows, keys := openRowsAndKeys(t, c.dir, StreamOptions{Attempts: true, JobAttempts: visit, Batch: c.batch})
		var want []seen
		for {
			j, err := rows.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if _, kerr := keys.Next(); err != nil || kerr != nil {
				t.Fatal(err, kerr)
			}
			if len(rows.Attempts()) > 0 {
				want = append(want, seen{*j, slices.Clone(keys.Tasks()), rows.Attempts()})
			}
		}
		rows.Close()
		keys.Close()
		if len(got) != len(want) {
			t.Fatalf("%s: %d jobs visited, want %d", c.dir, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: visit %d: %+v\nwant %+v", c.dir, i, got[i], want[i])
			}
		}
	}
}
