package policy

import (
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
)

// countedCoupling is Coupling checking, after every hook, that Random
// Peeking's count of nodes with a free map slot is the count over every node,
// that its count of pending maps is the active jobs', and that Wait
// Scheduling's list, kept across hooks (ranking), is the one drawn afresh
// from V_r (dBest).
type countedCoupling struct {
	*Coupling
	t      *testing.T
	checks *int
	lists  *int
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
	c.checkPlaces(s, where)
	if j := c.wait.state.cand; j != nil && canReduce(j) {
		var vr, busy []int32
		for _, n := range s.Topology().Nodes {
			if s.FreeReduceSlots(n.ID) > 0 {
				if c.places.On(j, n.ID) {
					busy = append(busy, n.ID)
				} else {
					vr = append(vr, n.ID)
				}
			}
		}
		if len(vr) == 0 {
			vr = busy
		}
		data := j.MapOutputNodes()
		held := map[int32]int64{}
		for k, u := range data {
			held[u] = j.MapOutputAt(k)
		}
		want := dBest(s.Topology(), data, func(u int32) int64 { return held[u] }, vr, c.wait.d, listKey(c.wait.keySeed, j.Index(), j.FinishedMaps()))
		if got := c.wait.list(s, j); !slices.Equal(got, want) {
			c.t.Fatalf("at %d after %s: list %v, drawn afresh %v", s.Now(), where, got, want)
		}
		*c.lists++
	}
	*c.checks++
}

// checkPlaces checks that ReducePlaces' per-node lists hold the counts of
// its per-job maps, and that On answers, for every active job and node,
// whether one of the job's reduces runs there.
func (c countedCoupling) checkPlaces(s replay.Cluster, where string) {
	r := c.places
	entries := 0
	for n, l := range r.at {
		for _, e := range l {
			p := r.jobs[e.job]
			if p == nil || p.on[int32(n)] != e.n {
				c.t.Fatalf("at %d after %s: node %d lists job %d with %d reduces, its map %v", s.Now(), where, n, e.job, e.n, p)
			}
			entries++
		}
	}
	want := 0
	for _, p := range r.jobs {
		want += len(p.on)
	}
	if entries != want {
		c.t.Fatalf("at %d after %s: %d entries in the nodes' lists, %d in the jobs' maps", s.Now(), where, entries, want)
	}
	for _, j := range s.Active() {
		if r.jobs[j.Index()] == nil {
			continue // finished: still active during its JobFinished hook
		}
		on := map[int32]bool{}
		for i := range j.NumReduces() {
			if j.ReduceState(i) == replay.Running {
				on[j.ReduceNode(i)] = true
			}
		}
		for _, n := range s.Topology().Nodes {
			if got := r.On(j, n.ID); got != on[n.ID] {
				c.t.Fatalf("at %d after %s: On(job %d, node %d) = %v, want %v", s.Now(), where, j.Index(), n.ID, got, on[n.ID])
			}
		}
	}
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

func (c countedCoupling) OtherSlot(s replay.Cluster, n int32, kind replay.TaskKind, mapSlot, taken bool) {
	c.Coupling.OtherSlot(s, n, kind, mapSlot, taken)
	c.check(s, "a setup or cleanup task's slot")
}

func (c countedCoupling) TaskFinished(s replay.Cluster, j *replay.JobView, reduce bool, i int32) {
	c.Coupling.TaskFinished(s, j, reduce, i)
	c.check(s, "a task end")
}

// TestCouplingFreeMapNodesCounted: the count Random Peeking keeps of the
// nodes with a free map slot (every node sampled, no speculation) is the
// count over the nodes, and Coupling's count of pending maps the active
// jobs', and the candidate's list the one drawn afresh, after every hook of
// a replay of the first 50 jobs of FB-2009 on fb-600 and on a small cluster,
// without and with the job lifecycle (setup and cleanup tasks take map and
// reduce slots: Coupling.OtherSlot; with report_at_heartbeat and JVM reuse
// on the small cluster).
func TestCouplingFreeMapNodesCounted(t *testing.T) {
	tr := readFB50(t)
	// fb-600, and a small cluster whose few reduce slots keep V_r short, so
	// that reduces end on nodes that join the lists.
	small := parseHardware(t, "name = \"small\"\nracks = 3\nnodes_per_rack = 4\nmap_slots = 2\nreduce_slots = 1\n")
	fbLife := sampleHardware(t, "fb-600.toml")
	fbLife.Lifecycle = true
	smallLife := parseHardware(t, "name = \"small\"\nracks = 3\nnodes_per_rack = 4\nmap_slots = 2\nreduce_slots = 1\n"+
		"lifecycle = true\nreport_at_heartbeat = true\njvm_reuse = -1\nsetup_task = \"2s\"\ncleanup_task = \"20s\"\n")
	dedicated := parseHardware(t, "name = \"small\"\nracks = 3\nnodes_per_rack = 4\nmap_slots = 2\nreduce_slots = 1\nmap_nodes = 8\nreduce_nodes = 4\n"+
		"lifecycle = true\nsetup_task = \"2s\"\ncleanup_task = \"20s\"\n")
	// coupling-8node with the lifecycle of coupling-grep-lifecycle.toml: a
	// cleanup task takes the reduce slot of the last node without a reduce
	// of the candidate, so the list falls back to the nodes with one.
	eight := sampleHardware(t, "coupling-8node.toml")
	eight.Lifecycle, eight.ReportAtHeartbeat, eight.JobInitThreads = true, true, 4
	eight.SetupTask, eight.CleanupTask = replay.Duration(1650000), replay.Duration(1629000)
	for hi, hw := range []replay.Hardware{sampleHardware(t, "fb-600.toml"), small, fbLife, smallLife, dedicated, eight} {
		for seed := range uint64(3) {
			// fb-600's 600 nodes are counted after every hook, a hundred
			// times the small clusters' cost: the fast lane replays each
			// fb-600 shape with one seed (0 without the lifecycle, 2 with
			// it), the small clusters with all three.
			if testgate.IsFast() && hw.Name == "fb-600" && seed != uint64(hi%3) {
				continue
			}
			w, _ := newWorkload(t, hw, tr, seed+1)
			checks, lists := 0, 0
			p := countedCoupling{newPolicy(t, "coupling").(*Coupling), t, &checks, &lists}
			runPolicy(t, w, p, replay.Options{Seed: seed + 1, CheckInvariants: true})
			if !p.peek.incr || checks == 0 || lists == 0 {
				t.Fatalf("count not kept (incr %v, %d checks, %d lists)", p.peek.incr, checks, lists)
			}
		}
	}
}
