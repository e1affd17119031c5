package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// streamTasks is the tasks of jobs, in canonical order: jobs k%5 == 3 have
// none, the others k%4+1 maps and k%3 reduces, with a setup and a cleanup
// task for k%7 == 0, with fields that differ from task to task.
func streamTasks(jobs []Job) []Task {
	var tasks []Task
	for k := range jobs {
		if k%5 == 3 {
			continue
		}
		id := jobs[k].ID
		add := func(typ TaskType, i int) {
			t := NewTask(id, fmt.Sprintf("%s_%s_%d", id, typ, i), typ, int32(i))
			t.InputBytes, t.StartMs, t.FinishMs, t.Status = int64(k*i), jobs[k].SubmitMs, jobs[k].SubmitMs+int64(1000+i), StatusSucceeded
			if i%2 == 1 {
				t.PreferredHosts, t.PreferredRacks = []string{"h1", fmt.Sprintf("h%d", k%9)}, []string{"r1", "r2"}
			}
			tasks = append(tasks, t)
		}
		for i := range k%4 + 1 {
			add(Map, i)
		}
		for i := range k % 3 {
			add(Reduce, i)
		}
		if k%7 == 0 {
			add(Setup, 0)
			add(Cleanup, 0)
		}
	}
	return tasks
}

// writeTraceDir writes jobs and tasks, as they are (unsorted, unchecked), as
// a new trace directory.
func writeTraceDir(t *testing.T, jobs []Job, tasks []Task) string {
	return writeTraceRows(t, jobs, taskRows(tasks))
}

