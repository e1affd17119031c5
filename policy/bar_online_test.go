package policy

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// barRunOneDataNode replays jobs on tinyHardware with only one data node (node 1
// under seed 1: every block lives there, node 0 holds none) and the BAR network
// model with q = 1 s, so a remote map takes its 2 s plus 1 s per remote map
// running, itself included. Heartbeats are aligned; node 0 heartbeats first.
func barRunOneDataNode(t *testing.T, policy string, jobs []job) *replay.Result {
	t.Helper()
	hw := tinyHardware(t)
	hw, err := hw.WithSettings(map[string]any{"data_node_fraction": 0.5, "network": "bar", "bar_q": "1s"})
	if err != nil {
		t.Fatal(err)
	}
	w, topo := newWorkload(t, hw, handTrace(jobs), 1)
	if len(topo.DataNodes) != 1 || topo.DataNodes[0] != 1 {
		t.Fatalf("data nodes %v, want [1]", topo.DataNodes)
	}
	p := newPolicy(t, policy)
	res := runPolicy(t, w, p, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
	if ql, ok := p.(replay.QueuedLoader); ok {
		for n := range int32(2) {
			if b := ql.QueuedInputBytes(n); b != 0 {
				t.Errorf("node %d still has %d queued bytes at the end", n, b)
			}
		}
	}
	return res
}

// TestOnlineHandWorked: one job of four or five 2 s maps, all on node 1 (D);
// node 0 (O) holds nothing.
//
// bar, 4 maps: C_loc 2 s, q 1 s, loads 0. Balance puts all four on D (8 s);
// reduce loop 1 pools one (M_exp 6, C_rem(1) = 3 fits on O), loop 2 pools two
// (M_exp 4, C_rem(2) = 4: O has room for one) and overshoots, so one map goes to
// O: O runs it 0-3, D runs three 0-6. Flowtime 6 s, 3 node-local.
// maxcover-balassign, 4 maps: threshold 2 s covers one map on D; bal-assign
// (virtual C_rem(3) = 5) gives t1 to O, t2 and t3 to D: the same split, 6 s.
// hds: O takes m0 remote at 0 (0-3), D m1 (0-2) and m2 (2-4), O m3 (3-6): 6 s,
// 2 node-local.
// gcc:util=0.4 (local only while a map runs): O takes m0 remote at 0 (nothing
// runs yet), D m1 0-2 and m2 2-4; at 3 O waits (D busy); at 4 O's heartbeat
// comes before D's and finds nothing running: m3 remote 4-7. 7 s, 2 node-local.
// ds0.15:threshold=0.5 (one skip on 2 nodes): O skips at 0 and 1 (D's launch at
// 0 restarts the count); at 2 O has one skip and takes m1 remote (2-5); D runs
// m0 0-2, m2 2-4, m3 4-6. 6 s, 3 node-local.
// ds0.15:threshold=1 (two skips): every local launch on D, two seconds apart,
// restarts the count before O reaches two skips: all four on D, 8 s.
//
// 5 maps: bar pools one map (loop 2: M_exp 6, C_rem(2) = 4, O has room for
// one), so D runs four (8 s) — while maxcover-balassign's first threshold gives
// t1 and t4 to O (virtual C_rem(4) = 6; evaluated at C_rem(2) = 4 each, makespan
// 8, which no later threshold beats), and online O runs them 0-3 and 3-6, each
// alone on the network: 6 s. hds gets 6 s the same way. BAR plans with the
// paper's C_rem(r), r the job's remote maps; the simulator charges q per remote
// map running at once, which two maps in sequence never pay.
func TestOnlineHandWorked(t *testing.T) {
	four := []job{{0, []int64{2, 2, 2, 2}, nil}}
	five := []job{{0, []int64{2, 2, 2, 2, 2}, nil}}
	cases := []struct {
		policy string
		jobs   []job
		flow   int64
		local  int32
	}{
		{"bar", four, 6, 3},
		{"maxcover-balassign", four, 6, 3},
		{"hds", four, 6, 2},
		{"gcc:util=0.4", four, 7, 2},
		{"gcc", four, 6, 2},
		{"ds0.15:threshold=0.5", four, 6, 3},
		{"ds0.15:threshold=1", four, 8, 4},
		{"bar", five, 8, 4},
		{"maxcover-balassign", five, 6, 3},
		{"hds", five, 6, 3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dmaps/%s", len(c.jobs[0].maps), c.policy), func(t *testing.T) {
			res := barRunOneDataNode(t, c.policy, c.jobs)
			j := res.Jobs[0]
			if j.FlowtimeUs != c.flow*sec || j.MapsNodeLocal != c.local {
				t.Errorf("flowtime %v s, %d node-local; want %d s, %d", float64(j.FlowtimeUs)/sec, j.MapsNodeLocal, c.flow, c.local)
			}
		})
	}
}

// TestOnlineDeterministic: the plan-based policies give identical results for
// the same seed on a multi-job trace with reduces.
func TestOnlineDeterministic(t *testing.T) {
	jobs := []job{{0, []int64{2, 1, 3, 2}, []int64{1}}, {1, []int64{1, 1}, nil}, {1, []int64{4, 2, 2}, []int64{2, 1}}, {3, []int64{1}, []int64{1}}}
	for _, p := range []string{"bar", "maxcover-balassign", "ds0.25", "gcc"} {
		a, b := barRunOneDataNode(t, p, jobs), barRunOneDataNode(t, p, jobs)
		a.Wall, b.Wall = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs with the same seed differ", p)
		}
	}
}
