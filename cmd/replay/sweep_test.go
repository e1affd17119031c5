package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sweepSpecFile writes a spec of 6 cells (fifo and fair, seeds 1-3, the
// 50-job sample) into dir and returns its path.
func sweepSpecFile(t *testing.T, dir, seeds string) string {
	t.Helper()
	tr, err := filepath.Abs(first50)
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "s.toml")
	body := "name = \"s\"\npolicies = [\"fifo\", \"fair\"]\nseeds = [" + seeds + "]\n[[traces]]\nname = \"first50\"\npath = \"" + tr + "\"\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

func runIn(ctx context.Context, args ...string) (int, string, string) {
	var stdout, stderr strings.Builder
	code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// resultFiles maps every results file under dir to its bytes, leaving out
// what differs by design between one machine and a sweep: the manifest's
// arguments and timings (compared without them), the ownership marker of
// replay --out, and a sweep's own cell.json, sweep.json and staging folder.
func resultFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	timing := regexp.MustCompile(`(?m)^\s*"(wall_seconds|events_per_second)": .*\n`)
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == cellFile || d.Name() == sweepFile {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == "manifest.json" {
			s := timing.ReplaceAllString(string(b), "")
			s = regexp.MustCompile(`(?s)"args": \[.*?\]`).ReplaceAllString(s, `"args": []`)
			b = []byte(s)
		}
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameResults(t *testing.T, want, got string) {
	t.Helper()
	a, b := resultFiles(t, want), resultFiles(t, got)
	for f, wb := range a {
		gb, ok := b[f]
		switch {
		case !ok:
			t.Errorf("%s: missing from %s", f, got)
		case gb != wb:
			t.Errorf("%s: differs between %s and %s", f, want, got)
		}
	}
	for f := range b {
		if _, ok := a[f]; !ok {
			t.Errorf("%s: in %s only", f, got)
		}
	}
}

// noHalfCells fails when a directory under out holds results without
// cell.json (staging folders aside).
func noHalfCells(t *testing.T, out string) {
	t.Helper()
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".parquet") {
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), cellFile)); err != nil {
				t.Errorf("%s without %s", p, cellFile)
			}
		}
		return nil
	})
}

// TestSweepShardsMerge runs a spec on one machine and as three shards with a
// merge: same files, byte for byte; a shard run again skips every cell; a
// shard stopped after its first cell leaves only complete cells, and run again
// completes the results.
func TestSweepShardsMerge(t *testing.T) {
	dir := t.TempDir()
	spec := sweepSpecFile(t, dir, "1, 2, 3")
	one := filepath.Join(dir, "one")
	ctx := context.Background()
	if code, _, e := runIn(ctx, "--experiment", spec, "--out", one, "--quiet", "--parallel", "1"); code != 0 {
		t.Fatalf("replay --experiment: exit %d: %s", code, e)
	}
	code, list, e := runIn(ctx, "sweep", "--experiment", spec, "--list")
	if code != 0 || strings.Count(list, "\n") != 3+6 || !strings.Contains(list, "# spec_sha256 ") {
		t.Fatalf("--list: exit %d: %s%s", code, list, e)
	}
	out := filepath.Join(dir, "sweep")
	for _, k := range []string{"0/3", "1/3", "2/3"} {
		if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", k, "--out", out, "--parallel", "1"); code != 0 || !strings.Contains(e, "2 cells: 2 run, 0 skipped") {
			t.Fatalf("shard %s: exit %d: %s", k, code, e)
		}
	}
	if code, _, e := runIn(ctx, "merge", "--experiment", spec, "--out", out); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	sameResults(t, one, out)

	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", "1/3", "--out", out); code != 0 || !strings.Contains(e, "2 cells: 0 run, 2 skipped") {
		t.Fatalf("shard 1/3 again: exit %d: %s", code, e)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "2")
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard-from-env", "--shards", "3", "--out", out); code != 0 || !strings.Contains(e, "shard 2/3 (SLURM_ARRAY_TASK_ID)") || !strings.Contains(e, "0 run, 2 skipped") {
		t.Fatalf("--shard-from-env: exit %d: %s", code, e)
	}

	// A shard stopped after its first cell: the cells after it are not there
	// at all, and merge names them.
	killed := filepath.Join(dir, "killed")
	for _, k := range []string{"0/2", "1/2"} {
		cctx, cancel := context.WithCancel(ctx)
		if k == "1/2" {
			cctx = context.WithValue(cctx, cellDoneKey{}, func() { cancel() })
		}
		code, _, e := runIn(cctx, "sweep", "--experiment", spec, "--shard", k, "--out", killed, "--parallel", "1")
		cancel()
		if k == "1/2" && code == 0 {
			t.Fatalf("shard %s stopped: exit 0: %s", k, e)
		}
	}
	noHalfCells(t, killed)
	code, _, e = runIn(ctx, "merge", "--experiment", spec, "--out", killed)
	if code != 1 || !strings.Contains(e, "of 6 cells missing; resubmit shards --array=1 (of 2)") || !strings.Contains(e, "--cells ") {
		t.Fatalf("merge with cells missing: exit %d: %s", code, e)
	}
	if _, err := os.Stat(filepath.Join(killed, "manifest.json")); err == nil {
		t.Fatal("merge with cells missing wrote a manifest")
	}
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", "1/2", "--out", killed); code != 0 || !strings.Contains(e, "3 cells: ") || strings.Contains(e, " 0 run") || strings.Contains(e, " 0 skipped") {
		t.Fatalf("shard 1/2 rerun: exit %d: %s", code, e)
	}
	if code, _, e := runIn(ctx, "merge", "--experiment", spec, "--out", killed); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	sameResults(t, one, killed)

	// --cells and --force redo one cell.
	id := strings.Fields(strings.Split(list, "\n")[3])[1]
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--cells", id, "--force", "--out", killed); code != 0 || !strings.Contains(e, "1 run, 0 skipped") {
		t.Fatalf("--cells %s --force: exit %d: %s", id, code, e)
	}
	sameResults(t, one, killed)
}

