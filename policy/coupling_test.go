package policy

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

func cpNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestMismatchValues checks Alg. 1 against values worked by hand:
// δ = 1 − exp(−R/3), unit = δ·M/R, mismatch = (finished maps/unit − (finished
// + running reduces + 1))/R, or 4 + 1/pending reduces once no map is pending.
func TestMismatchValues(t *testing.T) {
	cases := []struct {
		name                              string
		maps, reds, fin, pend, fr, rr, pr int32
		threshold, want                   float64
	}{
		// δ = 1 − e^{−8/3} = 0.930517, unit = 49.666321; (100/49.666321 − 2)/8.
		{"grep 427x8, 100 maps done, 1 reduce running", 427, 8, 100, 200, 0, 1, 7, 3, 0.0016796050306469},
		// δ = 1 − e^{−1/3} = 0.283469, unit = 1.417343; (2/1.417343 − 1)/1.
		{"5 maps, 1 reduce, 2 maps done", 5, 1, 2, 1, 0, 0, 1, 3, 0.4110905892628516},
		// δ = 1 − e^{−5} = 0.993262, unit = 9.800186; (30/9.800186 − 4)/15 < 0.
		{"148x15, 30 maps done, 3 reduces launched", 148, 15, 30, 100, 1, 2, 12, 3, -0.0625888987802536},
		// δ = 1 − e^{−2/3} = 0.486583, unit = 0.973166; (2/0.973166 − 2)/2.
		{"4x2, 2 maps done, 1 reduce running", 4, 2, 2, 1, 0, 1, 1, 3, 0.0275741699048608},
		{"4x2, nothing done", 4, 2, 0, 2, 0, 0, 2, 3, -0.5},
		{"no pending map, 4 pending reduces", 427, 8, 400, 0, 2, 2, 4, 3, 4.25},
		{"no pending map, 1 pending reduce", 5, 1, 0, 0, 0, 0, 1, 3, 5},
		{"no pending reduce", 427, 8, 10, 400, 0, 8, 0, 3, 0},
		// threshold 1: δ = 1 − e^{−1} = 0.632121, unit = 6.321206; (20/6.321206 − 1)/1.
		{"threshold 1", 10, 1, 20 - 10, 0 + 1, 0, 0, 1, 1, 10/(0.6321205588285577*10) - 1},
	}
	for _, c := range cases {
		got := mismatchOf(c.maps, c.reds, c.fin, c.pend, c.fr, c.rr, c.pr, c.threshold)
		if !cpNear(got, c.want) {
			t.Errorf("%s: mismatch %.12f, want %.12f", c.name, got, c.want)
		}
	}
}

// cpCentralityTopology is 2 racks of 3 nodes: 0-2 in rack 0, 3-5 in rack 1.
func cpCentralityTopology(t *testing.T) *replay.Topology {
	t.Helper()
	hw := parseHardware(t, "racks = 2\nnodes_per_rack = 3\n")
	return replay.NewTopology(&hw, 1)
}

