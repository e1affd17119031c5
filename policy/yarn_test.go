package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/yarnconf"
	"github.com/tracereplay/tracereplay/policy/policytest"
	"github.com/tracereplay/tracereplay/replay"
)

// Hand-worked decisions of the YARN policies on policytest's YARN fake:
// nodes with memory and vcores, an AM container per job before its maps.
// Each test works the expected allocation out in its comment.

// errPolicy is a YARN policy's error report.
type errPolicy interface {
	replay.Policy
	Err() error
}

// yarnSetup builds a YARN fake of racks × perRack nodes offering node each,
// with container sizes def, and initialises the policy spec on it.
func yarnSetup(t *testing.T, spec string, racks, perRack int, node replay.Resource, def policytest.Sizes) (errPolicy, *policytest.YARN) {
	t.Helper()
	p, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	hw, err := policytest.Hardware(racks, perRack, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	y := policytest.NewYARN(hw, 1, node, def)
	p.Init(y)
	ep := p.(errPolicy)
	if err := ep.Err(); err != nil {
		t.Fatal(err)
	}
	return ep, y
}

// yarnArrive submits a job now and tells p.
func yarnArrive(t *testing.T, y *policytest.YARN, p replay.Policy, spec policytest.YARNJob) *replay.JobView {
	t.Helper()
	j, err := y.Arrive(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// confFile writes a queue file into a temporary directory.
func confFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// drain sends heartbeats of node n until one launches nothing (neither a
// task nor an AM), at most 50, and returns the task launches.
func drain(y *policytest.YARN, p replay.Policy, n int32) []policytest.Launch {
	var all []policytest.Launch
	for range 50 {
		ams := len(y.AMLaunches())
		l := y.Heartbeat(p, n)
		all = append(all, l...)
		if len(l) == 0 && len(y.AMLaunches()) == ams {
			break
		}
	}
	return all
}

func lines[T interface{ String() string }](xs []T) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.String())
	}
	return out
}

func wantLines(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n\t%s\nwant\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

var (
	gb   = func(g, c int64) replay.Resource { return replay.Resource{MemoryMB: g * 1024, VCores: c} }
	unit = policytest.Sizes{AM: gb(1, 1), Map: gb(1, 1), Reduce: gb(1, 1)}
)

// TestYARNNeedsYARNCluster: on a slot cluster every YARN policy records why
// it cannot run and schedules nothing, without panicking.
func TestYARNNeedsYARNCluster(t *testing.T) {
	for _, name := range []string{"yarn-fifo", "yarn-capacity", "yarn-fair"} {
		t.Run(name, func(t *testing.T) {
			p := newPolicy(t, name)
			fc := fakeCluster(t, p)
			arrive(t, fc, p, policytest.Job{ID: "A", Maps: onNodes(0)})
			wantLaunches(t, "heartbeat", fc.Heartbeat(p, 0))
			want := name + ` needs a YARN cluster (cluster = "yarn" in the hardware model)`
			if err := p.(errPolicy).Err(); err == nil || err.Error() != want {
				t.Errorf("Err() = %v, want %s", err, want)
			}
		})
	}
}

// TestYARNFIFO: one node of 4 GB, 4 vcores; containers of 1 GB. Job A (3
// maps) then B (2 maps). The heartbeat gives A its AM and, since its maps
// are pending once the AM runs, its 3 maps: the node is full and B gets
// nothing. When A's map 0 ends, B's AM takes the room; when map 1 ends, B's
// map 0 (A has nothing pending).
func TestYARNFIFO(t *testing.T) {
	p, y := yarnSetup(t, "yarn-fifo", 1, 1, gb(4, 4), unit)
	a := yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Maps: onNodes(0, 0, 0)}})
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", Maps: onNodes(0, 0)}})
	wantLines(t, "first heartbeat", lines(y.Heartbeat(p, 0)),
		"0s A map 0 on node 0 (NODE_LOCAL)", "0s A map 1 on node 0 (NODE_LOCAL)", "0s A map 2 on node 0 (NODE_LOCAL)")
	y.SetNow(1_000_000)
	y.FinishMap(p, a, 0)
	wantLines(t, "second heartbeat", lines(y.Heartbeat(p, 0)))
	y.FinishMap(p, a, 1)
	wantLines(t, "third heartbeat", lines(y.Heartbeat(p, 0)), "1s B map 0 on node 0 (NODE_LOCAL)")
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0", "1s B am on node 0")
}

