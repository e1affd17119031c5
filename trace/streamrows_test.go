package trace

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/internal/testheap"
)

// The stream tests that are the same for the tasks and the attempts read
// beside the jobs, driven by a streamRows of either.

// streamRows is a row type read beside the jobs, as the stream tests use
// it: tasks (streamedTasks) or attempts (streamedAttempts).
type streamRows struct {
	name string        // a row in errors: "task", "attempt"
	file string        // the file the rows are in
	opt  StreamOptions // what OpenTaskStream is given
	// write writes jobs with their rows (and tasks) as a new trace
	// directory.
	write func(t *testing.T, jobs []Job) string
	// typeGoneBad rewrites the rows file of dir, written by write with jobs,
	// with row i's type unknown; it returns row i's id.
	typeGoneBad func(t *testing.T, dir string, jobs []Job, i int) string
	open        func(*JobStream) (*JobCursor, error) // OpenTasks, OpenAttempts
	count       func(*JobCursor) int                 // the rows of the last job
	each        func(*JobStream) error               // EachTask, EachAttempt, keeping nothing
	spans       func(*JobStream) error               // EachTaskSpan, EachAttemptSpan, keeping nothing
}

func streamedTasks() streamRows {
	return streamRows{
		name: "task", file: TasksFile,
		write: func(t *testing.T, jobs []Job) string { return writeTraceDir(t, jobs, streamTasks(jobs)) },
		typeGoneBad: func(t *testing.T, dir string, jobs []Job, i int) string {
			tasks := streamTasks(jobs)
			rows := taskRows(tasks)
			rows[i].Type = "SHUFFLE"
			meta, _ := encodeMeta(&Meta{SourceFormat: "synthetic"})
			if err := WriteParquetFile(filepath.Join(dir, TasksFile), rows, meta); err != nil {
				t.Fatal(err)
			}
			return tasks[i].TaskID
		},
		open:  (*JobStream).OpenTasks,
		count: func(c *JobCursor) int { return len(c.Tasks()) },
		each:  func(s *JobStream) error { return s.EachTask(func(int, *Task) error { return nil }) },
		spans: func(s *JobStream) error { return s.EachTaskSpan(func(int, *Span) error { return nil }) },
	}
}

func streamedAttempts() streamRows {
	return streamRows{
		name: "attempt", file: AttemptsFile, opt: StreamOptions{Attempts: true},
		write: func(t *testing.T, jobs []Job) string {
			tasks := streamTasks(jobs)
			return writeAttemptDir(t, jobs, tasks, streamAttempts(jobs, tasks))
		},
		typeGoneBad: func(t *testing.T, dir string, jobs []Job, i int) string {
			as := streamAttempts(jobs, streamTasks(jobs))
			rows := attemptRows(as)
			rows[i].Type = "SHUFFLE"
			writeAttemptRows(t, dir, rows)
			return as[i].AttemptID
		},
		open:  (*JobStream).OpenAttempts,
		count: func(c *JobCursor) int { return len(c.Attempts()) },
		each:  func(s *JobStream) error { return s.EachAttempt(func(int, *Attempt) error { return nil }) },
		spans: func(s *JobStream) error { return s.EachAttemptSpan(func(int, *Span) error { return nil }) },
	}
}

// cursorMatchesRead reads c to its end: it must hand out want's jobs, each
// with want's tasks and attempts of it, then io.EOF. It returns the
// attempts handed out.
func cursorMatchesRead(t *testing.T, c *JobCursor, want *Trace) (attempts int) {
	t.Helper()
	k, a := 0, 0
	for i := range want.Jobs {
		j, err := c.Next()
		if err != nil || !reflect.DeepEqual(*j, want.Jobs[i]) {
			t.Fatalf("cursor job %d: %+v, %v; want %+v", i, j, err, want.Jobs[i])
		}
		e := k
		for e < len(want.Tasks) && want.Tasks[e].JobID == j.ID {
			e++
		}
		if got := c.Tasks(); len(got) != e-k || e > k && !reflect.DeepEqual(got, want.Tasks[k:e]) {
			t.Fatalf("job %d: %d tasks, want %d: %+v", i, len(got), e-k, got)
		}
		k = e
		e = a
		for e < len(want.Attempts) && want.Attempts[e].JobID == j.ID {
			e++
		}
		if got := c.Attempts(); len(got) != e-a || e > a && !reflect.DeepEqual(got, want.Attempts[a:e]) {
			t.Fatalf("job %d: %d attempts, want %d", i, len(got), e-a)
		}
		a = e
	}
	if _, err := c.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last job: %v, want io.EOF", err)
	}
	return a
}

