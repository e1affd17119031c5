package replay_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// containerFIFO is the smallest YARN policy: on a node's heartbeat it serves
// the active jobs in submit order, each with every container that fits: its
// AM while pending, else its maps, then its reduces (YARN's FifoScheduler
// without locality). preempt, when set, is called after that.
type containerFIFO struct {
	replay.Base
	preempt func(y replay.YARNCluster)
}

func (*containerFIFO) Name() string         { return "test-container-fifo" }
func (*containerFIFO) SchedulesContainers() {}

func (p *containerFIFO) Heartbeat(c replay.Cluster, n int32) {
	y := c.(replay.YARNCluster)
	if p.preempt != nil {
		defer p.preempt(y)
	}
	for _, j := range c.Active() {
		if y.AMPending(j) {
			if y.Container(j, replay.AMContainer).Fits(y.NodeFree(n)) {
				y.LaunchAM(j, n)
			}
			continue
		}
		for j.PendingMaps() > 0 && y.Container(j, replay.MapContainer).Fits(y.NodeFree(n)) {
			y.LaunchMap(j, j.AnyMap(), n)
		}
		for j.PendingReduces() > 0 && y.Container(j, replay.ReduceContainer).Fits(y.NodeFree(n)) {
			if c.LaunchReduce(j, n) < 0 {
				break
			}
		}
	}
}

// yarnNode is one NodeManager of 6 GB and 4 vcores, containers of 1 GB
// steps: AMs and maps of 2 GB, reduces of 1 GB, the AM started and the job
// initialised 2 s after its container is allocated; heartbeats at 0, 3, 6 …
// s; a 1 MB/s disk and no task start-up, so oneNodeJob's map takes 1 s and
// its reduce 2 s.
func yarnNode(t *testing.T, extra string) replay.Hardware {
	t.Helper()
	hw, err := replay.ParseHardware([]byte(`
cluster = "yarn"
racks = 1
nodes_per_rack = 1
node_memory_mb = 6144
node_vcores = 4
min_allocation_mb = 1024
am_memory_mb = 2048
map_memory_mb = 2048
reduce_memory_mb = 1024
am_startup = "2s"
replication = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat = "3s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
` + extra))
	if err != nil {
		t.Fatal(err)
	}
	return hw
}

