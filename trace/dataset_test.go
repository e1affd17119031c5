package trace

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sampleTrace returns a small trace with tasks, unknowns, lists and metadata, in
// canonical order.
func sampleTrace() *Trace {
	j1 := NewJob("job_1_0002")
	j1.Name, j1.User, j1.Queue, j1.Status = "wordcount", "alice", "default", StatusSucceeded
	j1.SubmitMs, j1.LaunchMs, j1.FinishMs = 1000, 1500, 9000
	j1.NumMaps, j1.NumReduces = 2, 1
	j1.InputBytes, j1.ShuffleBytes, j1.OutputBytes = 1<<40, 0, 77
	j1.MapMemoryMB = 1024
	j1.InputPath = "/data/in"
	j1.FailedAttempts, j1.KilledAttempts, j1.WastedMs = 1, 0, 1234
	j1.ConfMapMaxAttempts, j1.ConfReduceMaxAttempts = 4, 6
	j1.ConfOutOfBandHeartbeat = 1
	j1.ConfCommonVersion = "0.21.0"

	j2 := NewJob("job_1_0010")
	j2.SubmitMs = 1000 // same submit: natural id order puts 0002 before 0010
	j2.Status = StatusFailed
	j2.ConfOutOfBandHeartbeat = 0

	j3 := NewJob("job_1_0001")
	j3.SubmitMs = 2000

	m0 := NewTask(j1.ID, "task_1_0002_m_000000", Map, 0)
	m0.InputBytes, m0.OutputBytes = 128, 64
	m0.PreferredHosts = []string{"h1", "h2", "h3"}
	m0.PreferredRacks = []string{"/r1", "/r1", ""}
	m0.Status, m0.StartMs, m0.FinishMs = StatusSucceeded, 1600, 2600
	m0.Host, m0.Rack, m0.Locality = "h1", "/r1", NodeLocal
	m0.FailedAttempts, m0.WastedMs = 1, 1234
	m1 := NewTask(j1.ID, "task_1_0002_m_000001", Map, 1)
	m1.PreferredHosts = []string{"h4"}
	r0 := NewTask(j1.ID, "task_1_0002_r_000000", Reduce, 0)
	r0.ShuffleBytes, r0.StartMs, r0.ShuffleFinishMs, r0.SortFinishMs, r0.FinishMs = 64, 2000, 3000, 3100, 9000
	r0.LaunchLagMs, r0.ReportLagMs = 1130, 240
	t0 := NewTask(j3.ID, "task_1_0001_m_000000", Map, 0)

	return &Trace{
		Jobs:  []Job{j1, j2, j3},
		Tasks: []Task{m0, m1, r0, t0},
		Meta: Meta{
			SchemaVersion: SchemaVersion, SourceFormat: "jhist",
			Sources: []string{"a.jhist", "b.jhist"},
			Options: map[string]string{"strict": "true", "b": "2", "a": "1"},
			Tool:    "tracereplay test",
		},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	want := sampleTrace()
	dir := filepath.Join(t.TempDir(), "trace")
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, want)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the trace: %v", entries)
	}
}

func TestWriteJobsOnlyHasNoTasksFile(t *testing.T) {
	tr := sampleTrace()
	tr.Tasks = nil
	tr.Meta.Options, tr.Meta.Sources = nil, nil
	dir := filepath.Join(t.TempDir(), "trace")
	if err := Write(dir, tr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, TasksFile)); !os.IsNotExist(err) {
		t.Errorf("tasks.parquet written for a trace without tasks (stat: %v)", err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, tr) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, tr)
	}
}