// TestCentralityLists: a job holds 10 on node 0, 5 on node 1 and 20 on node 4.
// Eq. 1 with hops 0/2/4: C(0) = 2·5 + 4·20 = 90, C(1) = 2·10 + 4·20 = 100,
// C(2) = 2·10 + 2·5 + 4·20 = 110, C(3) = C(5) = 4·10 + 4·5 + 2·20 = 100,
// C(4) = 4·10 + 4·5 = 60. So L = 4, 0, then 1, 3, 5 in a random order, then 2:
// L1 = {4}, L2 = {0, one of 1/3/5}, L3 = the other two and 2.
func TestCentralityLists(t *testing.T) {
	topo := cpCentralityTopology(t)
	held := map[int32]int64{0: 10, 1: 5, 4: 20}
	data := []int32{0, 1, 4}
	w := func(n int32) int64 { return held[n] }
	wantCost := []int64{90, 100, 110, 100, 60, 100}
	for v, want := range wantCost {
		if got := transferCost(topo, data, w, int32(v)); got != want {
			t.Errorf("C(%d) = %d, want %d", v, got, want)
		}
	}
	all := []int32{0, 1, 2, 3, 4, 5}
	// dBest's closed form orders the nodes by eq. 1.
	for seed := range uint64(5) {
		l := dBest(topo, data, w, all, 7, seed+100)
		for i := 1; i < len(l); i++ {
			if transferCost(topo, data, w, l[i-1]) > transferCost(topo, data, w, l[i]) {
				t.Fatalf("L = %v is not in increasing order of eq. 1", l)
			}
		}
	}
	third := map[int32]bool{}
	for seed := range uint64(40) {
		l := dBest(topo, data, w, all, 7, seed)
		if len(l) != 6 || l[0] != 4 || l[1] != 0 || l[5] != 2 {
			t.Fatalf("seed %d: L = %v, want 4, 0, {1,3,5}, 2", seed, l)
		}
		mid := slices.Clone(l[2:5])
		slices.Sort(mid)
		if !slices.Equal(mid, []int32{1, 3, 5}) {
			t.Fatalf("seed %d: L = %v, want 1, 3, 5 in places 3-5", seed, l)
		}
		third[l[2]] = true
		if !inList(l, 1, 4) || inList(l, 1, 0) || !inList(l, 2, 0) || !inList(l, 2, l[2]) || inList(l, 2, l[3]) ||
			!inList(l, 3, l[3]) || !inList(l, 3, 2) || inList(l, 3, 4) {
			t.Fatalf("seed %d: groups of %v wrong", seed, l)
		}
	}
	if len(third) != 3 {
		t.Errorf("ties 1, 3, 5 not broken at random: third place only %v over 40 seeds", third)
	}
	// D = 3 keeps the three best; V_r without node 4 starts at node 0.
	if l := dBest(topo, data, w, all, 3, 1); len(l) != 3 || l[0] != 4 || l[1] != 0 {
		t.Errorf("D = 3: L = %v", l)
	}
	l := dBest(topo, data, w, []int32{2, 0, 5}, 7, 1)
	if !slices.Equal(l, []int32{0, 5, 2}) {
		t.Errorf("V_r = {2, 0, 5}: L = %v, want 0, 5, 2", l)
	}
	// Groups of a short list: L2 and L3 may be empty.
	if !inList([]int32{7}, 1, 7) || inList([]int32{7}, 2, 7) || inList([]int32{7}, 3, 7) || inList(nil, 1, 7) {
		t.Error("groups of a one-node list")
	}
}

// TestPeekProbabilities checks eq. 3 and β_j against values worked by hand.
func TestPeekProbabilities(t *testing.T) {
	betas := []struct {
		pending int32
		nm      float64
		want    float64
	}{
		{4, 8, 0.1 + 0.9*(1-math.Exp(-0.5))}, // 0.454122
		{3, 0, 0.1 + 0.9*(1-math.Exp(-3))},   // N̂ < 1 counts as 1: 0.955192
		{0, 5, 0.1},
		{427, 8, 1}, // 0.1 + 0.9·(1 − e^{−53.4}) = 1 in float64
	}
	for _, c := range betas {
		if got := peekBeta(c.pending, c.nm); !cpNear(got, c.want) {
			t.Errorf("β(M_p=%d, N̂=%v) = %v, want %v", c.pending, c.nm, got, c.want)
		}
	}
	probs := []struct {
		name                string
		alpha, pm, beta, nm float64
		want                float64
	}{
		// 1 − 0.8·(7/15)^0.1·(1 − e^{−8}) = 1 − 0.8·0.926618·0.999665.
		{"Set B, β = 0.1", 0.8, 7.0 / 15, 0.1, 8, 0.25895436910510516},
		// 1 − 0.8·(7/15)^0.5·(1 − e^{−8}) = 1 − 0.8·0.683130·0.999665.
		{"Set B, β = 0.5", 0.8, 7.0 / 15, 0.5, 8, 0.4536792908305247},
		{"no free slot elsewhere", 1, 1, 1, 0, 1},
		{"no other node has input", 0.7, 0, 0.5, 10, 1},
		{"every node has input, α = 1", 1, 1, 1, 2, math.Exp(-2)},
		// 1 − 0.7·0.5^1·(1 − e^{−1}).
		{"α = 0.7", 0.7, 0.5, 1, 1, 1 - 0.35*(1-math.Exp(-1))},
	}
	for _, c := range probs {
		if got := peekProb(c.alpha, c.pm, c.beta, c.nm); !cpNear(got, c.want) {
			t.Errorf("%s: p = %.12f, want %.12f", c.name, got, c.want)
		}
	}
}

// cpFakeWait is a cluster for Wait Scheduling steps: lists, busy nodes, nodes
// where launching fails, and the launches made.
type cpFakeWait struct {
	lists    [4][]int32
	busyN    []int32
	fail     []int32
	unavoid  bool
	launched []int32
}

