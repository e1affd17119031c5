package report

import (
	"reflect"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/tracereplay/tracereplay/internal/results"
)

func TestJobsRecord(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	a := seqRun(map[string]string{"policy": "fair", "seed": "1", "maps": "x"}, 3, 1)
	b := seqRun(map[string]string{"policy": "fifo"}, 2, 5)
	rec := JobsRecord([]Run{a, b}, mem)
	defer rec.Release()

	if rec.NumRows() != 5 {
		t.Fatalf("NumRows = %d, want 5", rec.NumRows())
	}
	// policy, label_maps (clashes with the maps column), seed, then every
	// JobResult field but policy.
	wantCols := 3 + reflect.TypeFor[results.Job]().NumField() - 1
	if int(rec.NumCols()) != wantCols {
		t.Fatalf("NumCols = %d, want %d", rec.NumCols(), wantCols)
	}
	for i, name := range []string{"policy", "label_maps", "seed", "job_index", "job_id"} {
		if got := rec.ColumnName(i); got != name {
			t.Errorf("column %d = %q, want %q", i, got, name)
		}
	}
	col := func(name string) int {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("column %q: %d matches", name, len(idx))
		}
		return idx[0]
	}
	policy := rec.Column(col("policy")).(*array.String)
	seed := rec.Column(col("seed")).(*array.String)
	flow := rec.Column(col("flowtime_us")).(*array.Int64)
	jobID := rec.Column(col("job_id")).(*array.String)
	reduces := rec.Column(col("reduces")).(*array.Int32)
	slowdown := rec.Column(col("slowdown")).(*array.Float64)
	for i, want := range []struct {
		policy, seed string
		seedNull     bool
		job          results.Job
	}{
		{"fair", "1", false, a.Jobs[0]}, {"fair", "1", false, a.Jobs[1]}, {"fair", "1", false, a.Jobs[2]},
		{"fifo", "", true, b.Jobs[0]}, {"fifo", "", true, b.Jobs[1]},
	} {
		if policy.Value(i) != want.policy {
			t.Errorf("row %d policy %q, want %q", i, policy.Value(i), want.policy)
		}
		if seed.IsNull(i) != want.seedNull || (!want.seedNull && seed.Value(i) != want.seed) {
			t.Errorf("row %d seed %q (null %v), want %q (null %v)", i, seed.Value(i), seed.IsNull(i), want.seed, want.seedNull)
		}
		if flow.Value(i) != want.job.FlowtimeUs || jobID.Value(i) != want.job.JobID ||
			reduces.Value(i) != want.job.Reduces || slowdown.Value(i) != want.job.Slowdown {
			t.Errorf("row %d: flowtime %d job %q reduces %d slowdown %v; want %+v",
				i, flow.Value(i), jobID.Value(i), reduces.Value(i), slowdown.Value(i), want.job)
		}
	}
}

func TestJobsRecordEmpty(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := JobsRecord(nil, mem)
	defer rec.Release()
	if rec.NumRows() != 0 || rec.ColumnName(0) != "policy" {
		t.Errorf("empty record: %d rows, first column %q", rec.NumRows(), rec.ColumnName(0))
	}
}
