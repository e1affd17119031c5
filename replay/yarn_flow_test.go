package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// flowJob is a job of one map reading input bytes and writing out bytes of
// output, and of reduces reduces with no shuffle, each writing redOut bytes.
func flowJob(id string, input, out int64, reduces int, redOut int64) *trace.Trace {
	tr := &trace.Trace{}
	j := trace.NewJob(id)
	j.SubmitMs, j.Status = 0, trace.StatusSucceeded
	j.InputBytes, j.ShuffleBytes, j.OutputBytes = input, 0, int64(reduces)*redOut
	m := trace.NewTask(id, id+"_m_0", trace.Map, 0)
	m.InputBytes, m.OutputBytes = input, out
	tr.Tasks = append(tr.Tasks, m)
	for i := range reduces {
		r := trace.NewTask(id, fmt.Sprintf("%s_r_%d", id, i), trace.Reduce, int32(i))
		r.ShuffleBytes, r.OutputBytes = 0, redOut
		tr.Tasks = append(tr.Tasks, r)
	}
	tr.Jobs = append(tr.Jobs, j)
	return tr
}

// runYARNFlow is runYARN reporting the transfers the flow network withdrew
// and failing when a run leaves a flow or an event.
func runYARNFlow(t *testing.T, tr *trace.Trace, hw replay.Hardware, p replay.Policy) (*replay.Result, int64) {
	t.Helper()
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cancels int64
	opt := replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true}
	replay.FlowEnd(&opt, func(c int64, left bool, queued int) {
		if left || queued != 0 {
			t.Errorf("the run left flows (%v) or %d events", left, queued)
		}
		cancels = c
	})
	res, err := replay.Run(w, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, cancels
}

// TestYARNFlowDiskShared: two reduce containers on one NodeManager write
// their output to its one disk at once, and share it. yarnNode with
// am_heartbeat = 0 (containers and asks at once): the AM's container at 0,
// ready at 2 s; the heartbeat at 3 s launches the map (1 MB read at 1 MB/s,
// 3–4 s); the one at 6 s both reduces (1 GB each in the 2 GB left), each
// writing 2 MB through a pipeline of one replica, its own disk. Under fixed
// each write takes 2 s alone (6–8 s); under flow the two share the 1 MB/s
// disk, 0.5 MB/s each, and both end at 10 s.
func TestYARNFlowDiskShared(t *testing.T) {
	tr := flowJob("job_w", 1e6, 0, 2, 2e6)
	for _, c := range []struct {
		network string
		want    int64
	}{{"fixed", 8e6}, {"flow", 10e6}} {
		hw := yarnNode(t, "am_heartbeat = \"0s\"\nshuffle_fetch_latency = \"0s\"\nflow_update = \"0s\"\nnetwork = \""+c.network+"\"")
		res, _ := runYARNFlow(t, tr, hw, &containerFIFO{})
		if len(res.Jobs) != 1 || res.Jobs[0].FlowtimeUs != c.want {
			t.Fatalf("%s: jobs %+v, want one of flowtime %d µs", c.network, res.Jobs, c.want)
		}
		for _, tk := range res.Tasks {
			if tk.Type == "REDUCE" && (tk.LaunchUs != 6e6 || tk.FinishUs != c.want) {
				t.Errorf("%s: reduce %d ran %d–%d µs, want 6 s–%d µs", c.network, tk.Index, tk.LaunchUs, tk.FinishUs, c.want)
			}
		}
	}
}

// preemptAt is containerFIFO with a 1 s timer (a scheduler's preemption
// monitor) that preempts task task of kind kind of the first active job at
// time at.
type preemptAt struct {
	containerFIFO
	at        int64
	kind      replay.ContainerKind
	task      int32
	preempted int
}

func (*preemptAt) TickInterval() int64 { return 1e6 }

func (p *preemptAt) Tick(c replay.Cluster) {
	y := c.(replay.YARNCluster)
	if c.Now() == p.at && y.Preempt(c.Active()[0], p.kind, p.task) {
		p.preempted++
	}
}

