package replay

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// step is one launch of a scripted run: map or reduce index on a node, not
// before a time in seconds.
type step struct {
	reduce bool
	task   int32
	node   int32
	at     int64
}

// scripted launches tasks where a script says, ignoring locality, and records
// what the JobTracker knows of the job's intermediate data after each map.
type scripted struct {
	Base
	steps []step
	next  int
	seen  [][]int32 // MapOutputNodes after each finished map
	bytes [][]int64 // MapOutputBytes per node after each finished map
}

func (p *scripted) Name() string { return "scripted" }

func (p *scripted) Heartbeat(s Cluster, n int32) {
	for p.next < len(p.steps) {
		st := p.steps[p.next]
		if st.node != n || s.Now() < st.at*sec {
			return
		}
		j := s.Active()[0]
		if st.reduce {
			if s.FreeReduceSlots(n) == 0 || s.LaunchReduce(j, n) != st.task {
				return
			}
		} else {
			if s.FreeMapSlots(n) == 0 {
				return
			}
			s.LaunchMap(j, st.task, n)
		}
		p.next++
	}
}

func (p *scripted) TaskFinished(s Cluster, j *JobView, reduce bool, _ int32) {
	if reduce {
		return
	}
	p.seen = append(p.seen, slices.Clone(j.MapOutputNodes()))
	var b []int64
	for n := range s.Topology().Nodes {
		b = append(b, j.MapOutputBytes(int32(n)))
	}
	p.bytes = append(p.bytes, b)
}

const sec = 1_000_000

