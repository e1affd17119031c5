package policy

import (
	"reflect"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// easHardware is tinyHardware with 4 nodes: 2 map machines (nodes 0, 1) and 2
// reduce machines (nodes 2, 3), one slot each, disk and network at 1 MB/s (one
// second per 10^6 bytes); replication 2 puts every block on both map machines.
func easHardware(t *testing.T) replay.Hardware {
	t.Helper()
	hw, err := tinyHardware(t).WithSettings(map[string]any{
		"name": "tiny-eas", "nodes_per_rack": 4, "map_nodes": 2, "reduce_nodes": 2, "nic_mb_per_s": 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return hw
}

// easJob is a hand-made job: submit second, map lengths in seconds (input MB,
// no output) and reduce shuffle sizes in MB (a reduce of s MB copies for s seconds
// and then merges for s seconds).
type easJob struct {
	submit   int64
	maps     []int64
	shuffles []int64
}

// easTrace is handTrace with reduces that shuffle their MB and write nothing.
func easTrace(jobs []easJob) *trace.Trace {
	hand := make([]job, len(jobs))
	for i, jb := range jobs {
		hand[i] = job{jb.submit, jb.maps, jb.shuffles}
	}
	tr := handTrace(hand)
	for i := range tr.Tasks {
		if t := &tr.Tasks[i]; t.Type == trace.Reduce {
			t.ShuffleBytes, t.OutputBytes = t.OutputBytes, 0
		}
	}
	return tr
}

// recordingEAS is EAS that also records, per job, the replica holders of each map.
type recordingEAS struct {
	*EAS
	replicas map[string][][]int32
}

func (r *recordingEAS) JobArrived(s replay.Cluster, j *replay.JobView) {
	for i := range j.NumMaps() {
		r.replicas[j.ID()] = append(r.replicas[j.ID()], append([]int32(nil), j.Replicas(i)...))
	}
	r.EAS.JobArrived(s, j)
}

func runEASHand(t *testing.T, spec string, hw replay.Hardware, jobs []easJob) (*replay.Result, *recordingEAS) {
	t.Helper()
	w, _ := newWorkload(t, hw, easTrace(jobs), 1)
	rec := &recordingEAS{EAS: newPolicy(t, spec).(*EAS), replicas: map[string][][]int32{}}
	return runPolicy(t, w, rec, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true}), rec
}

// checkDrained fails if the policy still holds load or queued work after a run.
func checkDrained(t *testing.T, e *EAS) {
	t.Helper()
	for n := range e.mapLoad {
		if e.mapLoad[n] != 0 || e.queued[n] != 0 || e.redLoad[n] != 0 || len(e.mapQ[n]) != 0 || len(e.redQ[n]) != 0 {
			t.Errorf("node %d: map load %d, queued %d, reduce load %d, queues %d+%d after the run", n, e.mapLoad[n], e.queued[n], e.redLoad[n], len(e.mapQ[n]), len(e.redQ[n]))
		}
	}
	if len(e.waiting) != 0 || len(e.redRun) != 0 {
		t.Errorf("%d jobs still waiting, %d reduces still tracked", len(e.waiting), len(e.redRun))
	}
}

const msec = 1000

// TestEASHandWorked: on easHardware, A (t=0, two 10 s maps), B (t=1, one 1 s map),
// C (t=2, one 2 s map), D (t=3, one 3 s map); with seed 1 every block lists node 1
// before node 0 for A and node 0 before node 1 for B, C, D (checked first).
//
// t=0: node 0 heartbeats, idle, and selects A, the only waiting job; Alg. 2 puts
// map 0 on node 1 (loads 0 0, first replica) and map 1 on node 0 (10 > 0); both
// run 0-10. B, C and D arrive while both map machines are busy: no selection
// (§4.2). t=10: both maps end; node 0's out-of-band heartbeat selects among B, C,
// D with loads 0 0: each puts its one map on node 0, leaving spreads 1, 2, 3: B,
// which runs on node 0 10-11. Node 1's heartbeat, loads 1 0, selects among C and
// D: C (on node 1, loads 1 2) beats D (1 3); C runs 10-12. t=11: node 0 idle
// selects D, which goes to node 0 (0 < 2) and runs 11-14.
//
// Flowtimes A 10, B 10, C 10, D 11 s. Map machines' throughput (eq. 3): node 0 ran
// 10 + 1 + 3 MB by 14 s, node 1 10 + 2 MB by 12 s: 1 + 1 = 2 MB/s. Load balance
// (§5.4), sampled at every 2nd launch: at t=0 both machines hold 10 MB, spread 0;
// at t=10 (C's launch) they hold B's 1 MB and C's 2 MB (D waits unselected), spread
// 0.5: Σ_t LB^t = 0.5.
func TestEASHandWorked(t *testing.T) {
	jobs := []easJob{{0, []int64{10, 10}, nil}, {1, []int64{1}, nil}, {2, []int64{2}, nil}, {3, []int64{3}, nil}}
	res, rec := runEASHand(t, "eas", easHardware(t), jobs)
	wantReps := map[string][][]int32{"A": {{1, 0}, {1, 0}}, "B": {{0, 1}}, "C": {{0, 1}}, "D": {{0, 1}}}
	if !reflect.DeepEqual(rec.replicas, wantReps) {
		t.Fatalf("replicas %v, want %v: block placement changed, rework this schedule", rec.replicas, wantReps)
	}
	wantSel := []easSelection{{0, 0, 0, 1}, {10 * sec, 0, 1, 3}, {10 * sec, 1, 2, 2}, {11 * sec, 0, 3, 1}}
	if !slices.Equal(rec.history, wantSel) {
		t.Errorf("selections %v, want %v", rec.history, wantSel)
	}
	checkFlowtimes(t, res, []int64{10, 10, 10, 11})
	type placed struct {
		job  string
		task int32
		node int32
		at   int64
	}
	var got []placed
	for _, tk := range res.Tasks {
		got = append(got, placed{tk.JobID, tk.Index, tk.Node, tk.LaunchUs / sec})
	}
	slices.SortFunc(got, func(a, b placed) int {
		if a.job != b.job {
			return int(a.job[0]) - int(b.job[0])
		}
		return int(a.task - b.task)
	})
	want := []placed{{"A", 0, 1, 0}, {"A", 1, 0, 0}, {"B", 0, 0, 10}, {"C", 0, 1, 10}, {"D", 0, 0, 11}}
	if !slices.Equal(got, want) {
		t.Errorf("maps ran %v, want %v", got, want)
	}
	sum := res.Summary
	if sum.MapLocality != 1 || sum.MapMachineThroughput != 2 || sum.ReduceMachineThroughput != 0 || sum.LoadBalanceSum != 0.5 {
		t.Errorf("locality %v, map throughput %v, reduce throughput %v, load balance sum %v; want 1, 2, 0, 0.5",
			sum.MapLocality, sum.MapMachineThroughput, sum.ReduceMachineThroughput, sum.LoadBalanceSum)
	}
	checkDrained(t, rec.EAS)
}

// TestEASThreshold checks §4.2 on the jobs of TestEASHandWorked. With the default
// threshold the selection waits until a map machine is idle at t=10, although B, C
// and D arrived at 1, 2 and 3. With threshold 2, D's arrival makes three jobs
// wait, so one is selected at once although both map machines are busy: with
// loads 10 10 (in MB), B leaves the spread N·Σ(x'²−x²) − D(2S+D) = 2·21 − 41 = 1,
// C 2·44 − 84 = 4, D 2·69 − 129 = 9, so B, queued on node 0 behind A's map. At 10
// node 0 launches B from its queue and node 1, idle, selects C; at 11 node 0
// selects D. With threshold 1, C's arrival selects B at 2 and D's selects C at 3
// (loads 11 10: C goes to node 1); at 10 both launch from their queues, and D
// waits for node 0 to be idle at 11.
func TestEASThreshold(t *testing.T) {
	jobs := []easJob{{0, []int64{10, 10}, nil}, {1, []int64{1}, nil}, {2, []int64{2}, nil}, {3, []int64{3}, nil}}
	cases := []struct {
		spec string
		want []easSelection
	}{
		{"eas", []easSelection{{0, 0, 0, 1}, {10 * sec, 0, 1, 3}, {10 * sec, 1, 2, 2}, {11 * sec, 0, 3, 1}}},
		{"eas:threshold=2", []easSelection{{0, 0, 0, 1}, {3 * sec, -1, 1, 3}, {10 * sec, 1, 2, 2}, {11 * sec, 0, 3, 1}}},
		{"eas:threshold=1", []easSelection{{0, 0, 0, 1}, {2 * sec, -1, 1, 2}, {3 * sec, -1, 2, 2}, {11 * sec, 0, 3, 1}}},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			res, rec := runEASHand(t, c.spec, easHardware(t), jobs)
			if !slices.Equal(rec.history, c.want) {
				t.Errorf("selections %v, want %v", rec.history, c.want)
			}
			checkFlowtimes(t, res, []int64{10, 10, 10, 11})
			checkDrained(t, rec.EAS)
		})
	}
	if _, err := New("eas:threshold=0"); err == nil {
		t.Error("eas:threshold=0 accepted")
	}
}

