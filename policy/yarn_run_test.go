package policy

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/policy/policytest"
	"github.com/tracereplay/tracereplay/replay"
)

// TestYARNRunsToCompletion drives each YARN policy on the YARN fake through
// a random workload with a tiny event loop (every node heartbeats each
// second, a task ends a few seconds after its launch), so that a policy that
// deadlocks (an AM never started, a queue never served), over-commits a node
// (the fake panics) or preempts forever fails here, before the engine side
// of issue 14 exists.
func TestYARNRunsToCompletion(t *testing.T) {
	// Written here, not in a subtest: t.TempDir names the directory after
	// the test, and a subtest's name holds the spec's commas, which the
	// spec's own syntax would split.
	capConf := confFile(t, "cap.toml", capPreemptConf)
	// Queue b of the Fair preemption test, also preempted for below half
	// its fair share for 5 s.
	fairConf := confFile(t, "fair.xml", `<allocations>
  <queue name="a"/>
  <queue name="b">
    <minResources>2048 mb, 2 vcores</minResources>
    <minSharePreemptionTimeout>10</minSharePreemptionTimeout>
    <fairSharePreemptionTimeout>5</fairSharePreemptionTimeout>
  </queue>
</allocations>`)
	for _, c := range []struct {
		spec   string
		queues []string
		heavy  bool
	}{
		{"yarn-fifo", []string{"", "default"}, false},
		{"yarn-capacity", []string{"", "default", "root.default"}, false},
		{"yarn-capacity:conf=../samples/yarn/capacity-scheduler.xml,preemption=true", []string{"prod", "research", "default", "root.adhoc.default"}, false},
		{"yarn-capacity:conf=../samples/yarn/capacity-scheduler.toml", []string{"prod", "research"}, false},
		{"yarn-fair", []string{"", "default", "a", "root.b"}, false},
		{"yarn-fair:conf=../samples/yarn/fair-scheduler.xml,preemption=true,preemption-interval=2s,wait-before-kill=1s,assign-multiple=true",
			[]string{"sample_queue.sample_sub_queue", "analytics", "batch", "other"}, false},
		{"yarn-fair:conf=../samples/yarn/fair-scheduler.toml,locality-threshold-node=0.5,locality-threshold-rack=0.5", []string{"prod", "analytics", "batch", ""}, false},
		// Heavy workloads with preemption that acts: the preemption tests'
		// queue files.
		{"yarn-capacity:conf=CAP", []string{"a", "b"}, true},
		{"yarn-fair:conf=FAIR,preemption=true,preemption-interval=2s,wait-before-kill=1s", []string{"a", "b"}, true},
		{"yarn-fair:conf=FAIR,preemption=true,wait-before-kill=0s,assign-multiple=true", []string{"a", "b", "c"}, true},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", c.spec, seed), func(t *testing.T) {
				spec := strings.ReplaceAll(c.spec, "CAP", capConf)
				spec = strings.ReplaceAll(spec, "FAIR", fairConf)
				first := runYARN(t, spec, c.queues, seed, c.heavy)
				if seed == 1 && first != runYARN(t, spec, c.queues, seed, c.heavy) {
					t.Error("two runs of the same workload scheduled differently")
				}
			})
		}
	}
}

// runYARN runs the workload of seed through the policy spec and returns its
// schedule: the launches, AM launches and preemptions.
func runYARN(t *testing.T, spec string, queues []string, seed uint64, heavy bool) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	p, y := yarnSetup(t, spec, 2, 3, gb(8, 8), unit)
	const nJobs = 12
	type pending struct {
		at   int64
		spec policytest.YARNJob
	}
	var arrivals []pending
	for i := range nJobs {
		var maps [][]int32
		nMaps := 1 + rng.IntN(8)
		if heavy {
			nMaps = 1 + rng.IntN(40)
		}
		for range nMaps {
			maps = append(maps, []int32{int32(rng.IntN(6))})
		}
		s := policytest.YARNJob{Job: policytest.Job{ID: fmt.Sprintf("J%02d", i), User: fmt.Sprintf("u%d", rng.IntN(3)),
			Queue: queues[rng.IntN(len(queues))], Maps: maps, Reduces: rng.IntN(3)}}
		s.Sizes.Map = gb(1+rng.Int64N(2), 1+rng.Int64N(2))
		at := int64(rng.IntN(10)) * 1_000_000
		if heavy && s.Queue != queues[0] {
			// The first queue fills the cluster before the others ask.
			at += 20_000_000
		}
		arrivals = append(arrivals, pending{at: at, spec: s})
	}
	dur := func(j *replay.JobView, k int32) int64 {
		if heavy {
			return int64(30+(j.Index()*7+k)%31) * 1_000_000
		}
		return int64(2+(j.Index()+k)%4) * 1_000_000
	}
	var jobs []*replay.JobView
	for step := int64(0); step < 3000; step++ {
		now := step * 1_000_000
		y.SetNow(now)
		for _, a := range arrivals {
			if a.at == now {
				jobs = append(jobs, yarnArrive(t, y, p, a.spec))
			}
		}
		for _, j := range jobs {
			for i := range j.NumMaps() {
				if j.MapState(i) == replay.Running && j.MapLaunchUs(i)+dur(j, i) <= now {
					y.FinishMap(p, j, i)
				}
			}
			for i := range j.NumReduces() {
				if j.ReduceState(i) == replay.Running && j.ReduceLaunchUs(i)+dur(j, i) <= now {
					y.FinishReduce(p, j, i)
				}
			}
		}
		for n := range int32(6) {
			y.Heartbeat(p, n)
			if free := y.NodeFree(n); free.MemoryMB < 0 || free.VCores < 0 {
				t.Fatalf("node %d over-committed: free %+v", n, free)
			}
		}
		if len(jobs) == nJobs && len(y.Active()) == 0 {
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			t.Logf("done at %ds, %d preemptions", step, len(y.Preemptions()))
			if heavy && len(y.Preemptions()) == 0 {
				t.Error("no preemption in a heavy run")
			}
			return fmt.Sprint(lines(y.Launches()), lines(y.AMLaunches()), lines(y.Preemptions()))
		}
	}
	for _, j := range y.Active() {
		t.Errorf("job %s (queue %q, user %s) unfinished: AM pending %v, maps %d pending %d running, reduces %d pending %d running",
			j.ID(), j.Queue(), j.User(), y.AMPending(j), j.PendingMaps(), j.RunningMaps(), j.PendingReduces(), j.RunningReduces())
	}
	t.Fatalf("stalled; Err: %v", p.Err())
	return ""
}
