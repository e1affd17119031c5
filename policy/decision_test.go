package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/policy/policytest"
	"github.com/tracereplay/tracereplay/replay"
)

// Policy decisions as unit tests on policytest's fake cluster: one heartbeat
// at a time, no engine. The cluster is 2 racks of 2 nodes (nodes 0 and 1 in
// rack 0, 2 and 3 in rack 1), one map and one reduce slot each, aligned
// heartbeats every second, one replica per block and slow-start 0.

// fakeCluster builds the fake cluster and initialises p on it.
func fakeCluster(t *testing.T, p replay.Policy) *policytest.Cluster {
	t.Helper()
	hw, err := policytest.Hardware(2, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := policytest.New(hw, 1)
	p.Init(c)
	return c
}

// arrive submits a job now and tells p.
func arrive(t *testing.T, c *policytest.Cluster, p replay.Policy, spec policytest.Job) *replay.JobView {
	t.Helper()
	j, err := c.Arrive(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// onNodes is a job's maps, one per listed node holding its input.
func onNodes(nodes ...int32) [][]int32 {
	var m [][]int32
	for _, n := range nodes {
		m = append(m, []int32{n})
	}
	return m
}

// wantLaunches compares launches with the schedule lines want (Launch.String).
func wantLaunches(t *testing.T, what string, got []policytest.Launch, want ...string) {
	t.Helper()
	var g []string
	for _, l := range got {
		g = append(g, l.String())
	}
	if !slices.Equal(g, want) {
		t.Errorf("%s: launched\n\t%s\nwant\n\t%s", what, strings.Join(g, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestFIFODecision: best effort gives node 0's slot to the head job even off
// its rack; the strict variant passes it to the first job with input there.
// Reduces go in submit order.
func TestFIFODecision(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"fifo", "0s A map 0 on node 0 (OFF_SWITCH)"},
		{"fifo-strict", "0s B map 0 on node 0 (NODE_LOCAL)"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			p := newPolicy(t, c.spec)
			fc := fakeCluster(t, p)
			arrive(t, fc, p, policytest.Job{ID: "A", Maps: onNodes(2)})
			arrive(t, fc, p, policytest.Job{ID: "B", Maps: onNodes(0)})
			fc.SetFree(0, 1, 0)
			wantLaunches(t, "heartbeat of node 0", fc.Heartbeat(p, 0), c.want)
		})
	}
	t.Run("reduces", func(t *testing.T) {
		p := newPolicy(t, "fifo")
		fc := fakeCluster(t, p)
		arrive(t, fc, p, policytest.Job{ID: "A", Maps: onNodes(2), Reduces: 2})
		arrive(t, fc, p, policytest.Job{ID: "B", Maps: onNodes(0), Reduces: 1})
		for n := range int32(4) {
			fc.SetFree(n, 0, 1)
		}
		wantLaunches(t, "heartbeat of node 3", fc.Heartbeat(p, 3), "0s A reduce 0 on node 3")
		wantLaunches(t, "heartbeat of node 1", fc.Heartbeat(p, 1), "0s A reduce 1 on node 1")
		wantLaunches(t, "heartbeat of node 0", fc.Heartbeat(p, 0), "0s B reduce 0 on node 0")
	})
}

// TestFairDelaySkip is delay scheduling (Zaharia et al., Alg. 2): A is first in
// fair order (pools a and b tie, a sorts first) but has no input on node 0, so
// it is skipped and B takes the slot; while A waits less than T1 = 1.5
// heartbeats the slot stays idle rather than go to A; at T1 A may launch
// rack-local.
func TestFairDelaySkip(t *testing.T) {
	p := newPolicy(t, "fair")
	fc := fakeCluster(t, p)
	arrive(t, fc, p, policytest.Job{ID: "A", User: "a", Maps: onNodes(1)})
	arrive(t, fc, p, policytest.Job{ID: "B", User: "b", Maps: onNodes(0)})
	for n := range int32(4) {
		fc.SetFree(n, 0, 0)
	}
	fc.SetFree(0, 1, 0)
	wantLaunches(t, "at 0 s", fc.Heartbeat(p, 0), "0s B map 0 on node 0 (NODE_LOCAL)")

	fc.SetFree(0, 1, 0)
	fc.SetNow(sec)
	wantLaunches(t, "at 1 s, A waiting 1 s < T1", fc.Heartbeat(p, 0))

	fc.SetNow(3 * sec / 2)
	wantLaunches(t, "at 1.5 s, A waiting T1", fc.Heartbeat(p, 0), "1.5s A map 0 on node 0 (RACK_LOCAL)")
}

// TestFairDelayResets: launching a map returns a job to node level and ends
// its wait, so when it is next skipped it waits T1 and T2 afresh instead of
// counting from its first skip.
func TestFairDelayResets(t *testing.T) {
	p := newPolicy(t, "fair")
	fc := fakeCluster(t, p)
	arrive(t, fc, p, policytest.Job{ID: "A", Maps: onNodes(1, 0)})
	for n := range int32(4) {
		fc.SetFree(n, 0, 0)
	}
	fc.SetFree(3, 1, 0)
	wantLaunches(t, "at 0 s, node 3: skipped, waiting from 0 s", fc.Heartbeat(p, 3))
	fc.SetNow(sec)
	fc.SetFree(0, 1, 0)
	wantLaunches(t, "at 1 s, node 0", fc.Heartbeat(p, 0), "1s A map 1 on node 0 (NODE_LOCAL)")
	fc.SetNow(2 * sec)
	wantLaunches(t, "at 2 s, node 3: skipped, waiting from 2 s", fc.Heartbeat(p, 3))
	fc.SetNow(7 * sec / 2)
	wantLaunches(t, "at 3.5 s: rack level, no input in rack 1", fc.Heartbeat(p, 3))
	fc.SetNow(5 * sec)
	wantLaunches(t, "at 5 s: any level", fc.Heartbeat(p, 3), "5s A map 0 on node 3 (OFF_SWITCH)")
}

// TestCouplingPeeking is Random Peeking (Alg. 3): a job with input on the node
// launches there whatever the draw; one without declines with probability
// 1 − p_j, and then skips the whole heartbeat, its slot passing on in fair
// order; with a draw below p_j it launches rack-local.
func TestCouplingPeeking(t *testing.T) {
	setup := func(t *testing.T, draws ...float64) (replay.Policy, *policytest.Cluster) {
		p := newPolicy(t, "coupling")
		fc := fakeCluster(t, p)
		fc.SetRand(policytest.Draws(draws...))
		arrive(t, fc, p, policytest.Job{ID: "A", User: "a", Maps: onNodes(1, 1)})
		arrive(t, fc, p, policytest.Job{ID: "B", User: "b", Maps: onNodes(0)})
		return p, fc
	}
	t.Run("local", func(t *testing.T) {
		p, fc := setup(t, 0.999)
		wantLaunches(t, "node 1", fc.Heartbeat(p, 1), "0s A map 0 on node 1 (NODE_LOCAL)")
	})
	t.Run("decline", func(t *testing.T) {
		// The second draw would launch, but A skips the rest of the heartbeat.
		p, fc := setup(t, 0.999, 0)
		fc.SetFree(0, 2, 0)
		wantLaunches(t, "node 0", fc.Heartbeat(p, 0), "0s B map 0 on node 0 (NODE_LOCAL)")
		fc.SetFree(0, 1, 0)
		fc.SetNow(sec)
		wantLaunches(t, "node 0, next heartbeat", fc.Heartbeat(p, 0), "1s A map 0 on node 0 (RACK_LOCAL)")
	})
	t.Run("launch", func(t *testing.T) {
		p, fc := setup(t, 0)
		wantLaunches(t, "node 0", fc.Heartbeat(p, 0), "0s A map 0 on node 0 (RACK_LOCAL)")
	})
	t.Run("probability", func(t *testing.T) {
		// p_j of eq. 3 for A at node 0: one of the 4 nodes holds its input
		// (p̂ = 1/4), all 4 have a free map slot (N̂ = 4), β = 0.1 +
		// 0.9(1 − e^{−2/4}), and α = 0.8 (input in the rack, no reduce of A
		// on the node). A draw just below it launches, just above declines.
		pj := peekProb(alphaRack, 0.25, peekBeta(2, 4), 4)
		if !(pj > 0 && pj < 1) {
			t.Fatalf("p_j = %v, want a probability strictly between 0 and 1", pj)
		}
		p, fc := setup(t, pj-1e-9)
		wantLaunches(t, "draw below p_j", fc.Heartbeat(p, 0), "0s A map 0 on node 0 (RACK_LOCAL)")
		p, fc = setup(t, pj+1e-9)
		wantLaunches(t, "draw above p_j", fc.Heartbeat(p, 0), "0s B map 0 on node 0 (NODE_LOCAL)")
	})
}

// TestCouplingWaitScheduling is Wait Scheduling (Alg. 2): the job with the
// largest mismatch becomes the candidate at one heartbeat, which launches
// nothing; for the next N = 4 heartbeats its reduce may launch only on L1, the
// node holding its intermediate data (node 3); for the next N on L2 (node 2,
// the rest of rack 1, comes second). Greedy placement would launch at once.
func TestCouplingWaitScheduling(t *testing.T) {
	setup := func(t *testing.T) (replay.Policy, *policytest.Cluster, *replay.JobView) {
		p := newPolicy(t, "coupling")
		fc := fakeCluster(t, p)
		j := arrive(t, fc, p, policytest.Job{ID: "C", Maps: onNodes(3, 3), OutputBytes: 1 << 20, Reduces: 2})
		fc.SetFree(3, 2, 1)
		fc.LaunchMap(j, 0, 3)
		fc.LaunchMap(j, 1, 3)
		fc.FinishMap(p, j, 0)
		fc.FinishMap(p, j, 1)
		fc.TakeLaunches()
		return p, fc, j
	}
	t.Run("L1", func(t *testing.T) {
		p, fc, _ := setup(t)
		wantLaunches(t, "selection heartbeat (node 3)", fc.Heartbeat(p, 3))
		wantLaunches(t, "round 1, node 0 not in L1", fc.Heartbeat(p, 0))
		wantLaunches(t, "round 1, node 2 not in L1", fc.Heartbeat(p, 2))
		wantLaunches(t, "round 1, node 3 = L1", fc.Heartbeat(p, 3), "0s C reduce 0 on node 3")
	})
	t.Run("L2", func(t *testing.T) {
		p, fc, _ := setup(t)
		wantLaunches(t, "selection heartbeat", fc.Heartbeat(p, 0))
		for k := range 4 {
			if got := fc.Heartbeat(p, 2); len(got) > 0 {
				t.Fatalf("round 1, heartbeat %d of node 2 (in L2, not L1) launched %v", k+1, got)
			}
		}
		wantLaunches(t, "round 2, node 2 in L2", fc.Heartbeat(p, 2), "0s C reduce 0 on node 2")
	})
}