func (f *cpFakeWait) inList(i int, v int32) bool { return slices.Contains(f.lists[i], v) }
func (f *cpFakeWait) busy(v int32) bool          { return slices.Contains(f.busyN, v) }
func (f *cpFakeWait) unavoidable() bool          { return f.unavoid }
func (f *cpFakeWait) launch(v int32) bool {
	if slices.Contains(f.fail, v) {
		return false
	}
	f.launched = append(f.launched, v)
	return true
}

// TestWaitSteps drives Alg. 2 on a cluster of N = 3 nodes with L1 = {0}, L2 =
// {1, 2}, L3 = {3}, node 4 in no list: a heartbeat is (node, nominal heartbeats
// sent); the candidate is chosen at sent = 0.
func TestWaitSteps(t *testing.T) {
	type hb struct {
		v    int32
		sent int64
	}
	seq := func(v int32, n int) []hb { // n heartbeats from v, one nominal each
		var h []hb
		for i := range n {
			h = append(h, hb{v, int64(i + 1)})
		}
		return h
	}
	cases := []struct {
		name    string
		env     cpFakeWait
		hbs     []hb
		at      int // heartbeat (1-based) at which the launch happens, 0 none
		node    int32
		dropped bool // candidate dropped after the last heartbeat
	}{
		{"L1 node on second heartbeat", cpFakeWait{}, []hb{{1, 1}, {0, 2}}, 2, 0, false},
		{"L1 busy: L2 in round 2", cpFakeWait{busyN: []int32{0}}, []hb{{1, 1}, {0, 2}, {2, 3}, {1, 4}}, 4, 1, false},
		{"L2 node too early", cpFakeWait{}, []hb{{1, 1}, {2, 2}, {2, 3}}, 0, 0, false},
		{"failed launch jumps to round 2", cpFakeWait{fail: []int32{0}}, []hb{{0, 1}, {2, 2}}, 2, 2, false},
		{"round 3", cpFakeWait{}, []hb{{4, 1}, {4, 2}, {4, 3}, {4, 4}, {4, 5}, {4, 6}, {3, 7}}, 7, 3, false},
		{"any node in round 4", cpFakeWait{}, seq(4, 10), 10, 4, false},
		{"busy node passed over in round 4", cpFakeWait{busyN: []int32{4}}, seq(4, 12), 0, 0, false},
		{"dropped after 4N", cpFakeWait{busyN: []int32{4}}, seq(4, 13), 0, 0, true},
		{"busy node used in round 4 when unavoidable", cpFakeWait{busyN: []int32{4}, unavoid: true}, seq(4, 10), 10, 4, false},
		// Skipped heartbeats count: the count jumps to 7 (round 3) at once.
		{"skipped heartbeats count", cpFakeWait{}, []hb{{0, 7}, {3, 8}}, 2, 3, false},
		// Same-instant heartbeats (nominal count unchanged) count one each.
		{"same instant", cpFakeWait{}, []hb{{4, 0}, {4, 0}, {4, 0}, {1, 0}}, 4, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := c.env
			env.lists = [4][]int32{nil, {0}, {1, 2}, {3}}
			w := waitState{cand: &replay.JobView{}}
			w.set(0, 0, 0)
			at := 0
			for k, h := range c.hbs {
				if w.step(h.v, 3, h.sent, h.sent, &env) { // at time sent
					if at != 0 {
						t.Fatalf("second launch at heartbeat %d", k+1)
					}
					at = k + 1
					break
				}
			}
			if at != c.at || (at != 0 && env.launched[len(env.launched)-1] != c.node) {
				t.Errorf("launch at heartbeat %d on %v, want heartbeat %d on node %d", at, env.launched, c.at, c.node)
			}
			if dropped := w.cand == nil; dropped != (c.dropped || at != 0) {
				t.Errorf("candidate dropped %v, want %v", dropped, c.dropped || at != 0)
			}
		})
	}
}

// couplingTrace is the hand-worked example of TestHandWorkedCoupling: A (t=0,
// four 2 s maps, two 3 s reduces) whose first two maps write 1 MB and 2 MB of
// output, B (t=1, one 1 s map, one 1 s reduce).
func couplingTrace() *trace.Trace {
	tr := handTrace([]job{{0, []int64{2, 2, 2, 2}, []int64{3, 3}}, {1, []int64{1}, []int64{1}}})
	tr.Tasks[0].InputBytes, tr.Tasks[0].OutputBytes = 1e6, 1e6 // 2 s: read 1 MB, write 1 MB
	tr.Tasks[1].InputBytes, tr.Tasks[1].OutputBytes = 0, 2e6
	// A 0-byte map with a recorded location keeps its replicas (both nodes
	// here) instead of having no input (replay.MapTask.NoInput), which would
	// put it after the maps whose input is on the node.
	tr.Tasks[1].PreferredHosts = []string{"recorded"}
	return tr
}