// TestYARNFlowPreemptWithdraws: a preempted map container's read is
// withdrawn. yarnNode under flow with am_heartbeat = 0: the job's one map
// (8 MB at the 1 MB/s disk) starts reading at the heartbeat at 3 s; the
// policy's timer preempts it at 6 s, 3 MB read. Its read is
// withdrawn there (one transfer withdrawn), the map is pending again and the
// heartbeat at 9 s relaunches it: it reads its 8 MB alone, 9–17 s, the job's
// flowtime. A read left running would share the disk with the new one until
// 11 s, and end on a map that no longer runs (the invariant checker's stale
// transfer).
func TestYARNFlowPreemptWithdraws(t *testing.T) {
	tr := flowJob("job_p", 8e6, 0, 0, 0)
	hw := yarnNode(t, "am_heartbeat = \"0s\"\nshuffle_fetch_latency = \"0s\"\nflow_update = \"0s\"\nnetwork = \"flow\"")
	p := &preemptAt{at: 6e6, kind: replay.MapContainer}
	res, cancels := runYARNFlow(t, tr, hw, p)
	if p.preempted != 1 || cancels != 1 {
		t.Errorf("%d preemptions, %d transfers withdrawn: want 1 and 1", p.preempted, cancels)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].FlowtimeUs != 17e6 {
		t.Errorf("jobs %+v: want one of flowtime 17 s", res.Jobs)
	}
}

// TestYARNFlowPreemptReduce: a preempted reduce container's output write is
// withdrawn, and the reduce, launched again, writes its whole output. As
// TestYARNFlowDiskShared with one reduce of 4 MB: it starts writing at 6 s
// (alone at 1 MB/s, it would end at 10 s); preempted by the
// policy's timer at 9 s, 3 MB written, its write is withdrawn and the heartbeat at 12 s
// launches it again: 12–16 s.
func TestYARNFlowPreemptReduce(t *testing.T) {
	tr := flowJob("job_r", 1e6, 0, 1, 4e6)
	hw := yarnNode(t, "am_heartbeat = \"0s\"\nshuffle_fetch_latency = \"0s\"\nflow_update = \"0s\"\nnetwork = \"flow\"")
	p := &preemptAt{at: 9e6, kind: replay.ReduceContainer}
	res, cancels := runYARNFlow(t, tr, hw, p)
	if p.preempted != 1 || cancels != 1 || len(res.Jobs) != 1 || res.Jobs[0].FlowtimeUs != 16e6 {
		t.Errorf("%d transfers withdrawn, jobs %+v: want 1 and one job of flowtime 16 s", cancels, res.Jobs)
	}
}

// TestYARNFlowAMHeartbeat: under flow a container's stages start when its AM
// takes it (amWaitUs), as under fixed: TestYARNAMHeartbeat's job A alone with
// am_heartbeat = 1 s, its map 3.5–4.5 s and its reduce 9.5–11.5 s (a 2 MB
// write at the 1 MB/s disk, alone): flowtime 11.5 s under both models.
func TestYARNFlowAMHeartbeat(t *testing.T) {
	j, ts := oneNodeJob("job_a", 0)
	tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: ts}
	for _, network := range []string{"fixed", "flow"} {
		hw := yarnNode(t, "am_heartbeat = \"1s\"\nshuffle_fetch_latency = \"0s\"\nflow_update = \"0s\"\nnetwork = \""+network+"\"")
		hw.AMStartup = 2.5e6
		res, _ := runYARNFlow(t, tr, hw, &containerFIFO{})
		if len(res.Jobs) != 1 || res.Jobs[0].FlowtimeUs != 11.5e6 {
			t.Errorf("%s: jobs %+v, want one of flowtime 11.5 s", network, res.Jobs)
		}
		for _, tk := range res.Tasks {
			if want := map[string]int64{"MAP": 4.5e6, "REDUCE": 11.5e6}[tk.Type]; tk.FinishUs != want {
				t.Errorf("%s: %s ends at %d µs, want %d", network, tk.Type, tk.FinishUs, want)
			}
		}
	}
}