func runYARN(t *testing.T, tr *trace.Trace, hw replay.Hardware, p replay.Policy) *replay.Result {
	t.Helper()
	topo := replay.NewTopology(&hw, 1)
	w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(w, p, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func twoJobs() *trace.Trace {
	tr := &trace.Trace{}
	for _, id := range []string{"job_a", "job_b"} {
		j, ts := oneNodeJob(id, 0)
		tr.Jobs = append(tr.Jobs, j)
		tr.Tasks = append(tr.Tasks, ts...)
	}
	return tr
}

// TestYARNOneNode checks a schedule by hand. Both jobs are submitted at 0;
// the heartbeat at 0 gives both AMs a container (4 of 6 GB). Both AMs are
// ready at 2; the heartbeat at 3 launches A's map (2 GB: the node is full),
// B's map waits. A's map ends at 4; the next heartbeat, 6, launches A's
// reduce (1 GB) but B's map (2 GB) does not fit in the 1 GB left. A's reduce
// runs 6–8 and A finishes at 8, freeing its reduce and its AM (3 GB). The
// heartbeat at 9 launches B's map, 9–10; the one at 12 B's reduce, 12–14.
// Flowtimes 8 s and 14 s; first tasks at 3 s and 9 s.
func TestYARNOneNode(t *testing.T) {
	res := runYARN(t, twoJobs(), yarnNode(t, ""), &containerFIFO{})
	want := map[string][2]int64{"job_a": {8e6, 3e6}, "job_b": {14e6, 9e6}}
	if len(res.Jobs) != 2 {
		t.Fatalf("%d jobs finished, want 2", len(res.Jobs))
	}
	for _, r := range res.Jobs {
		if got := [2]int64{r.FlowtimeUs, r.WaitingUs}; got != want[r.JobID] {
			t.Errorf("%s: flowtime, wait to first task = %v µs, want %v", r.JobID, got, want[r.JobID])
		}
	}
}

// TestYARNPreempt: two NodeManagers of 4 GB, heartbeats at 0, 3, 6 … s,
// node 0 first. At 0 node 0 takes both AMs (4 GB: full). At 3 node 1 takes
// A's map and B's map (2 GB each), and the policy then preempts A's map: its
// 2 GB are free at once and node 1's next heartbeat, 6, launches it again
// (with B's reduce), 6–7 (its block is on node 1). B's map ran from 3
// undisturbed, for 1 s plus 8 ms reading its 1 MB block from node 0 over
// the 125 MB/s NIC.
func TestYARNPreempt(t *testing.T) {
	hw := yarnNode(t, "")
	hw.NodesPerRack, hw.NodeMemoryMB = 2, 4096
	done := false
	p := &containerFIFO{}
	p.preempt = func(y replay.YARNCluster) {
		if done || y.Now() != 3e6 {
			return
		}
		for _, j := range y.Active() {
			if j.ID() == "job_a" && j.RunningMaps() == 1 {
				if !y.Preempt(j, replay.MapContainer, 0) {
					t.Fatal("Preempt of a running map returned false")
				}
				if y.Preempt(j, replay.MapContainer, 0) {
					t.Fatal("Preempt of a map no longer running returned true")
				}
				done = true
			}
		}
	}
	res := runYARN(t, twoJobs(), hw, p)
	if !done {
		t.Fatal("the preemption never happened")
	}
	maps := map[string][2]int64{}
	for _, tr := range res.Tasks {
		if tr.Type == "MAP" {
			maps[tr.JobID] = [2]int64{tr.LaunchUs, tr.FinishUs}
		}
	}
	if got, want := maps["job_a"], [2]int64{6e6, 7e6}; got != want {
		t.Errorf("job_a's map ran %v µs, want %v (relaunched after its preemption)", got, want)
	}
	if got, want := maps["job_b"], [2]int64{3e6, 4.008e6}; got != want {
		t.Errorf("job_b's map ran %v µs, want %v", got, want)
	}
}

// TestYARNPolicyKind: a slot policy on a YARN cluster and a container policy
// on a slot cluster are refused with a message naming what to use.
func TestYARNPolicyKind(t *testing.T) {
	hw := yarnNode(t, "")
	topo := replay.NewTopology(&hw, 1)
	w, err := replay.NewWorkload(twoJobs(), &hw, topo, 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Run(w, mustPolicy(t, "fifo"), replay.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "yarn-fifo") {
		t.Errorf("fifo on a YARN cluster: %v, want an error naming the YARN policies", err)
	}
	slots := oneNodeHardware(t, "")
	topo = replay.NewTopology(&slots, 1)
	w, err = replay.NewWorkload(twoJobs(), &slots, topo, 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Run(w, &containerFIFO{}, replay.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), `cluster = "yarn"`) {
		t.Errorf("a container policy on a slot cluster: %v, want an error naming the cluster key", err)
	}
}

// TestYARNBadModel: impossible containers and unknown kinds are named.
func TestYARNBadModel(t *testing.T) {
	for _, c := range []struct{ toml, want string }{
		{`cluster = "yarns"`, `cluster "yarns": want slots or yarn`},
		{"cluster = \"yarn\"\nam_memory_mb = 9000", "the default am container: 9216 MB, 1 vcores exceeds the maximum allocation (8192 MB, 4 vcores)"},
		{"cluster = \"yarn\"\nnode_memory_mb = 2048\nmap_memory_mb = 3000", "the default map container: 3072 MB, 1 vcores is larger than any node (2048 MB, 8 vcores)"},
		{"node_vcores = 0", "node_vcores = 0: want 1..1073741824"},
		{"min_allocation_mb = 9000", "min_allocation_mb/vcores (9000, 1) must not exceed max_allocation_mb/vcores (8192, 4)"},
		{"cluster = \"yarn\"\nspeculation = \"late\"", `cluster = "yarn" does not support speculation "late" yet`},
	} {
		_, err := replay.ParseHardware([]byte(c.toml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.toml, err, c.want)
		}
	}
	// A job whose conf asks for a map container larger than the maximum
	// allocation is an error of the workload (bad input: exit 2), naming it.
	tr := twoJobs()
	tr.Jobs[1].MapMemoryMB = 10000
	hw := yarnNode(t, "")
	topo := replay.NewTopology(&hw, 1)
	_, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
	if want := "job job_b: its map container: 10240 MB, 1 vcores exceeds the maximum allocation (8192 MB, 4 vcores)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a job with a 10,000 MB map: %v, want %q", err, want)
	}
}

// TestYARNEveryHistory replays every real history on a YARN cluster derived
// from it (and on the default YARN model) through a container policy, with
// the invariants checked (no node's memory or vcores over-used, every task
// run exactly once): every job finishes.
func TestYARNEveryHistory(t *testing.T) {
	for _, in := range historyInputs(t) {
		tr, _, err := trace.ReadTree(context.Background(), in, trace.TreeOptions{})
		if err != nil || len(tr.Jobs) == 0 {
			continue
		}
		t.Run(strings.TrimPrefix(in, "../"), func(t *testing.T) {
			base := replay.DefaultHardware()
			base.Cluster = replay.ClusterYARN
			derived, ok, err := replay.TraceHardware(tr, base)
			if err != nil || !ok {
				t.Fatalf("no cluster derived: %v %v", ok, err)
			}
			for _, hw := range []replay.Hardware{derived, base} {
				w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 3), 3, replay.WorkloadOptions{IncludeIncomplete: true})
				if err != nil {
					t.Fatal(err)
				}
				res, err := replay.Run(w, &containerFIFO{}, replay.Options{Seed: 3, CheckInvariants: true, Timeline: true,
					Workload: replay.WorkloadOptions{IncludeIncomplete: true}})
				if err != nil {
					t.Fatalf("%s: %v", hw.Name, err)
				}
				if len(res.Jobs) != w.Len() {
					t.Errorf("%s: %d of %d jobs", hw.Name, len(res.Jobs), w.Len())
				}
			}
		})
	}
}

