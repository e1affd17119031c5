package trace

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/golden"
)

// TestSampleTraceGolden pins the exact bytes Write produces for sampleTrace(), so
// that a change of the on-disk format (column order, types, encodings, metadata)
// cannot go unnoticed; regenerate with go test ./trace -run Golden -update.
// scripts/duckdb-check.sh reads the same files with DuckDB.
func TestSampleTraceGolden(t *testing.T) {
	goldenDir := filepath.Join("testdata", "sample-trace")
	dir := filepath.Join(t.TempDir(), "trace")
	if err := Write(dir, sampleTrace()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{JobsFile, TasksFile} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join(goldenDir, f), got)
	}
	got, err := Read(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sampleTrace()) {
		t.Errorf("golden trace reads back different from sampleTrace()")
	}
}

// TestReadSchemaV1 reads the trace a schema version 1 build wrote for
// sampleTrace() (testdata/sample-trace-v1, kept as written): the columns
// version 2 added come back Unknown or empty.
func TestReadSchemaV1(t *testing.T) {
	got, err := Read(filepath.Join("testdata", "sample-trace-v1"))
	if err != nil {
		t.Fatal(err)
	}
	want := sampleTrace()
	want.Meta.SchemaVersion = "1"
	emptyVersions(want)
	for i := range want.Jobs {
		want.Jobs[i].ConfMapMaxAttempts, want.Jobs[i].ConfReduceMaxAttempts = Unknown, Unknown
	}
	unknownLags(want)
	unknownOOB(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version 1 trace reads as\n%+v\nwant\n%+v", got, want)
	}
	for _, j := range got.Jobs {
		if j.AMStartMs != Unknown || j.ConfMapSlots != Unknown || j.ConfReduceSlots != Unknown || j.Scheduler != "" {
			t.Errorf("job %s: new columns %d %d %d %q, want Unknown", j.ID, j.AMStartMs, j.ConfMapSlots, j.ConfReduceSlots, j.Scheduler)
		}
	}
}

// TestReadSchemaV2 reads the trace a schema version 2 build wrote for
// sampleTrace() (testdata/sample-trace-v2, the golden files of commit
// 355fb7c, kept as written): the max attempts version 2.1 added come back
// Unknown, everything else as written.
func TestReadSchemaV2(t *testing.T) {
	got, err := Read(filepath.Join("testdata", "sample-trace-v2"))
	if err != nil {
		t.Fatal(err)
	}
	want := sampleTrace()
	want.Meta.SchemaVersion = "2"
	emptyVersions(want)
	for i := range want.Jobs {
		want.Jobs[i].ConfMapMaxAttempts, want.Jobs[i].ConfReduceMaxAttempts = Unknown, Unknown
	}
	unknownLags(want)
	unknownOOB(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version 2 trace reads as\n%+v\nwant\n%+v", got, want)
	}
}

// TestReadSchemaV21 reads the trace a schema version 2.1 build wrote for
// sampleTrace() (testdata/sample-trace-v2.1, the golden files of commit
// fb832dd, kept as written), whose tasks.parquet has no launch_lag_ms
// column: the lags come back Unknown, everything else as written.
func TestReadSchemaV21(t *testing.T) {
	got, err := Read(filepath.Join("testdata", "sample-trace-v2.1"))
	if err != nil {
		t.Fatal(err)
	}
	want := sampleTrace()
	want.Meta.SchemaVersion = "2.1"
	emptyVersions(want)
	unknownLags(want)
	unknownOOB(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version 2.1 trace reads as\n%+v\nwant\n%+v", got, want)
	}
}

