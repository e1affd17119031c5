package trace

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/internal/testspoil"
)

// TestStreamedChecksAgain: the passes over a streamed trace (attempts too)
// check each file's claims once, however many times they open it; a
// tasks.parquet written in place after that (its first page header spoiled,
// its size kept, its modification time put back) is checked again at the
// next pass's open and refused there, as a file never opened before would
// be, and so is an attempts.parquet replaced by such a file.
func TestStreamedChecksAgain(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are remembered on Linux only")
	}
	t.Parallel()
	jobs := streamJobs(200)
	tasks := streamTasks(jobs)
	dir := writeAttemptDir(t, jobs, tasks, streamAttempts(jobs, tasks))
	tr, ok, err := OpenTaskStream(dir, StreamOptions{Attempts: true})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	s := tr.Stream
	passes := func() error {
		for _, open := range []func() (*JobCursor, error){s.Open, s.OpenTasks, s.OpenAttempts, s.OpenCounts, s.OpenAttemptKeys} {
			c, err := open()
			if err != nil {
				return err
			}
			for err == nil {
				_, err = c.Next()
			}
			c.Close()
			if !errors.Is(err, io.EOF) {
				return err
			}
		}
		if err := s.EachTaskSpan(func(int, *Span) error { return nil }); err != nil {
			return err
		}
		return s.EachAttemptSpan(func(int, *Span) error { return nil })
	}
	for range 2 {
		if err := passes(); err != nil {
			t.Fatal(err)
		}
	}
	checks := func(file string, want int) {
		t.Helper()
		if n := s.checked.Runs(filepath.Join(dir, file)); n != want {
			t.Fatalf("%s checked %d times, want %d", file, n, want)
		}
	}
	checks(JobsFile, 1)
	checks(TasksFile, 1)
	checks(AttemptsFile, 1)

	// spoiled is the file at path with its first page header (after the
	// magic) garbage, and its bytes before.
	spoiled := func(path string) (b, orig []byte) {
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b = slices.Clone(orig)
		for i := 4; i < 24; i++ {
			b[i] = 0xff
		}
		// later than the clock tick of the file's last change, on a kernel
		// without fine-grained timestamps
		time.Sleep(20 * time.Millisecond)
		return b, orig
	}
	refused := func(file string) {
		t.Helper()
		want := filepath.Join(dir, file) + ": not a readable Parquet file"
		if err := passes(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("%s spoiled: %v; want %q…", file, err, want)
		}
	}

	path := filepath.Join(dir, TasksFile)
	b, orig := spoiled(path)
	if err := testspoil.InPlace(path, 0, b[:24]); err != nil {
		t.Fatal(err)
	}
	refused(TasksFile)
	checks(TasksFile, 2)

	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := passes(); err != nil {
		t.Fatalf("tasks.parquet written back: %v", err)
	}
	path = filepath.Join(dir, AttemptsFile)
	b, _ = spoiled(path)
	if err := testspoil.Replace(path, b); err != nil {
		t.Fatal(err)
	}
	refused(AttemptsFile)
	checks(AttemptsFile, 2)
}
