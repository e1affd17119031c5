package replay_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// specTrace is a map-only job (submit 0, no recorded launch, finish 25 s)
// of two maps: map 1 ran 2 s, and map 0 ran two attempts at once: with copyWins, the original 1–11
// s (killed) and a copy started 1 s later that succeeded after 2 s (2–4 s);
// else the original succeeded after 4 s (1–5 s) and the copy started 1 s
// later ran 3.1 s until killed (2–5.1 s).
func specTrace(copyWins bool) *trace.Trace {
	j := trace.NewJob("job_1")
	j.SubmitMs, j.FinishMs, j.Status = 0, 25000, trace.StatusSucceeded
	j.NumMaps, j.NumReduces, j.InputBytes, j.ShuffleBytes, j.OutputBytes = 2, 0, 2e6, 0, 0
	m := trace.NewTask("job_1", "job_1_m_0", trace.Map, 0)
	m.InputBytes, m.OutputBytes, m.Status = 1e6, 0, trace.StatusSucceeded
	orig := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_0", trace.Map)
	cp := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_1", trace.Map)
	orig.Host, cp.Host, cp.Speculative = "h1", "h2", true
	if copyWins {
		orig.Status, orig.StartMs, orig.FinishMs = trace.StatusKilled, 1000, 11000
		cp.Status, cp.StartMs, cp.FinishMs = trace.StatusSucceeded, 2000, 4000
		m.Host, m.StartMs, m.FinishMs = "h2", 2000, 4000
	} else {
		orig.Status, orig.StartMs, orig.FinishMs = trace.StatusSucceeded, 1000, 5000
		cp.Status, cp.StartMs, cp.FinishMs = trace.StatusKilled, 2000, 5100
		m.Host, m.StartMs, m.FinishMs = "h1", 1000, 5000
	}
	m1 := trace.NewTask("job_1", "job_1_m_1", trace.Map, 1)
	m1.InputBytes, m1.OutputBytes, m1.Status = 1e6, 0, trace.StatusSucceeded
	m1.Host, m1.StartMs, m1.FinishMs = "h2", 1000, 3000
	a1 := trace.NewAttempt("job_1", m1.TaskID, m1.TaskID+"_0", trace.Map)
	a1.Status, a1.StartMs, a1.FinishMs, a1.Host = trace.StatusSucceeded, 1000, 3000, "h2"
	tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: []trace.Task{m, m1}, Attempts: []trace.Attempt{orig, cp, a1}}
	tr.Sort()
	return tr
}

// TestObservedSpeculation replays specTrace on two nodes of one map slot
// each (heartbeats at 0, 3, 6, … s on both, no start-up, init 2 s, trace
// times, the lifecycle on): the heartbeats at 3 s launch map 0 on node 0 and
// map 1 on node 1 (3–5 s); map 0's copy is asked for at 4 s and launched on
// node 1 at its heartbeat at 6 s. When the copy succeeded in the trace the original runs its killed
// attempt's 10 s (3–13 s) and the copy its 2 s (6–8 s): the copy wins, the
// map completes at 8 s and the original is killed (before observed copies
// the map ran the successful attempt's 2 s, 3–5 s). When the original
// succeeded it runs 4 s (3–7 s) and wins over the copy (6–9.1 s): 7 s.
// With speculation = "hadoop" the observed copies are not replayed (the
// engine's own speculation picks copies): 3–5 s.
func TestObservedSpeculation(t *testing.T) {
	base := twoNodeTraceHW
	for _, c := range []struct {
		copyWins bool
		extra    string
		finish   int64
	}{{true, "", 8e6}, {false, "", 7e6}, {true, `speculation = "hadoop"`, 5e6},
		// under flow (observed copies were not replayed there before): these
		// maps keep their observed times by trace_locality's rule, without
		// flows, and their copies too, as under fixed: the same ends
		{true, `network = "flow"`, 8e6}, {false, `network = "flow"`, 7e6}} {
		hw, err := replay.ParseHardware([]byte(base + c.extra))
		if err != nil {
			t.Fatal(err)
		}
		res := runOne(t, specTrace(c.copyWins), hw)
		jr := res.Jobs[0]
		if jr.FirstLaunchUs != 3e6 || jr.FinishUs != c.finish || jr.LastMapEndUs != c.finish {
			t.Errorf("copy wins %v %s: first launch %d, last map end %d, finish %d µs; want 3e6, %d, %d",
				c.copyWins, c.extra, jr.FirstLaunchUs, jr.LastMapEndUs, jr.FinishUs, c.finish, c.finish)
		}
		for _, x := range res.Tasks {
			if want := map[int32][2]int64{0: {3e6, c.finish}, 1: {3e6, 5e6}}[x.Index]; x.LaunchUs != want[0] || x.FinishUs != want[1] {
				t.Errorf("copy wins %v %s: map %d %d–%d µs, want %d–%d", c.copyWins, c.extra, x.Index, x.LaunchUs, x.FinishUs, want[0], want[1])
			}
		}
	}
}

// specCounter counts the speculative copies a run launches.
type specCounter struct {
	replay.NopObserver
	n int
}

