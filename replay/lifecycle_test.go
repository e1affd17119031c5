package replay_test

import (
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// oneNodeJob is a job of one map (1e6 input bytes) and one reduce (2e6 output
// bytes) with its tasks listed and no times: on a 1 MB/s disk with no start-up
// the map takes 1 s and the reduce's work 2 s.
func oneNodeJob(id string, submitMs int64) (trace.Job, []trace.Task) {
	j := trace.NewJob(id)
	j.SubmitMs, j.Status = submitMs, trace.StatusSucceeded
	j.InputBytes, j.ShuffleBytes, j.OutputBytes = 1e6, 0, 2e6
	m := trace.NewTask(id, id+"_m_0", trace.Map, 0)
	m.InputBytes, m.OutputBytes = 1e6, 0
	r := trace.NewTask(id, id+"_r_0", trace.Reduce, 0)
	r.ShuffleBytes, r.OutputBytes = 0, 2e6
	return j, []trace.Task{m, r}
}

func oneNodeHardware(t *testing.T, extra string) replay.Hardware {
	t.Helper()
	hw, err := replay.ParseHardware([]byte(`
racks = 1
nodes_per_rack = 1
map_slots = 1
reduce_slots = 1
replication = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat = "3s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
lifecycle = true
job_init_time = "2s"
setup_task = "1.5s"
cleanup_task = "1s"
` + extra))
	if err != nil {
		t.Fatal(err)
	}
	return hw
}

func runOne(t *testing.T, tr *trace.Trace, hw replay.Hardware) *replay.Result {
	t.Helper()
	topo := replay.NewTopology(&hw, 1)
	w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(w, mustPolicy(t, "fifo"), replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLifecycleOneNode replays one job on one node (one map slot, one reduce
// slot, heartbeats at 0, 3, 6, … s) and checks every time by hand.
//
// Reported at once: submit 0; init 0–2; the setup waits for the heartbeat at 3
// and holds the map slot 3–4.5; the maps are handed to the policy at 4.5 and
// launched at the next heartbeat, 6; the map runs 6–7; the reduce, ready at 7,
// launches at 9 and its work runs 9–11; the cleanup launches at the heartbeat
// at 12 and runs 12–13: flowtime 13 s, first task at 6 s.
//
// Reported at the next heartbeat: the setup ends at 4.5, reported at 6, where
// the same heartbeat launches the map (6–7, reported at 9); the reduce launches
// at 9 and runs 9–11, reported at 12; that heartbeat launches the cleanup,
// 12–13, reported at 15: flowtime 15 s.
//
// Out-of-band heartbeats: each completion brings a heartbeat at once, so the
// map runs 4.5–5.5, the reduce 5.5–7.5 and the cleanup 7.5–8.5.
func TestLifecycleOneNode(t *testing.T) {
	for _, c := range []struct {
		name                           string
		extra                          string
		mapL, mapF, redL, redF, finish int64
	}{
		{"reported at once", "", 6e6, 7e6, 9e6, 11e6, 13e6},
		{"reported at the next heartbeat", "report_at_heartbeat = true", 6e6, 9e6, 9e6, 12e6, 15e6},
		{"out-of-band heartbeats win", "report_at_heartbeat = true\nout_of_band_heartbeat = true", 4.5e6, 5.5e6, 5.5e6, 7.5e6, 8.5e6},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, tasks := oneNodeJob("job_1", 0)
			res := runOne(t, &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks}, oneNodeHardware(t, c.extra))
			r := res.Jobs[0]
			if r.FinishUs != c.finish || r.FirstLaunchUs != c.mapL || r.LastMapEndUs != c.mapF {
				t.Errorf("job: first launch %d, last map end %d, finish %d; want %d, %d, %d",
					r.FirstLaunchUs, r.LastMapEndUs, r.FinishUs, c.mapL, c.mapF, c.finish)
			}
			for _, k := range res.Tasks {
				want := [2]int64{c.mapL, c.mapF}
				if k.Type == "REDUCE" {
					want = [2]int64{c.redL, c.redF}
				}
				if k.LaunchUs != want[0] || k.FinishUs != want[1] {
					t.Errorf("%s: %d–%d, want %d–%d", k.Type, k.LaunchUs, k.FinishUs, want[0], want[1])
				}
			}
		})
	}
}

// TestLifecycleInitPoll: a poller every 5 s whose init threads take jobs up
// half an interval after its ticks, one worker taking 2 s, two jobs on the one
// node; a heartbeat that launches a setup or cleanup task launches nothing else
// (Hadoop 1's JobTracker.heartbeat).
//
// job_1 (submitted 0): polled at 0, taken up at 2.5, initialised 2.5–4.5,
// setup 6–7.5, map 9–10. job_2 (submitted 1): polled at 5, initialised
// 7.5–9.5. The heartbeat at 12 launches job_2's setup (12–13.5), so job_1's
// reduce, ready since 10, waits for the heartbeat at 15, which launches it
// (15–17) with job_2's empty map (15–15). The heartbeat at 18 launches job_1's
// cleanup (18–19) and nothing else: job_2's reduce runs 21–23 and its cleanup
// 24–25.
func TestLifecycleInitPoll(t *testing.T) {
	j1, t1 := oneNodeJob("job_1", 0)
	j2, t2 := oneNodeJob("job_2", 1000)
	j2.InputBytes, t2[0].InputBytes = 0, 0 // a map of 0 s, a reduce of 2 s
	tr := &trace.Trace{Jobs: []trace.Job{j1, j2}, Tasks: append(t1, t2...)}
	res := runOne(t, tr, oneNodeHardware(t, `job_init_poll = "5s"`))
	want := map[string][2]int64{"job_1": {9e6, 19e6}, "job_2": {15e6, 25e6}}
	for _, r := range res.Jobs {
		if got := [2]int64{r.FirstLaunchUs, r.FinishUs}; got != want[r.JobID] {
			t.Errorf("%s: first launch %d, finish %d; want %v", r.JobID, got[0], got[1], want[r.JobID])
		}
	}
}

// TestLifecycleOffIsDefault: without the key, setup and cleanup tasks in the
// trace change nothing.
func TestLifecycleOffIsDefault(t *testing.T) {
	j, tasks := oneNodeJob("job_1", 0)
	hw := oneNodeHardware(t, "")
	hw.Lifecycle = false
	base := runOne(t, &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks}, hw)
	s := trace.NewTask("job_1", "job_1_m_1", trace.Setup, 1)
	s.StartMs, s.FinishMs, s.Host = 0, 5000, "h"
	with := runOne(t, &trace.Trace{Jobs: []trace.Job{j}, Tasks: append(tasks, s)}, hw)
	if base.Jobs[0] != with.Jobs[0] {
		t.Errorf("a setup task changed the replay without the lifecycle:\n%+v\n%+v", base.Jobs[0], with.Jobs[0])
	}
}
