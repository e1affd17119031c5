package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// flowHardware is 2 racks of 2 nodes, 2 map slots and 1 reduce slot each,
// one replica per block, no start-up, aligned heartbeats every second, under
// network = "flow" with the given rates in MB/s.
func flowHardware(t *testing.T, disk, nic, uplink float64) Hardware {
	t.Helper()
	h, err := ParseHardware(fmt.Appendf(nil, `
racks = 2
nodes_per_rack = 2
map_slots = 2
reduce_slots = 1
disk_mb_per_s = %g
nic_mb_per_s = %g
rack_uplink_mb_per_s = %g
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
out_of_band_heartbeat = true
replication = 1
duration_cv = 0
slow_start = 0
timeline_sample = "1s"
network = "flow"
flow_update = "0s"
`, disk, nic, uplink))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// launch is a placed policy's launch: map (or the next reduce) of a job on a
// node, not before a time in seconds.
type launch struct {
	job    int32
	reduce bool
	task   int32
	node   int32
	at     int64
}

// placed launches what its plan says once all the trace's jobs have arrived;
// the plan sees the jobs (and their replicas) to choose nodes.
type placed struct {
	Base
	jobs int
	plan func(s Cluster, jobs []*JobView) []launch
	todo []launch
	byID []*JobView
}

func (p *placed) Name() string { return "placed" }

func (p *placed) JobArrived(s Cluster, j *JobView) {
	p.byID = append(p.byID, j)
	if len(p.byID) == p.jobs {
		p.todo = p.plan(s, p.byID)
	}
}

func (p *placed) Heartbeat(s Cluster, n int32) {
	for k := 0; k < len(p.todo); {
		l := p.todo[k]
		j := p.byID[l.job]
		switch {
		case l.node != n || s.Now() < l.at*sec:
			k++
			continue
		case l.reduce:
			if s.FreeReduceSlots(n) == 0 || s.LaunchReduce(j, n) < 0 {
				k++
				continue
			}
		default:
			if s.FreeMapSlots(n) == 0 {
				k++
				continue
			}
			s.LaunchMap(j, l.task, n)
		}
		p.todo = slices.Delete(p.todo, k, k+1)
	}
}

// flowJob is a job of maps with the given input and output bytes and reduces
// with the given shuffle bytes (writing nothing).
func flowJob(tr *trace.Trace, id string, maps [][2]int64, reduces []int64) {
	j := trace.NewJob(id)
	j.SubmitMs, j.Status = 0, trace.StatusSucceeded
	tr.Jobs = append(tr.Jobs, j)
	for k, io := range maps {
		m := trace.NewTask(id, id+"m", trace.Map, int32(k))
		m.InputBytes, m.OutputBytes = io[0], io[1]
		tr.Tasks = append(tr.Tasks, m)
	}
	for k, sh := range reduces {
		r := trace.NewTask(id, id+"r", trace.Reduce, int32(k))
		r.ShuffleBytes, r.OutputBytes = sh, 0
		tr.Tasks = append(tr.Tasks, r)
	}
}

func runPlaced(t *testing.T, h Hardware, tr *trace.Trace, plan func(s Cluster, jobs []*JobView) []launch) *Result {
	t.Helper()
	w, err := NewWorkload(tr, &h, NewTopology(&h, 1), 1, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := &placed{jobs: len(tr.Jobs), plan: plan}
	res, err := Run(w, p, Options{Seed: 1, CheckInvariants: true, RecordTasks: true, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.todo) > 0 {
		t.Fatalf("launches left undone: %+v", p.todo)
	}
	return res
}

// otherRack is the first node in a rack other than node n's.
func otherRack(s Cluster, n int32) int32 {
	for _, m := range s.Topology().Nodes {
		if m.Rack != s.Topology().Nodes[n].Rack {
			return m.ID
		}
	}
	return -1
}

// sameRack is the first node other than n in n's rack.
func sameRack(s Cluster, n int32) int32 {
	for _, m := range s.Topology().Nodes {
		if m.Rack == s.Topology().Nodes[n].Rack && m.ID != n {
			return m.ID
		}
	}
	return -1
}

func taskTimes(res *Result, job, typ string) [][2]int64 {
	var out [][2]int64
	for _, tk := range res.Tasks {
		if tk.JobID == job && tk.Type == typ {
			for len(out) <= int(tk.Index) {
				out = append(out, [2]int64{})
			}
			out[tk.Index] = [2]int64{tk.LaunchUs, tk.FinishUs}
		}
	}
	return out
}

// TestFlowNICShared: maps of 4 MB input, disk and NIC at 1 MB/s, uplinks at
// 10 MB/s. Node-local, a map's read of its disk takes 4 s; remote and alone,
// its read crosses the source disk and both NICs at 1 MB/s, 4 s too (the
// read is one flow through them, not a disk read then a network transfer);
// two remote maps on one node share its NIC's 1 MB/s in (and the source disk
// when their replicas share a node), so each read takes 8 s.
func TestFlowNICShared(t *testing.T) {
	cases := []struct {
		name string
		maps int
		// where runs each map: its replica's node (local) or a node holding
		// no replica of either map (remote)
		local bool
		want  int64
	}{
		{"node-local", 1, true, 4},
		{"one remote", 1, false, 4},
		{"two remote on one NIC", 2, false, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := &trace.Trace{}
			flowJob(tr, "A", [][2]int64{{4e6, 0}, {4e6, 0}}, nil)
			res := runPlaced(t, flowHardware(t, 1, 1, 10), tr, func(s Cluster, jobs []*JobView) []launch {
				j := jobs[0]
				r0, r1 := j.Replicas(0)[0], j.Replicas(1)[0]
				var free int32 = -1
				for n := range int32(4) {
					if n != r0 && n != r1 {
						free = n
						break
					}
				}
				if c.local {
					return []launch{{0, false, 0, r0, 0}, {0, false, 1, r1, 100}}
				}
				if c.maps == 1 {
					return []launch{{0, false, 0, free, 0}, {0, false, 1, r1, 100}}
				}
				return []launch{{0, false, 0, free, 0}, {0, false, 1, free, 0}}
			})
			got := taskTimes(res, "A", "MAP")
			for i := range c.maps {
				if got[i] != [2]int64{0, c.want * sec} {
					t.Errorf("map %d ran %v µs, want 0–%d s", i, got[i], c.want)
				}
			}
		})
	}
}

// TestFlowUplinkShared: NICs at 10 MB/s, rack uplinks at 1 MB/s, disks at 1
// MB/s. Job A: one map spilling 4 MB and one reduce fetching those 4 MB (and
// writing nothing); job B: one map reading 8 MB. A's map runs on B's
// replica's node r, A's reduce and B's map in the other rack, so A's spill
// and B's read share r's disk, and A's fetch and B's read r's disk and its
// rack's uplink.
//
// Over 0–8 s A's spill and B's read share r's disk, 0.5 MB/s each: the spill
// ends at 8 s (A's map with it), B has read 4 MB. From 8 s A's fetch shares
// r's disk and uplink with B's read, 0.5 MB/s each: both carry 4 MB and end
// at 16 s, A's shuffle and reduce and B's map with them. Alone (the other
// job's bytes 0), A's spill takes 0–4 s and its fetch 4–8 s; B's read 0–8 s.
func TestFlowUplinkShared(t *testing.T) {
	cases := []struct {
		name                  string
		withA, withB          bool
		shuffleEnd, redFinish int64
		bFinish               int64
	}{
		{"both", true, true, 16, 16, 16},
		{"A alone", true, false, 8, 8, 0},
		{"B alone", false, true, 0, 0, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := &trace.Trace{}
			// A job left out moves no bytes.
			var a, b int64
			if c.withA {
				a = 4e6
			}
			if c.withB {
				b = 8e6
			}
			flowJob(tr, "A", [][2]int64{{0, a}}, []int64{a})
			flowJob(tr, "B", [][2]int64{{b, 0}}, nil)
			res := runPlaced(t, flowHardware(t, 1, 10, 1), tr, func(s Cluster, jobs []*JobView) []launch {
				var r int32 // B's block's node; B reading nothing has none: node 0
				if rs := jobs[1].Replicas(0); len(rs) > 0 {
					r = rs[0]
				}
				far := otherRack(s, r)
				return []launch{{0, false, 0, r, 0}, {0, true, 0, far, 0}, {1, false, 0, far, 0}}
			})
			var red *TaskResult
			for i := range res.Tasks {
				if res.Tasks[i].JobID == "A" && res.Tasks[i].Type == "REDUCE" {
					red = &res.Tasks[i]
				}
			}
			if c.withA && (red.ShuffleEndUs != c.shuffleEnd*sec || red.FinishUs != c.redFinish*sec) {
				t.Errorf("A's reduce: shuffle end %d µs, finish %d µs; want %d s, %d s", red.ShuffleEndUs, red.FinishUs, c.shuffleEnd, c.redFinish)
			}
			if b := taskTimes(res, "B", "MAP"); c.withB && b[0] != [2]int64{0, c.bFinish * sec} {
				t.Errorf("B's map ran %v µs, want 0–%d s", b[0], c.bFinish)
			}
		})
	}
}

// TestFlowParallelCopies: one reduce fetches 2 MB from each of four maps on
// node 0 (spilling 2 MB each: 8 MB through node 0's 1 MB/s disk, all four end
// at 8 s) in the other rack, NICs and disks at 1 MB/s and uplinks at 100 MB/s:
// whatever parallel_copies, node 0's disk and NIC out and the reduce's NIC in
// carry 8 MB at 1 MB/s from 8 s, ending at 16 s. With a fetch latency of 1 s,
// each fetch adds ceil(1 s / parallel_copies): 4 s with 1 copy at a time, 2 s
// with 2, 1 s with 4.
func TestFlowParallelCopies(t *testing.T) {
	for _, c := range []struct {
		copies int
		want   int64
	}{{1, 20}, {2, 18}, {4, 17}} {
		t.Run(fmt.Sprint(c.copies), func(t *testing.T) {
			h := flowHardware(t, 1, 1, 100)
			h.ParallelCopies = c.copies
			h.ShuffleFetchLatency = sec
			h.MapSlots = 4
			tr := &trace.Trace{}
			flowJob(tr, "A", [][2]int64{{0, 2e6}, {0, 2e6}, {0, 2e6}, {0, 2e6}}, []int64{8e6})
			res := runPlaced(t, h, tr, func(s Cluster, jobs []*JobView) []launch {
				far := otherRack(s, 0)
				return []launch{{0, false, 0, 0, 0}, {0, false, 1, 0, 0}, {0, false, 2, 0, 0}, {0, false, 3, 0, 0}, {0, true, 0, far, 0}}
			})
			for _, tk := range res.Tasks {
				if tk.Type == "REDUCE" && tk.ShuffleEndUs != c.want*sec {
					t.Errorf("shuffle ends at %d µs, want %d s", tk.ShuffleEndUs, c.want)
				}
			}
		})
	}
}

// reduceShuffleEnds returns the shuffle end of each reduce of res, in the
// order of res.Tasks.
func reduceShuffleEnds(res *Result) []int64 {
	var ends []int64
	for _, tk := range res.Tasks {
		if tk.Type == "REDUCE" {
			ends = append(ends, tk.ShuffleEndUs)
		}
	}
	return ends
}

// shuffleRun runs tr under flowHardware's cluster with disks, NICs and
// uplinks at the given MB/s and flow_shuffle mode, with the plan, and
// returns the result, its reduces' shuffle ends and its fetches (rounds
// under batch).
func shuffleRun(t *testing.T, mode FlowShuffleMode, disk, nic, uplink float64, tr *trace.Trace, plan func(s Cluster, jobs []*JobView) []launch) (*Result, []int64, int64) {
	t.Helper()
	h := flowHardware(t, disk, nic, uplink)
	h.FlowShuffle = mode
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	res := runPlaced(t, h, tr, plan)
	ends := reduceShuffleEnds(res)
	c, ok := res.FlowCost()
	if !ok {
		t.Fatal("no FlowCost under flow")
	}
	return res, ends, c.Fetches
}

// TestFlowBatchRounds: flow_shuffle = "batch", disks at 1 MB/s, NICs and
// uplinks at 10 and 100 MB/s, so the reduce's disk is the bottleneck. One
// reduce on node 3 (rack 1) copies three outputs from rack 0: map 0 on node 0
// spills 2 MB over 0–2 s; map 1 on node 1, launched at 2 s, 1 MB over 2–3 s;
// map 2 on node 1, launched at 3 s, 0.5 MB over 3–3.5 s. The first round
// carries map 0's 2 MB at 1 MB/s over 2–4 s; maps 1 and 2 finish during it
// and wait: the second round carries their 1.5 MB over 4–5.5 s, and the
// shuffle ends at 5.5 s after 2 rounds. The per-fetch model makes 3 fetches
// (map 1's starts at 3 s beside map 0's; map 2's host is busy until then).
func TestFlowBatchRounds(t *testing.T) {
	tr := &trace.Trace{}
	flowJob(tr, "A", [][2]int64{{0, 2e6}, {0, 1e6}, {0, 0.5e6}}, []int64{3.5e6})
	plan := func(s Cluster, jobs []*JobView) []launch {
		return []launch{{0, true, 0, 3, 0}, {0, false, 0, 0, 0}, {0, false, 1, 1, 2}, {0, false, 2, 1, 3}}
	}
	res, ends, rounds := shuffleRun(t, FlowShuffleBatch, 1, 10, 100, tr, plan)
	if len(ends) != 1 || ends[0] != 5_500_000 || rounds != 2 {
		t.Errorf("batch: shuffle ends %v µs after %d rounds, want 5.5 s after 2", ends, rounds)
	}
	again, _, _ := shuffleRun(t, FlowShuffleBatch, 1, 10, 100, tr, plan)
	if !slices.Equal(res.Tasks, again.Tasks) || !slices.Equal(res.Jobs, again.Jobs) {
		t.Error("two batch runs differ")
	}
	if _, _, fetches := shuffleRun(t, FlowShuffleFetch, 1, 10, 100, tr, plan); fetches != 3 {
		t.Errorf("fetch: %d fetches, want 3", fetches)
	}
}

// TestFlowBatchSplit: flow_shuffle = "batch" splits a round by where its
// outputs lie. Disks and NICs at 10 MB/s, uplinks (and downlinks) at 1 MB/s.
// The reduce on node 3 (rack 1) copies 2 MB from map 0 on node 2 (its rack)
// and 2 MB from map 1 on node 0 (rack 0); both spill over 0–0.2 s. Its rack
// round crosses node 3's NIC in and disk and its far round also rack 1's
// downlink, which holds it to 1 MB/s: the rack round takes the other 9 MB/s
// of the NIC and ends at 0.2 + 2/9 s, the far round at 2.2 s, where one flow
// of both would carry 4 MB at 1 MB/s until 4.2 s. The per-fetch model gives
// 2.2 s too (map 1's fetch crosses rack 0's uplink and rack 1's downlink).
// Both count the same bytes out of nodes 0 and 2 and into node 3.
func TestFlowBatchSplit(t *testing.T) {
	tr := &trace.Trace{}
	flowJob(tr, "A", [][2]int64{{0, 2e6}, {0, 2e6}}, []int64{4e6})
	plan := func(s Cluster, jobs []*JobView) []launch {
		return []launch{{0, true, 0, 3, 0}, {0, false, 0, 2, 0}, {0, false, 1, 0, 0}}
	}
	for _, mode := range FlowShuffleModeNames() {
		res, ends, n := shuffleRun(t, FlowShuffleMode(mode), 10, 10, 1, tr, plan)
		if len(ends) != 1 || ends[0] != 2_200_000 || n != 2 {
			t.Errorf("%s: shuffle ends %v µs after %d transfers, want 2.2 s after 2", mode, ends, n)
		}
		var got [][2]int64
		for _, nr := range res.Nodes {
			got = append(got, [2]int64{nr.NetInBytes, nr.NetOutBytes})
		}
		if want := [][2]int64{{0, 2e6}, {0, 0}, {0, 2e6}, {4e6, 0}}; !slices.Equal(got, want) {
			t.Errorf("%s: bytes in and out by node %v, want %v", mode, got, want)
		}
	}
}

// TestFlowBatchSources: a batch round loads its sources' disks by the
// fraction of its bytes from each. Disks at 1 MB/s, NICs at 10, uplinks at
// 100. Map 0 on node 0 spills 3 MB over 0–3 s, map 1 on node 1 1 MB over
// 0–1 s; reduces on nodes 2 and 3 (rack 1), launched at 4 s, take 2 MB
// each, 1.5 MB from node 0 and 0.5 MB from node 1. Each reduce's one round
// loads node 0's disk by 0.75 of its rate: the two rounds get 2/3 MB/s each
// (0.75 · 2 · 2/3 = 1 MB/s) and end at 7 s. The per-fetch model ends at 7 s
// too: node 1's fetches at 0.5 MB/s each end at 5 s, node 0's (0.5 MB/s
// each, its disk shared by two) at 7 s. Without the source side the rounds
// would run at the reduces' disks' 1 MB/s and end at 6 s.
func TestFlowBatchSources(t *testing.T) {
	tr := &trace.Trace{}
	flowJob(tr, "A", [][2]int64{{0, 3e6}, {0, 1e6}}, []int64{2e6, 2e6})
	plan := func(s Cluster, jobs []*JobView) []launch {
		return []launch{{0, false, 0, 0, 0}, {0, false, 1, 1, 0}, {0, true, 0, 2, 4}, {0, true, 1, 3, 4}}
	}
	for _, mode := range FlowShuffleModeNames() {
		_, ends, _ := shuffleRun(t, FlowShuffleMode(mode), 1, 10, 100, tr, plan)
		if !slices.Equal(ends, []int64{7_000_000, 7_000_000}) {
			t.Errorf("%s: shuffles end %v µs, want 7 s each", mode, ends)
		}
	}
}

// TestFlowFetchOrder: which host a fetcher takes (flow_fetch_order), and the
// convoy the fixed order makes. Disks and NICs at 1 MB/s, uplinks at 100,
// parallel_copies 1. Maps 0 and 1 on nodes 0 and 1 (rack 0) spill 2 MB each
// over 0–2 s; reduces on nodes 2 and 3 (rack 1), launched at 4 s, take 1 MB
// from each. With "ready" both reduces take node 0 first (its output was
// ready first): two fetches share its disk and NIC out at 0.5 MB/s each over
// 4–6 s, then both take node 1 over 6–8 s, and the shuffles end at 8 s. With
// "random" the reduces' first draws (seed 1) are host 0 for reduce 0 and
// host 1 for reduce 1: each fetch runs alone at 1 MB/s over 4–5 s, then
// each reduce takes its other host over 5–6 s, ending at 6 s. A batch round
// (2 MB, loading each source's disk and NIC out by 0.5) runs at 1 MB/s and
// ends at 6 s too. The default (order left unset) is "random".
func TestFlowFetchOrder(t *testing.T) {
	rng := jobRand(1, streamOutput, 0) // the reduces' seeds (newJobDisk)
	var first []int
	for range 2 {
		var st fetchState
		first = append(first, st.drawHost(rng.Uint64(), 2))
	}
	if !slices.Equal(first, []int{0, 1}) {
		t.Fatalf("the reduces' first draws are %v, the case is worked for [0 1]", first)
	}
	tr := &trace.Trace{}
	flowJob(tr, "A", [][2]int64{{0, 2e6}, {0, 2e6}}, []int64{2e6, 2e6})
	plan := func(s Cluster, jobs []*JobView) []launch {
		return []launch{{0, false, 0, 0, 0}, {0, false, 1, 1, 0}, {0, true, 0, 2, 4}, {0, true, 1, 3, 4}}
	}
	for _, c := range []struct {
		mode  FlowShuffleMode
		order FlowFetchOrder
		want  int64
		n     int64
	}{
		{FlowShuffleFetch, FlowFetchReady, 8_000_000, 4},
		{FlowShuffleFetch, FlowFetchRandom, 6_000_000, 4},
		{FlowShuffleFetch, "", 6_000_000, 4}, // the default
		{FlowShuffleBatch, FlowFetchReady, 6_000_000, 2},
		{FlowShuffleBatch, FlowFetchRandom, 6_000_000, 2},
	} {
		h := flowHardware(t, 1, 1, 100)
		h.FlowShuffle, h.ParallelCopies = c.mode, 1
		if c.order != "" {
			h.FlowFetchOrder = c.order
		}
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
		res := runPlaced(t, h, tr, plan)
		ends := reduceShuffleEnds(res)
		cost, _ := res.FlowCost()
		if !slices.Equal(ends, []int64{c.want, c.want}) || cost.Fetches != c.n {
			t.Errorf("%s, %s: shuffles end %v µs after %d transfers, want %d µs each after %d", c.mode, h.FlowFetchOrder, ends, cost.Fetches, c.want, c.n)
		}
	}
}

// TestNetworkKeys: the network names, and bad values of the network keys.
func TestNetworkKeys(t *testing.T) {
	for _, name := range NetworkModelNames() {
		m, err := ParseNetworkName(name)
		if err != nil || m.String() != name {
			t.Errorf("ParseNetworkName(%q) = %v, %v", name, m, err)
		}
	}
	for _, c := range []struct{ toml, want string }{
		{`network = "flows"`, `network "flows": want one of fixed, bar, flow`},
		{"network = \"flow\"\ncore_oversubscription = 0", "core_oversubscription = 0: want a positive ratio"},
		{"network = \"flow\"\ncore_oversubscription = -1", "core_oversubscription = -1: want a positive ratio"},
		{"network = \"flow\"\ndisk_mb_per_s = 0", "disk_mb_per_s = 0: want a finite rate"},
		{"network = \"flow\"\ndisk_mb_per_s = -5", "disk_mb_per_s = -5: want a finite rate"},
		{"network = \"flow\"\nflow_shuffle = \"batches\"", `flow_shuffle "batches": want fetch or batch`},
		{"network = \"flow\"\nflow_fetch_order = \"first\"", `flow_fetch_order "first": want ready or random`},
	} {
		_, err := ParseHardware([]byte(c.toml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.toml, err, c.want)
		}
		h := DefaultHardware()
		set := map[string]any{}
		for _, line := range strings.Split(c.toml, "\n") {
			k, v, _ := strings.Cut(line, " = ")
			if s, ok := strings.CutPrefix(v, `"`); ok {
				set[k] = strings.TrimSuffix(s, `"`)
			} else {
				var f float64
				fmt.Sscan(v, &f)
				set[k] = f
			}
		}
		if _, err := h.WithSettings(set); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %v: error %v, want one containing %q", set, err, c.want)
		}
	}
	h, err := ParseHardware([]byte("network = \"flow\"\ncore_oversubscription = 4"))
	if err != nil || h.Network != NetworkFlow || h.coreRatio() != 4 {
		t.Errorf("flow with a 4:1 core: %v, %v, ratio %g", h.Network, err, h.coreRatio())
	}
	if d := DefaultHardware(); d.Network != NetworkFixed || d.coreRatio() != 1 {
		t.Errorf("default: %v, ratio %g", d.Network, d.coreRatio())
	}
}