// TestEASReduces checks Alg. 3 and the absence of pipelining in the simulator. A
// (t=0) has maps of 1 and 4 s and reduces of 3, 2 and 1 MB; slow_start is 0, so a
// pull scheduler launches the reduces at once (FIFO does, checked). EAS places
// them only when the last map ends at 4: 3 MB on node 2 (loads 0 0, first), 2 MB
// on node 3 (0 < 3), 1 MB on node 3 (2 < 3). At 4 node 2 launches reduce
// 0 (copy 3 s to 7, merge 3 s to 10) and node 3 reduce 1 (2 s + 2 s, to 8); at 8
// node 3 launches reduce 2 (1 + 1 s, to 10). Flowtime 10 s; reduce machines'
// throughput (eq. 4): 3 MB / 10 s + 3 MB / 10 s = 0.6 MB/s.
func TestEASReduces(t *testing.T) {
	jobs := []easJob{{0, []int64{1, 4}, []int64{3, 2, 1}}}
	res, rec := runEASHand(t, "eas", easHardware(t), jobs)
	type red struct {
		index, node    int32
		launch, finish int64
	}
	var got []red
	for _, tk := range res.Tasks {
		if tk.Type == "REDUCE" {
			got = append(got, red{tk.Index, tk.Node, tk.LaunchUs / msec, tk.FinishUs / msec})
		}
	}
	slices.SortFunc(got, func(a, b red) int { return int(a.index - b.index) })
	want := []red{{0, 2, 4000, 10000}, {1, 3, 4000, 8000}, {2, 3, 8000, 10000}}
	if !slices.Equal(got, want) {
		t.Errorf("reduces %v, want %v", got, want)
	}
	j := res.Jobs[0]
	if j.FlowtimeUs != 10*sec || j.LastMapEndUs != 4*sec || res.Summary.ReduceMachineThroughput != 0.6 {
		t.Errorf("flowtime %d, last map end %d, reduce throughput %v; want 10 s, 4 s, 0.6",
			j.FlowtimeUs, j.LastMapEndUs, res.Summary.ReduceMachineThroughput)
	}
	checkDrained(t, rec.EAS)

	fr := simulate(t, easHardware(t), easTrace(jobs), "fifo", replay.Options{Seed: 1, CheckInvariants: true})
	if fr.Jobs[0].FirstReduceLaunchUs >= 4*sec {
		t.Errorf("FIFO launched its first reduce at %d: the case does not show pipelining", fr.Jobs[0].FirstReduceLaunchUs)
	}
}

