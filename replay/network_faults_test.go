package replay

import (
	"fmt"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// Faults and speculation under network = "flow" (network_disk.go,
// lifecycle_flowspec.go), each schedule worked by hand.

const ms = 1000

// flowEnd is what a run left behind: transfers withdrawn before their end,
// whether a flow was left, events left queued.
type flowEnd struct {
	cancels int64
	left    bool
	queued  int
}

// runFlowCase runs plan on h and tr with workload and run seed seed; edit,
// when set, changes the workload before the run. It checks that the run
// left no flow and no event.
func runFlowCase(t *testing.T, h Hardware, tr *trace.Trace, seed uint64, edit func(*Workload), plan func(s Cluster, jobs []*JobView) []launch) (*Result, flowEnd) {
	t.Helper()
	w, err := NewWorkload(tr, &h, NewTopology(&h, seed), seed, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(w)
	}
	p := &placed{jobs: len(tr.Jobs), plan: plan}
	var end flowEnd
	opt := Options{Seed: seed, CheckInvariants: true, RecordTasks: true, Timeline: true}
	FlowEnd(&opt, func(c int64, left bool, q int) { end = flowEnd{c, left, q} })
	res, err := Run(w, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.todo) > 0 {
		t.Fatalf("launches left undone: %+v", p.todo)
	}
	if end.left || end.queued != 0 {
		t.Fatalf("the run left flows (%v) or %d events", end.left, end.queued)
	}
	return res, end
}

// faultHardware is flowHardware (disks and NICs at 1 MB/s, uplinks at 100)
// with a 1 s start-up and no compute cost unless set.
func faultHardware(t *testing.T) Hardware {
	h := flowHardware(t, 1, 1, 100)
	h.TaskStartup = sec
	h.MapComputeMBps, h.ReduceComputeMBps, h.SortMBps = 0, 0, 0
	return h
}

// shuffleCase: job A's one map (no input, 2 MB of output) on node 0 at 0 s,
// its reduce (2 MB of shuffle, no output) on a node of the other rack,
// launched at reduceAt s.
func shuffleCase(reduceAt int64) (*trace.Trace, func(s Cluster, jobs []*JobView) []launch) {
	tr := &trace.Trace{}
	diskJob(tr, "A", [][2]int64{{0, 2e6}}, [][2]int64{{2e6, 0}})
	return tr, func(s Cluster, jobs []*JobView) []launch {
		return []launch{{0, false, 0, 0, 0}, {0, true, 0, otherRack(s, 0), reduceAt}}
	}
}

// TestFlowReduceFailedAttempt: a reduce's failed attempt under flow holds
// its slot for the attempt's time, then the retry runs as a reduce alone
// does. The map: start-up 0–1 s, spill of 2 MB at the disk's 1 MB/s 1–3 s.
// The reduce, launched at 3 s:
//
//	alone:               start-up 3–4 s, fetch of 2 MB (map disk, NICs, its
//	                     disk, all 1 MB/s) 4–6 s: 3–6 s;
//	one failed attempt   the attempt 3–6 s, then the retry's start-up 6–7 s
//	of 3 s:              and fetch 7–9 s: 3–9 s, the attempt's 3 s plus the
//	                     retry's 3 s.
//
// (Before this was fixed the failed attempt lived in the reduce's copyUs,
// which the flow shuffle does not use: 3–6 s with it too.) The failed
// attempt's time comes through the trace mode's retries (a map of failed
// attempts' time per task), set here by hand; a modelled one
// (attempt_failure_rate) adds its drawn time the same way.
func TestFlowReduceFailedAttempt(t *testing.T) {
	for _, c := range []struct {
		name  string
		retry int64
		want  [2]int64
	}{{"alone", 0, [2]int64{3, 6}}, {"one failed attempt", 3 * sec, [2]int64{3, 9}}} {
		t.Run(c.name, func(t *testing.T) {
			tr, plan := shuffleCase(3)
			edit := func(w *Workload) {
				if c.retry > 0 {
					w.retries = map[string]int64{retryKey("A", "Ar"): c.retry}
				}
			}
			res, _ := runFlowCase(t, faultHardware(t), tr, 1, edit, plan)
			if got := taskTimes(res, "A", "MAP")[0]; got != [2]int64{0, 3 * sec} {
				t.Errorf("map ran %v µs, want 0–3 s", got)
			}
			if got := taskTimes(res, "A", "REDUCE")[0]; got != [2]int64{c.want[0] * sec, c.want[1] * sec} {
				t.Errorf("reduce ran %v µs, want %d–%d s", got, c.want[0], c.want[1])
			}
		})
	}
}

// TestFlowReduceModelledFailures: with attempt_failure_rate the reduce's
// drawn failed attempts come before its retry: launched at 3 s, it ends at
// 6 s plus their time. Each lasts a uniform fraction of the reduce's nominal
// time (the draws are those of every model; the nominal time is the flow
// model's, 1 s of start-up and 2 MB at 1 MB/s). Seed 6 draws failures for
// the reduce and none for the map (checked first).
func TestFlowReduceModelledFailures(t *testing.T) {
	h := faultHardware(t)
	h.AttemptFailureRate = 0.5
	tr, plan := shuffleCase(3)
	w, err := NewWorkload(tr, &h, NewTopology(&h, 6), 6, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j := w.buildAt(0)
	if j.out.disk.redRetry == nil || j.out.disk.redRetry[0] <= 0 || j.retryUs(0) != 0 {
		t.Fatalf("seed 6 draws %d µs of failed attempts for the map and %v for the reduce: want none and some", j.retryUs(0), j.out.disk.redRetry)
	}
	failed := j.out.disk.redRetry[0]
	if failed > 3*3*sec {
		t.Fatalf("%d µs of failed attempts: more than 3 of at most 3 s", failed)
	}
	res, _ := runFlowCase(t, h, tr, 6, nil, plan)
	if got := taskTimes(res, "A", "REDUCE")[0]; got != [2]int64{3 * sec, 6*sec + failed} {
		t.Errorf("reduce ran %v µs, want 3 s – 6 s + %d µs", got, failed)
	}
}

// straggle makes every task a straggler of factor 100: straggler_fraction 1
// and straggler_alpha 0.001 draw (1−u)^−1000, capped at 100, which is 100
// unless u < 0.0046 (checked by the callers on their seed).
func straggle(h *Hardware) {
	h.StragglerFraction, h.StragglerAlpha = 1, 0.001
}

// checkFactor fails unless every task of w's job 0 straggles by 100.
func checkFactor(t *testing.T, w *Workload) {
	t.Helper()
	j := w.buildAt(0)
	for k, f := range j.out.disk.slow {
		if f != 100 {
			t.Fatalf("task %d of job 0 straggles by %g, want 100: pick another seed", k, f)
		}
	}
}

// TestFlowStragglerReduce: a straggler's factor under flow stretches its
// start-up and its CPU, not its flows (network_disk.go). Both tasks of
// shuffleCase straggle by 100 and the reduce computes 2 MB at 2 MB/s (1 s):
//
//	map:    start-up 1 s × 100 = 0–100 s, spill 2 MB at 1 MB/s 100–102 s;
//	reduce: launched at 102 s, start-up 102–202 s, fetch (a flow, not
//	        stretched) 202–204 s, reduce function 1 s × 100 = 204–304 s.
//
// (Before this was fixed, on the base commit: the map's stretch was a wait
// of (100 − 1) × its nominal 3 s before its start-up and spill, 0–300 s,
// and the reduce's factor, in its copyUs, was unused under flow: start-up
// 1 s, fetch 300–302 s, work 1 s, 102–303 s.)
func TestFlowStragglerReduce(t *testing.T) {
	h := faultHardware(t)
	h.ReduceComputeMBps = 2
	straggle(&h)
	tr, plan := shuffleCase(102)
	w, err := NewWorkload(tr, &h, NewTopology(&h, 1), 1, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFactor(t, w)
	res, _ := runFlowCase(t, h, tr, 1, nil, plan)
	if got := taskTimes(res, "A", "MAP")[0]; got != [2]int64{0, 102 * sec} {
		t.Errorf("map ran %v µs, want 0–102 s", got)
	}
	red := res.Tasks[len(res.Tasks)-1]
	if red.Type != "REDUCE" || red.LaunchUs != 102*sec || red.ShuffleEndUs != 204*sec || red.FinishUs != 304*sec {
		t.Errorf("reduce: %s launched %d, shuffle end %d, finish %d µs; want 102, 204, 304 s", red.Type, red.LaunchUs, red.ShuffleEndUs, red.FinishUs)
	}
}

// TestFlowJVMReuseReduce: a reduce that reuses its job's JVM skips its
// start-up under flow. Job A's map (no input, 4 MB of output) runs on node 0:
// start-up 0–1 s, spill 1–5 s. Its two reduces (2 MB of shuffle each) take
// turns on one reduce slot of a node in the other rack: reduce 0, launched
// at 3 s, starts up 3–4 s and fetches 5–7 s; reduce 1 is launched at 7 s on
// the slot reduce 0 freed and fetches 2 MB in 2 s. Without JVM reuse it
// starts up 7–8 s and ends at 10 s; reusing reduce 0's JVM (jvm_reuse = -1)
// it fetches at once and ends at 9 s. (Before this was fixed the reused JVM
// was taken off the reduce's copyUs, which the flow shuffle does not use:
// 10 s either way.)
func TestFlowJVMReuseReduce(t *testing.T) {
	for _, c := range []struct {
		reuse int
		want  [2][2]int64
	}{{1, [2][2]int64{{3, 7}, {7, 10}}}, {-1, [2][2]int64{{3, 7}, {7, 9}}}} {
		h := faultHardware(t)
		h.JVMReuse = c.reuse
		tr := &trace.Trace{}
		diskJob(tr, "A", [][2]int64{{0, 4e6}}, [][2]int64{{2e6, 0}, {2e6, 0}})
		res, _ := runFlowCase(t, h, tr, 1, nil, func(s Cluster, jobs []*JobView) []launch {
			far := otherRack(s, 0)
			return []launch{{0, false, 0, 0, 0}, {0, true, 0, far, 3}, {0, true, 0, far, 3}}
		})
		got := taskTimes(res, "A", "REDUCE")
		for i, w := range c.want {
			if i >= len(got) || got[i] != [2]int64{w[0] * sec, w[1] * sec} {
				t.Errorf("jvm_reuse %d: reduces ran %v µs, want reduce %d %d–%d s", c.reuse, got, i, w[0], w[1])
			}
		}
	}
}

// TestFlowSpeculationCopyWins: LATE's copy of a map reading over a slow
// uplink wins, the original's read is withdrawn from the flow network, and
// the reduce fetches the output from the copy's node. Disks at 10.5 MB/s,
// NICs at 10, uplinks at 0.5; maps compute at 2 MB/s; 5 map slots a node
// (LATE's cap, 10% of 20 slots, allows 2 copies). Seed 3 puts the map's
// 4 MB block on node 0 (checked). Map 0 (2 MB of output) runs on node 3,
// in the other rack; the reduce (2 MB of shuffle, 10 MB of output) on node
// 1, beside node 0. Heartbeats every second (out of band), cleanup_task 2.8 s.
//
//	0 s:   the map reads 4 MB from node 0 over the uplinks at 0.5 MB/s (8 s
//	       alone), computing beside it 0–2 s;
//	1 s:   node 0 heartbeats with free slots: LATE copies the map there. The
//	       copy reads node 0's disk, which the original's read holds at
//	       0.5 MB/s, at the 10 MB/s left: 1–1.4 s; computes 1–3 s; spills
//	       2 MB to node 0's disk at 10 MB/s: 3–3.2 s;
//	3.2 s: the copy wins: the map is done, its output on node 0; the
//	       original reads on until it is killed (lifecycle_kill.go). The
//	       reduce fetches 2 MB from node 0 within rack 0 at the 9.5 MB/s
//	       node 0's NIC leaves beside the read: 3.2–3.410527 s; then it
//	       writes its 10 MB to its disk at 10.5 MB/s: to 4.362908 s;
//	4 s:   node 3's first heartbeat after 3.2 s kills the original: its read
//	       (2 MB of 4 done) is cancelled. Its slot is free when its cleanup
//	       attempt ends, 6.8 s.
//
// The cancelled read's 2 MB count in the network figures as moved, 0–4 s:
// node 0 sends 4 MB (with the fetch), node 3 receives 2 MB, and node_net's
// intervals (1 s) hold 0.5 MB a second of it.
//
// Without speculation the map reads until 8 s and spills on node 3 (2 MB at
// 10.5 MB/s), and the reduce's fetch crosses the 0.5 MB/s uplink: 4 s more.
func TestFlowSpeculationCopyWins(t *testing.T) {
	for _, spec := range []string{"late", "none"} {
		t.Run(spec, func(t *testing.T) {
			h := flowHardware(t, 10.5, 10, 0.5)
			h.MapSlots, h.MapComputeMBps, h.Speculation = 5, 2, spec
			tr := &trace.Trace{}
			diskJob(tr, "A", [][2]int64{{4e6, 2e6}}, [][2]int64{{2e6, 10e6}})
			res, end := runFlowCase(t, h, tr, 3, nil, func(s Cluster, jobs []*JobView) []launch {
				if r := jobs[0].Replicas(0); len(r) != 1 || r[0] != 0 {
					t.Fatalf("seed 3 puts the block on %v, want node 0", r)
				}
				return []launch{{0, false, 0, 3, 0}, {0, true, 0, 1, 0}}
			})
			m := taskTimes(res, "A", "MAP")[0]
			red := res.Tasks[len(res.Tasks)-1]
			if spec == "none" {
				if m[1] < 8*sec || red.ShuffleEndUs < m[1]+4*sec || end.cancels != 0 {
					t.Errorf("without speculation: map %v µs, shuffle end %d, %d flows cancelled", m, red.ShuffleEndUs, end.cancels)
				}
				return
			}
			if m != [2]int64{0, 3200 * ms} {
				t.Errorf("map ran %v µs, want 0–3.2 s", m)
			}
			if red.ShuffleEndUs != 3_410_527 || red.FinishUs != 4_362_908 {
				t.Errorf("reduce: shuffle end %d, finish %d µs, want 3.410527 s and 4.362908 s", red.ShuffleEndUs, red.FinishUs)
			}
			if end.cancels != 1 {
				t.Errorf("%d flows cancelled, want 1 (the original's read)", end.cancels)
			}
			if n0, n3 := res.Nodes[0], res.Nodes[3]; n0.NetOutBytes != 4_000_000 || n3.NetInBytes != 2_000_000 {
				t.Errorf("node 0 sent %d bytes, node 3 received %d, want 4 MB and 2 MB (the cancelled read's part)", n0.NetOutBytes, n3.NetInBytes)
			}
			var in3 [5]int64
			for _, x := range res.NodeNet {
				if x.Node == 3 && x.TimeUs < 5*sec {
					in3[x.TimeUs/sec] += x.InBytes
				}
			}
			if in3 != [5]int64{500_000, 500_000, 500_000, 500_000, 0} {
				t.Errorf("node 3 received %v bytes in 0–5 s, want 0.5 MB a second until 4 s", in3)
			}
		})
	}
}

// TestFlowSpeculationStraggler: the original straggles by 100 (its compute
// 2 s × 100), so when its copy wins it is computing, not moving bytes: its
// queued stage event is withdrawn and no flow is cancelled. Disks, NICs and
// uplinks at 10 MB/s, seed 3 (the block on node 0, checked):
//
//	original on node 3: remote read 0–0.4 s, compute 0–200 s (then a spill);
//	copy on node 0 from 1 s (no straggler factor): read 1–1.4 s, compute
//	1–3 s, spill 2 MB 3–3.2 s: the map is done at 3.2 s.
func TestFlowSpeculationStraggler(t *testing.T) {
	h := flowHardware(t, 10, 10, 10)
	h.MapSlots, h.MapComputeMBps, h.Speculation = 5, 2, "late"
	straggle(&h)
	tr := &trace.Trace{}
	diskJob(tr, "A", [][2]int64{{4e6, 2e6}}, nil)
	w, err := NewWorkload(tr, &h, NewTopology(&h, 3), 3, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFactor(t, w)
	res, end := runFlowCase(t, h, tr, 3, nil, func(s Cluster, jobs []*JobView) []launch {
		if r := jobs[0].Replicas(0); len(r) != 1 || r[0] != 0 {
			t.Fatalf("seed 3 puts the block on %v, want node 0", r)
		}
		return []launch{{0, false, 0, 3, 0}}
	})
	if m := taskTimes(res, "A", "MAP")[0]; m != [2]int64{0, 3200 * ms} {
		t.Errorf("map ran %v µs, want 0–3.2 s", m)
	}
	if end.cancels != 0 {
		t.Errorf("%d flows cancelled, want none", end.cancels)
	}
}

// TestFlowObservedCopyWins: an observed copy (trace mode's speculative
// attempt, set here by hand) of a map whose stages are flows runs its
// observed time without flows, and winning kills the original's read.
// TestFlowSpeculationCopyWins's cluster, job and placement, no speculation
// key; the copy is asked for 1 s after the map's launch and lasts 2 s:
//
//	0 s: the map reads over the 0.5 MB/s uplinks (8 s alone);
//	1 s: node 0's heartbeat launches the copy: 1–3 s;
//	3 s: the copy wins, the original's read is cancelled, the map is done
//	     with its output on node 0; the reduce fetches it 3–3.2 s.
func TestFlowObservedCopyWins(t *testing.T) {
	h := flowHardware(t, 10.5, 10, 0.5)
	h.MapSlots, h.MapComputeMBps = 5, 2
	tr := &trace.Trace{}
	diskJob(tr, "A", [][2]int64{{4e6, 2e6}}, [][2]int64{{2e6, 0}})
	edit := func(w *Workload) {
		w.specs = map[string]obsCopy{retryKey("A", "Am"): {delayUs: sec, copyUs: 2 * sec, origUs: -1}}
	}
	res, end := runFlowCase(t, h, tr, 3, edit, func(s Cluster, jobs []*JobView) []launch {
		if r := jobs[0].Replicas(0); len(r) != 1 || r[0] != 0 {
			t.Fatalf("seed 3 puts the block on %v, want node 0", r)
		}
		return []launch{{0, false, 0, 3, 0}, {0, true, 0, 1, 0}}
	})
	if m := taskTimes(res, "A", "MAP")[0]; m != [2]int64{0, 3 * sec} {
		t.Errorf("map ran %v µs, want 0–3 s", m)
	}
	if red := res.Tasks[len(res.Tasks)-1]; red.ShuffleEndUs != 3200*ms {
		t.Errorf("reduce's shuffle ends at %d µs, want 3.2 s", red.ShuffleEndUs)
	}
	if end.cancels != 1 {
		t.Errorf("%d flows cancelled, want 1 (the original's read)", end.cancels)
	}
}

// TestFlowJVMReuseMap: a map that reuses its job's JVM skips its start-up
// under flow too. Two maps of job A (no input, 1 MB of output each) take
// turns on node 0's one map slot: map 0 starts up 0–1 s and spills 1–2 s;
// map 1, launched at 2 s, starts up 2–3 s and spills 3–4 s, or reusing map
// 0's JVM spills 2–3 s.
func TestFlowJVMReuseMap(t *testing.T) {
	for _, c := range []struct {
		reuse int
		end   int64
	}{{1, 4}, {-1, 3}} {
		h := faultHardware(t)
		h.JVMReuse, h.MapSlots = c.reuse, 1
		tr := &trace.Trace{}
		diskJob(tr, "A", [][2]int64{{0, 1e6}, {0, 1e6}}, nil)
		res, _ := runFlowCase(t, h, tr, 1, nil, func(s Cluster, jobs []*JobView) []launch {
			return []launch{{0, false, 0, 0, 0}, {0, false, 1, 0, 0}}
		})
		if got := taskTimes(res, "A", "MAP"); len(got) != 2 || got[0] != [2]int64{0, 2 * sec} || got[1] != [2]int64{2 * sec, c.end * sec} {
			t.Errorf("jvm_reuse %d: maps ran %v µs, want 0–2 s and 2–%d s", c.reuse, got, c.end)
		}
	}
}

// TestFlowMapFailedAttemptReads: a modelled map's failed attempts read its
// input as a flow until they fail (network_disk.go). Disks at 1 MB/s, NICs
// and uplinks at 10 MB/s, no start-up or compute; both blocks on data node
// d. Map 0 (4 MB) runs on another node e and reads d's disk remotely; its
// failed attempts last 2 s. Map 1 (2 MB) runs on d, node-local. Both launch
// at 0 s.
//
//	0–2 s: map 0's failed attempts read beside map 1: d's disk at 0.5 MB/s
//	       each; at 2 s they fail, 1 MB read (withdrawn), map 1 has 1 MB left;
//	2 s:   map 0's successful attempt reads 4 MB beside map 1's last MB:
//	       0.5 MB/s each, map 1 ends at 4 s with 3 MB left to map 0;
//	4–7 s: map 0 alone at 1 MB/s: it ends at 7 s.
//
// d sends 5 MB to e (the failed read's 1 MB counts). Before, the failed
// attempts were a wait: map 1 alone 0–2 s, map 0 2–6 s, 4 MB sent.
func TestFlowMapFailedAttemptReads(t *testing.T) {
	tr := &trace.Trace{}
	j := trace.NewJob("A")
	j.SubmitMs, j.Status = 0, trace.StatusSucceeded
	tr.Jobs = append(tr.Jobs, j)
	for k, in := range []int64{4e6, 2e6} {
		m := trace.NewTask("A", fmt.Sprintf("Am%d", k), trace.Map, int32(k))
		m.InputBytes, m.OutputBytes = in, 0
		tr.Tasks = append(tr.Tasks, m)
	}
	edit := func(w *Workload) { w.retries = map[string]int64{retryKey("A", "Am0"): 2 * sec} }
	var d, e int32
	res, end := runFlowCase(t, oneDataNode(t, 1, 10, 10), tr, 1, edit, func(s Cluster, jobs []*JobView) []launch {
		d = jobs[0].Replicas(0)[0]
		if jobs[0].Replicas(1)[0] != d {
			t.Fatalf("the maps' blocks are on nodes %d and %d, want one node", d, jobs[0].Replicas(1)[0])
		}
		e = (d + 1) % 4
		return []launch{{0, false, 0, e, 0}, {0, false, 1, d, 0}}
	})
	got := taskTimes(res, "A", "MAP")
	if got[0] != [2]int64{0, 7 * sec} || got[1] != [2]int64{0, 4 * sec} {
		t.Errorf("maps ran %v µs, want 0–7 s and 0–4 s", got)
	}
	if sent, recv := res.Nodes[d].NetOutBytes, res.Nodes[e].NetInBytes; sent != 5e6 || recv != 5e6 {
		t.Errorf("node %d sent %d bytes, node %d received %d, want 5 MB (1 MB by the failed attempts)", d, sent, e, recv)
	}
	if end.cancels != 1 {
		t.Errorf("%d transfers withdrawn, want 1 (the failed attempts' read)", end.cancels)
	}
}
