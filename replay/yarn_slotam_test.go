package replay_test

import (
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// slotAMTrace is one job on h1 (submit 0, JOB_INITED 2.5 s) whose map ran
// 4.7–6.7 s and whose reduce ran 9.6–10.6 s (no shuffle end recorded); with
// am it records its ApplicationMaster (started at 0.5 s), as a .jhist does.
func slotAMTrace(am bool) *trace.Trace {
	j, tasks := oneNodeJob("job_1", 0)
	j.LaunchMs, j.FinishMs = 2500, 10600
	if am {
		j.AMStartMs = 500
	}
	m, r := &tasks[0], &tasks[1]
	m.Host, m.StartMs, m.FinishMs, m.Status = "h1", 4700, 6700, trace.StatusSucceeded
	r.Host, r.StartMs, r.FinishMs, r.Status = "h1", 9600, 10600, trace.StatusSucceeded
	r.ShuffleFinishMs = trace.Unknown
	tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks}
	tr.Sort()
	return tr
}

// TestSlotAMAllocateCalls replays slotAMTrace on one node (a map and a
// reduce slot, heartbeats at 0, 1, 2, … s, no start-up, reported at once,
// trace times). A job that records its AM (yarn_slotam.go): its AM's calls
// are at 3.5, 4.5, … s (JOB_INITED 2.5 s + k·am_heartbeat); its launch time
// is (4.7 − 2.5) mod 1 = 0.2 s. Its map reaches the scheduler at the first
// call, 3.5 s, is assigned at the heartbeat at 4 s, taken at the call at
// 4.5 s and starts 0.2 s later, 4.7 s, and ends 6.7 s (as recorded). The AM
// decides the reduce at its next call, 7.5 s, asks at 8.5 s; the heartbeat
// at 9 s assigns it, the call at 9.5 s takes it, it starts at 9.7 s and ends
// at 10.7 s (recorded: 9.6 and 10.6 s). Without the AM (a Hadoop 1 job) or
// with am_heartbeat = 0 the map is assigned at the first heartbeat of the
// cluster, 4 s (no heartbeat before the earliest recorded start, 4.7 s, less
// one interval: clusterUpUs), runs 4–6 s, and the reduce, ready when the map
// is reported at 6 s, after that node's heartbeat at 6 s, is assigned at 7 s:
// 7–8 s.
func TestSlotAMAllocateCalls(t *testing.T) {
	for _, c := range []struct {
		name                             string
		am                               bool
		amHeartbeat                      replay.Duration
		first, mapEnd, reduceEnd, finish int64
	}{
		{"AM", true, 1e6, 4.7e6, 6.7e6, 10.7e6, 10.7e6},
		{"no AM", false, 1e6, 4e6, 6e6, 8e6, 8e6},
		{"am_heartbeat 0", true, 0, 4e6, 6e6, 8e6, 8e6},
	} {
		hw := oneNodeHardware(t, "")
		hw.Heartbeat = 1e6
		hw.AMHeartbeat = c.amHeartbeat
		hw.TaskTimes = "trace"
		res := runOne(t, slotAMTrace(c.am), hw)
		jr := res.Jobs[0]
		redEnd := int64(-1)
		for _, tk := range res.Tasks {
			if tk.Type == "REDUCE" {
				redEnd = tk.FinishUs
			}
		}
		if jr.FirstLaunchUs != c.first || jr.LastMapEndUs != c.mapEnd || jr.FinishUs != c.finish || redEnd != c.reduceEnd {
			t.Errorf("%s: first launch %d, last map end %d, reduce end %d, finish %d µs; want %d, %d, %d, %d",
				c.name, jr.FirstLaunchUs, jr.LastMapEndUs, redEnd, jr.FinishUs, c.first, c.mapEnd, c.reduceEnd, c.finish)
		}
	}
}
