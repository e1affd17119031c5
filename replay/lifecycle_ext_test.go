package replay_test

import (
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// yarnRetryTrace is one job (submit 0, launch 2 s) whose map failed once
// (3–4 s) and then succeeded (5.5–6.5 s), and whose reduce ran 7–8 s, all on
// h1; with yarn set the trace records its ApplicationMaster (started at
// 0.5 s), as a .jhist does, and the job has no setup or cleanup task.
func yarnRetryTrace(yarn bool) *trace.Trace {
	j, tasks := oneNodeJob("job_1", 0)
	j.LaunchMs, j.FinishMs = 2000, 8000
	if yarn {
		j.AMStartMs = 500
	}
	m, r := &tasks[0], &tasks[1]
	m.Host, m.StartMs, m.FinishMs, m.Status = "h1", 5500, 6500, trace.StatusSucceeded
	r.Host, r.StartMs, r.FinishMs, r.Status = "h1", 7000, 8000, trace.StatusSucceeded
	a0 := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_0", trace.Map)
	a0.Status, a0.StartMs, a0.FinishMs, a0.Host = trace.StatusFailed, 3000, 4000, "h1"
	a1 := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_1", trace.Map)
	a1.Status, a1.StartMs, a1.FinishMs, a1.Host = trace.StatusSucceeded, 5500, 6500, "h1"
	ar := trace.NewAttempt("job_1", r.TaskID, r.TaskID+"_0", trace.Reduce)
	ar.Status, ar.StartMs, ar.FinishMs, ar.Host = trace.StatusSucceeded, 7000, 8000, "h1"
	tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks, Attempts: []trace.Attempt{a0, a1, ar}}
	tr.Sort()
	return tr
}

// TestRetryContainerDelay replays yarnRetryTrace on one node (one map and one
// reduce slot, heartbeats at 0, 3, 6, 9 s, no start-up, reported at once,
// trace times): init 0–2 s (observed launch); the heartbeat at 3 s launches
// the map, which holds its slot for its failed attempt (1 s), the gap to its
// retry, and its successful attempt (1 s). Without retry_container_delay the
// gap is task_startup (0): the map ends at 5 s, the reduce launches at the
// heartbeat at 6 s and runs 6–7 s: finish 7 s. With retry_container_delay =
// 1.5 s a YARN job's map ends at 3 + 1 + 1.5 + 1 = 6.5 s, the reduce waits for
// the heartbeat at 9 s and runs 9–10 s: finish 10 s. A Hadoop 1 job (no AM
// recorded) keeps task_startup: 7 s.
func TestRetryContainerDelay(t *testing.T) {
	for _, c := range []struct {
		yarn           bool
		delay          string
		mapEnd, finish int64
	}{
		{true, "0s", 5e6, 7e6},
		{true, "1.5s", 6.5e6, 10e6},
		{false, "1.5s", 5e6, 7e6},
	} {
		hw := oneNodeHardware(t, `retry_container_delay = "`+c.delay+`"`)
		hw.TaskTimes = "trace"
		res := runOne(t, yarnRetryTrace(c.yarn), hw)
		jr := res.Jobs[0]
		if jr.FirstLaunchUs != 3e6 || jr.LastMapEndUs != c.mapEnd || jr.FinishUs != c.finish {
			t.Errorf("yarn %v, delay %s: first launch %d, last map end %d, finish %d µs; want 3e6, %d, %d",
				c.yarn, c.delay, jr.FirstLaunchUs, jr.LastMapEndUs, jr.FinishUs, c.mapEnd, c.finish)
		}
	}
}

// TestRetryContainerDelayBad: a negative or malformed retry_container_delay
// is refused.
func TestRetryContainerDelayBad(t *testing.T) {
	for _, v := range []string{`"-1s"`, `"soon"`, `"25h"`} {
		if _, err := replay.ParseHardware([]byte("retry_container_delay = " + v)); err == nil {
			t.Errorf("retry_container_delay = %s accepted", v)
		}
	}
}