// TestYARNFairDRF is the example of the DRF paper (Ghodsi et al., NSDI
// 2011, §4): a cluster of 9 CPUs and 18 GB (one node), user A's tasks
// <1 CPU, 4 GB> and user B's <3 CPUs, 1 GB>; AMs are sized 0 so that only
// the tasks count. Queues are the users' (the default placement's user
// rule), every queue drf. One container per heartbeat, each to the queue of
// smallest dominant share (ties by name: A):
//
//	A AM; A task (A 4/18 = .22); B AM; B task (B 3/9 = .33); A (.44);
//	B (.67); A (.67, 3 CPUs, 12 GB); then 9 CPUs are used: nothing fits.
//
// A gets 3 tasks, B 2, both at dominant share 2/3, in the order A B A B A.
// (The memory-only fair policy ends at 3 and 2 too here, once B no longer
// fits, but in the order A B B A A: B's tasks are light in memory.)
func TestYARNFairDRF(t *testing.T) {
	conf := confFile(t, "drf.toml", "scheduler = \"fair\"\ndefaultQueueSchedulingPolicy = \"drf\"\n")
	p, y := yarnSetup(t, "yarn-fair:conf="+conf, 1, 1, gb(18, 9), policytest.Sizes{})
	var maps [][]int32
	for range 10 {
		maps = append(maps, []int32{0})
	}
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", User: "A", Maps: maps}, Sizes: policytest.Sizes{Map: gb(4, 1)}})
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", User: "B", Maps: maps}, Sizes: policytest.Sizes{Map: gb(1, 3)}})
	var order []string
	for _, l := range drain(y, p, 0) {
		order = append(order, l.JobID)
	}
	if got := strings.Join(order, " "); got != "A B A B A" {
		t.Errorf("tasks launched in the order %s, want A B A B A", got)
	}
	if f := y.NodeFree(0); f != gb(4, 0) {
		t.Errorf("node free %+v, want 4 GB and 0 vcores", f)
	}
}

// capPreemptConf: two queues of 50%, each may grow to the whole cluster;
// preemption every 3 s, a container is killed 5 s after it was first
// marked, the whole excess is taken at once (natural termination 1, no
// per-round cap, nothing ignored over capacity).
const capPreemptConf = `scheduler = "capacity"
[preemption]
enable = true
monitoring_interval = 3000
max_wait_before_kill = 5000
natural_termination_factor = 1.0
total_preemption_per_round = 1.0
max_ignored_over_capacity = 0
[root.a]
capacity = 50
maximum-capacity = 100
user-limit-factor = 2
[root.b]
capacity = 50
maximum-capacity = 100
`

// TestYARNCapacityPreemption: 2 nodes of 4 GB; containers of 1 GB. Job A of
// queue a (7 maps, 0-2 on node 0, 3-6 on node 1) fills the cluster: its AM
// on node 0 at 0 s (an AM is an off-switch assignment, the heartbeat's one),
// maps 0-2 at node 0's next heartbeat, maps 3-6 on node 1 at 0.5 s (queue a at
// 8 GB, twice its guarantee; user-limit-factor 2 lets its user have it).
// Job B arrives in queue b at 1 s: its AM (1 GB) is pending and nothing
// frees.
//
// The monitor runs at 0 s (nothing to do), then at 3 s: ideal shares by
// water-filling: a wants 8 GB (1.0), b its AM, 1 GB (0.125); offered half
// each, b takes 0.125, a 0.5, and a takes the rest, 0.375: ideal a 0.875,
// b 0.125. a is 0.125 (1 GB) over: its newest container, map 6 (launched
// at 0.5 s, the highest index), is marked at 3 s. At 6 s it is still
// chosen, but only 3 s have passed (< 5 s): nothing is killed. At 9 s, 6 s
// after marking, map 6 is preempted, and the heartbeat of node 1 gives
// queue b (used 0, below a) the room for B's AM.
func TestYARNCapacityPreemption(t *testing.T) {
	conf := confFile(t, "cap.toml", capPreemptConf)
	p, y := yarnSetup(t, "yarn-capacity:conf="+conf, 1, 2, gb(4, 4), unit)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", User: "u1", Queue: "a", Maps: onNodes(0, 0, 0, 1, 1, 1, 1)}})
	y.Heartbeat(p, 0)
	y.Heartbeat(p, 0)
	y.SetNow(500_000)
	y.Heartbeat(p, 1)
	if f0, f1 := y.NodeFree(0), y.NodeFree(1); !f0.IsZero() || !f1.IsZero() {
		t.Fatalf("A left node 0 %+v and node 1 %+v free", f0, f1)
	}
	y.SetNow(1_000_000)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", User: "u2", Queue: "b", Maps: onNodes(0)}})
	for _, at := range []int64{3, 6} {
		y.SetNow(at * 1_000_000)
		y.Heartbeat(p, 0)
		y.Heartbeat(p, 1)
		if pr := y.Preemptions(); len(pr) > 0 {
			t.Fatalf("at %ds, before max_wait_before_kill: preempted %v", at, lines(pr))
		}
	}
	y.SetNow(9_000_000)
	y.Heartbeat(p, 1)
	wantLines(t, "preempted", lines(y.Preemptions()), "9s A map 6 preempted on node 1")
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0", "9s B am on node 1")
}