// TestHandWorkedCoupling: 2 nodes × 1 map + 1 reduce slot, every map local to
// both nodes, aligned 1 s heartbeats with out-of-band ones, slow-start 0.
//
// Fair: A's reduces take both reduce slots at 0 and hold them until A's last map
// ends (5) plus 3 s; B maps 2-3 and its reduce waits until 8: B starves 5 s,
// flowtimes A 8, B 8.
//
// Coupling: at 0 A's mismatch is (0/0.973 − 1)/2 < 0, so no reduce. At 2 A has 2
// maps done: (2/0.973 − 1)/2 = 0.528 > 0, A becomes the candidate on node 0's
// heartbeat; node 1's heartbeat (count 1, round 1) is L1, since node 1 holds 2 MB
// of A's output against node 0's 1 MB (C(1) = 2·1 MB < C(0) = 2·2 MB): A's first
// reduce runs on node 1 from 2. At 3 B has no pending map: mismatch 4 + 1 = 5
// beats A's (2/0.973 − 2)/2 = 0.028; node 1's heartbeat has no free reduce slot;
// at 4 node 0 (count 2, round 1, the only node in V_r) launches B's reduce: B
// starves 4 − 3 = 1 s and ends at 5 (flowtime 4). A becomes the candidate at 5
// and its second reduce launches on node 0 at 6 (1 s after its last map), ending
// at 9: A's flowtime 9, starvation 1 s.
func TestHandWorkedCoupling(t *testing.T) {
	cases := []struct {
		policy               string
		flowA, flowB         int64
		starveA, starveB     int64
		firstRedA, firstRedB int64
	}{
		{"fair", 8, 8, 0, 5, 0, 8},
		{"coupling", 9, 4, 1, 1, 2, 4},
	}
	for _, c := range cases {
		t.Run(c.policy, func(t *testing.T) {
			res := simulate(t, tinyHardware(t), couplingTrace(), c.policy, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
			a, b := res.Jobs[0], res.Jobs[1]
			got := []int64{a.FlowtimeUs, b.FlowtimeUs, a.StarvationUs, b.StarvationUs, a.FirstReduceLaunchUs, b.FirstReduceLaunchUs}
			want := []int64{c.flowA, c.flowB, c.starveA, c.starveB, c.firstRedA, c.firstRedB}
			for i := range want {
				want[i] *= sec
			}
			if !slices.Equal(got, want) {
				t.Errorf("flow A, B, starvation A, B, first reduce A, B = %v, want %v", got, want)
			}
		})
	}
}

func TestCouplingParams(t *testing.T) {
	for _, c := range []struct {
		spec, err string
	}{
		{"coupling", ""},
		{"coupling:beta=0.5,d=3,k=5,pool-by=queue,threshold=2", ""},
		{"coupling:beta=0", "beta"},
		{"coupling:d=0", "d=0"},
		{"coupling:k=-1", "k=-1"},
		{"coupling:threshold=0", "threshold"},
		{"coupling:node-delay=5s", "unknown parameter node-delay"},
	} {
		p, err := New(c.spec)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.spec, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one naming %q", c.spec, err, c.err)
		case err == nil && p.Name() != c.spec:
			t.Errorf("%s: name %q", c.spec, p.Name())
		}
	}
}

// cpProbe records p_j of eq. 3 at the first heartbeat of a node without data.
type cpProbe struct {
	*Coupling
	data int32
	got  []float64
	at   []int32 // free map slots elsewhere when recorded
}

func (p *cpProbe) Heartbeat(s replay.Cluster, n int32) {
	if len(p.got) == 0 && n != p.data {
		p.peek.hb++ // the sample belongs to this heartbeat
		p.got = append(p.got, p.peek.launchProb(s, s.Active()[0], n))
		p.at = append(p.at, s.FreeMapSlots(p.data))
		p.peek.hb--
	}
	p.Coupling.Heartbeat(s, n)
}

