package replay_test

import (
	"fmt"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// orderJob is a trace-mode job submitted at submitMs and launched (its
// observed submit → launch, the replay's init time) at launchMs, with a 1 s
// setup task and maps of the given observed durations (ms), no reduce.
func orderJob(id string, submitMs, launchMs int64, mapsMs ...int64) (trace.Job, []trace.Task) {
	j := trace.NewJob(id)
	j.SubmitMs, j.LaunchMs, j.Status = submitMs, launchMs, trace.StatusSucceeded
	j.FinishMs = launchMs + 60000
	j.NumMaps, j.NumReduces = int32(len(mapsMs)), 0
	s := trace.NewTask(id, id+"_s_0", trace.Setup, 0)
	s.Host, s.StartMs, s.FinishMs, s.Status = "h1", launchMs, launchMs+1000, trace.StatusSucceeded
	tasks := []trace.Task{s}
	for i, d := range mapsMs {
		m := trace.NewTask(id, fmt.Sprintf("%s_m_%d", id, i), trace.Map, int32(i))
		m.Host, m.StartMs, m.FinishMs, m.Status = "h1", launchMs+1000, launchMs+1000+d, trace.StatusSucceeded
		tasks = append(tasks, m)
	}
	return j, tasks
}

// TestLifecycleCandidatesInSubmitOrder: with the lifecycle a job becomes a
// candidate when its setup ends, but among the candidates the job submitted
// first comes first, as in JobQueueTaskScheduler's queue (start time, then job
// id), whichever setup ended first. One node, one map slot, heartbeats at 0,
// 3, 6, … s, completions reported at once, trace times.
//
// job_1 (submitted 0) initialises for its observed 4 s; job_2 (submitted 0.1
// s) for 0.2 s. job_2's setup runs 3–4 (heartbeat at 3), and its four 2 s
// maps become candidates at 4; job_1's setup takes the heartbeat at 6 (a
// heartbeat that launches a setup launches nothing else) and runs 6–7. At the
// heartbeat at 9 both jobs have pending maps: fifo takes job_1's, submitted
// first (9–10), then job_2's at 12, 15, 18, 21. In setup-end order job_2's
// four maps would run first and job_1's map would wait until 21.
func TestLifecycleCandidatesInSubmitOrder(t *testing.T) {
	j1, t1 := orderJob("job_1", 0, 4000, 1000)
	j2, t2 := orderJob("job_2", 100, 300, 2000, 2000, 2000, 2000)
	tr := &trace.Trace{Jobs: []trace.Job{j1, j2}, Tasks: append(t1, t2...)}
	tr.Sort()
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	res := runOne(t, tr, hw)
	want := map[string][]int64{"job_1": {9e6}, "job_2": {12e6, 15e6, 18e6, 21e6}}
	got := map[string][]int64{}
	for _, k := range res.Tasks {
		if k.Type == "MAP" {
			got[k.JobID] = append(got[k.JobID], k.LaunchUs)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("map launches %v, want %v", got, want)
	}
}
