package main

import (
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

func jobsAt(ms ...int64) *trace.Trace {
	t := &trace.Trace{}
	for i, s := range ms {
		t.Jobs = append(t.Jobs, trace.Job{ID: string(rune('a' + i)), SubmitMs: s})
	}
	return t
}

// TestSpread checks the offsets: within the job's second, the jobs' order
// kept (ties included), the same seed giving the same times, another seed
// others.
func TestSpread(t *testing.T) {
	times := []int64{0, 0, 0, 1000, 5000, 5000, 9000}
	a, b, c := jobsAt(times...), jobsAt(times...), jobsAt(times...)
	for _, x := range []struct {
		t    *trace.Trace
		seed uint64
	}{{a, 1}, {b, 1}, {c, 2}} {
		if err := spread(x.t, x.seed); err != nil {
			t.Fatal(err)
		}
	}
	moved := false
	for i, j := range a.Jobs {
		if j.SubmitMs < times[i] || j.SubmitMs >= times[i]+1000 {
			t.Errorf("job %d: %d ms, want within [%d, %d)", i, j.SubmitMs, times[i], times[i]+1000)
		}
		if i > 0 && j.SubmitMs < a.Jobs[i-1].SubmitMs {
			t.Errorf("job %d at %d ms before job %d at %d ms", i, j.SubmitMs, i-1, a.Jobs[i-1].SubmitMs)
		}
		if j.SubmitMs != b.Jobs[i].SubmitMs {
			t.Errorf("job %d: %d and %d ms with the same seed", i, j.SubmitMs, b.Jobs[i].SubmitMs)
		}
		if j.SubmitMs != c.Jobs[i].SubmitMs {
			moved = true
		}
	}
	if !moved {
		t.Error("seeds 1 and 2 gave the same times")
	}
}

// TestSpreadRefuses checks the traces it must not touch.
func TestSpreadRefuses(t *testing.T) {
	for name, tr := range map[string]*trace.Trace{
		"sub-second":   jobsAt(0, 1500),
		"out of order": jobsAt(2000, 1000),
		"with tasks":   {Jobs: jobsAt(0).Jobs, Tasks: []trace.Task{{JobID: "a"}}},
	} {
		if err := spread(tr, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
