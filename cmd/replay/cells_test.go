package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// liveHeap collects twice (the second empties sync.Pool caches) and returns
// the heap the collection found live.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestExperimentMemoryFlat runs an experiment of 40 cells (the 50-job sample,
// fifo, one seed per cell, one run at a time, --out, timeline on) and measures
// the live heap between cells (cellDoneKey): it must not grow with the cells done,
// since each cell's results are written and dropped when it ends. Keeping every
// cell's results and their open Parquet writers until the end, as replay did,
// grows it by about 0.8 MB a cell (8.5 to 31.5 MB from cell 10 to 40). The
// fast lane runs 20 cells (a growth of 0.8 MB a cell is 8 MB from cell 10 to
// 20, past the 1 MB allowed as well).
func TestExperimentMemoryFlat(t *testing.T) {
	dir := t.TempDir()
	tr, err := filepath.Abs(first50)
	if err != nil {
		t.Fatal(err)
	}
	n := 40
	if testgate.IsFast() {
		n = 20
	}
	seeds := make([]string, n)
	for i := range seeds {
		seeds[i] = fmt.Sprint(i + 1)
	}
	spec := filepath.Join(dir, "s.toml")
	body := fmt.Sprintf("policies = [\"fifo\"]\nseeds = [%s]\n[[traces]]\nname = \"sample\"\npath = %q\n",
		strings.Join(seeds, ", "), tr)
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var live []uint64
	ctx := context.WithValue(context.Background(), cellDoneKey{}, func() { live = append(live, liveHeap()) })
	out := filepath.Join(dir, "out")
	var stderr strings.Builder
	code := run(ctx, []string{"--experiment", spec, "--out", out, "--quiet", "--parallel", "1"},
		strings.NewReader(""), &strings.Builder{}, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got, err := filepath.Glob(filepath.Join(out, "policy=fifo", "trace=sample", "hw=default", "seed=*", "jobs.parquet")); err != nil || len(got) != n {
		t.Fatalf("%d jobs.parquet written, want %d (%v)", len(got), n, err)
	}
	if len(live) != n {
		t.Fatalf("cellDone called %d times, want %d", len(live), n)
	}
	// From the 10th cell to the last, 30 cells (10 in the fast lane) may keep
	// their summaries and manifest entries, a few KB each: 1 MB.
	grow := int64(live[n-1]) - int64(live[9])
	t.Logf("live heap after cell 10: %.2f MB, after cell %d: %.2f MB", float64(live[9])/1e6, n, float64(live[n-1])/1e6)
	if grow > 1e6 {
		t.Errorf("the live heap grows with the cells done: %.2f MB after cell 10, %.2f MB after cell %d", float64(live[9])/1e6, float64(live[n-1])/1e6, n)
	}
}

// TestTooManyTasksExit: six SWIM lines whose jobs arrive a second apart with
// 2^20 maps each (1.17 GB and 21 s before) exit 2 at once, saying how to raise
// the limit.
func TestTooManyTasksExit(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "job%d\t%d\t10\t140737219919872\t100\t100\n", i, 10+i)
	}
	tr := filepath.Join(dir, "six.tsv")
	if err := os.WriteFile(tr, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("--trace", tr, "--policy", "fifo", "--quiet")
	if code != 2 || !strings.Contains(stderr, "too many tasks") || !strings.Contains(stderr, "--max-tasks-per-hour raises it") {
		t.Errorf("exit %d, stderr %q: want 2 and the limit named", code, stderr)
	}
	code, _, stderr = runCmd("--trace", tr, "--policy", "fifo", "--quiet", "--max-tasks", "1000")
	if code != 2 || !strings.Contains(stderr, "more than the limit of 1000 for a trace") {
		t.Errorf("--max-tasks 1000: exit %d, stderr %q", code, stderr)
	}
}