func TestWriteDeterministicAndOrderIndependent(t *testing.T) {
	base := t.TempDir()
	a := sampleTrace()
	b := sampleTrace()
	// Reverse b's jobs and tasks: Write must sort a copy and give the same bytes.
	for i, j := 0, len(b.Jobs)-1; i < j; i, j = i+1, j-1 {
		b.Jobs[i], b.Jobs[j] = b.Jobs[j], b.Jobs[i]
	}
	for i, j := 0, len(b.Tasks)-1; i < j; i, j = i+1, j-1 {
		b.Tasks[i], b.Tasks[j] = b.Tasks[j], b.Tasks[i]
	}
	bJobs0 := b.Jobs[0].ID
	for _, name := range []string{"a", "a2", "b"} {
		tr := a
		if name == "b" {
			tr = b
		}
		if err := Write(filepath.Join(base, name), tr); err != nil {
			t.Fatal(err)
		}
	}
	if b.Jobs[0].ID != bJobs0 {
		t.Errorf("Write reordered the caller's trace")
	}
	for _, f := range []string{JobsFile, TasksFile} {
		ref, err := os.ReadFile(filepath.Join(base, "a", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, other := range []string{"a2", "b"} {
			got, err := os.ReadFile(filepath.Join(base, other, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ref, got) {
				t.Errorf("%s of %s differs from a's", f, other)
			}
		}
	}
}

func TestWriteReplacesTraceDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	if err := Write(dir, sampleTrace()); err != nil {
		t.Fatal(err)
	}
	tr := sampleTrace()
	tr.Tasks = nil
	if err := Write(dir, tr); err != nil {
		t.Fatalf("replacing a trace directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, TasksFile)); !os.IsNotExist(err) {
		t.Errorf("stale tasks.parquet survived the replacement")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("leftovers beside the trace: %v", entries)
	}
}

func TestWriteRefusesForeignDir(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(dir, sampleTrace())
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("Write over a foreign directory: err = %v, want a refusal naming notes.txt", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("foreign file lost: %v", err)
	}
}

func TestWriteRejectsInvalid(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*Trace)
		want   string
	}{
		{"duplicate job", func(tr *Trace) { tr.Jobs[1].ID = tr.Jobs[0].ID }, "duplicate job id"},
		{"empty job id", func(tr *Trace) { tr.Jobs[0].ID = "" }, "empty job id"},
		{"negative bytes", func(tr *Trace) { tr.Jobs[0].InputBytes = -2 }, "input_bytes = -2"},
		{"negative submit", func(tr *Trace) { tr.Jobs[0].SubmitMs = -1 }, "submit_ms = -1"},
		{"orphan task", func(tr *Trace) { tr.Tasks[0].JobID = "nope" }, `job "nope" is not in the trace`},
		{"duplicate task", func(tr *Trace) { tr.Tasks[1].Index = 0 }, "duplicate MAP 0"},
		{"bad type", func(tr *Trace) { tr.Tasks[0].Type = 7 }, "invalid task type"},
		{"racks length", func(tr *Trace) { tr.Tasks[0].PreferredRacks = []string{"/r1"} }, "1 preferred racks for 3"},
		{"negative index", func(tr *Trace) { tr.Tasks[0].Index = -1 }, "index = -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := sampleTrace()
			c.modify(tr)
			dir := filepath.Join(t.TempDir(), "trace")
			err := Write(dir, tr)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("output directory exists after a failed Write")
			}
		})
	}
}