// easCells returns the cells of samples/experiments/eas.toml for the given
// policies, replications and seeds.
func easCells(t *testing.T, policies []string, repls []string, seeds []uint64) []replay.Cell {
	t.Helper()
	e := loadExperiment(t, "../samples/experiments/eas.toml")
	e.Policies = policies
	var out []replay.Cell
	for _, c := range experimentCells(t, e) {
		if slices.Contains(repls, c.Labels[3][1]) && slices.Contains(seeds, c.Seed) {
			out = append(out, c)
		}
	}
	return out
}

// TestEASDeterministic replays Table 1 cells twice with invariants checked and
// requires identical results; the EAS runs must end with nothing queued.
func TestEASDeterministic(t *testing.T) {
	for _, c := range easCells(t, []string{"eas", "fifo-be", "hfs-s"}, []string{"1", "4"}, []uint64{3}) {
		t.Run(c.Dir, func(t *testing.T) {
			a, b := runCell(t, c), runCell(t, c)
			a.Wall, b.Wall = 0, 0
			if !reflect.DeepEqual(a, b) {
				t.Errorf("two runs differ: %+v\n%+v", a.Summary, b.Summary)
			}
		})
	}
}

// TestEASMixedNodes runs EAS on hardware whose nodes have both map and reduce
// slots (the defaults: 80 nodes in 4 racks), where every node is both a map and a
// reduce machine; every map must still run node-local.
func TestEASMixedNodes(t *testing.T) {
	w, _ := newWorkload(t, replay.DefaultHardware(), generate(t, "eas-table1", nil, 5), 5)
	p := newPolicy(t, "eas")
	res := runPolicy(t, w, p, replay.Options{Seed: 5, CheckInvariants: true})
	if res.Summary.MapLocality != 1 || res.Summary.Jobs != 50 {
		t.Errorf("locality %v over %d jobs, want 1 over 50", res.Summary.MapLocality, res.Summary.Jobs)
	}
	checkDrained(t, p.(*EAS))
}

