package replay

import (
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// candHolder fills every free slot from MapCandidates and ReduceCandidates;
// at its first launch it keeps the map candidates it was given, launches the
// only map of the first, and records what it held, what it holds after, and
// the candidates and active jobs then.
type candHolder struct {
	Base
	done                bool
	held, after, now    []string
	active, sawReducers []string
}

func (p *candHolder) Name() string { return "candHolder" }

func ids(v []*JobView) []string {
	var out []string
	for _, j := range v {
		if j == nil { // a slot cleared under the holder
			out = append(out, "nil")
			continue
		}
		out = append(out, j.ID())
	}
	return out
}

func (p *candHolder) Heartbeat(s Cluster, n int32) {
	if !p.done && s.FreeMapSlots(n) > 0 && len(s.MapCandidates()) == 2 {
		held := s.MapCandidates()
		p.held = ids(held)
		s.LaunchMap(held[0], held[0].AnyMap(), n)
		p.after, p.now, p.active = ids(held), ids(s.MapCandidates()), ids(s.Active())
		p.done = true
	}
	for s.FreeMapSlots(n) > 0 && len(s.MapCandidates()) > 0 {
		j := s.MapCandidates()[0]
		s.LaunchMap(j, j.AnyMap(), n)
	}
	for s.FreeReduceSlots(n) > 0 && len(s.ReduceCandidates()) > 0 {
		p.sawReducers = ids(s.ReduceCandidates())
		s.LaunchReduce(s.ReduceCandidates()[0], n)
	}
}

// TestCandidatesHeldStay: a launch that takes a job's last pending map drops
// it from MapCandidates without changing the slice a policy holds (a new
// list), and leaves Active as it is; the reduce candidates are the jobs whose
// reduces may launch. The invariant checker compares both lists with a scan
// of the active jobs at every heartbeat and task end.
func TestCandidatesHeldStay(t *testing.T) {
	h := flowHardware(t, 100, 100, 100)
	tr := &trace.Trace{}
	flowJob(tr, "A", [][2]int64{{10e6, 1e6}}, []int64{1e6})
	flowJob(tr, "B", [][2]int64{{10e6, 1e6}, {10e6, 1e6}}, []int64{1e6})
	w, err := NewWorkload(tr, &h, NewTopology(&h, 1), 1, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := &candHolder{}
	if _, err := Run(w, p, Options{Seed: 1, CheckInvariants: true}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"A", "B"}; !slices.Equal(p.held, want) || !slices.Equal(p.after, want) || !slices.Equal(p.active, want) {
		t.Errorf("held map candidates %v, after A's launch %v, active %v; want %v each", p.held, p.after, p.active, want)
	}
	if want := []string{"B"}; !slices.Equal(p.now, want) {
		t.Errorf("map candidates after A's last map launched: %v, want %v", p.now, want)
	}
	if len(p.sawReducers) == 0 {
		t.Error("no reduce candidate seen")
	}
}