// TestReadSchemaV22 reads the trace a schema version 2.2 build wrote for
// sampleTrace() (testdata/sample-trace-v2.2, the golden files of commit
// e8409a9, kept as written), whose jobs.parquet has no
// conf_out_of_band_heartbeat column: it comes back Unknown, everything else
// as written; streamed (JobStream) as held.
func TestReadSchemaV22(t *testing.T) {
	dir := filepath.Join("testdata", "sample-trace-v2.2")
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleTrace()
	want.Meta.SchemaVersion = "2.2"
	emptyVersions(want)
	unknownOOB(want)
	unknownReports(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version 2.2 trace reads as\n%+v\nwant\n%+v", got, want)
	}
	jobsOnly := t.TempDir() // OpenJobStream streams a trace of jobs alone
	b, err := os.ReadFile(filepath.Join(dir, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(jobsOnly, JobsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, ok, err := OpenJobStream(jobsOnly)
	if err != nil || !ok {
		t.Fatalf("OpenJobStream: ok %v, err %v", ok, err)
	}
	var streamed []Job
	if err := s.Stream.Each(func(_ int, j *Job) error { streamed = append(streamed, *j); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(streamed, want.Jobs) {
		t.Errorf("version 2.2 jobs stream as\n%+v\nwant\n%+v", streamed, want.Jobs)
	}
}

// TestReadSchemaV24 reads the trace a schema version 2.4 build wrote for
// sampleTrace() (testdata/sample-trace-v2.4, the golden files of commit
// f2e1329, kept as written), whose jobs.parquet has no conf_common_version
// column: it comes back empty, everything else as written; streamed
// (JobStream) as held.
func TestReadSchemaV24(t *testing.T) {
	dir := filepath.Join("testdata", "sample-trace-v2.4")
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleTrace()
	want.Meta.SchemaVersion = "2.4"
	emptyVersions(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version 2.4 trace reads as\n%+v\nwant\n%+v", got, want)
	}
	jobsOnly := t.TempDir() // OpenJobStream streams a trace of jobs alone
	b, err := os.ReadFile(filepath.Join(dir, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(jobsOnly, JobsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, ok, err := OpenJobStream(jobsOnly)
	if err != nil || !ok {
		t.Fatalf("OpenJobStream: ok %v, err %v", ok, err)
	}
	var streamed []Job
	if err := s.Stream.Each(func(_ int, j *Job) error { streamed = append(streamed, *j); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(streamed, want.Jobs) {
		t.Errorf("version 2.4 jobs stream as\n%+v\nwant\n%+v", streamed, want.Jobs)
	}
}

// emptyVersions sets every job's common configuration version (schema
// version 2.5) empty, as a trace written before it reads.
func emptyVersions(t *Trace) {
	for i := range t.Jobs {
		t.Jobs[i].ConfCommonVersion = ""
	}
}

// unknownOOB sets every job's out-of-band heartbeat (schema version 2.3)
// Unknown, as a trace written before it reads.
func unknownOOB(t *Trace) {
	for i := range t.Jobs {
		t.Jobs[i].ConfOutOfBandHeartbeat = Unknown
	}
}

// unknownLags sets every task's launch lag (schema version 2.2) and report
// lag (2.4) Unknown, as a trace written before the first reads.
func unknownLags(t *Trace) {
	for i := range t.Tasks {
		t.Tasks[i].LaunchLagMs = Unknown
	}
	unknownReports(t)
}

// unknownReports sets every task's report lag (schema version 2.4) Unknown,
// as a trace written before it reads.
func unknownReports(t *Trace) {
	for i := range t.Tasks {
		t.Tasks[i].ReportLagMs = Unknown
	}
}

// TestReadSchemaV23 reads the trace a schema version 2.3 build wrote for
// sampleTrace() (testdata/sample-trace-v2.3, the golden files of commit
// a6b0017, kept as written), whose tasks.parquet has no report_lag_ms
// column: the report lags come back Unknown, everything else as written,
// read whole (Read) and streamed (OpenTaskStream) alike.
func TestReadSchemaV23(t *testing.T) {
	dir := filepath.Join("testdata", "sample-trace-v2.3")
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleTrace()
	want.Meta.SchemaVersion = "2.3"
	emptyVersions(want)
	unknownReports(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version 2.3 trace reads as\n%+v\nwant\n%+v", got, want)
	}
	s, ok, err := OpenTaskStream(dir)
	if err != nil || !ok {
		t.Fatalf("OpenTaskStream: ok %v, err %v", ok, err)
	}
	var streamed []Task
	if err := s.Stream.EachTask(func(_ int, k *Task) error { streamed = append(streamed, *k); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(streamed) != len(want.Tasks) {
		t.Fatalf("version 2.3 tasks stream %d, want %d", len(streamed), len(want.Tasks))
	}
	for i := range streamed {
		if streamed[i].ReportLagMs != Unknown || streamed[i].LaunchLagMs != want.Tasks[i].LaunchLagMs {
			t.Errorf("version 2.3 task %s streams with lags %d/%d, want %d/%d", streamed[i].TaskID,
				streamed[i].LaunchLagMs, streamed[i].ReportLagMs, want.Tasks[i].LaunchLagMs, Unknown)
		}
	}
}

// TestLifecycleRoundTrip writes and reads back a trace with setup and cleanup
// tasks, attempts of every status and the version 2 job columns.
func TestLifecycleRoundTrip(t *testing.T) {
	tr := sampleTrace()
	j := &tr.Jobs[0]
	j.AMStartMs, j.ConfMapSlots, j.ConfReduceSlots, j.Scheduler = 1200, 4, 2, "org.apache.hadoop.mapred.CapacityTaskScheduler"
	su := NewTask(j.ID, "task_1_0002_r_000001", Setup, 1)
	su.Status, su.StartMs, su.FinishMs, su.Host = StatusSucceeded, 1500, 1590, "h1"
	cl := NewTask(j.ID, "task_1_0002_m_000002", Cleanup, 2)
	cl.Status, cl.StartMs, cl.FinishMs, cl.Host = StatusSucceeded, 8800, 9000, "h2"
	tr.Tasks = append(tr.Tasks, cl, su) // out of order on purpose
	a0 := NewAttempt(j.ID, "task_1_0002_m_000000", "attempt_1_0002_m_000000_0", Map)
	a0.Status, a0.StartMs, a0.FinishMs, a0.Host, a0.Rack = StatusFailed, 1550, 2784, "h3", "/r1"
	a1 := NewAttempt(j.ID, "task_1_0002_m_000000", "attempt_1_0002_m_000000_1", Map)
	a1.Status, a1.StartMs, a1.FinishMs, a1.Host, a1.Rack = StatusSucceeded, 1600, 2600, "h1", "/r1"
	a1.Speculative = true
	ar := NewAttempt(j.ID, "task_1_0002_r_000000", "attempt_1_0002_r_000000_0", Reduce)
	ar.Status, ar.StartMs, ar.ShuffleFinishMs, ar.SortFinishMs, ar.FinishMs = StatusSucceeded, 2000, 3000, 3100, 9000
	as := NewAttempt(j.ID, "task_1_0002_r_000001", "attempt_1_0002_r_000001_0", Setup)
	as.Status, as.StartMs, as.FinishMs = StatusKilled, 1500, 1590
	tr.Attempts = []Attempt{as, ar, a1, a0}
	dir := filepath.Join(t.TempDir(), "trace")
	if err := Write(dir, tr); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr.Sort()
	if !reflect.DeepEqual(got, tr) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, tr)
	}
	var order []string
	for _, k := range got.Tasks {
		order = append(order, k.Type.String())
	}
	if want := "MAP MAP REDUCE SETUP CLEANUP MAP"; strings.Join(order, " ") != want {
		t.Errorf("task order %v, want %s", order, want)
	}
	var aorder []string
	for _, a := range got.Attempts {
		aorder = append(aorder, a.AttemptID[len(a.AttemptID)-4:])
	}
	if want := "00_0 00_1 00_0 01_0"; strings.Join(aorder, " ") != want {
		t.Errorf("attempt order %v, want %s", aorder, want)
	}
	if got.Tasks[3].InMapSlot() || !got.Tasks[4].InMapSlot() {
		t.Errorf("setup in a reduce slot (r_ id), cleanup in a map slot (m_ id): got %v %v", got.Tasks[3].InMapSlot(), got.Tasks[4].InMapSlot())
	}
}
