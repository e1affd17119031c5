package replay_test

import (
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// Trace mode under network = "flow" keeps what the trace times as fixed
// does: a reduce's observed copy tail and a map's observed speculative copy.
// Before, flow dropped both, and on the committed histories every job came
// out short (docs/validation.md, "The flow model against observed
// schedules").

// TestFlowObservedCopyTail is TestLifecycleObservedCopyTail's first case
// under network = "flow": the map (recorded 3–4 s) runs 3–4 s, the reduce
// (recorded 3.5–9 s, shuffle end 7 s) launches at the heartbeat at 6 s and
// copies for its observed tail, 7 − max(3.5, 4) = 3 s, after the later of its
// start-up (0) and the last map's end: its shuffle ends at 9 s, its observed
// work (9 − 7 = 2 s) ends at 11 s, as under fixed. Its fetch of the map's
// empty output ends at once, so without the tail the shuffle ended at 6 s
// and the job at 8 s. The tail holds the fetch rounds' latency, which is not
// added again: with shuffle_fetch_latency = 20 s (4 s for the one output at
// 5 parallel copies under flow) the shuffle still ends at 9 s under both
// models (before, 10 s under flow).
func TestFlowObservedCopyTail(t *testing.T) {
	for _, network := range []string{"fixed", "flow", "fixed latency", "flow latency"} {
		extra := `network = "` + strings.Fields(network)[0] + `"`
		if strings.HasSuffix(network, "latency") {
			extra += "\nshuffle_fetch_latency = \"20s\"\nparallel_copies = 5"
		}
		hw := oneNodeHardware(t, extra)
		hw.TaskTimes = "trace"
		tr := retryTrace(0, false)
		for i := range tr.Tasks {
			if r := &tr.Tasks[i]; r.Type == trace.Reduce {
				r.StartMs, r.ShuffleFinishMs, r.FinishMs = 3500, 7000, 9000
			}
		}
		for i := range tr.Attempts {
			if a := &tr.Attempts[i]; a.Type == trace.Reduce {
				a.StartMs, a.FinishMs = 3500, 9000
			}
		}
		tr.Jobs[0].FinishMs = 10000
		res := runOne(t, tr, hw)
		if got := res.Jobs[0].FinishUs; got != 11e6 {
			t.Errorf("network %s: finish %d µs, want 11e6", network, got)
		}
		for _, x := range res.Tasks {
			if x.Type == "REDUCE" && x.ShuffleEndUs != 9e6 {
				t.Errorf("network %s: reduce shuffle end %d µs, want 9e6", network, x.ShuffleEndUs)
			}
		}
	}
}

// TestFlowObservedSpeculation is TestObservedSpeculation under network =
// "flow": the maps have a host and are timed by the trace without flows, so
// the observed copy runs beside the original as under fixed and the first to
// finish completes the map, 8 s when the copy won in the trace, 7 s when the
// original did (before, flow ran the successful attempt alone, 3–5 s, in
// both). With trace_locality = "bandwidth" a map's stages are flows whose end
// the network times; its copy runs its observed time on a timer and, winning,
// withdraws the original's flows (lifecycle_flowspec.go): 8 s as well.
func TestFlowObservedSpeculation(t *testing.T) {
	base := twoNodeTraceHW + "network = \"flow\"\n"
	for _, c := range []struct {
		copyWins bool
		extra    string
		finish   int64
	}{{true, "", 8e6}, {false, "", 7e6}, {true, `trace_locality = "bandwidth"`, 8e6}} {
		hw, err := replay.ParseHardware([]byte(base + c.extra))
		if err != nil {
			t.Fatal(err)
		}
		c0 := &specCounter{}
		topo := replay.NewTopology(&hw, 1)
		tr := specTrace(c.copyWins)
		if c.extra != "" { // a rule needs the input's hosts: each map's own
			for i := range tr.Tasks {
				tr.Tasks[i].PreferredHosts, tr.Tasks[i].Locality = []string{tr.Tasks[i].Host}, trace.NodeLocal
			}
		}
		w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := replay.Run(w, mustPolicy(t, "fifo"), replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true, Observers: []replay.Observer{c0}})
		if err != nil {
			t.Fatal(err)
		}
		jr := res.Jobs[0]
		if jr.FirstLaunchUs != 3e6 || jr.FinishUs != c.finish || jr.LastMapEndUs != c.finish {
			t.Errorf("copy wins %v %s: first launch %d, last map end %d, finish %d µs; want 3e6, %d, %d",
				c.copyWins, c.extra, jr.FirstLaunchUs, jr.LastMapEndUs, jr.FinishUs, c.finish, c.finish)
		}
		if c0.n != 1 {
			t.Errorf("copy wins %v %s: %d copies launched, want 1", c.copyWins, c.extra, c0.n)
		}
	}
}

// TestFlowJobFailsOnReduce is TestJobFailsOnReduce under network = "flow",
// with a map output of 20 MB, all for the reduce: the map (3–4 s, timed by
// the trace) ends on a timer, the reduce launches at the heartbeat at 6 s
// and fetches the output from its own node's disk (1 MB/s: a flow of 6–26 s
// alone) while it replays its four failed attempts (their recorded spacing:
// TestJobFailsOnReduce); the last fails at 10.3 s and fails the job, which
// finishes then, as under fixed. The fetch, 4.3 MB through, is cancelled with
// the job: before, its end at 26 s reached a job
// that had finished. (Before that, flow replayed no failed job: the reduce
// ran its recorded attempt and the job succeeded.)
func TestFlowJobFailsOnReduce(t *testing.T) {
	for _, network := range []string{"fixed", "flow"} {
		hw := oneNodeHardware(t, `network = "`+network+`"`)
		hw.TaskTimes = "trace"
		j, tasks := oneNodeJob("job_1", 0)
		j.FinishMs, j.Status, j.ShuffleBytes = 8400, trace.StatusFailed, 20e6
		m, r := &tasks[0], &tasks[1]
		m.OutputBytes, r.ShuffleBytes = 20e6, 20e6
		m.Host, m.StartMs, m.FinishMs, m.Status = "h1", 3000, 4000, trace.StatusSucceeded
		r.Host, r.StartMs, r.FinishMs, r.Status = "h1", 7300, 8300, trace.StatusFailed
		am := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_0", trace.Map)
		am.Status, am.StartMs, am.FinishMs, am.Host = trace.StatusSucceeded, 3000, 4000, "h1"
		atts := []trace.Attempt{am}
		for k, start := range []int64{4000, 5100, 6200, 7300} {
			a := trace.NewAttempt("job_1", r.TaskID, r.TaskID+"_"+string(rune('0'+k)), trace.Reduce)
			a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusFailed, start, start+1000, "h1"
			atts = append(atts, a)
		}
		tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks, Attempts: atts}
		tr.Sort()
		res := runOne(t, tr, hw)
		jr := res.Jobs[0]
		if jr.FinishUs != 10.3e6 || jr.LastMapEndUs != 4e6 || jr.FirstReduceLaunchUs != 6e6 || jr.Status != "FAILED" {
			t.Errorf("network %s: job %+v, want FAILED, finish 10.3 s, last map end 4 s, reduce launched at 6 s", network, jr)
		}
		if res.Summary.MakespanUs != 10.3e6 {
			t.Errorf("network %s: makespan %d µs, want 10.3e6", network, res.Summary.MakespanUs)
		}
	}
}