// writeTraceRows is writeTraceDir with the tasks as rows.
func writeTraceRows(t *testing.T, jobs []Job, rows []TaskRow) string {
	t.Helper()
	dir := writeJobsDir(t, jobs)
	meta, err := encodeMeta(&Meta{SourceFormat: "synthetic"})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteParquetFile(filepath.Join(dir, TasksFile), rows, meta); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTaskStreamMatchesRead: a trace with tasks opened for streaming hands
// out, through a cursor with tasks, Read's jobs each with Read's tasks of it,
// and through EachTask Read's tasks in Read's order; a trace with
// attempts.parquet is not streamed.
func TestTaskStreamMatchesRead(t *testing.T) {
	// The fast lane's stream reads 512-row batches of an eighth of the jobs
	// (as many batches of each file as the full lane's 4,096).
	n, opt := 6_000, StreamOptions{}
	if testgate.IsFast() {
		n, opt.Batch = 6_000/8, 4096/8
	}
	jobs := streamJobs(n)
	dir := writeTraceDir(t, jobs, streamTasks(jobs))
	want, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, ok, err := OpenTaskStream(dir, opt)
	if err != nil || !ok {
		t.Fatalf("OpenTaskStream: ok %v, err %v", ok, err)
	}
	if tr.Jobs != nil || tr.Tasks != nil || tr.NumJobs() != len(want.Jobs) || tr.Stream.NumTasks() != len(want.Tasks) || !reflect.DeepEqual(tr.Meta, want.Meta) {
		t.Fatalf("streamed trace: %d jobs and %d tasks held, %d and %d streamed; want none, %d, %d", len(tr.Jobs), len(tr.Tasks), tr.NumJobs(), tr.Stream.NumTasks(), len(want.Jobs), len(want.Tasks))
	}
	c, err := tr.Stream.OpenTasks()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cursorMatchesRead(t, c, want)
	var got []Task
	if err := tr.Stream.EachTask(func(i int, k *Task) error { got = append(got, *k); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want.Tasks) {
		t.Fatal("EachTask's tasks differ from Read's")
	}

	if err := os.WriteFile(filepath.Join(dir, AttemptsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if tr, ok, err := OpenTaskStream(dir); ok || err != nil || tr != nil {
		t.Fatalf("with attempts.parquet: %v %v %v, want not streamed and no error", tr, ok, err)
	}
}

// TestTaskStreamRejectsAsRead: what Read refuses in a trace with tasks,
// OpenTaskStream refuses with the same error, in the same order of checks
// (each file's rows and metadata, the task types, then the jobs and the
// tasks as Trace.Validate does).
func TestTaskStreamRejectsAsRead(t *testing.T) {
	t.Parallel()
	// The fast lane reads the stream 512 rows a batch (the full lane at
	// pqfile's 4,096) from a trace an eighth the size, with every row and job
	// index an eighth of the full lane's (b): each edit is in the same batch
	// of the same file, and as many batches are read after it.
	scale, opt := 1, StreamOptions{}
	if testgate.IsFast() {
		scale, opt = 8, StreamOptions{Batch: 4096 / 8}
	}
	b := func(i int) int { return i / scale }
	edit := func(f func(jobs []Job, tasks []Task) ([]Job, []Task)) func(t *testing.T) string {
		return func(t *testing.T) string {
			jobs := streamJobs(b(5_000))
			jobs, tasks := f(jobs, streamTasks(jobs))
			return writeTraceDir(t, jobs, tasks)
		}
	}
	// badType: row 7000's type is not one of the four, after f's edit.
	badType := func(f func(jobs []Job, tasks []Task)) func(t *testing.T) string {
		return func(t *testing.T) string {
			jobs := streamJobs(b(5_000))
			tasks := streamTasks(jobs)
			f(jobs, tasks)
			rows := taskRows(tasks)
			rows[b(7000)].Type = "SHUFFLE"
			return writeTraceRows(t, jobs, rows)
		}
	}
	testRejectsAsRead(t, []rejectCase{
		{"task of no job", edit(func(j []Job, k []Task) ([]Job, []Task) { k[b(6000)].JobID = "nojob"; return j, k })},
		{"task of an earlier job", edit(func(j []Job, k []Task) ([]Job, []Task) { k[b(6000)].JobID = j[b(10)].ID; return j, k })},
		{"task of an earlier job, bad integer", edit(func(j []Job, k []Task) ([]Job, []Task) {
			k[b(6000)].JobID, k[b(6000)].OutputBytes = j[b(10)].ID, -7
			return j, k
		})},
		{"tasks of a job apart", edit(func(j []Job, k []Task) ([]Job, []Task) {
			k[b(6000)].JobID = k[b(6100)].JobID
			return j, k
		})},
		{"duplicate task", edit(func(j []Job, k []Task) ([]Job, []Task) { k[b(5000)+1] = k[b(5000)]; return j, k })},
		{"maps out of order", edit(func(j []Job, k []Task) ([]Job, []Task) {
			k[b(4000)], k[b(4000)+1] = k[b(4000)+1], k[b(4000)]
			return j, k
		})},
		{"reduce before a map", edit(func(j []Job, k []Task) ([]Job, []Task) {
			for i := range k {
				if k[i].Type == Reduce && k[i-1].Type == Map && k[i-1].JobID == k[i].JobID && i > b(3000) {
					k[i-1], k[i] = k[i], k[i-1]
					break
				}
			}
			return j, k
		})},
		{"bad integer", edit(func(j []Job, k []Task) ([]Job, []Task) { k[b(7000)].StartMs = -2; return j, k })},
		{"negative index", edit(func(j []Job, k []Task) ([]Job, []Task) { k[b(7000)].Index = -1; return j, k })},
		{"racks", edit(func(j []Job, k []Task) ([]Job, []Task) { k[b(7000)+1].PreferredRacks = []string{"r"}; return j, k })},
		{"bad type after a bad task", badType(func(j []Job, k []Task) { k[b(2000)].Index = -1 })},
		{"job error and task error", edit(func(j []Job, k []Task) ([]Job, []Task) { k[b(200)].Index = -1; j[b(4000)].NumMaps = -3; return j, k })},
		{"duplicate job and a bad type", badType(func(j []Job, k []Task) { j[b(4000)].ID = j[b(4000)-1].ID })},
		{"bad type before a bad task", badType(func(j []Job, k []Task) { k[b(7500)].Index = -1 })},
		{"tasks not parquet", func(t *testing.T) string {
			dir := writeJobsDir(t, streamJobs(10))
			os.WriteFile(filepath.Join(dir, TasksFile), []byte("hello, not parquet"), 0o644)
			return dir
		}},
		{"tasks without metadata", func(t *testing.T) string {
			jobs := streamJobs(10)
			dir := writeJobsDir(t, jobs)
			if err := WriteParquetFile(filepath.Join(dir, TasksFile), taskRows(streamTasks(jobs)), nil); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"jobs not parquet", func(t *testing.T) string {
			jobs := streamJobs(10)
			dir := writeTraceDir(t, jobs, streamTasks(jobs))
			os.WriteFile(filepath.Join(dir, JobsFile), []byte("hello, not parquet"), 0o644)
			return dir
		}},
	}, opt)
}

// TestTaskStreamMidStreamError: a tasks.parquet that goes bad after it was
// checked (replaced by one with an unknown task type in its middle) fails
// the cursor at that job with an error that names the file and the row and
// is bad input, after the jobs before it were handed out with their tasks.
func TestTaskStreamMidStreamError(t *testing.T) {
	t.Parallel()
	testMidStreamError(t, streamedTasks(), 5_000, 6_000, 1_000)
}

// TestTaskStreamHeapFlat: a cursor with tasks holds a batch of rows of each
// file and the Parquet readers' pages, not the jobs and tasks it has handed
// out: reading 50,000 and 100,000 jobs with their tasks (about 120,000 and
// 240,000; keeping none) peaks at about the same live heap above what was
// live before the cursor opened (sampled every 5,000 jobs after two
// collections). The bound, 20% and 1 MB, fails a cursor that kept its tasks
// (a Task is about 200 bytes with its ids: 20 MB more on the longer trace)
// and one that read every task when it opened.
func TestTaskStreamHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 150,000 jobs and 360,000 tasks")
	}
	testCursorHeapFlat(t, streamedTasks(), 50_000, 100_000)
}

// TestTaskCountsMatchRead: a cursor opened with OpenCounts, which reads the
// tasks' job_id and type columns alone, page by page, counts each job's
// tasks as Read lists them (its maps and reduces ahead of its setup and
// cleanup, and all), over row groups of 977 rows (the columns' pages end
// at other rows); a type gone bad after the trace was opened is bad input
// naming the file and its row. The fast lane reads a quarter of the jobs
// (about 4,500 tasks: five row groups of the same 977 rows) with row 3000
// gone bad.
func TestTaskCountsMatchRead(t *testing.T) {
	t.Parallel()
	n, bad := 6_000, 6000
	if testgate.IsFast() {
		n, bad = 6_000/4, 3000
	}
	jobs := streamJobs(n)
	tasks := streamTasks(jobs)
	dir := writeTraceDir(t, jobs, tasks)
	meta, _ := encodeMeta(&Meta{SourceFormat: "synthetic"})
	rows := taskRows(tasks)
	path := filepath.Join(dir, TasksFile)
	if err := WriteParquetFile(path, rows, meta, ParquetOptions{MaxRowsPerRowGroup: 977}); err != nil {
		t.Fatal(err)
	}
	want, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, ok, err := OpenTaskStream(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	c, err := tr.Stream.OpenCounts()
	if err != nil {
		t.Fatal(err)
	}
	k, lifecycle := 0, 0
	for i := range want.Jobs {
		if _, err := c.Next(); err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
		e, w := k, k
		for e < len(want.Tasks) && want.Tasks[e].JobID == want.Jobs[i].ID {
			if w == e && want.Tasks[e].Type.IsWork() {
				w++
			}
			e++
		}
		if work, all := c.TaskCounts(); work != w-k || all != e-k {
			t.Fatalf("job %d: counts %d, %d; want %d, %d", i, work, all, w-k, e-k)
		}
		lifecycle += e - w
		k = e
	}
	if _, err := c.Next(); !errors.Is(err, io.EOF) || k != len(want.Tasks) || lifecycle == 0 {
		t.Fatalf("after the last job: %v (%d of %d tasks, %d setup and cleanup), want io.EOF", err, k, len(want.Tasks), lifecycle)
	}
	c.Close()

	rows[bad].Type = "SHUFFLE"
	if err := WriteParquetFile(path, rows, meta, ParquetOptions{MaxRowsPerRowGroup: 977}); err != nil {
		t.Fatal(err)
	}
	if c, err = tr.Stream.OpenCounts(); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for err == nil {
		_, err = c.Next()
	}
	if want := fmt.Sprintf("%s: row %d: type \"SHUFFLE\"", path, bad); !errors.Is(err, ErrBadInput) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("a bad type: %v; want bad input %q…", err, want)
	}
}