// rejectCase is a trace directory that Read refuses (setup writes it).
type rejectCase struct {
	name  string
	setup func(t *testing.T) string
}

// testRejectsAsRead: OpenTaskStream with opt refuses each case's directory
// with Read's error.
func testRejectsAsRead(t *testing.T, cases []rejectCase, opt ...StreamOptions) {
	rejectsAsRead(t, cases, "OpenTaskStream", func(dir string) (*Trace, bool, error) { return OpenTaskStream(dir, opt...) })
}

// rejectsAsRead: open (a stream opener named name) refuses each case's
// directory with Read's error, not streaming it.
func rejectsAsRead(t *testing.T, cases []rejectCase, name string, open func(dir string) (*Trace, bool, error)) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.setup(t)
			_, want := Read(dir)
			if want == nil {
				t.Fatal("Read accepts it")
			}
			t.Log(want)
			tr, ok, err := open(dir)
			if err == nil || err.Error() != want.Error() || ok || tr != nil {
				t.Fatalf("%s: %v, %v\nwant the error %v", name, ok, err, want)
			}
		})
	}
}

// testMidStreamError: a rows file of a trace of jobs jobs that goes bad after
// it was checked (rewritten with row row's type unknown) fails the cursor
// at that row's job with an error that names the file and the row and is
// bad input, after at least minJobs jobs before it were handed out with
// their rows; Each* fails likewise. The fast lane divides jobs, row and
// minJobs by 8 and reads 512-row batches (the full lane's 4,096 divided
// likewise): the bad row is in the same batch of its file, as many jobs
// ahead of it.
func testMidStreamError(t *testing.T, k streamRows, jobs, row, minJobs int) {
	if testgate.IsFast() && k.opt.Batch == 0 {
		jobs, row, minJobs, k.opt.Batch = jobs/8, row/8, minJobs/8, 4096/8
	}
	js := streamJobs(jobs)
	dir := k.write(t, js)
	tr, ok, err := OpenTaskStream(dir, k.opt)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	id := k.typeGoneBad(t, dir, js, row)
	c, err := k.open(tr.Stream)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := 0
	for {
		if _, err = c.Next(); err != nil {
			break
		}
		n++
	}
	want := fmt.Sprintf("%s: row %d: %s %q: type \"SHUFFLE\"", filepath.Join(dir, k.file), row, k.name, id)
	if err == nil || !errors.Is(err, ErrBadInput) || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("after %d jobs: %v; want bad input %q…", n, err, want)
	}
	if n < minJobs {
		t.Fatalf("failed after %d jobs: not mid-stream", n)
	}
	err = k.each(tr.Stream)
	if err == nil || !errors.Is(err, ErrBadInput) || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("each: %v; want bad input %q…", err, want)
	}
	if spanErr := k.spans(tr.Stream); fmt.Sprint(spanErr) != fmt.Sprint(err) || !errors.Is(spanErr, ErrBadInput) {
		t.Fatalf("spans: %v; want each's bad input %q", spanErr, err)
	}
}

// testCursorHeapFlat: a cursor with rows holds a batch of rows of each file
// and the Parquet readers' pages, not the jobs and rows it has handed out:
// reading jobs and twice as many jobs with their rows (at least minRows
// and twice as many; keeping none) peaks at about the same live heap above
// what was live before the cursor opened (sampled every 5,000 jobs after
// two collections). The bound, 20% and 1 MB, fails a cursor that kept its
// rows and one that read every row when it opened.
func testCursorHeapFlat(t *testing.T, k streamRows, jobs, minRows int) {
	peak := func(n int) (uint64, int) {
		dir := k.write(t, streamJobs(n))
		tr, ok, err := OpenTaskStream(dir, k.opt)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		base := testheap.Live()
		var top uint64
		c, err := k.open(tr.Stream)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		rows := 0
		for i := 0; ; i++ {
			if _, err := c.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			rows += k.count(c)
			if i%5_000 == 0 {
				top = max(top, testheap.Live())
			}
		}
		return top - min(top, base), rows
	}
	a, na := peak(jobs)
	b, nb := peak(2 * jobs)
	t.Logf("peak live heap while reading: %d %ss %.2f MB, %d %ss %.2f MB", na, k.name, float64(a)/1e6, nb, k.name, float64(b)/1e6)
	if nb < 2*na-10 || na < minRows {
		t.Fatalf("%d and %d %ss read", na, nb, k.name)
	}
	if float64(b) > 1.2*float64(a)+1e6 {
		t.Errorf("reading %d %ss peaked at %d bytes, %d at %d: the cursor holds what it handed out", nb, k.name, b, na, a)
	}
}
