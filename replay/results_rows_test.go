package replay

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/trace"
)

// TestResultRowsNulls: Unset times and a zero slowdown are stored as nulls and
// read back as Unset and 0; known values, 0 included, stay values. A file from
// before the columns were nullable (holding -1) reads back the same.
func TestResultRowsNulls(t *testing.T) {
	jobs := []JobResult{
		{Policy: "p", JobIndex: 0, JobID: "a", SubmitUs: 0, FirstLaunchUs: 0, LastMapEndUs: 5, FirstReduceLaunchUs: Unset,
			LastReduceLaunchUs: Unset, FinishUs: 5, FlowtimeUs: 5, IdealUs: 5, AloneUs: Unset, WaitingUs: 0,
			Slowdown: 1, ObservedFlowtimeUs: Unset},
		{Policy: "p", JobIndex: 1, JobID: "b", SubmitUs: 3, FirstLaunchUs: Unset, LastMapEndUs: Unset, FirstReduceLaunchUs: Unset,
			LastReduceLaunchUs: Unset, FinishUs: Unset, FlowtimeUs: Unset, AloneUs: 7, WaitingUs: Unset, ObservedFlowtimeUs: 9,
			InputBytes: Unset, ShuffleBytes: 0, OutputBytes: Unset},
	}
	tasks := []TaskResult{
		{Policy: "p", Type: "MAP", Node: 0, LaunchUs: 0, ShuffleEndUs: Unset, FinishUs: 5, InputBytes: 0},
		{Policy: "p", Type: "REDUCE", Node: Unset, LaunchUs: Unset, ShuffleEndUs: 4, FinishUs: Unset, InputBytes: Unset},
	}
	timeline := []TimelineSample{
		{Policy: "p", TimeUs: 0, JobIndex: -1, RunningMaps: 1},
		{Policy: "p", TimeUs: 0, JobIndex: 0, RunningMaps: 1},
	}
	dir := t.TempDir()
	if err := WriteRun(dir, &Result{Jobs: jobs, Tasks: tasks, Timeline: timeline}, nil); err != nil {
		t.Fatal(err)
	}
	tlrows, _, err := trace.ReadParquetFile[TimelineRow](filepath.Join(dir, TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(tlrows) != 2 || tlrows[0].JobIndex != nil || tlrows[1].JobIndex == nil || *tlrows[1].JobIndex != 0 {
		t.Errorf("timeline rows stored as %+v: want the whole cluster's job_index null, job 0's 0", tlrows)
	}
	if got := TimelineSamples(tlrows); !slices.Equal(got, timeline) {
		t.Errorf("timeline read back %+v, want %+v", got, timeline)
	}
	oldTL := filepath.Join(dir, "old-timeline.parquet")
	if err := trace.WriteParquetFile(oldTL, timeline, nil); err != nil {
		t.Fatal(err)
	}
	if orows, err := parquet.ReadFile[TimelineRow](oldTL); err != nil || !slices.Equal(TimelineSamples(orows), timeline) {
		t.Errorf("old-format timeline (job_index -1) read back %+v, %v; want %+v", orows, err, timeline)
	}
	jrows, _, err := trace.ReadParquetFile[JobRow](filepath.Join(dir, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	nulls := 0
	for _, r := range jrows {
		for _, p := range []*int64{r.FirstLaunchUs, r.LastMapEndUs, r.FirstReduceLaunchUs, r.LastReduceLaunchUs,
			r.FinishUs, r.FlowtimeUs, r.AloneUs, r.WaitingUs, r.ObservedFlowtimeUs, r.InputBytes, r.ShuffleBytes, r.OutputBytes} {
			if p == nil {
				nulls++
			}
		}
		if r.Slowdown == nil {
			nulls++
		}
	}
	if want := 4 + 7 + 2 + 1; nulls != want {
		t.Errorf("jobs.parquet holds %d nulls, want %d", nulls, want)
	}
	if got := JobResults(jrows); !slices.Equal(got, jobs) {
		t.Errorf("jobs read back\n%+v\nwant\n%+v", got, jobs)
	}
	trows, _, err := trace.ReadParquetFile[TaskRow](filepath.Join(dir, TasksFile))
	if err != nil {
		t.Fatal(err)
	}
	if trows[0].ShuffleEndUs != nil || trows[0].InputBytes == nil || trows[1].Node != nil || trows[1].ShuffleEndUs == nil {
		t.Errorf("task rows stored as %+v", trows)
	}
	for i := range trows {
		if got := trows[i].Result(); got != tasks[i] {
			t.Errorf("task %d read back %+v, want %+v", i, got, tasks[i])
		}
	}

	// The older encoding: -1 as a value.
	old := filepath.Join(dir, "old.parquet")
	if err := trace.WriteParquetFile(old, jobs, nil); err != nil {
		t.Fatal(err)
	}
	orows, err := parquet.ReadFile[JobRow](old)
	if err != nil {
		t.Fatal(err)
	}
	if got := JobResults(orows); !slices.Equal(got, jobs) {
		t.Errorf("old-format jobs read back\n%+v\nwant\n%+v", got, jobs)
	}
}

// TestStreamedRunWrittenOnce: a streamed run's files are completed by one
// WriteRun into its directory; another directory or a second call is an error
// that leaves the written files alone.
func TestStreamedRunWrittenOnce(t *testing.T) {
	hw, err := ParseHardware([]byte("racks = 1\nnodes_per_rack = 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkload(shuffleTrace(), &hw, NewTopology(&hw, 1), 1, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, err := NewRunWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(w, &scripted{steps: []step{{false, 0, 0, 0}, {false, 1, 1, 0}, {true, 0, 2, 0}}},
		Options{Seed: 1, Timeline: true, RecordTasks: true, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tasks) != 0 || len(res.Timeline) != 0 {
		t.Fatalf("a streamed run kept %d tasks and %d samples in memory", len(res.Tasks), len(res.Timeline))
	}
	if err := WriteRun(t.TempDir(), res, nil); err == nil {
		t.Error("WriteRun into another directory than the stream's: no error")
	}
	if err := WriteRun(dir, res, nil); err != nil {
		t.Fatal(err)
	}
	tasks, _, err := trace.ReadParquetFile[TaskRow](filepath.Join(dir, TasksFile))
	if err != nil || len(tasks) != 3 {
		t.Fatalf("tasks.parquet: %d rows, %v; want 3", len(tasks), err)
	}
	if err := WriteRun(dir, res, nil); err == nil {
		t.Error("a second WriteRun of a streamed run: no error")
	}
	if tl, _, err := trace.ReadParquetFile[TimelineRow](filepath.Join(dir, TimelineFile)); err != nil || len(tl) == 0 {
		t.Errorf("timeline.parquet after the refused second write: %d rows, %v", len(tl), err)
	}
}
