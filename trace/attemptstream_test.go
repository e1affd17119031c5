package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// streamAttempts is the attempts of tasks, in canonical order: one that
// succeeds per map and reduce, after a failed one for every third, beside a
// killed speculative copy for every fifth, and one per setup and cleanup.
func streamAttempts(jobs []Job, tasks []Task) []Attempt {
	var as []Attempt
	for i := range tasks {
		k := &tasks[i]
		add := func(n int, status string, start int64, spec bool) {
			a := NewAttempt(k.JobID, k.TaskID, fmt.Sprintf("%s_a%d", k.TaskID, n), k.Type)
			a.Status, a.StartMs, a.FinishMs, a.Host, a.Speculative = status, start, start+int64(500+i%97), fmt.Sprintf("h%d", i%13), spec
			as = append(as, a)
		}
		if k.Type.IsWork() && i%3 == 0 {
			add(0, StatusFailed, max(k.StartMs-600, 0), false)
		}
		add(1, StatusSucceeded, k.StartMs, false)
		if k.Type.IsWork() && i%5 == 0 {
			add(2, StatusKilled, k.StartMs+100, true)
		}
	}
	tr := &Trace{Jobs: jobs, Tasks: tasks, Attempts: as}
	tr.Sort()
	return tr.Attempts
}

// writeAttemptRows writes rows as the attempts.parquet of dir.
func writeAttemptRows(t *testing.T, dir string, rows []AttemptRow) {
	t.Helper()
	meta, err := encodeMeta(&Meta{SourceFormat: "jhist"})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteParquetFile(filepath.Join(dir, AttemptsFile), rows, meta); err != nil {
		t.Fatal(err)
	}
}

// writeAttemptDir writes jobs, tasks and attempts, as they are, as a new
// trace directory.
func writeAttemptDir(t *testing.T, jobs []Job, tasks []Task, as []Attempt) string {
	dir := writeTraceDir(t, jobs, tasks)
	writeAttemptRows(t, dir, attemptRows(as))
	return dir
}