// TestSweepBadInput: exit 2 with a message naming the problem, and nothing
// written that looks complete.
func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	spec := sweepSpecFile(t, dir, "1, 2, 3")
	out := filepath.Join(dir, "out")
	ctx := context.Background()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "3/3"}, "K must be in 0..2"},
		{[]string{"--shard", "1"}, "the shard count N is required"},
		{[]string{"--shard", "1/"}, "the shard count N is required"},
		{[]string{"--shard-from-env"}, "--shard-from-env needs --shards N"},
		{[]string{"--shard", "0/2", "--cells", "x"}, "give one of them"},
		{[]string{"--cells", "nosuchcell"}, `no cell "nosuchcell"`},
		{[]string{"--shard", "0/2"}, "--out URL is required"},
	} {
		args := append([]string{"sweep", "--experiment", spec}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--out") && c.want != "--out URL is required" {
			args = append(args, "--out", out)
		}
		code, _, e := runIn(ctx, args...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, e, c.want)
		}
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "5")
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard-from-env", "--shards", "3", "--out", out); code != 2 || !strings.Contains(e, "SLURM_ARRAY_TASK_ID=5 is not in 0..2") {
		t.Errorf("SLURM_ARRAY_TASK_ID=5 of 3: exit %d: %s", code, e)
	}

	// The spec changes between shards.
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", "0/3", "--out", out); code != 0 {
		t.Fatalf("shard 0/3: exit %d: %s", code, e)
	}
	sweepSpecFile(t, dir, "1, 2, 4")
	code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", "1/3", "--out", out)
	if code != 2 || !strings.Contains(e, "spec hash mismatch") {
		t.Errorf("changed spec: exit %d: %s", code, e)
	}
	if code, _, e := runIn(ctx, "merge", "--experiment", spec, "--out", out); code != 2 || !strings.Contains(e, "spec hash mismatch") {
		t.Errorf("merge of a changed spec: exit %d: %s", code, e)
	}
	// Results of replay --experiment are not a sweep's.
	one := filepath.Join(dir, "one")
	if code, _, e := runIn(ctx, "--experiment", spec, "--out", one, "--quiet"); code != 0 {
		t.Fatalf("replay --experiment: exit %d: %s", code, e)
	}
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", "0/3", "--out", one); code != 2 || !strings.Contains(e, "not a sweep") {
		t.Errorf("sweep into replay's results: exit %d: %s", code, e)
	}
	if code, _, e := runIn(ctx, "merge", "--experiment", spec, "--out", filepath.Join(dir, "empty")); code != 2 || !strings.Contains(e, "no sweep.json") {
		t.Errorf("merge of nothing: exit %d: %s", code, e)
	}
	if code, _, e := runIn(ctx, "sweep", "--experiment", spec, "--shard", "0/3", "--out", "nosuch://bucket"); code != 2 || !strings.Contains(e, "nosuch://bucket") {
		t.Errorf("unknown scheme: exit %d: %s", code, e)
	}
	noHalfCells(t, out)
	if b, err := os.ReadFile(filepath.Join(out, "sweep.json")); err != nil || !bytes.Contains(b, []byte(`"cells": 6`)) {
		t.Errorf("sweep.json: %s %v", b, err)
	}
}