// TestYARNCapacityAMLimit: the default queue (root.default, 100%) with
// maximum-am-resource-percent 0.1 on 2 nodes of 8 GB: the AM limit is 10%
// of 16 GB, 1.6 GB, rounded up to the 1 GB minimum allocation: 2 GB. Job
// A's AM (1.5 GB) is activated as the queue's first application; job B's
// would make 3 GB > 2 GB, so B waits, though node 1 has room for it.
// (Node 0's first heartbeat starts A's AM and ends, an AM being an
// off-switch assignment; its second runs A's map.) When A ends, B is
// activated and node 1's heartbeat starts its AM, then the next its map.
func TestYARNCapacityAMLimit(t *testing.T) {
	sizes := policytest.Sizes{AM: replay.Resource{MemoryMB: 1536, VCores: 1}, Map: gb(1, 1), Reduce: gb(1, 1)}
	p, y := yarnSetup(t, "yarn-capacity", 1, 2, gb(8, 8), sizes)
	a := yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Maps: onNodes(0)}})
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", Maps: onNodes(1)}})
	wantLines(t, "node 0", lines(drain(y, p, 0)), "0s A map 0 on node 0 (NODE_LOCAL)")
	wantLines(t, "node 1", lines(drain(y, p, 1)))
	wantLines(t, "AMs while A runs", lines(y.AMLaunches()), "0s A am on node 0")
	y.SetNow(2_000_000)
	y.FinishMap(p, a, 0)
	wantLines(t, "node 1 after A", lines(drain(y, p, 1)), "2s B map 0 on node 1 (NODE_LOCAL)")
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0", "2s B am on node 1")
}

// TestYARNCapacityUserLimit: one node of 8 GB, containers of 1 GB, the
// default queue with minimum-user-limit-percent 50 (and
// maximum-am-resource-percent 0.5, so that both AMs are activated: at 0.1
// the AM limit, 1 GB, would hold B back). Users u1 (job A) and u2 (job B)
// both ask, so the limit is max(8 GB / 2 users, 8 GB × 50%) = 4 GB.
// Heartbeat 1: A's AM (off-switch: the heartbeat's last). Heartbeat 2
// (multiple assignments): A's maps while u1 is not over 4 GB: at 4 GB it is
// not over, so it gets a fifth container (Hadoop's canAssignToUser lets a
// user pass the limit by one), then u1 at 5 GB is skipped: B's AM.
// Heartbeat 3: B's 2 maps fill the node. Without the limit A would take all
// 8 GB.
func TestYARNCapacityUserLimit(t *testing.T) {
	conf := confFile(t, "ul.xml", `<configuration>
<property><name>yarn.scheduler.capacity.root.queues</name><value>default</value></property>
<property><name>yarn.scheduler.capacity.root.default.capacity</name><value>100</value></property>
<property><name>yarn.scheduler.capacity.root.default.minimum-user-limit-percent</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
</configuration>`)
	p, y := yarnSetup(t, "yarn-capacity:conf="+conf, 1, 1, gb(8, 8), unit)
	var maps [][]int32
	for range 10 {
		maps = append(maps, []int32{0})
	}
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", User: "u1", Maps: maps}})
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", User: "u2", Maps: maps}})
	wantLines(t, "heartbeats", lines(drain(y, p, 0)),
		"0s A map 0 on node 0 (NODE_LOCAL)", "0s A map 1 on node 0 (NODE_LOCAL)", "0s A map 2 on node 0 (NODE_LOCAL)",
		"0s A map 3 on node 0 (NODE_LOCAL)", "0s B map 0 on node 0 (NODE_LOCAL)", "0s B map 1 on node 0 (NODE_LOCAL)")
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0", "0s B am on node 0")
}

