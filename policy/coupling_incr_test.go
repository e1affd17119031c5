package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// countedCoupling is Coupling checking, after every hook, that Random
// Peeking's count of nodes with a free map slot is the count over every node
// and that its count of pending maps is the active jobs'.
type countedCoupling struct {
	*Coupling
	t      *testing.T
	checks *int
}

func (c countedCoupling) check(s replay.Cluster, where string) {
	if !c.peek.incr {
		return
	}
	n := 0
	for _, v := range c.peek.sample.all {
		if s.FreeMapSlots(v) > 0 {
			n++
		}
	}
	if c.peek.free != n {
		c.t.Fatalf("at %d after %s: %d nodes counted with a free map slot, %d have one", s.Now(), where, c.peek.free, n)
	}
	var pending int64
	for _, j := range s.Active() {
		pending += int64(j.PendingMaps())
	}
	if c.counted && c.pending != pending {
		c.t.Fatalf("at %d after %s: %d pending maps counted, %d pending", s.Now(), where, c.pending, pending)
	}
	*c.checks++
}

func (c countedCoupling) Heartbeat(s replay.Cluster, n int32) {
	c.Coupling.Heartbeat(s, n)
	c.check(s, "a heartbeat")
}

func (c countedCoupling) JobArrived(s replay.Cluster, j *replay.JobView) {
	c.Coupling.JobArrived(s, j)
	c.check(s, "an arrival")
}

func (c countedCoupling) JobFinished(s replay.Cluster, j *replay.JobView) {
	c.Coupling.JobFinished(s, j)
	c.check(s, "a job end")
}

func (c countedCoupling) TaskFinished(s replay.Cluster, j *replay.JobView, reduce bool, i int32) {
	c.Coupling.TaskFinished(s, j, reduce, i)
	c.check(s, "a task end")
}

// TestCouplingFreeMapNodesCounted: the count Random Peeking keeps of the
// nodes with a free map slot (every node sampled, no lifecycle, no
// speculation) is the count over the nodes, and Coupling's count of pending
// maps the active jobs', after every hook of a replay of the first 50 jobs of
// FB-2009 on fb-600.
func TestCouplingFreeMapNodesCounted(t *testing.T) {
	path := filepath.Join("..", "samples", "traces", "fb2009-first50.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(path, f, "auto", trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := newWorkload(t, sampleHardware(t, "fb-600.toml"), tr, 1)
	checks := 0
	p := countedCoupling{newPolicy(t, "coupling").(*Coupling), t, &checks}
	runPolicy(t, w, p, replay.Options{Seed: 1, CheckInvariants: true})
	if !p.peek.incr || checks == 0 {
		t.Fatalf("count not kept (incr %v, %d checks)", p.peek.incr, checks)
	}
}