func TestReadRejects(t *testing.T) {
	type row struct {
		JobID string `parquet:"job_id"`
	}
	good := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "trace")
		if err := Write(dir, sampleTrace()); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	withMeta := func(version string) func(t *testing.T) string {
		return func(t *testing.T) string {
			dir := good(t)
			meta, _ := encodeMeta(&sampleTrace().Meta)
			meta[MetaSchemaVersion] = version
			rows := jobRows(sampleTrace().Jobs)
			if err := WriteParquetFile(filepath.Join(dir, JobsFile), rows, meta); err != nil {
				t.Fatal(err)
			}
			return dir
		}
	}
	cases := []struct {
		name  string
		setup func(t *testing.T) string
		want  string
	}{
		{"missing dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") }, "jobs.parquet"},
		{"newer major", withMeta("3.0"), "newer than this tracereplay reads"},
		{"older major", withMeta("0"), "older than"},
		{"garbage version", withMeta("x"), "want MAJOR or MAJOR.MINOR"},
		{"not parquet", func(t *testing.T) string {
			dir := good(t)
			os.WriteFile(filepath.Join(dir, TasksFile), []byte("hello, not parquet"), 0o644)
			return dir
		}, "tasks.parquet: not a readable Parquet file"},
		{"missing columns", func(t *testing.T) string {
			dir := good(t)
			if err := WriteParquetFile(filepath.Join(dir, JobsFile), []row{{"j"}}, nil); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "jobs.parquet: column name is missing"},
		{"no metadata", func(t *testing.T) string {
			dir := good(t)
			if err := WriteParquetFile(filepath.Join(dir, JobsFile), jobRows(sampleTrace().Jobs), nil); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "not a tracereplay trace file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(c.setup(t))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestParquetFileHelpers(t *testing.T) {
	type result struct {
		Policy string  `parquet:"policy,dict"`
		Flow   int64   `parquet:"flow_us"`
		Ratio  float64 `parquet:"ratio"`
		Note   *string `parquet:"note,optional"`
	}
	note := "late"
	rows := []result{{"fifo", 10, 1.5, nil}, {"fair", 20, 2.5, &note}}
	meta := map[string]string{"z": "last", "a": "first"}
	path := filepath.Join(t.TempDir(), "results.parquet")
	if err := WriteParquetFile(path, rows, meta, ParquetOptions{SortedBy: []string{"flow_us"}}); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	if err := WriteParquetFile(path, rows, meta, ParquetOptions{SortedBy: []string{"flow_us"}}); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	if !bytes.Equal(first, second) {
		t.Errorf("same rows gave different bytes")
	}
	got, gotMeta, err := ReadParquetFile[result](path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) || !reflect.DeepEqual(gotMeta, meta) {
		t.Errorf("got %+v %v, want %+v %v", got, gotMeta, rows, meta)
	}
	type wrongType struct {
		Flow string `parquet:"flow_us"`
	}
	if _, _, err := ReadParquetFile[wrongType](path); err == nil || !strings.Contains(err.Error(), "column flow_us has type") {
		t.Errorf("reading flow_us as string: err = %v", err)
	}
	type wrongNull struct {
		Note string `parquet:"note"`
	}
	if _, _, err := ReadParquetFile[wrongNull](path); err == nil || !strings.Contains(err.Error(), "column note has repetition/definition") {
		t.Errorf("reading optional note as required: err = %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := WriteParquetFile(filepath.Join(t.TempDir(), "no", "such", "dir.parquet"), rows, nil); err == nil {
		t.Errorf("writing into a missing directory succeeded")
	}
}

func TestCompareIDs(t *testing.T) {
	ordered := []string{"", "job", "job0", "job01", "job1", "job2", "job9", "job10", "job10a", "job100",
		"job_201002080801_9999", "job_201002080801_10000", "jobb", "task"}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := CompareIDs(ordered[i], ordered[j]); got != want {
				t.Errorf("CompareIDs(%q, %q) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	// Total order: antisymmetric, and sorting any permutation gives one result.
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]string, 300)
	for i := range ids {
		b := make([]byte, rng.IntN(6))
		for k := range b {
			b[k] = "0019ab_"[rng.IntN(7)]
		}
		ids[i] = string(b)
	}
	sorted := slices.SortedFunc(slices.Values(ids), CompareIDs)
	for i := 1; i < len(sorted); i++ {
		if c := CompareIDs(sorted[i-1], sorted[i]); c > 0 || (c == 0 && sorted[i-1] != sorted[i]) {
			t.Fatalf("not a total order at %q, %q", sorted[i-1], sorted[i])
		}
		for j := 0; j < i; j++ {
			if CompareIDs(sorted[j], sorted[i]) > 0 || CompareIDs(sorted[i], sorted[j]) < 0 {
				t.Fatalf("not transitive/antisymmetric: %q vs %q", sorted[j], sorted[i])
			}
		}
	}
}