// TestYARNCapacityLocalityDelay: 2 racks of 2 nodes (0, 1 | 2, 3) of 4 GB;
// node-locality-delay 2, rack-locality-additional-delay 1. Job A's maps:
// map 0 on node 1 (rack 0), map 1 on node 3 (rack 1). Only node 0
// heartbeats; every offer of it to A's maps counts as an opportunity before
// the check. Heartbeat 1: A's AM, an off-switch assignment, the heartbeat's
// last. Heartbeats 2, 3: the maps miss (opportunities 1, 2, not > 2).
// Heartbeat 4: 3 > 2, rack-local allowed: map 0 rack-local, which resets the
// count; the same heartbeat offers the node again (1). Heartbeats 5, 6: 2, 3
// (off-switch needs > min(2+1, 4) = 3, and no map is on rack 0). Heartbeat
// 7: 4 > 3: map 1 off-switch.
func TestYARNCapacityLocalityDelay(t *testing.T) {
	conf := confFile(t, "loc.toml", "scheduler = \"capacity\"\nnode-locality-delay = 2\nrack-locality-additional-delay = 1\n[root.default]\ncapacity = 100\n")
	p, y := yarnSetup(t, "yarn-capacity:conf="+conf, 2, 2, gb(4, 4), unit)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Maps: onNodes(1, 3)}})
	want := map[int]string{4: "0s A map 0 on node 0 (RACK_LOCAL)", 7: "0s A map 1 on node 0 (OFF_SWITCH)"}
	for hb := 1; hb <= 8; hb++ {
		var w []string
		if s, ok := want[hb]; ok {
			w = []string{s}
		}
		wantLines(t, fmt.Sprintf("heartbeat %d", hb), lines(y.Heartbeat(p, 0)), w...)
	}
}

// TestYARNFairLocality: the same cluster and job under yarn-fair with
// locality-threshold-node 0.5 and -rack 0.25 of the 4 nodes (2 and 1
// opportunities). One container per heartbeat. Heartbeat 1: A's AM.
// Heartbeat 2: the first offer sets the level NODE_LOCAL (opportunities 1).
// Heartbeat 3: 2, not > 2. Heartbeat 4: 3 > 2: RACK_LOCAL, count reset:
// map 0 rack-local. Heartbeat 5: 1, not > 1. Heartbeat 6: 2 > 1:
// OFF_SWITCH: map 1.
func TestYARNFairLocality(t *testing.T) {
	p, y := yarnSetup(t, "yarn-fair:locality-threshold-node=0.5,locality-threshold-rack=0.25", 2, 2, gb(4, 4), unit)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Maps: onNodes(1, 3)}})
	want := map[int]string{4: "0s A map 0 on node 0 (RACK_LOCAL)", 6: "0s A map 1 on node 0 (OFF_SWITCH)"}
	for hb := 1; hb <= 7; hb++ {
		var w []string
		if s, ok := want[hb]; ok {
			w = []string{s}
		}
		wantLines(t, fmt.Sprintf("heartbeat %d", hb), lines(y.Heartbeat(p, 0)), w...)
	}
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0")
}

// TestYARNFairMaxRunningApps: queue q allows 1 running application. Jobs A
// and B go to q: B is not runnable and is not scheduled at all (no AM) while
// A runs, though the node has room. When A ends, B becomes runnable and its
// AM starts. (One node of 8 GB; one container per heartbeat, Fair's
// default.)
func TestYARNFairMaxRunningApps(t *testing.T) {
	conf := confFile(t, "mra.xml", `<allocations><queue name="q"><maxRunningApps>1</maxRunningApps></queue></allocations>`)
	p, y := yarnSetup(t, "yarn-fair:conf="+conf, 1, 1, gb(8, 8), unit)
	a := yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Queue: "q", Maps: onNodes(0)}})
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", Queue: "root.q", Maps: onNodes(0)}})
	wantLines(t, "while A runs", lines(drain(y, p, 0)), "0s A map 0 on node 0 (NODE_LOCAL)")
	wantLines(t, "AMs while A runs", lines(y.AMLaunches()), "0s A am on node 0")
	y.SetNow(1_000_000)
	y.FinishMap(p, a, 0)
	wantLines(t, "after A", lines(drain(y, p, 0)), "1s B map 0 on node 0 (NODE_LOCAL)")
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0", "1s B am on node 0")
}

