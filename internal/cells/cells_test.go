package cells_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/cells"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report/preset/workloads"
	"github.com/tracereplay/tracereplay/trace"
)

// cell is a small generated cell: five synthetic jobs under fifo on the
// default hardware, with a sweep label.
func cell() replay.Cell {
	return replay.Cell{
		Trace:    replay.ExpTrace{Name: "small", Generator: "synthetic", Params: map[string]any{"jobs": int64(5), "maps_mean": int64(4)}},
		Hardware: replay.DefaultHardware(), HWName: "default", Policy: "fifo", Seed: 3,
		Labels: [][2]string{{"policy", "fifo"}, {"trace", "small"}, {"hw", "default"}, {"seed", "3"}},
		Dir:    "policy=fifo/trace=small/hw=default/seed=3",
	}
}

// TestRunAsByHand: Run gives what generating the trace, building the
// workload and running the policy by hand give, with the cell's labels other
// than the policy as the summary's parameters.
func TestRunAsByHand(t *testing.T) {
	c := cell()
	opt := replay.Options{CheckInvariants: true, RecordTasks: true, Timeline: true, TraceName: "small", HardwareName: c.HWName}
	got, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New, Replay: opt})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := workloads.Generate(c.Trace.Generator, trace.GenParams(c.Trace.Params), c.Seed)
	if err != nil {
		t.Fatal(err)
	}
	hw := c.Hardware
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, c.Seed), c.Seed, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(c.Policy)
	if err != nil {
		t.Fatal(err)
	}
	opt.Seed = c.Seed
	want, err := replay.Run(w, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	want.Summary.Params = map[string]string{"trace": "small", "hw": "default", "seed": "3"}
	got.Wall, want.Wall = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells.Run gives\n%+v\nby hand\n%+v", got.Summary, want.Summary)
	}
	// A given trace is replayed as it is, not generated again.
	again, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New, Trace: tr, Replay: opt})
	if err != nil {
		t.Fatal(err)
	}
	again.Wall = 0
	if !reflect.DeepEqual(again, got) {
		t.Error("the cell's own trace, given, replays differently")
	}
}

// TestRunGivenWorkload: a workload given is replayed as it is, not built
// again: the run's task limit of 1, which building it again refuses, is not
// applied, and the result is that of the workload built by hand.
func TestRunGivenWorkload(t *testing.T) {
	c := cell()
	tr, err := workloads.Generate(c.Trace.Generator, trace.GenParams(c.Trace.Params), c.Seed)
	if err != nil {
		t.Fatal(err)
	}
	hw := c.Hardware
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, c.Seed), c.Seed, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opt := replay.Options{TraceName: "small", Workload: replay.WorkloadOptions{MaxTasks: 1}}
	if _, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New, Trace: tr, Replay: opt}); !errors.Is(err, replay.ErrTooManyTasks) {
		t.Fatalf("built by Run with a limit of 1 task: error %v, want %v", err, replay.ErrTooManyTasks)
	}
	got, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New, Trace: tr, Workload: w, Replay: opt})
	if err != nil {
		t.Fatal(err)
	}
	opt.Workload = replay.WorkloadOptions{}
	want, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New, Trace: tr, Replay: opt})
	if err != nil {
		t.Fatal(err)
	}
	got.Wall, want.Wall = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the workload given replays\n%+v\nbuilt by Run\n%+v", got.Summary, want.Summary)
	}
}

// TestRunOutDir: with OutDir the run streams into that directory, which
// replay.WriteRun then completes.
func TestRunOutDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	res, err := cells.Run(context.Background(), cell(), cells.Options{NewPolicy: policy.New, OutDir: dir,
		Replay: replay.Options{RecordTasks: true, Timeline: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := replay.WriteRun(dir, res, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "jobs.parquet")); err != nil {
		t.Error(err)
	}
}

// TestRunErrors: a trace that cannot be generated is an InputError; a policy
// that cannot be built is not; a policy cell needs NewPolicy.
func TestRunErrors(t *testing.T) {
	c := cell()
	c.Trace.Generator = "nope"
	_, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New})
	var in *cells.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), `unknown generator "nope"`) {
		t.Errorf("unknown generator: error %v, want an InputError", err)
	}
	c = cell()
	c.Policy = "no-such-policy"
	if _, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New}); err == nil || errors.As(err, &in) {
		t.Errorf("unknown policy: error %v, want a policy error", err)
	}
	if _, err := cells.Run(context.Background(), cell(), cells.Options{}); err == nil || !strings.Contains(err.Error(), "NewPolicy") {
		t.Errorf("no policy constructor: error %v", err)
	}
	c = cell()
	c.Trace = replay.ExpTrace{Name: "none"}
	if _, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New}); !errors.As(err, &in) {
		t.Errorf("no trace: error %v, want an InputError", err)
	}
}