// TestLaunchProbInSim: two nodes, one holding the input of a job's two maps
// (K = N = 2, so p̂ = 1/2). When the other node asks first, both have a free
// slot (N̂ = 2); when the data node went first, it ran a map and N̂ = 1. M_p/N̂
// is 1 either way: β = 0.1 + 0.9·(1 − e^{−1}) = 0.668909, 0.5^β = 0.628982. In
// one rack the job has rack data: α = 0.8; with a rack per node α = 1. p = 1 −
// α·0.628982·(1 − e^{−N̂}).
func TestLaunchProbInSim(t *testing.T) {
	for _, c := range []struct {
		racks, perRack string
		want           [3]float64 // by N̂ (index 1, 2)
	}{
		{"1", "2", [3]float64{0, 0.6819258475470203, 0.5649129060915381}},
		{"2", "1", [3]float64{0, 0.6024073094337755, 0.4561411326144226}},
	} {
		hw := parseHardware(t, "racks = "+c.racks+"\nnodes_per_rack = "+c.perRack+`
map_slots = 1
reduce_slots = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
replication = 1
data_node_fraction = 0.5
duration_cv = 0
`)
		w, topo := newWorkload(t, hw, handTrace([]job{{0, []int64{2, 2}, nil}}), 1)
		p := &cpProbe{Coupling: newPolicy(t, "coupling").(*Coupling), data: topo.DataNodes[0]}
		runPolicy(t, w, p, replay.Options{Seed: 1, CheckInvariants: true})
		if len(p.got) == 0 {
			t.Fatalf("racks %s: the node without data never asked", c.racks)
		}
		nm := 1 + p.at[0] // the asking node is free; the data node too unless it went first
		if !cpNear(p.got[0], c.want[nm]) {
			t.Errorf("racks %s, N̂ = %d: p = %.12f, want %.12f", c.racks, nm, p.got[0], c.want[nm])
		}
	}
}

// dBestSorted is the list by definition: every candidate's cost, all of them
// sorted by cost, ties by tiePrio(key) then node, and the first d.
func dBestSorted(topo *replay.Topology, data []int32, w func(int32) int64, vr []int32, d int, key uint64) []int32 {
	var total int64
	rack := make([]int64, len(topo.RackNames))
	for _, u := range data {
		total += w(u)
		rack[topo.Nodes[u].Rack] += w(u)
	}
	var cs []dCand
	for _, v := range vr {
		inRack := rack[topo.Nodes[v].Rack]
		cs = append(cs, dCand{node: v, cost: 2*(inRack-w(v)) + 4*(total-inRack), prio: tiePrio(key, v)})
	}
	slices.SortFunc(cs, func(a, b dCand) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	var l []int32
	for _, c := range cs[:min(d, len(cs))] {
		l = append(l, c.node)
	}
	return l
}

// TestDBestKeyedOrder: dBest returns the list of sorting every candidate by
// cost and keyed tie order, on random data placements (many ties, few racks
// with data), candidate sets and list lengths, reusing its scratch memory
// across calls; the same key gives the same list, and over keys a tie's
// order is uniform (each of three tied nodes first about a third of the
// time).
func TestDBestKeyedOrder(t *testing.T) {
	hw := parseHardware(t, `
name = "dbest"
racks = 6
nodes_per_rack = 20
map_slots = 1
reduce_slots = 1
`)
	topo := replay.NewTopology(&hw, 1)
	gen := rand.New(rand.NewPCG(3, 4))
	var sc dBestScratch
	var buf []int32
	for trial := range 2000 {
		held := map[int32]int64{}
		var data []int32
		for range gen.IntN(12) {
			n := int32(gen.IntN(len(topo.Nodes)))
			if held[n] == 0 {
				data = append(data, n)
			}
			held[n] += int64(1 + gen.IntN(3))
		}
		w := func(n int32) int64 { return held[n] }
		var vr []int32
		for n := range int32(len(topo.Nodes)) {
			if gen.IntN(4) != 0 {
				vr = append(vr, n)
			}
		}
		d := 1 + gen.IntN(9)
		key := gen.Uint64()
		want := dBestSorted(topo, data, w, vr, d, key)
		buf = sc.dBest(topo, data, w, vr, d, key, buf)
		if !slices.Equal(buf, want) {
			t.Fatalf("trial %d: dBest %v, want %v", trial, buf, want)
		}
		if again := dBest(topo, data, w, vr, d, key); !slices.Equal(again, want) {
			t.Fatalf("trial %d: same key, list %v then %v", trial, want, again)
		}
	}
	// Nodes 1, 2, 3 of rack 0 tie (no data anywhere: every cost 0).
	first := map[int32]int{}
	const keys = 3000
	for key := range uint64(keys) {
		first[dBest(topo, nil, func(int32) int64 { return 0 }, []int32{1, 2, 3}, 1, listKey(7, 1, int32(key)))[0]]++
	}
	for n := int32(1); n <= 3; n++ {
		if f := float64(first[n]) / keys; f < 0.30 || f > 0.37 {
			t.Errorf("node %d first in %.3f of the keys, want about 1/3", n, f)
		}
	}
}