// TestYARNRejects: with a queue file the CapacityScheduler rejects a job of
// an unknown queue (Err says so, the job never runs); without one every job
// runs in root.default; the FairScheduler places it, creating the queue
// under root.
func TestYARNRejects(t *testing.T) {
	conf := confFile(t, "ab.xml", "<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>default</value></property><property><name>yarn.scheduler.capacity.root.default.capacity</name><value>100</value></property></configuration>")
	p, y := yarnSetup(t, "yarn-capacity:conf="+conf, 1, 1, gb(4, 4), unit)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Queue: "nope", Maps: onNodes(0)}})
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), `yarn-capacity rejected job A: queue "nope" does not exist`) {
		t.Errorf("Err() = %v", err)
	}
	wantLines(t, "capacity", lines(drain(y, p, 0)))
	p, y = yarnSetup(t, "yarn-capacity", 1, 1, gb(4, 4), unit)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Queue: "nope", Maps: onNodes(0)}})
	wantLines(t, "capacity without conf=", lines(drain(y, p, 0)), "0s A map 0 on node 0 (NODE_LOCAL)")
	if err := p.Err(); err != nil {
		t.Error(err)
	}
	f, y := yarnSetup(t, "yarn-fair", 1, 1, gb(4, 4), unit)
	yarnArrive(t, y, f, policytest.YARNJob{Job: policytest.Job{ID: "A", Queue: "nope", Maps: onNodes(0)}})
	wantLines(t, "fair", lines(drain(y, f, 0)), "0s A map 0 on node 0 (NODE_LOCAL)")
	if err := f.Err(); err != nil {
		t.Error(err)
	}
}

// fairPreemptConf: queue b has a min share of 2 GB and 2 vcores, preempted
// for after 10 s below it.
const fairPreemptConf = `<allocations>
  <queue name="a"/>
  <queue name="b">
    <minResources>2048 mb, 2 vcores</minResources>
    <minSharePreemptionTimeout>10</minSharePreemptionTimeout>
  </queue>
</allocations>`

// TestYARNFairPreemption: 2 nodes of 4 GB, containers of 1 GB; queue b has
// minResources 2 GB and minSharePreemptionTimeout 10 s, preemption every
// 5 s, containers killed as soon as they are chosen (wait-before-kill=0s).
// Job A of queue a fills the cluster (AM and maps 0-2 on node 0 at 0 s,
// maps 3-6 on node 1 at 0.5 s). Job B arrives in b at 1 s: b uses nothing
// and asks for its AM, 1 GB, below min(minResources, demand) = 1 GB, so it
// is starved from then on; it was last at its min share at 0 s. Rounds at
// 5 s and 10 s: 5 s and 10 s since then, not more than the 10 s timeout.
// Round at 15 s: 15 s > 10 s: b asks for min(2 GB, 1 GB) − 0 = 1 GB; a
// (8 GB) is over its fair share (4 GB: both queues active, weight 1), so
// its newest map, map 6 on node 1, is preempted, and node 1's heartbeat
// gives b (needy: under its min share) B's AM.
func TestYARNFairPreemption(t *testing.T) {
	conf := confFile(t, "pre.xml", fairPreemptConf)
	p, y := yarnSetup(t, "yarn-fair:conf="+conf+",preemption=true,preemption-interval=5s,wait-before-kill=0s,assign-multiple=true", 1, 2, gb(4, 4), unit)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Queue: "a", Maps: onNodes(0, 0, 0, 1, 1, 1, 1)}})
	y.Heartbeat(p, 0)
	y.SetNow(500_000)
	y.Heartbeat(p, 1)
	if f0, f1 := y.NodeFree(0), y.NodeFree(1); !f0.IsZero() || !f1.IsZero() {
		t.Fatalf("A left node 0 %+v and node 1 %+v free", f0, f1)
	}
	y.SetNow(1_000_000)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", Queue: "b", Maps: onNodes(0)}})
	for _, at := range []int64{5, 10} {
		y.SetNow(at * 1_000_000)
		y.Heartbeat(p, 0)
		if pr := y.Preemptions(); len(pr) > 0 {
			t.Fatalf("at %ds, within minSharePreemptionTimeout: preempted %v", at, lines(pr))
		}
	}
	y.SetNow(15_000_000)
	y.Heartbeat(p, 0)
	wantLines(t, "preempted", lines(y.Preemptions()), "15s A map 6 preempted on node 1")
	y.Heartbeat(p, 1)
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0", "15s B am on node 1")
}