func (c *specCounter) TaskLaunched(e replay.TaskEvent) {
	if e.Kind == replay.TaskSpeculative {
		c.n++
	}
}

// TestObservedSpeculationEveryPolicy replays the committed Hadoop 1 history
// (trace/testdata/hadoop1: job 40864's map 1 and reduce 1 each have a
// second attempt that started while the first ran and succeeded) on its
// derived cluster through every policy with the invariants checked, under
// the fixed and the flow network: every job finishes, and a copy is
// launched (the map's; reduces are not copied).
func TestObservedSpeculationEveryPolicy(t *testing.T) {
	tr, _, err := trace.ReadTree(context.Background(), filepath.Join("..", "trace", "testdata", "hadoop1"), trace.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hw, ok, err := replay.TraceHardware(tr, replay.DefaultHardware())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, network := range []replay.NetworkName{replay.NetworkFixed, replay.NetworkFlow} {
		hw.Network = network
		for _, name := range policy.NamesFor(replay.ClusterSlots) {
			topo := replay.NewTopology(&hw, 1)
			w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c := &specCounter{}
			res, err := replay.Run(w, mustPolicy(t, name), replay.Options{Seed: 1, CheckInvariants: true, Observers: []replay.Observer{c}})
			if err != nil {
				t.Fatalf("%s %s: %v", network, name, err)
			}
			if len(res.Jobs) != len(tr.Jobs) || c.n == 0 {
				t.Errorf("%s %s: %d of %d jobs finished, %d copies launched; want all, and a copy", network, name, len(res.Jobs), len(tr.Jobs), c.n)
			}
		}
	}
}

// specEnds records when each speculative copy's slot is freed.
type specEnds struct {
	replay.NopObserver
	at []int64
}

func (c *specEnds) TaskEnded(e replay.TaskEvent) {
	if e.Kind == replay.TaskSpeculative {
		c.at = append(c.at, e.Time)
	}
}

// TestSpecLoserKilledAtHeartbeat replays specTrace as TestObservedSpeculation
// does (heartbeats at 0, 3, 6, … s on both nodes, one map slot each), with
// cleanup_task = 1.5 s, and checks when the losing attempt's slot is free
// (lifecycle_kill.go): killed at its node's first heartbeat at or after the
// winner's reported completion, free when its cleanup attempt is reported.
//
//   - copy loses, reported at once: the original wins at 7 s; the copy (node
//     1, from 6 s) is killed at node 1's heartbeat at 9 s and its cleanup
//     attempt ends at 10.5 s, its slot free then (before: 7 s).
//   - the same with report_at_heartbeat: the map is reported at node 0's
//     heartbeat at 9 s, the kill is node 1's heartbeat at 9 s, reported at 12
//     s, the cleanup runs 12–13.5 s and is reported at 15 s (before: 9 s).
//   - original loses, reported at once: the copy (node 1, 6–8 s) wins at 8 s;
//     the original (node 0, from 3 s) is killed at 9 s and holds its slot to
//     10.5 s.
//
// The map slots' busy time (map 1 runs 3–5 s on node 1, 3–6 s reported at a
// heartbeat) adds up each attempt's hold: 4 + 4.5 + 2 = 10.5 s, 6 + 9 + 3 =
// 18 s, and 7.5 + 2 + 2 = 11.5 s (9 s when the original was freed at 8 s).
func TestSpecLoserKilledAtHeartbeat(t *testing.T) {
	base := twoNodeTraceHW + "cleanup_task = \"1.5s\"\n"
	for _, c := range []struct {
		copyWins bool
		extra    string
		freed    []int64
		busyUs   int64
	}{{false, "", []int64{10_500_000}, 10_500_000}, {false, "report_at_heartbeat = true\n", []int64{15_000_000}, 18_000_000},
		{true, "", []int64{8_000_000}, 11_500_000}} {
		hw, err := replay.ParseHardware([]byte(base + c.extra))
		if err != nil {
			t.Fatal(err)
		}
		tr := specTrace(c.copyWins)
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ends := &specEnds{}
		res, err := replay.Run(w, mustPolicy(t, "fifo"), replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true, Observers: []replay.Observer{ends}})
		if err != nil {
			t.Fatal(err)
		}
		sum := res.Summary
		busy := int64(sum.MapUtilisation*float64(hw.TotalMapSlots())*float64(sum.MakespanUs) + 0.5)
		if !slices.Equal(ends.at, c.freed) || busy != c.busyUs {
			t.Errorf("copy wins %v %q: the copy's slot freed at %v µs, map slots busy %d µs; want %v, %d", c.copyWins, c.extra, ends.at, busy, c.freed, c.busyUs)
		}
	}
}

// twoNodeTraceHW is the cluster of the observed-speculation tests: two nodes
// of one map and one reduce slot, a 3 s heartbeat without jitter, trace times
// and the lifecycle with a 2 s job initialisation.
const twoNodeTraceHW = `racks = 1
nodes_per_rack = 2
map_slots = 1
reduce_slots = 1
replication = 1
task_startup = "0s"
heartbeat = "3s"
heartbeat_jitter = false
duration_cv = 0
task_times = "trace"
lifecycle = true
job_init_time = "2s"
`
