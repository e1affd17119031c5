package replay_test

import (
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestModelModeReplaysRecordedJobFailure replays failTrace in model mode
// (task_times = "model", lifecycle on; one node, two map slots, one reduce
// slot, heartbeats at 0, 3, 6, … s, reported at once, no start-up; disk 1
// MB/s, so each 1 MB map's modelled duration is 1 s). The trace records its
// maps' schedule and no setup or cleanup task (.jhist: none, lifeOf). Init
// 0–2 s; the heartbeat at 3 s launches both maps. Map 0 never succeeded: its
// four recorded failed attempts (1 s each observed) run 1 s each (the
// observed time, there being no successful attempt to take a fraction of;
// gap task_startup = 0), so it fails at 7 s, its 4th failure, and the job
// fails with it. Map 1's only attempt was killed (not kept): its modelled
// attempt runs 3–4 s and completes. The reduce, ready at 4 s, launches at the
// heartbeat at 6 s and is killed at 7 s: the job finishes at 7 s, FAILED,
// with no last map end. Before recorded failures were kept in model mode,
// map 0 ran 3–4 s and the job succeeded. The same under network = "flow"
// (the maps read no input over the network: one node).
func TestModelModeReplaysRecordedJobFailure(t *testing.T) {
	for _, extra := range []string{"", "network = \"flow\"\n"} {
		hw := oneNodeHardware(t, extra)
		hw.MapSlots = 2
		res := runOne(t, failTrace(false), hw)
		jr := res.Jobs[0]
		if jr.FinishUs != 7e6 || jr.FirstLaunchUs != 3e6 || jr.LastMapEndUs != replay.Unset || jr.FirstReduceLaunchUs != 6e6 || jr.Status != "FAILED" {
			t.Errorf("%q: job %+v, want FAILED, finish 7 s, first launch 3 s, no last map end, reduce launched at 6 s", extra, jr)
		}
		want := map[int64][2]int64{0: {3e6, 7e6}, 1: {3e6, 4e6}}
		var reds int
		for _, x := range res.Tasks {
			switch x.Type {
			case "MAP":
				if w := want[int64(x.Index)]; x.LaunchUs != w[0] || x.FinishUs != w[1] {
					t.Errorf("%q: map %d row %d–%d µs, want %d–%d", extra, x.Index, x.LaunchUs, x.FinishUs, w[0], w[1])
				}
			case "REDUCE":
				reds++
				if x.LaunchUs != 6e6 || x.FinishUs != 7e6 {
					t.Errorf("%q: reduce row %d–%d µs, want 6–7 s (killed by the failure)", extra, x.LaunchUs, x.FinishUs)
				}
			}
		}
		if reds != 1 {
			t.Errorf("%q: %d reduce rows, want 1", extra, reds)
		}
	}
}

// TestModelModeScalesRecordedFailedAttempts: a SUCCEEDED job's map (2 MB: 2 s
// modelled) whose two failed attempts (1 s each observed) came before its
// successful one (8 s observed) runs each failed attempt for its observed
// fraction of the task's work, 1/8 of the modelled 2 s: 0.25 s each, then
// the modelled 2 s. The trace records no schedule, so the job has the
// model's setup and cleanup (TestLifecycleOneNode's hardware, one map slot):
// init 0–2 s, setup 3–4.5 s, the map launches at the heartbeat at 6 s and
// ends at 6 + 0.25 + 0.25 + 2 = 8.5 s; the reduce (no shuffle, 2 MB of
// output: 2 s) launches at the heartbeat at 9 s and ends at 11 s; the
// cleanup runs 12–13 s. With the observed failed times instead (1 s each)
// the map would end at 10 s; without the failed attempts (before they were
// kept) at 8 s.
func TestModelModeScalesRecordedFailedAttempts(t *testing.T) {
	hw := oneNodeHardware(t, "")
	j, tasks := oneNodeJob("job_1", 0)
	j.InputBytes, j.FinishMs = 2e6, 20000
	m := &tasks[0]
	m.InputBytes = 2e6
	var atts []trace.Attempt
	for k, start := range []int64{3000, 4500} {
		a := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_"+string(rune('0'+k)), trace.Map)
		a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusFailed, start, start+1000, "h1"
		atts = append(atts, a)
	}
	a := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_2", trace.Map)
	a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusSucceeded, 6000, 14000, "h1"
	atts = append(atts, a)
	tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks, Attempts: atts}
	tr.Sort()
	res := runOne(t, tr, hw)
	jr := res.Jobs[0]
	if jr.FinishUs != 13e6 || jr.LastMapEndUs != 8.5e6 || jr.FirstReduceLaunchUs != 9e6 || jr.Status != "SUCCEEDED" {
		t.Errorf("job %+v, want SUCCEEDED, finish 13 s, last map end 8.5 s, reduce launched at 9 s", jr)
	}
	want := map[string][2]int64{"MAP": {6e6, 8.5e6}, "REDUCE": {9e6, 11e6}}
	for _, x := range res.Tasks {
		if w := want[x.Type]; x.LaunchUs != w[0] || x.FinishUs != w[1] {
			t.Errorf("%s row %d–%d µs, want %d–%d", x.Type, x.LaunchUs, x.FinishUs, w[0], w[1])
		}
	}
}

// TestModelModeFailingMapShorterThanModel: failTrace with a map compute rate
// of 0.125 MB/s, so each 1 MB map's modelled duration is 9 s (1 s of disk,
// 8 s of compute), longer than map 0's recorded failed attempts (4 × 1 s).
// Fixed network: both maps launch at 3 s (init 0–2 s, no setup: the trace
// records the schedule), map 0's four failed attempts hold its slot 3–7 s and
// it fails the job at 7 s, killing map 1 (3–12 s modelled) then; no map
// finished, so no reduce ran. Under flow the same: map 0 runs as a timed
// map, its three earlier failed attempts (3 s) and then its last attempt's
// 1 s (a node-local timed map's read is in its time, jobDisk.setTimed), and
// fails at 7 s. Before failing maps were timed under flow, map 0's earlier
// attempts counted for nothing (4 s of failed attempts less the 9 s
// modelled map, clamped to 0) and its modelled map (its 8 s of compute beside
// its 1 s read) ran 3–11 s.
func TestModelModeFailingMapShorterThanModel(t *testing.T) {
	for _, c := range []struct {
		extra  string
		finish int64
	}{{"", 7e6}, {"network = \"flow\"\n", 7e6}} {
		hw := oneNodeHardware(t, "map_compute_mb_per_s = 0.125\n"+c.extra)
		hw.MapSlots = 2
		res := runOne(t, failTrace(false), hw)
		jr := res.Jobs[0]
		if jr.FinishUs != c.finish || jr.FirstLaunchUs != 3e6 || jr.LastMapEndUs != replay.Unset || jr.FirstReduceLaunchUs != replay.Unset || jr.Status != "FAILED" {
			t.Errorf("%q: job %+v, want FAILED, finish %d µs, first launch 3 s, no last map end, no reduce", c.extra, jr, c.finish)
		}
		if len(res.Tasks) != 2 {
			t.Fatalf("%q: %d task rows, want the two maps'", c.extra, len(res.Tasks))
		}
		for _, x := range res.Tasks {
			if x.Type != "MAP" || x.LaunchUs != 3e6 || x.FinishUs != c.finish {
				t.Errorf("%q: row %+v, want a map %d–%d µs", c.extra, x, int64(3e6), c.finish)
			}
		}
	}
}
