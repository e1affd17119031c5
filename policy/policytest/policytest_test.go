package policytest

import (
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// recorder is a policy that launches nothing and records the hooks it gets.
type recorder struct {
	replay.Base
	got []string
}

func (r *recorder) Name() string                    { return "recorder" }
func (r *recorder) Heartbeat(replay.Cluster, int32) {}
func (r *recorder) JobArrived(_ replay.Cluster, j *replay.JobView) {
	r.got = append(r.got, "arrived "+j.ID())
}
func (r *recorder) TaskFinished(_ replay.Cluster, j *replay.JobView, reduce bool, _ int32) {
	kind := "map"
	if reduce {
		kind = "reduce"
	}
	r.got = append(r.got, j.ID()+" "+kind+" done")
}
func (r *recorder) JobFinished(_ replay.Cluster, j *replay.JobView) {
	r.got = append(r.got, "finished "+j.ID())
}

// TestEngineRules: the fake keeps the rules a policy can observe: slots,
// pending tasks, slow-start, locality, intermediate data, and the hooks at
// task and job ends.
func TestEngineRules(t *testing.T) {
	hw, err := Hardware(2, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	hw.SlowStart = 1
	c := New(hw, 1)
	p := &recorder{}
	j, err := c.Arrive(p, Job{ID: "A", Maps: [][]int32{{0}, {2}}, OutputBytes: 5, Reduces: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Active(); len(a) != 1 || a[0] != j {
		t.Fatalf("active %v, want A's view", a)
	}
	if loc := c.LaunchMap(j, 0, 1); loc != replay.RackLocal || c.RunningRemoteMaps() != 1 {
		t.Errorf("map 0 on node 1: %v with %d remote, want RACK_LOCAL with 1", loc, c.RunningRemoteMaps())
	}
	if j.PendingMaps() != 1 || j.RunningMaps() != 1 || c.FreeMapSlots(1) != 0 {
		t.Errorf("after a launch: pending %d, running %d, free on node 1 %d; want 1, 1, 0", j.PendingMaps(), j.RunningMaps(), c.FreeMapSlots(1))
	}
	mustPanic(t, "a launch on a full node", func() { c.LaunchMap(j, 1, 1) })
	mustPanic(t, "a launch of a running map", func() { c.LaunchMap(j, 0, 3) })
	if r := c.LaunchReduce(j, 0); r != -1 {
		t.Errorf("a reduce before slow-start launched (%d)", r)
	}
	c.SetNow(7)
	c.FinishMap(p, j, 0)
	c.LaunchMap(j, 1, 2)
	c.FinishMap(p, j, 1)
	if !j.ReducesReady() || j.LastMapEndUs() != 7 || j.MapOutputBytes(1) != 5 || j.MapOutputBytes(2) != 5 {
		t.Errorf("after the maps: ready %v, last map end %d, output on nodes 1, 2: %d, %d; want true, 7, 5, 5",
			j.ReducesReady(), j.LastMapEndUs(), j.MapOutputBytes(1), j.MapOutputBytes(2))
	}
	if r := c.LaunchReduce(j, 3); r != 0 {
		t.Fatalf("reduce launched as %d, want 0", r)
	}
	c.FinishReduce(p, j, 0)
	want := []string{"arrived A", "A map done", "A map done", "A reduce done", "finished A"}
	if !slices.Equal(p.got, want) || len(c.Active()) != 0 {
		t.Errorf("hooks %v with %d active, want %v and none", p.got, len(c.Active()), want)
	}
	if got := c.Launches(); len(got) != 3 || got[2].String() != "7µs A reduce 0 on node 3" {
		t.Errorf("launches %v", got)
	}
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

// TestDraws: the chosen draws come out of Float64 in turn.
func TestDraws(t *testing.T) {
	r := Draws(0.25, 0.75)
	for k, want := range []float64{0.25, 0.75, 0.25} {
		if got := r.Float64(); got != want {
			t.Errorf("draw %d: %v, want %v", k, got, want)
		}
	}
}
