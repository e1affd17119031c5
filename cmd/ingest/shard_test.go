package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

func ingestRun(args ...string) (int, string) {
	var stdout, stderr strings.Builder
	code := run(context.Background(), args, nil, &stdout, &stderr)
	return code, stderr.String()
}

// TestShardMerge ingests a JobHistory tree as three shards and merges them:
// the same jobs, tasks and attempts as one ingest of the tree; a shard run
// again is skipped; a missing shard makes merge exit 1 naming it.
func TestShardMerge(t *testing.T) {
	tree := "../../internal/validation/testdata/traces/jhist"
	dir := t.TempDir()
	one := filepath.Join(dir, "one")
	if code, e := ingestRun("--out", one, tree); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, e)
	}
	work := filepath.Join(dir, "work")
	for _, k := range []string{"0/3", "2/3"} {
		if code, e := ingestRun("shard", "--shard", k, "--out", work, tree); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", k, code, e)
		}
	}
	merged := filepath.Join(dir, "merged")
	if code, e := ingestRun("merge", "--shards", "3", "--out", merged, work); code != 1 || !strings.Contains(e, "1 of 3 shards missing; resubmit --array=1") {
		t.Fatalf("merge with shard 1 missing: exit %d: %s", code, e)
	}
	if _, err := os.Stat(merged); err == nil {
		t.Fatal("merge with a shard missing wrote --out")
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	if code, e := ingestRun("shard", "--shard-from-env", "--shards", "3", "--out", work, tree); code != 0 {
		t.Fatalf("shard from env: exit %d: %s", code, e)
	}
	if code, e := ingestRun("shard", "--shard", "1/3", "--out", work, tree); code != 0 || !strings.Contains(e, "skip") {
		t.Fatalf("shard 1/3 again: exit %d: %s", code, e)
	}
	if code, e := ingestRun("merge", "--shards", "3", "--out", merged, work); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	a, err := trace.Read(one)
	if err != nil {
		t.Fatal(err)
	}
	b, err := trace.Read(merged)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Jobs) != 5 || !reflect.DeepEqual(a.Jobs, b.Jobs) || !reflect.DeepEqual(a.Tasks, b.Tasks) || len(a.Attempts) == 0 || !reflect.DeepEqual(a.Attempts, b.Attempts) {
		t.Errorf("merged shards differ from one ingest: %d vs %d jobs, %d vs %d tasks", len(a.Jobs), len(b.Jobs), len(a.Tasks), len(b.Tasks))
	}
	for _, args := range [][]string{
		{"shard", "--shard", "3/3", "--out", work, tree},
		{"shard", "--shard", "1", "--out", work, tree},
		{"shard", "--shard-from-env", "--out", work, tree},
		{"merge", "--out", merged, work},
	} {
		if code, e := ingestRun(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, e)
		}
	}
}