// TestYARNFlowInvariantsPreemption replays random workloads under network =
// "flow" through the YARN policies that preempt (the Capacity Scheduler's
// monitor, the Fair Scheduler's preemption; queues a and b) with the
// invariant checker on (no container's stale
// transfer or stage event, no node over-used, every task run once): every
// job finishes, no flow or event is left, the same seed gives the same
// results, and some containers are killed with their transfers withdrawn.
func TestYARNFlowInvariantsPreemption(t *testing.T) {
	shapes := []string{
		"cluster = \"yarn\"\nnetwork = \"flow\"\nnode_memory_mb = 4096\nnode_vcores = 4\nslow_start = 0\nreduce_rampup_limit = 1\nmap_compute_mb_per_s = 30",
		"cluster = \"yarn\"\nnetwork = \"flow\"\nnode_memory_mb = 6144\nslow_start = 0\nreduce_rampup_limit = 1\nflow_merges = true\nflow_shuffle = \"batch\"\nevent_poll = true\nlifecycle = true\nattempt_failure_rate = 0.2",
	}
	// Queues a and b, each guaranteed half the cluster, preempted for
	// (TestYARNCapacityPreemptsOnTimer's and policy's preemption tests').
	dir := t.TempDir()
	capConf, fairConf := filepath.Join(dir, "cap.toml"), filepath.Join(dir, "fair.xml")
	for _, f := range []struct{ path, body string }{{capConf, `scheduler = "capacity"
maximum-am-resource-percent = 1.0
[preemption]
enable = true
monitoring_interval = 1000
max_wait_before_kill = 2000
total_preemption_per_round = 1.0
natural_termination_factor = 1.0
[root.a]
capacity = 50
maximum-capacity = 100
user-limit-factor = 2
[root.b]
capacity = 50
maximum-capacity = 100
user-limit-factor = 2
`}, {fairConf, `<allocations>
  <queue name="a"><minResources>8192 mb, 8 vcores</minResources><minSharePreemptionTimeout>2</minSharePreemptionTimeout></queue>
  <queue name="b"><minResources>8192 mb, 8 vcores</minResources><minSharePreemptionTimeout>2</minSharePreemptionTimeout></queue>
</allocations>`}} {
		if err := os.WriteFile(f.path, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"yarn-fifo", "yarn-capacity:conf=" + capConf,
		"yarn-fair:conf=" + fairConf + ",preemption=true,preemption-interval=1s,wait-before-kill=1s"}
	var killed, cancels int64
	for si, shape := range shapes {
		hw := smallHardware(t, shape)
		tr := randomTrace(40, uint64(si)+50)
		for i := range tr.Jobs {
			tr.Jobs[i].Queue = []string{"a", "b"}[i%2]
		}
		for _, name := range names {
			run := func() *replay.Result {
				w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 3), 3, replay.WorkloadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				opt := replay.Options{Seed: 3, CheckInvariants: true, RecordTasks: true}
				replay.FlowEnd(&opt, func(c int64, left bool, queued int) {
					if left || queued != 0 {
						t.Errorf("shape %d, %s: the run left flows (%v) or %d events", si, name, left, queued)
					}
					cancels += c
				})
				res, err := replay.Run(w, mustPolicy(t, name), opt)
				if err != nil {
					t.Fatalf("shape %d, %s: %v", si, name, err)
				}
				if len(res.Jobs) != len(tr.Jobs) {
					t.Errorf("shape %d, %s: %d jobs finished of %d", si, name, len(res.Jobs), len(tr.Jobs))
				}
				killed += res.Summary.Preemptions + res.Summary.ReducesPreemptedByAM
				res.Wall = 0
				return res
			}
			if a, b := run(), run(); !reflect.DeepEqual(a, b) {
				t.Errorf("shape %d, %s: two runs with the same seed differ", si, name)
			}
		}
	}
	t.Logf("%d containers killed, %d transfers withdrawn (each run twice)", killed, cancels)
	if killed == 0 || cancels == 0 {
		t.Errorf("%d containers killed, %d transfers withdrawn: the shapes do not exercise killed containers' flows", killed, cancels)
	}
}

// amKillFIFO serves reduces before maps (yarn-fifo's order, as the
// MRAppMaster's priorities give them) and, at time at, takes job_a's map 1's
// container for job_b's map: it preempts the one and launches the other on
// node 0.
type amKillFIFO struct {
	containerFIFO
	at     int64
	stolen bool
}