// TestEASAliases checks that the paper's baseline names run the policies they
// alias, under their own names.
func TestEASAliases(t *testing.T) {
	for _, pair := range [][2]string{{"fifo-be", "fifo"}, {"fifo-s", "fifo-strict"}, {"hfs-be", "fair"}, {"hfs-s", "fair-strict"}} {
		alias, target := pair[0], pair[1]
		t.Run(alias, func(t *testing.T) {
			cs := easCells(t, []string{alias, target}, []string{"2"}, []uint64{4})
			a, b := runCell(t, cs[0]), runCell(t, cs[1])
			if a.Summary.Policy != alias {
				t.Errorf("results name the policy %q, want %q", a.Summary.Policy, alias)
			}
			a.Summary.Policy, b.Summary.Policy = "", ""
			if !reflect.DeepEqual(a.Summary, b.Summary) {
				t.Errorf("%s and %s differ: %+v\n%+v", alias, target, a.Summary, b.Summary)
			}
		})
	}
}

// TestEASSkewedData runs EAS where only a third of the map machines hold data
// (data_node_fraction): selections must come only from the heartbeats of data
// nodes (or the threshold), every map must run on one, node-local.
func TestEASSkewedData(t *testing.T) {
	hw := parseHardware(t, "racks = 1\nnodes_per_rack = 20\nmap_nodes = 15\nreduce_nodes = 5\nreduce_slots = 2\ndata_node_fraction = 0.34\nslow_start = 1.0\n")
	w, topo := newWorkload(t, hw, generate(t, "eas-table1", nil, 2), 2)
	p := newPolicy(t, "eas")
	res := runPolicy(t, w, p, replay.Options{Seed: 2, CheckInvariants: true, RecordTasks: true})
	if len(topo.DataNodes) != 5 {
		t.Fatalf("%d data nodes, want 5", len(topo.DataNodes))
	}
	for _, h := range p.(*EAS).history {
		if h.node >= 0 && !slices.Contains(topo.DataNodes, h.node) {
			t.Errorf("selection %+v on the heartbeat of node %d, which holds no data", h, h.node)
		}
	}
	for _, tk := range res.Tasks {
		if tk.Type == "MAP" && (!slices.Contains(topo.DataNodes, tk.Node) || tk.Locality != trace.NodeLocal) {
			t.Errorf("map %s/%d ran on node %d (%s)", tk.JobID, tk.Index, tk.Node, tk.Locality)
		}
	}
	checkDrained(t, p.(*EAS))
}

// TestLoadBalanceSumPull checks §5.4's load for a pull scheduler by hand. FIFO-S on
// easHardware, A (t=0) with maps of 4, 1, 1, 1 s (MB), every block on both map
// machines. t=0: node 0 runs map 0 (0-4), node 1 map 1 (0-1); the 2nd launch
// samples: running 4 and 1 MB, pending maps 2 and 3 (2 MB) shared by their two
// replica holders, 1 MB each: loads 5 and 2, standard deviation 1.5. Node 1 runs
// map 2 (1-2) and map 3 (2-3); map 3's launch is the 4th: map 0 is half done (2
// MB left), map 3 has 1 MB: standard deviation 0.5. Σ_t LB^t = 2. Map machines'
// throughput: 4 MB / 4 s + 3 MB / 3 s = 2 MB/s.
func TestLoadBalanceSumPull(t *testing.T) {
	res := simulate(t, easHardware(t), easTrace([]easJob{{0, []int64{4, 1, 1, 1}, nil}}), "fifo-s", replay.Options{Seed: 1, CheckInvariants: true})
	if s := res.Summary; s.LoadBalanceSum != 2 || s.MapMachineThroughput != 2 || s.Jobs != 1 || s.Maps != 4 {
		t.Errorf("load balance sum %v, map throughput %v; want 2 and 2", s.LoadBalanceSum, s.MapMachineThroughput)
	}
}

// BenchmarkEASTable1 replays the Table 1 workload through EAS at replication 3.
func BenchmarkEASTable1(b *testing.B) {
	e := loadExperiment(b, "../samples/experiments/eas.toml")
	e.Policies = []string{"eas"}
	c := experimentCells(b, e)[2] // replication 3, seed 1
	tr := generate(b, c.Trace.Generator, trace.GenParams(c.Trace.Params), c.Seed)
	hw := c.Hardware
	topo := replay.NewTopology(&hw, c.Seed)
	b.ResetTimer()
	for b.Loop() {
		w, err := replay.NewWorkload(tr, &hw, topo, c.Seed, replay.WorkloadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		runPolicy(b, w, newPolicy(b, "eas"), replay.Options{Seed: c.Seed})
	}
}
