package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/internal/testheap"
)

// streamJobs is n jobs of a job-level trace in canonical order, more than a
// batch of rows (4,096), with fields that differ from job to job.
func streamJobs(n int) []Job {
	jobs := make([]Job, n)
	for i := range jobs {
		j := NewJob(fmt.Sprintf("job%06d", i))
		j.Name, j.User, j.Queue, j.Status = fmt.Sprintf("n%d", i%7), "u", "default", StatusSucceeded
		j.SubmitMs, j.InputBytes, j.ShuffleBytes, j.OutputBytes = int64(i/3)*1000, int64(i)<<20, int64(i%5)<<10, 7
		if i%11 == 0 {
			j.Status = StatusIncomplete
		}
		jobs[i] = j
	}
	return jobs
}

// writeJobsDir writes jobs, as they are (unsorted, unchecked), as the
// jobs.parquet of a new trace directory.
func writeJobsDir(t *testing.T, jobs []Job) string {
	t.Helper()
	dir := t.TempDir()
	meta, err := encodeMeta(&Meta{SourceFormat: "swim", Sources: []string{"x.tsv"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteParquetFile(filepath.Join(dir, JobsFile), jobRows(jobs), meta); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestJobStreamMatchesRead: a job-level trace opened for streaming has Read's
// metadata and, read through Each and a cursor, Read's jobs in Read's order.
func TestJobStreamMatchesRead(t *testing.T) {
	t.Parallel()
	dir := writeJobsDir(t, streamJobs(10_000))
	want, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, ok, err := OpenJobStream(dir)
	if err != nil || !ok {
		t.Fatalf("OpenJobStream: ok %v, err %v", ok, err)
	}
	if tr.Jobs != nil || tr.NumJobs() != len(want.Jobs) || !reflect.DeepEqual(tr.Meta, want.Meta) {
		t.Fatalf("streamed trace: %d jobs held, %d streamed, meta %+v; want none, %d, %+v", len(tr.Jobs), tr.NumJobs(), tr.Meta, len(want.Jobs), want.Meta)
	}
	var got []Job
	if err := tr.Stream.Each(func(i int, j *Job) error {
		if i != len(got) {
			t.Fatalf("job %d handed out as %d", len(got), i)
		}
		got = append(got, *j)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want.Jobs) {
		t.Fatal("Each's jobs differ from Read's")
	}
	c, err := tr.Stream.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range want.Jobs {
		j, err := c.Next()
		if err != nil || !reflect.DeepEqual(*j, want.Jobs[i]) {
			t.Fatalf("cursor job %d: %+v, %v; want %+v", i, j, err, want.Jobs[i])
		}
	}
	if _, err := c.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last job: %v, want io.EOF", err)
	}

	// A trace with tasks is not streamed.
	if err := os.WriteFile(filepath.Join(dir, TasksFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if tr, ok, err := OpenJobStream(dir); ok || err != nil || tr != nil {
		t.Fatalf("with tasks.parquet: %v %v %v, want not streamed and no error", tr, ok, err)
	}
}

// TestJobStreamRejectsAsRead: what Read refuses in a job-level trace,
// OpenJobStream refuses with the same error, in the same order of checks
// (rows, metadata, then each job as Trace.Validate does: an empty id, a
// duplicate, its integers, its order).
func TestJobStreamRejectsAsRead(t *testing.T) {
	t.Parallel()
	// The fast lane reads the stream 512 rows a batch (openJobStream; the
	// full lane OpenJobStream's 4,096) from a trace an eighth the size, with
	// every job index past the first few an eighth of the full lane's (b):
	// each edit is in the same batch, and as many batches are read after it.
	scale, open := 1, OpenJobStream
	if testgate.IsFast() {
		scale, open = 8, func(dir string) (*Trace, bool, error) { return openJobStream(dir, 4096/8) }
	}
	b := func(i int) int { return i / scale }
	edit := func(f func(jobs []Job) []Job) func(t *testing.T) string {
		return func(t *testing.T) string { return writeJobsDir(t, f(streamJobs(b(9_000)))) }
	}
	cases := []rejectCase{
		{"duplicate id far apart", edit(func(j []Job) []Job { j[b(8000)].ID = j[10].ID; return j })},
		{"duplicate id adjacent", edit(func(j []Job) []Job { j[b(5000)+1].ID = j[b(5000)].ID; return j })},
		{"duplicate before a bad integer", edit(func(j []Job) []Job { j[b(6000)].ID = j[3].ID; j[b(7000)].NumMaps = -4; return j })},
		{"bad integer before a duplicate", edit(func(j []Job) []Job { j[b(6000)].ID = j[3].ID; j[b(5000)].NumMaps = -4; return j })},
		{"a duplicate with a bad integer", edit(func(j []Job) []Job { j[b(6000)].ID = j[3].ID; j[b(6000)].NumMaps = -4; return j })},
		{"empty id", edit(func(j []Job) []Job { j[b(4096)+1].ID = ""; return j })},
		{"empty id before a duplicate", edit(func(j []Job) []Job { j[b(4096)+1].ID = ""; j[b(6000)].ID = j[3].ID; return j })},
		{"negative submit", edit(func(j []Job) []Job { j[0].SubmitMs = -1; return j })},
		{"out of order", edit(func(j []Job) []Job { j[b(4500)].SubmitMs = 0; return j })},
		{"no metadata", func(t *testing.T) string {
			dir := t.TempDir()
			if err := WriteParquetFile(filepath.Join(dir, JobsFile), jobRows(streamJobs(10)), nil); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"not parquet", func(t *testing.T) string {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, JobsFile), []byte("hello, not parquet"), 0o644)
			return dir
		}},
		{"missing", func(t *testing.T) string { return t.TempDir() }},
	}
	rejectsAsRead(t, cases, "OpenJobStream", open)
}

// TestJobStreamHeapFlat: a cursor holds a batch of rows and the Parquet
// reader's pages, not the jobs it has handed out: reading 100,000 and
// 300,000 jobs (keeping none) peaks at about the same live heap above what
// was live before the cursor opened (sampled every 10,000 jobs after two
// collections). The bound, 20% and 1 MB, fails a cursor that kept its jobs
// (a Job is 216 bytes: 43 MB more on the longer trace).
func TestJobStreamHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 400,000 jobs")
	}
	peak := func(n int) uint64 {
		dir := writeJobsDir(t, streamJobs(n))
		tr, ok, err := OpenJobStream(dir)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		base := testheap.Live()
		var top uint64
		if err := tr.Stream.Each(func(i int, j *Job) error {
			if i%10_000 == 0 {
				top = max(top, testheap.Live())
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return top - min(top, base)
	}
	a, b := peak(100_000), peak(300_000)
	t.Logf("peak live heap while reading: 100,000 jobs %.2f MB, 300,000 jobs %.2f MB", float64(a)/1e6, float64(b)/1e6)
	if float64(b) > 1.2*float64(a)+1e6 {
		t.Errorf("reading 300,000 jobs peaked at %d bytes, 100,000 at %d: the cursor holds what it handed out", b, a)
	}
}