// shuffleHardware is 2 racks of 2 nodes, one map and one reduce slot each, disk
// and NIC at 1 MB/s (one second per 10^6 bytes) and a rack uplink of 1 MB/s, so
// a node's share across racks is 0.5 MB/s; aligned heartbeats every second.
func shuffleHardware(t *testing.T, shuffle string) Hardware {
	t.Helper()
	h, err := ParseHardware([]byte(`
racks = 2
nodes_per_rack = 2
map_slots = 1
reduce_slots = 1
disk_mb_per_s = 1
nic_mb_per_s = 1
rack_uplink_mb_per_s = 1
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
out_of_band_heartbeat = true
replication = 1
duration_cv = 0
slow_start = 0
timeline_sample = "1s"
shuffle = "` + shuffle + `"
`))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// shuffleTrace is one job: map 0 writes 2 MB of output (2 s), map 1 writes 4 MB
// (4 s), both read nothing; one reduce copies the 6 MB and writes nothing.
func shuffleTrace() *trace.Trace {
	tr := &trace.Trace{}
	j := trace.NewJob("A")
	j.SubmitMs, j.Status = 0, trace.StatusSucceeded
	tr.Jobs = append(tr.Jobs, j)
	for k, out := range []int64{2e6, 4e6} {
		m := trace.NewTask("A", "Am", trace.Map, int32(k))
		m.InputBytes, m.OutputBytes = 0, out
		tr.Tasks = append(tr.Tasks, m)
	}
	r := trace.NewTask("A", "Ar", trace.Reduce, 0)
	r.ShuffleBytes, r.OutputBytes = 6e6, 0
	tr.Tasks = append(tr.Tasks, r)
	return tr
}

func runScript(t *testing.T, shuffle string, steps []step) (*Result, *scripted) {
	t.Helper()
	return runScriptOn(t, shuffleHardware(t, shuffle), shuffleTrace(), steps)
}

// runScriptOn is runScript on the given hardware and trace.
func runScriptOn(t *testing.T, h Hardware, tr *trace.Trace, steps []step) (*Result, *scripted) {
	t.Helper()
	w, err := NewWorkload(tr, &h, NewTopology(&h, 1), 1, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := &scripted{steps: steps}
	res, err := Run(w, p, Options{Seed: 1, CheckInvariants: true, Timeline: true, RecordTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.next != len(steps) {
		t.Fatalf("script stopped at step %d of %d", p.next, len(steps))
	}
	return res, p
}

// TestShuffleHandWorked: map 0 on node 0 (0-2 s), map 1 on node 2 (0-4 s, the
// other rack).
//
// Reduce on node 1 from 0 s. Topology: map 0's 2 MB come from node 0 in the
// same rack at 1 MB/s, 2-4 s; map 1's 4 MB come from the other rack at 0.5
// MB/s, 4-12 s; reduce work (6 MB read from disk) 12-18 s. Uniform: copy 6 MB at
// 1 MB/s from launch, or last map end + 6/2 s: max(6, 4+3) = 7, finish 13 s.
//
// Reduce on node 0 from 5 s (after the maps): topology fetches map 0 from its
// own node for free and map 1 across racks, 5-13 s, finish 19 s; uniform
// max(5+6, 4+3) = 11, finish 17 s.
func TestShuffleHandWorked(t *testing.T) {
	early := []step{{false, 0, 0, 0}, {true, 0, 1, 0}, {false, 1, 2, 0}}
	late := []step{{false, 0, 0, 0}, {false, 1, 2, 0}, {true, 0, 0, 5}}
	cases := []struct {
		name, shuffle      string
		steps              []step
		shuffleEnd, finish int64
		netBytes           int64
	}{
		{"topology early", "topology", early, 12, 18, 6e6},
		{"uniform early", "uniform", early, 7, 13, 6e6 - 6e6/4},
		{"topology late", "topology", late, 13, 19, 4e6},
		{"uniform late", "uniform", late, 11, 17, 6e6 - 6e6/4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := runScript(t, c.shuffle, c.steps)
			var red *TaskResult
			for i := range res.Tasks {
				if res.Tasks[i].Type == "REDUCE" {
					red = &res.Tasks[i]
				}
			}
			if red.ShuffleEndUs != c.shuffleEnd*sec || red.FinishUs != c.finish*sec {
				t.Errorf("reduce shuffle end %v s, finish %v s; want %d s, %d s",
					float64(red.ShuffleEndUs)/sec, float64(red.FinishUs)/sec, c.shuffleEnd, c.finish)
			}
			if got := res.Summary.NetworkBytes; got != c.netBytes {
				t.Errorf("network bytes %d, want %d", got, c.netBytes)
			}
		})
	}
}

// TestShuffleEventPoll: with event_poll a reduce running before a map ends
// learns of it heartbeat/2 + 3 s later (Hadoop 1's poll chain, shuffle.go),
// here 0.5 + 3 = 3.5 s. The scripts of TestShuffleHandWorked:
//
// Reduce on node 1 from 0 s. Uniform: max(6, 4 + 3 + 3.5) = 10.5 s, finish
// 16.5 s. Topology: map 0's fetch starts at 2 + 3.5 = 5.5 s (2 s), map 1's
// at max(7.5, 4 + 3.5) = 7.5 s (8 s), so 15.5 s, finish 21.5 s.
//
// Reduce on node 0 from 5 s, after both maps: no wait (13/19 s topology,
// 11/17 s uniform). A job that records a YARN ApplicationMaster: no wait.
func TestShuffleEventPoll(t *testing.T) {
	early := []step{{false, 0, 0, 0}, {true, 0, 1, 0}, {false, 1, 2, 0}}
	late := []step{{false, 0, 0, 0}, {false, 1, 2, 0}, {true, 0, 0, 5}}
	yarn := shuffleTrace()
	yarn.Jobs[0].AMStartMs = 0
	cases := []struct {
		name, shuffle      string
		tr                 *trace.Trace
		steps              []step
		shuffleEnd, finish float64
	}{
		{"uniform early", "uniform", shuffleTrace(), early, 10.5, 16.5},
		{"topology early", "topology", shuffleTrace(), early, 15.5, 21.5},
		{"uniform late", "uniform", shuffleTrace(), late, 11, 17},
		{"topology late", "topology", shuffleTrace(), late, 13, 19},
		{"uniform early, YARN job", "uniform", yarn, early, 7, 13},
		{"topology early, YARN job", "topology", yarn, early, 12, 18},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := shuffleHardware(t, c.shuffle)
			h.EventPoll = true
			res, _ := runScriptOn(t, h, c.tr, c.steps)
			var red *TaskResult
			for i := range res.Tasks {
				if res.Tasks[i].Type == "REDUCE" {
					red = &res.Tasks[i]
				}
			}
			if red.ShuffleEndUs != int64(c.shuffleEnd*sec) || red.FinishUs != int64(c.finish*sec) {
				t.Errorf("reduce shuffle end %v s, finish %v s; want %v s, %v s",
					float64(red.ShuffleEndUs)/sec, float64(red.FinishUs)/sec, c.shuffleEnd, c.finish)
			}
		})
	}
}

// TestShuffleNodeNetwork checks the per-node totals and the per-second series
// of the early topology case: node 0 sends 2 MB over 2-4 s, node 2 sends 4 MB
// over 4-12 s, node 1 receives both.
func TestShuffleNodeNetwork(t *testing.T) {
	res, _ := runScript(t, "topology", []step{{false, 0, 0, 0}, {true, 0, 1, 0}, {false, 1, 2, 0}})
	wantIn := []int64{0, 6e6, 0, 0}
	wantOut := []int64{2e6, 0, 4e6, 0}
	for i, n := range res.Nodes {
		if n.Node != int32(i) || n.NetInBytes != wantIn[i] || n.NetOutBytes != wantOut[i] {
			t.Errorf("node %d: %+v, want in %d out %d", i, n, wantIn[i], wantOut[i])
		}
	}
	var want []NodeNetSample
	for k := int64(2); k < 12; k++ {
		b := int64(1e6)
		if k >= 4 {
			b = 5e5
			want = append(want, NodeNetSample{Policy: "scripted", TimeUs: k * sec, Node: 1, InBytes: b})
			want = append(want, NodeNetSample{Policy: "scripted", TimeUs: k * sec, Node: 2, OutBytes: b})
			continue
		}
		want = append(want, NodeNetSample{Policy: "scripted", TimeUs: k * sec, Node: 0, OutBytes: b})
		want = append(want, NodeNetSample{Policy: "scripted", TimeUs: k * sec, Node: 1, InBytes: b})
	}
	if !slices.Equal(res.NodeNet, want) {
		t.Errorf("node network series\n got %+v\nwant %+v", res.NodeNet, want)
	}
}

// TestMapOutputKnowledge: after map 0 (node 0, 2 MB) and map 1 (node 2, 4 MB)
// the policy sees exactly those bytes on those nodes.
func TestMapOutputKnowledge(t *testing.T) {
	_, p := runScript(t, "uniform", []step{{false, 0, 0, 0}, {true, 0, 1, 0}, {false, 1, 2, 0}})
	wantNodes := [][]int32{{0}, {0, 2}}
	wantBytes := [][]int64{{2e6, 0, 0, 0}, {2e6, 0, 4e6, 0}}
	for k := range wantNodes {
		if !slices.Equal(p.seen[k], wantNodes[k]) || !slices.Equal(p.bytes[k], wantBytes[k]) {
			t.Errorf("after map %d: nodes %v bytes %v, want %v %v", k, p.seen[k], p.bytes[k], wantNodes[k], wantBytes[k])
		}
	}
}

func TestNetSpread(t *testing.T) {
	var now int64
	a := newNetAcct(1, 10, true, &now, func(NodeNetSample) {})
	cases := []struct {
		b, t0, t1 int64
		want      []int64
	}{
		{10, 5, 25, []int64{2, 5, 3}},
		{7, 12, 12, []int64{0, 7}},
		{9, 0, 10, []int64{9}},
		{0, 0, 30, []int64{0, 0, 0}},
	}
	for _, c := range cases {
		a.open = nil
		a.spread(0, 0, c.b, c.t0, c.t1)
		got := make([]int64, len(c.want))
		for k := range got {
			if k < len(a.open) {
				if l := a.open[k].netCountsOrNil(); len(l) > 0 {
					got[k] = l[0].c[0]
				}
			}
		}
		if !slices.Equal(got, c.want) || a.openIntervals() > len(c.want) {
			t.Errorf("spread(%d, %d, %d) = %v, want %v", c.b, c.t0, c.t1, got, c.want)
		}
	}
}

// TestNetFlush: intervals are emitted, in time then node order and without idle
// nodes, as soon as a transfer starts after them, and the open ones are all that
// is held.
func TestNetFlush(t *testing.T) {
	var got []NodeNetSample
	var now int64 = 5
	a := newNetAcct(3, 10, true, &now, func(s NodeNetSample) { got = append(got, s) })
	a.transfer(2, 0, 20, 5, 25) // 0: 5 in [5,10), 10 in [10,20), 5 in [20,25)
	now = 8
	a.transfer(1, 2, 4, 30, 30) // 4 at 30, a fetch queued behind others
	a.transfer(1, 2, 4, 8, 8)   // 4 at 8
	if len(got) != 0 || a.openIntervals() != 4 {
		t.Fatalf("before any interval closed: emitted %v, open %d intervals", got, a.openIntervals())
	}
	now = 21
	a.transfer(0, 1, 6, 21, 21) // closes intervals 0 and 1
	want := []NodeNetSample{
		{TimeUs: 0, Node: 0, InBytes: 5}, {TimeUs: 0, Node: 1, OutBytes: 4}, {TimeUs: 0, Node: 2, InBytes: 4, OutBytes: 5},
		{TimeUs: 10, Node: 0, InBytes: 10}, {TimeUs: 10, Node: 2, OutBytes: 10},
	}
	if !slices.Equal(got, want) || a.openIntervals() != 2 {
		t.Fatalf("after a transfer at 21: emitted %v, open %d intervals; want %v and 2", got, a.openIntervals(), want)
	}
	got = nil
	a.flush(math.MaxInt64)
	want = []NodeNetSample{{TimeUs: 20, Node: 0, InBytes: 5, OutBytes: 6}, {TimeUs: 20, Node: 1, InBytes: 6}, {TimeUs: 20, Node: 2, OutBytes: 5},
		{TimeUs: 30, Node: 1, OutBytes: 4}, {TimeUs: 30, Node: 2, InBytes: 4}}
	if !slices.Equal(got, want) || a.openIntervals() != 0 {
		t.Fatalf("final flush: emitted %v, open %d; want %v", got, a.openIntervals(), want)
	}
}

// TestHeartbeatsSent: four nodes with aligned one-second heartbeats have sent 4
// at t = 0 and 12 at t = 2.5 s; with seeded phases every node has sent one by
// the end of the first interval and the count grows by 4 per interval.
func TestHeartbeatsSent(t *testing.T) {
	h := shuffleHardware(t, "uniform")
	w, err := NewWorkload(shuffleTrace(), &h, NewTopology(&h, 1), 1, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &Sim{hw: &h, nodes: make([]nodeState, 4), w: w}
	s.orderPhases()
	if got := s.HeartbeatsSent(0); got != 4 {
		t.Errorf("at 0: %d, want 4", got)
	}
	if got := s.HeartbeatsSent(2*sec + sec/2); got != 12 {
		t.Errorf("at 2.5 s: %d, want 12", got)
	}
	for i := range s.nodes {
		s.nodes[i].phase = int64(i) * sec / 4
	}
	s.orderPhases()
	if got := s.HeartbeatsSent(sec/4 + 1); got != 2 {
		t.Errorf("phased, at 0.25 s: %d, want 2", got)
	}
	if a, b := s.HeartbeatsSent(sec), s.HeartbeatsSent(2*sec); a != 5 || b != 9 {
		t.Errorf("phased, at 1 s and 2 s: %d, %d, want 5, 9", a, b)
	}
}

func TestShuffleKey(t *testing.T) {
	for _, c := range []struct {
		text string
		ok   bool
	}{{``, true}, {`shuffle = "topology"`, true}, {`shuffle = "uniform"`, true}, {`shuffle = "mesh"`, false}} {
		h, err := ParseHardware([]byte(c.text))
		if (err == nil) != c.ok {
			t.Errorf("%q: error %v, want ok=%v", c.text, err, c.ok)
		}
		if c.text == "" && h.Shuffle != "uniform" {
			t.Errorf("default shuffle %q, want uniform", h.Shuffle)
		}
	}
}

// TestWriteNodes: the per-node tables go to nodes.parquet and node_net.parquet
// and read back unchanged.
func TestWriteNodes(t *testing.T) {
	res, _ := runScript(t, "topology", []step{{false, 0, 0, 0}, {true, 0, 1, 0}, {false, 1, 2, 0}})
	dir := t.TempDir()
	if err := WriteRun(dir, res, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	nodes, _, err := trace.ReadParquetFile[NodeResult](filepath.Join(dir, NodesFile))
	if err != nil {
		t.Fatal(err)
	}
	series, _, err := trace.ReadParquetFile[NodeNetSample](filepath.Join(dir, NodeNetFile))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nodes, res.Nodes) || !slices.Equal(series, res.NodeNet) {
		t.Errorf("read back %v %v, want %v %v", nodes, series, res.Nodes, res.NodeNet)
	}
}