// TestYARNFairMaxAMShare: one node of 8 GB, AMs and maps of 1 GB, queue q
// with maxAMShare 0.25. q alone is active, so its fair share is the
// cluster, 8 GB, and its AMs may hold 2 GB: A's and B's AMs start, C's
// would make 3 GB and waits, though the node has room. When A ends, its AM
// frees and C's starts.
func TestYARNFairMaxAMShare(t *testing.T) {
	conf := confFile(t, "am.toml", "scheduler = \"fair\"\n[root.q]\nmaxAMShare = 0.25\n")
	p, y := yarnSetup(t, "yarn-fair:conf="+conf, 1, 1, gb(8, 8), unit)
	a := yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Queue: "q", Maps: onNodes(0)}})
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", Queue: "q", Maps: onNodes(0)}})
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "C", Queue: "q", Maps: onNodes(0)}})
	drain(y, p, 0)
	wantLines(t, "AMs while A runs", lines(y.AMLaunches()), "0s A am on node 0", "0s B am on node 0")
	y.SetNow(1_000_000)
	y.FinishMap(p, a, 0)
	drain(y, p, 0)
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0", "0s B am on node 0", "1s C am on node 0")
}

// TestYARNCapacityQueueOrderAndMaximum: one node of 8 GB, containers of
// 1 GB; queue a has 75% (6 GB), queue b 25% (2 GB) and maximum-capacity
// 25%. Job A (queue a, 2 maps) and B (queue b, 10 maps) arrive. The node
// goes to the queue with the lowest usage over its guarantee, ties by path:
// heartbeat 1, A's AM (a 1/6; an AM ends the heartbeat); heartbeat 2, B's AM
// (b 0 < a; b 1/2); heartbeat 3, A's map 0 (a 2/6), map 1 (a 3/6, and A has
// nothing more), B's map 0 (b 2 GB = its maximum); then b is at its maximum
// capacity and a has nothing to run: 3 GB stay free.
func TestYARNCapacityQueueOrderAndMaximum(t *testing.T) {
	conf := confFile(t, "max.toml", `scheduler = "capacity"
maximum-am-resource-percent = 0.5
[root.a]
capacity = 75
[root.b]
capacity = 25
maximum-capacity = 25
`)
	p, y := yarnSetup(t, "yarn-capacity:conf="+conf, 1, 1, gb(8, 8), unit)
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "A", Queue: "a", Maps: onNodes(0, 0)}})
	var maps [][]int32
	for range 10 {
		maps = append(maps, []int32{0})
	}
	yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", Queue: "root.b", Maps: maps}})
	wantLines(t, "heartbeats", lines(drain(y, p, 0)),
		"0s A map 0 on node 0 (NODE_LOCAL)", "0s A map 1 on node 0 (NODE_LOCAL)", "0s B map 0 on node 0 (NODE_LOCAL)")
	wantLines(t, "AMs", lines(y.AMLaunches()), "0s A am on node 0", "0s B am on node 0")
	if f := y.NodeFree(0); f != gb(3, 3) {
		t.Errorf("node free %+v, want 3 GB and 3 vcores", f)
	}
}