// TestAttemptStreamMatchesRead: a trace with attempts opened for streaming
// with StreamOptions.Attempts hands out, through OpenAttempts, Read's jobs
// each with Read's tasks and attempts of it, and through EachAttempt Read's
// attempts in Read's order; without the option it is not streamed.
func TestAttemptStreamMatchesRead(t *testing.T) {
	t.Parallel()
	// The fast lane's stream reads 512-row batches of an eighth of the jobs
	// (as many batches of each file as the full lane's 4,096).
	n, opt := 3_000, StreamOptions{Attempts: true}
	if testgate.IsFast() {
		n, opt.Batch = 3_000/8, 4096/8
	}
	jobs := streamJobs(n)
	tasks := streamTasks(jobs)
	dir := writeAttemptDir(t, jobs, tasks, streamAttempts(jobs, tasks))
	want, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tr, ok, err := OpenTaskStream(dir); ok || err != nil || tr != nil {
		t.Fatalf("without StreamOptions.Attempts: %v %v %v, want not streamed and no error", tr, ok, err)
	}
	tr, ok, err := OpenTaskStream(dir, opt)
	if err != nil || !ok {
		t.Fatalf("OpenTaskStream: ok %v, err %v", ok, err)
	}
	if tr.Attempts != nil || !tr.Stream.HasAttempts() || tr.Stream.NumAttempts() != len(want.Attempts) || tr.Stream.NumTasks() != len(want.Tasks) {
		t.Fatalf("streamed: %d attempts held, %d streamed; want none, %d", len(tr.Attempts), tr.Stream.NumAttempts(), len(want.Attempts))
	}
	c, err := tr.Stream.OpenAttempts()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := cursorMatchesRead(t, c, want)
	if a != len(want.Attempts) || a < n {
		t.Fatalf("%d attempts handed out of %d", a, len(want.Attempts))
	}
	var got []Attempt
	if err := tr.Stream.EachAttempt(func(_ int, a *Attempt) error { got = append(got, *a); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want.Attempts) {
		t.Fatal("EachAttempt's attempts differ from Read's")
	}

	// Attempts without a tasks.parquet.
	if err := os.Remove(filepath.Join(dir, TasksFile)); err != nil {
		t.Fatal(err)
	}
	want, err = Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, ok, err = OpenTaskStream(dir, opt)
	if err != nil || !ok || tr.Stream.HasTasks() || tr.Stream.NumAttempts() != len(want.Attempts) {
		t.Fatalf("without tasks.parquet: %v, %v", ok, err)
	}
	c2, err := tr.Stream.OpenAttempts()
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	cursorMatchesRead(t, c2, want)
}

// TestAttemptStreamRejectsAsRead: what Read refuses in a trace with
// attempts, OpenTaskStream with StreamOptions.Attempts refuses with the same
// error, in the same order of checks.
func TestAttemptStreamRejectsAsRead(t *testing.T) {
	t.Parallel()
	// The fast lane reads the stream 512 rows a batch (the full lane at
	// pqfile's 4,096) from a trace an eighth the size, with every row and job
	// index an eighth of the full lane's (b): each edit is in the same batch
	// of the same file, and as many batches are read after it.
	scale, opt := 1, StreamOptions{Attempts: true}
	if testgate.IsFast() {
		scale, opt = 8, StreamOptions{Attempts: true, Batch: 4096 / 8}
	}
	// With the attempts visited job by job, as the observed run's
	// workload has them (the jobs the check follows read the tasks' keys
	// beside): the same errors.
	opt.JobAttempts = func(*Job, []Task, []Attempt) {}
	b := func(i int) int { return i / scale }
	edit := func(f func(jobs []Job, tasks []Task, as []Attempt) []Attempt) func(t *testing.T) string {
		return func(t *testing.T) string {
			jobs := streamJobs(b(2_000))
			tasks := streamTasks(jobs)
			as := f(jobs, tasks, streamAttempts(jobs, tasks))
			return writeAttemptDir(t, jobs, tasks, as)
		}
	}
	badType := func(f func(jobs []Job, tasks []Task, as []Attempt)) func(t *testing.T) string {
		return func(t *testing.T) string {
			jobs := streamJobs(b(2_000))
			tasks := streamTasks(jobs)
			as := streamAttempts(jobs, tasks)
			f(jobs, tasks, as)
			dir := writeTraceDir(t, jobs, tasks)
			rows := attemptRows(as)
			rows[b(3000)].Type = "SHUFFLE"
			writeAttemptRows(t, dir, rows)
			return dir
		}
	}
	testRejectsAsRead(t, []rejectCase{
		{"attempt of no job", edit(func(_ []Job, _ []Task, a []Attempt) []Attempt { a[b(2500)].JobID = "nojob"; return a })},
		{"attempt of an earlier job", edit(func(j []Job, _ []Task, a []Attempt) []Attempt { a[b(2500)].JobID = j[b(10)].ID; return a })},
		{"attempt of an earlier job, bad integer", edit(func(j []Job, _ []Task, a []Attempt) []Attempt {
			a[b(2500)].JobID, a[b(2500)].SortFinishMs = j[b(10)].ID, -5
			return a
		})},
		{"attempts of a job apart", edit(func(_ []Job, _ []Task, a []Attempt) []Attempt { a[b(2500)].JobID = a[b(2700)].JobID; return a })},
		{"duplicate attempt", edit(func(_ []Job, _ []Task, a []Attempt) []Attempt { a[b(2000)+1] = a[b(2000)]; return a })},
		{"attempts out of order", edit(func(_ []Job, _ []Task, a []Attempt) []Attempt {
			for i := b(1000); i < len(a); i++ {
				if a[i].JobID == a[i-1].JobID {
					a[i-1], a[i] = a[i], a[i-1]
					break
				}
			}
			return a
		})},
		{"empty attempt id", edit(func(_ []Job, _ []Task, a []Attempt) []Attempt { a[b(2800)].AttemptID = ""; return a })},
		{"bad integer", edit(func(_ []Job, _ []Task, a []Attempt) []Attempt { a[b(2800)].StartMs = -3; return a })},
		{"task error and attempt error", edit(func(_ []Job, k []Task, a []Attempt) []Attempt { a[b(10)].StartMs = -3; k[b(3000)].Index = -1; return a })},
		{"job error and attempt error", edit(func(j []Job, _ []Task, a []Attempt) []Attempt {
			a[b(10)].StartMs = -3
			j[b(1500)].NumMaps = -3
			return a
		})},
		{"bad type after a bad attempt", badType(func(_ []Job, _ []Task, a []Attempt) { a[b(100)].StartMs = -3 })},
		{"bad type and a bad task", badType(func(_ []Job, k []Task, _ []Attempt) { k[b(100)].Index = -1 })},
		{"bad task type and a bad attempt type", func(t *testing.T) string {
			jobs := streamJobs(200)
			tasks := streamTasks(jobs)
			as := streamAttempts(jobs, tasks)
			rows := taskRows(tasks)
			rows[100].Type = "SHUFFLE"
			dir := writeTraceRows(t, jobs, rows)
			arows := attemptRows(as)
			arows[50].Type = "SHUFFLE"
			writeAttemptRows(t, dir, arows)
			return dir
		}},
		{"attempts not parquet", func(t *testing.T) string {
			jobs := streamJobs(10)
			dir := writeTraceDir(t, jobs, streamTasks(jobs))
			os.WriteFile(filepath.Join(dir, AttemptsFile), []byte("hello, not parquet"), 0o644)
			return dir
		}},
		{"attempts without metadata", func(t *testing.T) string {
			jobs := streamJobs(10)
			tasks := streamTasks(jobs)
			dir := writeTraceDir(t, jobs, tasks)
			if err := WriteParquetFile(filepath.Join(dir, AttemptsFile), attemptRows(streamAttempts(jobs, tasks)), nil); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"tasks not parquet", func(t *testing.T) string {
			jobs := streamJobs(10)
			tasks := streamTasks(jobs)
			dir := writeAttemptDir(t, jobs, tasks, streamAttempts(jobs, tasks))
			os.WriteFile(filepath.Join(dir, TasksFile), []byte("hello, not parquet"), 0o644)
			return dir
		}},
	}, opt)
}

// TestAttemptStreamMidStreamError: an attempts.parquet that goes bad after
// it was checked (replaced by one with an unknown type in its middle) fails
// the cursor at that job with an error that names the file and the row and
// is bad input, after the jobs before it were handed out; EachAttempt
// likewise.
func TestAttemptStreamMidStreamError(t *testing.T) {
	t.Parallel()
	testMidStreamError(t, streamedAttempts(), 3_000, 4_000, 500)
}

// TestAttemptStreamHeapFlat: a cursor with attempts holds a batch of rows of
// each file and the Parquet readers' pages, not the jobs, tasks and
// attempts it has handed out: reading 30,000 and 60,000 jobs with theirs
// (keeping none) peaks at about the same live heap above what was live
// before the cursor opened. The bound, 20% and 1 MB, fails a cursor that
// kept its attempts.
func TestAttemptStreamHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 90,000 jobs with their tasks and attempts")
	}
	testCursorHeapFlat(t, streamedAttempts(), 30_000, 80_000)
}
