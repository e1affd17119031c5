package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// TestStreamedTraceDir: a job-level trace directory, which replay reads as
// its jobs arrive, gives the table the same trace gives read whole from its
// source file; its bad input (a corrupt jobs.parquet, too many tasks an
// hour) exits 2 naming the file or the jobs, and writes nothing.
func TestStreamedTraceDir(t *testing.T) {
	tmp := t.TempDir()
	f, err := os.Open(first50)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := trace.ReadInput(first50, f, "auto", trace.ReadOptions{})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "fb2009-first50") // the table names the trace by its base name
	if err := trace.Write(dir, tr); err != nil {
		t.Fatal(err)
	}
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