// TestYARNCapacityResourceCalculator: one node of 8 GB and 8 vcores; queue
// b has 25% and maximum-capacity 25% (2 GB, 2 vcores); job B's AM is
// <1 GB, 1 vcore>, its maps <1 GB, 2 vcores>. Heartbeat 1 starts the AM.
// Then a map would bring b to <2 GB, 3 vcores>: the DefaultResourceCalculator
// compares memory, 2 GB ≤ 2 GB, and runs it (a second would need 3 GB); the
// DominantResourceCalculator compares dominant shares, 3/8 > 2/8, and runs
// none.
func TestYARNCapacityResourceCalculator(t *testing.T) {
	for _, c := range []struct {
		calc string
		want []string
	}{
		{"default", []string{"0s B map 0 on node 0 (NODE_LOCAL)"}},
		{"dominant", nil},
	} {
		t.Run(c.calc, func(t *testing.T) {
			conf := confFile(t, "rc.toml", fmt.Sprintf(`scheduler = "capacity"
resource-calculator = %q
maximum-am-resource-percent = 0.5
[root.a]
capacity = 75
[root.b]
capacity = 25
maximum-capacity = 25
`, c.calc))
			p, y := yarnSetup(t, "yarn-capacity:conf="+conf, 1, 1, gb(8, 8), unit)
			yarnArrive(t, y, p, policytest.YARNJob{Job: policytest.Job{ID: "B", Queue: "b", Maps: onNodes(0, 0, 0, 0)},
				Sizes: policytest.Sizes{Map: gb(1, 2)}})
			wantLines(t, "heartbeats", lines(drain(y, p, 0)), c.want...)
			wantLines(t, "AMs", lines(y.AMLaunches()), "0s B am on node 0")
		})
	}
}

// TestComputeShares: ComputeFairShares by hand: weights 1 and 3 split 100
// as 25 and 75; a min share of 60 takes 60, leaving 40; a max share of 20
// leaves 80; maxima summing under the total give each its maximum; three
// queues of weight 1, 1, 2 with a min of 50 on the first: shares are
// rounded down (Hadoop's (long) cast), so Σ = 50 + ⌊R⌋ + ⌊2R⌋ stays at 99
// until R reaches 17, and the bisection keeps that upper bound: 50, 17, 34,
// one past the total, as Hadoop's own search ends.
func TestComputeShares(t *testing.T) {
	type q struct {
		w        float64
		min, max int64
	}
	for _, c := range []struct {
		qs    []q
		total int64
		want  []int64
	}{
		{[]q{{1, 0, unlimited}, {3, 0, unlimited}}, 100, []int64{25, 75}},
		{[]q{{1, 60, unlimited}, {1, 0, unlimited}}, 100, []int64{60, 40}},
		{[]q{{1, 0, 20}, {1, 0, unlimited}}, 100, []int64{20, 80}},
		{[]q{{1, 0, 20}, {1, 0, 30}}, 100, []int64{20, 30}},
		{[]q{{1, 50, unlimited}, {1, 0, unlimited}, {2, 0, unlimited}}, 100, []int64{50, 17, 34}},
	} {
		var fqs []*fairQ
		for _, x := range c.qs {
			fqs = append(fqs, &fairQ{conf: &yarnconf.FairQueue{Weight: x.w}, minShare: replay.Resource{MemoryMB: x.min}, maxRes: replay.Resource{MemoryMB: x.max}})
		}
		got := computeShares(fqs, c.total, func(x *fairQ) (int64, int64) { return x.minShare.MemoryMB, x.maxRes.MemoryMB })
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%+v over %d: shares %v, want %v", c.qs, c.total, got, c.want)
		}
	}
}

// TestYARNBadConf: a queue file that does not load, or is the other
// scheduler's, is an error of policy.New naming the file (replay exits 2 on
// it before any run).
func TestYARNBadConf(t *testing.T) {
	bad := confFile(t, "bad.xml", "<configuration>\n<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>\n</configuration>\n")
	for _, c := range []struct{ spec, want string }{
		{"yarn-capacity:conf=" + bad, "policy yarn-capacity: " + bad + ": line 2: yarn.scheduler.capacity.root.queues: queue root.a has no yarn.scheduler.capacity.root.a.capacity"},
		{"yarn-capacity:conf=../samples/yarn/fair-scheduler.xml", "../samples/yarn/fair-scheduler.xml is a Fair Scheduler allocation file"},
		{"yarn-fair:conf=../samples/yarn/capacity-scheduler.toml", "../samples/yarn/capacity-scheduler.toml is a capacity-scheduler configuration"},
		{"yarn-fair:conf=/nonexistent/fair.xml", "yarnconf: open /nonexistent/fair.xml"},
	} {
		if _, err := New(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%s) = %v, want an error containing %q", c.spec, err, c.want)
		}
	}
}