func (p *amKillFIFO) Heartbeat(c replay.Cluster, n int32) {
	y := c.(replay.YARNCluster)
	for _, j := range c.Active() {
		if y.AMPending(j) {
			if y.Container(j, replay.AMContainer).Fits(y.NodeFree(n)) {
				y.LaunchAM(j, n)
			}
			continue
		}
		for j.PendingReduces() > 0 && y.Container(j, replay.ReduceContainer).Fits(y.NodeFree(n)) {
			if c.LaunchReduce(j, n) < 0 {
				break
			}
		}
		for j.PendingMaps() > 0 && y.Container(j, replay.MapContainer).Fits(y.NodeFree(n)) {
			y.LaunchMap(j, j.AnyMap(), n)
		}
	}
}

func (*amKillFIFO) TickInterval() int64 { return 1e6 }

func (p *amKillFIFO) Tick(c replay.Cluster) {
	y := c.(replay.YARNCluster)
	act := c.Active()
	if c.Now() != p.at || len(act) != 2 || act[1].PendingMaps() == 0 {
		return
	}
	if !y.Preempt(act[0], replay.MapContainer, 1) {
		return
	}
	y.LaunchMap(act[1], act[1].AnyMap(), 0)
	p.stolen = true
}

// TestYARNFlowAMKillsReduce: a reduce that its MRAppMaster kills for its
// maps (amPreemptReduces) withdraws its fetch under flow. One NodeManager of
// 6 GB, 1 GB AMs and reduces, 2 GB maps, slow-start 0. Job A (two maps: a
// 1 MB read with a 10 MB output, a 30 MB read; one reduce) takes the whole
// node at 3 s: its AM, its reduce (asked for at once: both maps fit beside
// it) and both maps. Job B (one 1 MB map) gets its AM when A's first map's
// container is free, and at 40 s the policy takes A's second map's
// container, its read under way, for B's map. A's map is pending, nothing
// is free and its reduce, still fetching the first map's 10 MB output, holds
// what the map needs: A's AM kills the reduce at its next allocate round.
// Both withdrawn transfers are counted, no flow or event is left, both jobs
// finish, and the invariant checker finds no stale transfer.
func TestYARNFlowAMKillsReduce(t *testing.T) {
	tr := &trace.Trace{}
	a := trace.NewJob("job_a")
	a.Status, a.InputBytes, a.ShuffleBytes = trace.StatusSucceeded, 31e6, 10e6
	tr.Jobs = append(tr.Jobs, a)
	for i, io := range [][2]int64{{1e6, 10e6}, {30e6, 0}} {
		m := trace.NewTask("job_a", fmt.Sprintf("job_a_m_%d", i), trace.Map, int32(i))
		m.InputBytes, m.OutputBytes = io[0], io[1]
		tr.Tasks = append(tr.Tasks, m)
	}
	r := trace.NewTask("job_a", "job_a_r_0", trace.Reduce, 0)
	r.ShuffleBytes = 10e6
	tr.Tasks = append(tr.Tasks, r)
	b := trace.NewJob("job_b")
	b.SubmitMs, b.Status, b.InputBytes = 1000, trace.StatusSucceeded, 1e6
	tr.Jobs = append(tr.Jobs, b)
	m := trace.NewTask("job_b", "job_b_m_0", trace.Map, 0)
	m.InputBytes = 1e6
	tr.Tasks = append(tr.Tasks, m)
	hw := yarnNode(t, "am_heartbeat = \"0s\"\nshuffle_fetch_latency = \"0s\"\nflow_update = \"0s\"\nnetwork = \"flow\"\nslow_start = 0")
	hw.AMMemoryMB = 1024
	p := &amKillFIFO{at: 40e6}
	res, cancels := runYARNFlow(t, tr, hw, p)
	for _, j := range res.Jobs {
		t.Logf("%s: flowtime %d µs", j.JobID, j.FlowtimeUs)
	}
	if !p.stolen || res.Summary.ReducesPreemptedByAM != 1 || cancels != 2 || len(res.Jobs) != 2 {
		t.Errorf("container taken %v, %d reduces killed by the AM, %d transfers withdrawn, %d jobs: want true, 1, 2 (the map's read, the reduce's fetch), 2",
			p.stolen, res.Summary.ReducesPreemptedByAM, cancels, len(res.Jobs))
	}
}