// TestYARNHeartbeat: making a model a YARN cluster brings the NodeManager
// heartbeat of 1 s, unless the same text gives one.
func TestYARNHeartbeat(t *testing.T) {
	for _, c := range []struct {
		toml string
		set  map[string]any
		want replay.Duration
	}{
		{toml: `cluster = "yarn"`, want: 1e6},
		{toml: "cluster = \"yarn\"\nheartbeat = \"2s\"", want: 2e6},
		{toml: "", want: 3e6},
		{toml: "", set: map[string]any{"cluster": "yarn"}, want: 1e6},
		{toml: `heartbeat = "5s"`, set: map[string]any{"cluster": "yarn"}, want: 5e6},
	} {
		hw, err := replay.ParseHardware([]byte(c.toml))
		if err == nil {
			hw, err = hw.WithSettings(c.set)
		}
		if err != nil || hw.Heartbeat != c.want {
			t.Errorf("%q + %v: heartbeat %v (%v), want %v", c.toml, c.set, hw.Heartbeat, err, c.want)
		}
	}
}

// TestYARNQueueSamples: with the timeline on, a YARN run writes each queue's
// memory per instant, from the first instant after a job's tasks were
// requested: in TestYARNOneNode's schedule (job B in queue b), at 5 s
// (timeline_sample = 5s) each job holds its AM's 2 GB (A's map ran 3–4, its
// reduce starts at 6); at 10 s job A is done and B holds its AM and its map
// (9–10, the sample at 10 comes first).
func TestYARNQueueSamples(t *testing.T) {
	hw := yarnNode(t, `timeline_sample = "5s"`)
	tr := twoJobs()
	tr.Jobs[1].Queue = "b"
	topo := replay.NewTopology(&hw, 1)
	w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(w, &containerFIFO{}, replay.Options{Seed: 1, CheckInvariants: true, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]map[string]int64{}
	for _, q := range res.Queues {
		if got[q.TimeUs] == nil {
			got[q.TimeUs] = map[string]int64{}
		}
		got[q.TimeUs][q.Queue] = q.MemoryMB
		if q.Guaranteed != -1 || q.Policy != "test-container-fifo" {
			t.Errorf("row %+v: want guaranteed -1 and the policy's name", q)
		}
	}
	want := map[int64]map[string]int64{
		5e6:  {"default": 2048, "b": 2048},
		10e6: {"b": 4096},
	}
	if len(got) != 2 || len(got[10e6]) != 1 {
		t.Errorf("samples %v: want instants 5 and 10 s (B ends at 14), A gone at 10", got)
	}
	for at, m := range want {
		for q, mb := range m {
			if got[at][q] != mb {
				t.Errorf("at %d µs queue %s holds %d MB, want %d (all: %v)", at, q, got[at][q], mb, got)
			}
		}
	}
}

// TestYARNInvariantsEveryPolicy replays random workloads through every YARN
// policy on several YARN cluster shapes with the invariant checker on
// (no node's memory or vcores over-used, every task run exactly once, no
// reduce phase before its maps end, flowtime at least the ideal).
func TestYARNInvariantsEveryPolicy(t *testing.T) {
	t.Parallel() // CPU-bound; its own traces and hardware, no process-wide setting changed
	shapes := []string{
		"cluster = \"yarn\"",
		"cluster = \"yarn\"\nnode_memory_mb = 4096\nnode_vcores = 2\nam_memory_mb = 2048\nslow_start = 1.0",
		"cluster = \"yarn\"\nmap_memory_mb = 3000\nreduce_memory_mb = 5000\nmax_allocation_mb = 6144\nout_of_band_heartbeat = true",
		"cluster = \"yarn\"\nlifecycle = true\nreport_at_heartbeat = true\nattempt_failure_rate = 0.05\nstraggler_fraction = 0.2",
		"cluster = \"yarn\"\nnetwork = \"bar\"\nshuffle = \"topology\"\nduration_cv = 1.5\nheartbeat_jitter = false",
		"cluster = \"yarn\"\nnetwork = \"flow\"",
		"cluster = \"yarn\"\nnetwork = \"flow\"\nnode_memory_mb = 4096\nnode_vcores = 2\nam_memory_mb = 2048\ncore_oversubscription = 4\nrack_uplink_mb_per_s = 200\nslow_start = 0\nparallel_copies = 2\nshuffle_fetch_latency = \"20ms\"",
		"cluster = \"yarn\"\nnetwork = \"flow\"\nlifecycle = true\nreport_at_heartbeat = true\nattempt_failure_rate = 0.2\nstraggler_fraction = 0.2\ndisk_mb_per_s = 60\nmap_compute_mb_per_s = 20\nreduce_compute_mb_per_s = 10\nsort_mb_per_s = 50\ntask_startup = \"2s\"",
		"cluster = \"yarn\"\nnetwork = \"flow\"\nflow_merges = true\nflow_shuffle = \"batch\"\nevent_poll = true\nlifecycle = true\nattempt_failure_rate = 0.6\ndata_node_fraction = 0.5\nplacement = \"random\"",
	}
	if names := policy.NamesFor(replay.ClusterYARN); len(names) != 3 {
		t.Fatalf("YARN policies %v: want yarn-fifo, yarn-capacity and yarn-fair", names)
	}
	// randomTrace's jobs are in queues default and prod: the sample queue
	// files place both (Capacity rejects a job of an unknown queue; the sample
	// fair-scheduler.xml, FairScheduler.md's example, rejects them as Hadoop
	// would: its default rule names a parent queue).
	names := []string{"yarn-fifo", "yarn-fair",
		"yarn-capacity:conf=../samples/yarn/capacity-scheduler.xml", "yarn-capacity:conf=../samples/yarn/capacity-scheduler.toml",
		"yarn-fair:conf=../samples/yarn/fair-scheduler.toml"}
	// The fast lane runs each shape under two of the policies in turn
	// (fastCell: every policy under three or four shapes); the full suite
	// every policy under every shape.
	for si, shape := range shapes {
		hw := smallHardware(t, shape)
		tr := randomTrace(40, uint64(si))
		for pi, name := range names {
			if !fastCell(si, pi, len(shapes), len(names), 2) {
				continue
			}
			t.Run(fmt.Sprintf("shape%d/%s", si, strings.ReplaceAll(name, "/", "_")), func(t *testing.T) {
				res := runPolicy(t, tr, hw, name, uint64(si)+1)
				if len(res.Jobs) != len(tr.Jobs) {
					t.Fatalf("%d jobs finished of %d", len(res.Jobs), len(tr.Jobs))
				}
				for _, j := range res.Jobs {
					if j.Status != results.StatusFailed && j.FlowtimeUs < j.IdealUs {
						t.Errorf("job %s flowtime %d < ideal %d", j.JobID, j.FlowtimeUs, j.IdealUs)
					}
				}
				if len(res.Queues) == 0 {
					t.Error("no queue samples")
				}
			})
		}
	}
}

// tickingFIFO is containerFIFO with a 4 s timer that records its ticks.
type tickingFIFO struct {
	containerFIFO
	ticks []int64
}

func (*tickingFIFO) TickInterval() int64 { return 4e6 }

func (p *tickingFIFO) Tick(c replay.Cluster) { p.ticks = append(p.ticks, c.Now()) }

// TestYARNTicker: a policy's timer fires at multiples of its interval while
// a job is active, and not after: TestYARNOneNode's jobs run 0–8 and 0–14 s,
// so ticks at 4, 8 and 12 s.
func TestYARNTicker(t *testing.T) {
	p := &tickingFIFO{}
	runYARN(t, twoJobs(), yarnNode(t, ""), p)
	if want := []int64{4e6, 8e6, 12e6}; !slices.Equal(p.ticks, want) {
		t.Errorf("ticks at %v µs, want %v", p.ticks, want)
	}
}

// TestYARNCapacityPreemptsOnTimer: job A (queue a) fills the one NodeManager
// with its AM and seven 100-s maps; job B (queue b, guaranteed half the
// cluster) arrives at 10 s. No container ends before 100 s, so no node
// heartbeats with room: only the scheduling monitor's timer (every second)
// can see B's queue starved, mark A's newest container and kill it 2 s
// later, after which B's AM and maps get containers, each by preempting
// another of A's. Without preemption B waits for A's first maps to end.
func TestYARNCapacityPreemptsOnTimer(t *testing.T) {
	dir := t.TempDir()
	conf := func(enable bool) string {
		p := filepath.Join(dir, fmt.Sprintf("cap-%v.toml", enable))
		body := fmt.Sprintf(`scheduler = "capacity"
maximum-am-resource-percent = 1.0
[preemption]
enable = %v
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
`, enable)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hw, err := replay.ParseHardware([]byte(`
cluster = "yarn"
racks = 1
nodes_per_rack = 1
node_memory_mb = 8192
node_vcores = 8
am_memory_mb = 1024
am_startup = "1s"
replication = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
`))
	if err != nil {
		t.Fatal(err)
	}
	tr := &trace.Trace{}
	for k, spec := range []struct {
		id, queue string
		submit    int64
		maps      int
		input     int64
	}{{"job_a", "a", 0, 20, 100e6}, {"job_b", "b", 10000, 2, 1e6}} {
		j := trace.NewJob(spec.id)
		j.SubmitMs, j.Status, j.Queue, j.User = spec.submit, trace.StatusSucceeded, spec.queue, []string{"ua", "ub"}[k]
		j.InputBytes = int64(spec.maps) * spec.input
		for i := range spec.maps {
			m := trace.NewTask(spec.id, fmt.Sprintf("%s_m_%d", spec.id, i), trace.Map, int32(i))
			m.InputBytes, m.OutputBytes = spec.input, 0
			tr.Tasks = append(tr.Tasks, m)
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	flow := map[bool]int64{}
	for _, enable := range []bool{true, false} {
		res := runPolicyOn(t, tr, hw, "yarn-capacity:conf="+conf(enable))
		for _, r := range res.Jobs {
			if r.JobID == "job_b" {
				flow[enable] = r.FlowtimeUs
			}
		}
	}
	t.Logf("job B: flowtime %d µs with preemption, %d µs without", flow[true], flow[false])
	if !(flow[true] < 20e6 && flow[false] > 80e6) {
		t.Errorf("job B's flowtime with preemption %d µs, without %d µs: want under 20 s with it and over 80 s (A's maps end at about 100 s) without", flow[true], flow[false])
	}
}

func runPolicyOn(t *testing.T, tr *trace.Trace, hw replay.Hardware, name string) *replay.Result {
	t.Helper()
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(w, mustPolicy(t, name), replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestYARNAMHeartbeat: the MRAppMaster calls the RM's allocate every
// am_heartbeat: it takes the containers allocated since its last call, and
// the reduces it decides to ask for at one call reach the RM at the next.
// TestYARNOneNode's schedule with am_startup = 2.5 s: job A's AM is ready at
// 2.5 s and calls at 2.5, 3.5, …; its map's container, allocated at the
// NodeManager heartbeat at 3 s, reaches it at 3.5 s and the map runs 3.5–4.5.
// The AMs' allocate rounds (at whole seconds) decide at 5 s to ask for the
// reduce, which the RM sees at 6 s, after the NodeManager's heartbeat at 6 s
// (queued earlier); the heartbeat at 9 s allocates it, it reaches the AM at
// 9.5 s and runs 9.5–11.5: flowtime 11.5 s, against 8 s with am_heartbeat =
// 0 (containers and asks at once: the reduce at 6 s, 6–8).
func TestYARNAMHeartbeat(t *testing.T) {
	for _, c := range []struct {
		am   string
		want int64
	}{{"1s", 11.5e6}, {"0s", 8e6}} {
		hw := yarnNode(t, "am_heartbeat = \""+c.am+"\"")
		hw.AMStartup = 2.5e6
		res := runYARN(t, twoJobs(), hw, &containerFIFO{})
		for _, r := range res.Jobs {
			if r.JobID == "job_a" && r.FlowtimeUs != c.want {
				t.Errorf("am_heartbeat %s: job A's flowtime %d µs, want %d", c.am, r.FlowtimeUs, c.want)
			}
		}
	}
}

// TestYARNReduceRampUp: the MRAppMaster asks for reduces as its maps
// complete (RMContainerAllocator.scheduleReduces). One NodeManager of 8 GB,
// 1 GB containers; a job of 20 ten-second maps and 4 reduces, its AM ready at
// 2 s. The heartbeat at 3 s starts 7 maps (the AM holds the 8th GB); they end
// at 13 s, and at the heartbeat at 15 s, 7 of 20 maps done, the job can use 7
// GB: reduces may take min(7/20, limit) of it, 2.45 GB, so yarn-fifo (reduces
// first) starts 2 reduces, then 5 maps. With reduce_rampup_limit = 0.1 the
// share is 0.7 GB: no reduce yet, 7 maps.
func TestYARNReduceRampUp(t *testing.T) {
	tr := &trace.Trace{}
	j := trace.NewJob("job_r")
	j.SubmitMs, j.Status, j.InputBytes, j.ShuffleBytes, j.OutputBytes = 0, trace.StatusSucceeded, 20*10e6, 0, 4e6
	tr.Jobs = append(tr.Jobs, j)
	for i := range 20 {
		m := trace.NewTask("job_r", fmt.Sprintf("job_r_m_%d", i), trace.Map, int32(i))
		m.InputBytes, m.OutputBytes = 10e6, 0
		tr.Tasks = append(tr.Tasks, m)
	}
	for i := range 4 {
		r := trace.NewTask("job_r", fmt.Sprintf("job_r_r_%d", i), trace.Reduce, int32(i))
		r.ShuffleBytes, r.OutputBytes = 0, 1e6
		tr.Tasks = append(tr.Tasks, r)
	}
	for _, c := range []struct {
		limit         string
		reduces, maps int
	}{{"0.5", 2, 5}, {"0.1", 0, 7}} {
		hw := yarnNode(t, "am_heartbeat = \"0s\"\nreduce_rampup_limit = "+c.limit)
		hw.NodeMemoryMB, hw.NodeVCores, hw.AMMemoryMB, hw.MapMemoryMB = 8192, 8, 1024, 1024
		res := runPolicyOn(t, tr, hw, "yarn-fifo")
		var reduces, maps int
		for _, tk := range res.Tasks {
			if tk.LaunchUs == 15e6 {
				if tk.Type == "REDUCE" {
					reduces++
				} else {
					maps++
				}
			}
		}
		if reduces != c.reduces || maps != c.maps {
			t.Errorf("reduce_rampup_limit %s: %d reduces and %d maps launched at 15 s, want %d and %d", c.limit, reduces, maps, c.reduces, c.maps)
		}
	}
}
