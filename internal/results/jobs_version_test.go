package results_test

import (
	"path/filepath"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

// TestReadJobRowsV1 reads testdata/jobs-v1.parquet, the capacity run's
// jobs.parquet of the five .jhist histories as replay wrote it before the
// status column (results schema 1, commit 5943aa9): every job reads, with
// status "" and its times as written (the Sleep job finishes, the FAILED
// 2.4.0 job has no last map end).
func TestReadJobRowsV1(t *testing.T) {
	path := filepath.Join("testdata", "jobs-v1.parquet")
	if _, err := results.ReadParquet[results.JobRow](path); err == nil {
		t.Fatal("a version-1 file read as JobRow without the status column: the fallback is not exercised")
	}
	if v, ok, err := results.ParquetMeta(path, results.MetaSchemaVersion); err != nil || ok {
		t.Fatalf("version-1 file has %s = %q (%v)", results.MetaSchemaVersion, v, err)
	}
	rows, err := results.ReadJobRows(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	sawFailed := false
	for _, r := range results.Jobs(rows) {
		if r.Status != "" || r.Policy != "capacity" || r.FinishUs <= 0 {
			t.Errorf("row %+v: want status \"\", policy capacity, a finish", r)
		}
		if r.JobID == "job_1400204860297_0001" {
			sawFailed = r.LastMapEndUs == results.Unset
		}
	}
	if !sawFailed {
		t.Error("the FAILED 2.4.0 job is missing or has a last map end")
	}
}
