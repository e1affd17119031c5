package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// readArrowFile reads the one record of an Arrow IPC file.
func readArrowFile(t *testing.T, path string) arrow.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatalf("%s: not an Arrow IPC file: %v", path, err)
	}
	defer r.Close()
	if r.NumRecords() != 1 {
		t.Fatalf("%s: %d record batches, want 1", path, r.NumRecords())
	}
	rec, err := r.Record(0)
	if err != nil {
		t.Fatal(err)
	}
	rec.Retain()
	return rec
}

func TestTableRecordTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := TableRecord(SummaryTable(summaryFixtures()["seeds_unfinished"]), mem)
	defer rec.Release()
	want := map[string]arrow.DataType{
		"policy":                 arrow.BinaryTypes.String,
		"seeds":                  arrow.PrimitiveTypes.Int64,
		"jobs":                   arrow.PrimitiveTypes.Float64, // fifo's seeds differ: a mean
		"flowtime_p95_s":         arrow.PrimitiveTypes.Float64,
		"flowtime_p95_s_ci95":    arrow.PrimitiveTypes.Float64,
		"starvation_mean_s_ci95": arrow.PrimitiveTypes.Float64,
		"maps_off_rack_pct":      arrow.PrimitiveTypes.Float64,
		"maps_off_rack_pct_ci95": arrow.PrimitiveTypes.Float64,
	}
	for name, typ := range want {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Errorf("no column %s", name)
			continue
		}
		if got := rec.Schema().Field(idx[0]).Type; !arrow.TypeEqual(got, typ) {
			t.Errorf("column %s: %v, want %v", name, got, typ)
		}
	}
	// fair has one seed: its intervals are null, its values are not.
	ci := rec.Column(rec.Schema().FieldIndices("flowtime_p95_s_ci95")[0]).(*array.Float64)
	val := rec.Column(rec.Schema().FieldIndices("flowtime_p95_s")[0]).(*array.Float64)
	if !ci.IsNull(0) || val.IsNull(0) || val.Value(0) != 20 {
		t.Errorf("fair: p95 %v (null %v), CI null %v; want 20 and a null CI", val.Value(0), val.IsNull(0), ci.IsNull(0))
	}
	if ci.IsNull(1) {
		t.Error("fifo (3 seeds): CI is null")
	}
	if md, ok := rec.Schema().Metadata().GetValue("tracereplay.tool"); !ok || md == "" {
		t.Error("no tracereplay.tool in the schema metadata")
	}
}

func TestWriteArrowTables(t *testing.T) {
	runs := summaryFixtures()["seeds"]
	dir := t.TempDir()
	paths, err := WriteArrowTables(runs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || filepath.Base(paths[0]) != SummaryArrowFile || filepath.Base(paths[1]) != JobsArrowFile {
		t.Fatalf("wrote %v", paths)
	}
	sum := readArrowFile(t, paths[0])
	defer sum.Release()
	if sum.NumRows() != 2 || sum.ColumnName(0) != "policy" || sum.ColumnName(1) != "seeds" {
		t.Errorf("summary.arrow: %d rows, columns %s, %s; want 2 cells, policy, seeds", sum.NumRows(), sum.ColumnName(0), sum.ColumnName(1))
	}
	jobs := readArrowFile(t, paths[1])
	defer jobs.Release()
	n := 0
	for _, r := range runs {
		n += len(r.Jobs)
	}
	if int(jobs.NumRows()) != n || len(jobs.Schema().FieldIndices("seed")) != 1 || len(jobs.Schema().FieldIndices("flowtime_us")) != 1 {
		t.Errorf("jobs.arrow: %d rows (want %d), schema %v", jobs.NumRows(), n, jobs.Schema())
	}
	// Deterministic: a second write gives the same bytes; no temporary files.
	again := t.TempDir()
	if _, err := WriteArrowTables(runs, again); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{SummaryArrowFile, JobsArrowFile} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(again, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two writes", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the directory, want 2", len(entries))
	}
}

func TestWriteArrowFileError(t *testing.T) {
	rec := TableRecord(testTable(), memory.DefaultAllocator)
	defer rec.Release()
	if err := WriteArrowFile(filepath.Join(t.TempDir(), "missing", "x.arrow"), rec); err == nil {
		t.Error("no error for a missing directory")
	}
}
