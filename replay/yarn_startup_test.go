package replay_test

import (
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// TestYARNContainerStartup works the container model by hand on
// TestYARNOneNode's NodeManager (heartbeats at 0, 3, 6 … s), job A alone,
// am_startup 2.5 s, am_heartbeat 1 s, task_startup 5 s. With
// container_startup = 700 ms the job is initialised at 2.5 s and its AM's
// first allocate call, at 3.5 s, asks for the map: the heartbeat at 3 s
// allocates nothing, the one at 6 s the map, whose container reaches the AM
// at its call at 6.5 s; the map starts up for 0.7 s and reads 1 MB at 1 MB/s,
// 6.5–8.2. The AMs' round at 9 s asks for the reduce, the RM sees it at 10
// s, the heartbeat at 12 s allocates it, the AM takes it at 12.5 s and it
// runs 0.7 + 2 s: flowtime 15.2 s. Without container_startup the asks are
// seen at 2.5 s and every task starts up for task_startup: the map 3.5–9.5,
// the reduce asked at 10 s, seen at 11 s, 12.5–19.5 s. In trace mode the
// key changes nothing.
func TestYARNContainerStartup(t *testing.T) {
	one := func() *trace.Trace {
		j, ts := oneNodeJob("job_a", 0)
		return &trace.Trace{Jobs: []trace.Job{j}, Tasks: ts}
	}
	for _, c := range []struct {
		extra    string
		flowtime int64
		mapRun   [2]int64 // the map's allocation and end
	}{
		{`container_startup = "700ms"`, 15.2e6, [2]int64{6e6, 8.2e6}},
		{``, 19.5e6, [2]int64{3e6, 9.5e6}},
	} {
		hw := yarnNode(t, "am_heartbeat = \"1s\"\n"+c.extra)
		hw.AMStartup, hw.TaskStartup = 2.5e6, 5e6
		res := runYARN(t, one(), hw, &containerFIFO{})
		if len(res.Jobs) != 1 || res.Jobs[0].FlowtimeUs != c.flowtime {
			t.Errorf("%q: jobs %+v, want job A's flowtime %d µs", c.extra, res.Jobs, c.flowtime)
		}
		for _, k := range res.Tasks {
			if got := [2]int64{k.LaunchUs, k.FinishUs}; k.Type == "MAP" && got != c.mapRun {
				t.Errorf("%q: map allocated and ended at %v µs, want %v", c.extra, got, c.mapRun)
			}
		}
	}
}

// TestYARNContainerFailingTask: failTrace's job as a YARN job (its AM start
// recorded) in model mode with the lifecycle, container_startup 700 ms,
// retry_container_delay 400 ms, am_startup 2.5 s. Its AM asks at 3.5 s, the
// heartbeat at 6 s allocates both maps and they reach the AM at 6.5 s. Map 0
// never succeeded: its four recorded failed attempts (1 s each) run with a
// gap before each but the first, whose container's round trip the AM's
// calls already made (3 × 0.4 + 4 × 1 s): it fails at 11.7 s and its job
// with it. With a gap before every attempt (as without the container model)
// it would fail at 12.1 s.
func TestYARNContainerFailingTask(t *testing.T) {
	tr := failTrace(false)
	tr.Jobs[0].AMStartMs = 0
	hw := yarnNode(t, "am_heartbeat = \"1s\"\nlifecycle = true\ncontainer_startup = \"700ms\"\nretry_container_delay = \"400ms\"\n")
	hw.AMStartup = 2.5e6
	res := runYARN(t, tr, hw, &containerFIFO{})
	if len(res.Jobs) != 1 || res.Jobs[0].FinishUs != 11.7e6 || res.Jobs[0].Status != "FAILED" {
		t.Errorf("jobs %+v, want job_1 FAILED at 11.7 s", res.Jobs)
	}
}
