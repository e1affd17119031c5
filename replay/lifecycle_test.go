package replay_test

import (
	"errors"
	"strings"
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
//
// The job's record holds the times a history records (lcHistoryTimes): the
// map's attempt ends at 7 even when it is reported at 9; with a task start-up
// of 0.5 s (reported at once) the map holds its slot 6–7.5 and the reduce
// 9–11.5, while the record's first launch is the attempt's start, 6.5, its
// last map end 7.5 and its first reduce launch 9.5.
func TestLifecycleOneNode(t *testing.T) {
	for _, c := range []struct {
		name                           string
		extra                          string
		mapL, mapF, redL, redF, finish int64
		jobL, jobMapF, jobRedL         int64
		startupUs                      int64
	}{
		{"reported at once", "", 6e6, 7e6, 9e6, 11e6, 13e6, 6e6, 7e6, 9e6, 0},
		{"reported at the next heartbeat", "report_at_heartbeat = true", 6e6, 9e6, 9e6, 12e6, 15e6, 6e6, 7e6, 9e6, 0},
		{"out-of-band heartbeats win", "report_at_heartbeat = true\nout_of_band_heartbeat = true", 4.5e6, 5.5e6, 5.5e6, 7.5e6, 8.5e6, 4.5e6, 5.5e6, 5.5e6, 0},
		{"task start-up", "", 6e6, 7.5e6, 9e6, 11.5e6, 13e6, 6.5e6, 7.5e6, 9.5e6, 5e5},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, tasks := oneNodeJob("job_1", 0)
			hw := oneNodeHardware(t, c.extra)
			hw.TaskStartup = replay.Duration(c.startupUs)
			res := runOne(t, &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks}, hw)
			r := res.Jobs[0]
			if r.FinishUs != c.finish || r.FirstLaunchUs != c.jobL || r.LastMapEndUs != c.jobMapF ||
				r.FirstReduceLaunchUs != c.jobRedL || r.WaitingUs != c.jobL {
				t.Errorf("job: first launch %d, wait %d, last map end %d, first reduce launch %d, finish %d; want %d, %d, %d, %d, %d",
					r.FirstLaunchUs, r.WaitingUs, r.LastMapEndUs, r.FirstReduceLaunchUs, r.FinishUs,
					c.jobL, c.jobL, c.jobMapF, c.jobRedL, c.finish)
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

// retryTrace is one job (submitted at submitMs) whose map failed once: attempt
// _0 ran 2 s and failed, attempt _1 ran 1 s and succeeded; its reduce's work
// after the shuffle took 2 s. Hosts are recorded, split locations are not, so
// the observed durations hold wherever the replay runs them.
func retryTrace(submitMs int64, failed bool) *trace.Trace {
	j, tasks := oneNodeJob("job_1", submitMs)
	j.FinishMs = submitMs + 8000
	m, r := &tasks[0], &tasks[1]
	m.Host, m.StartMs, m.FinishMs, m.Status = "h1", submitMs+3000, submitMs+4000, trace.StatusSucceeded
	r.Host, r.StartMs, r.ShuffleFinishMs, r.FinishMs, r.Status = "h1", submitMs+4000, submitMs+4500, submitMs+6500, trace.StatusSucceeded
	a1 := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_1", trace.Map)
	a1.Status, a1.StartMs, a1.FinishMs, a1.Host = trace.StatusSucceeded, m.StartMs, m.FinishMs, "h1"
	ar := trace.NewAttempt("job_1", r.TaskID, r.TaskID+"_0", trace.Reduce)
	ar.Status, ar.StartMs, ar.FinishMs, ar.Host = trace.StatusSucceeded, r.StartMs, r.FinishMs, "h1"
	atts := []trace.Attempt{a1, ar}
	if failed {
		a0 := trace.NewAttempt("job_1", m.TaskID, m.TaskID+"_0", trace.Map)
		a0.Status, a0.StartMs, a0.FinishMs, a0.Host = trace.StatusFailed, submitMs+100, submitMs+2100, "h1"
		atts = append(atts, a0)
	}
	tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks, Attempts: atts}
	tr.Sort()
	return tr
}

// TestLifecycleFailedAttemptReplayed: trace times, no setup or cleanup in the
// trace (so none replayed), init 0–2, the map launched at the heartbeat at 3.
// Without the failed attempt it runs 3–4 and the reduce launches at 6: its
// observed copy tail (shuffle end 4.5 − its start 4, the map's end) 6–6.5 and
// its work 6.5–8.5: finish 8.5 s. With it the map holds its slot 2 s longer,
// 3–6, and the reduce runs 9–11.5: finish 11.5 s.
func TestLifecycleFailedAttemptReplayed(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	for _, c := range []struct {
		failed bool
		finish int64
	}{{false, 8.5e6}, {true, 11.5e6}} {
		res := runOne(t, retryTrace(0, c.failed), hw)
		if got := res.Jobs[0].FinishUs; got != c.finish {
			t.Errorf("failed attempt %v: finish %d, want %d", c.failed, got, c.finish)
		}
	}
}

// TestLifecycleBadAttempts: a trace whose only job has an attempt far
// outside its lifetime, or a task without a successful attempt, has no job
// to replay: the error says the job was left out, and why, by name, and
// whether the task has attempts at all (TestLifecycleJobsLeftOut: the job
// left out of a longer trace).
func TestLifecycleBadAttempts(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	outside := retryTrace(3_600_000, true)
	outside.Attempts[0].StartMs = 0 // an hour before the job's submit
	noSucc := retryTrace(0, false)
	noSucc.Attempts[1].Status = trace.StatusKilled // the reduce's only attempt
	noAtt := retryTrace(0, false)
	noAtt.Attempts = noAtt.Attempts[:1] // the reduce's attempt lost, as in Rumen's zombie/input-trace.json
	for _, c := range []struct {
		name string
		tr   *trace.Trace
		want string
	}{
		{"outside", outside, "outside the job's lifetime"},
		{"no success", noSucc, "task job_1_r_0 of job job_1, which succeeded, has attempts but no successful one"},
		{"no attempt", noAtt, "task job_1_r_0 of job job_1, which succeeded, has no attempt (the job's other tasks have attempts)"},
	} {
		_, err := replay.NewWorkload(c.tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		const left = "the trace has no job to replay: 1 left out, whose attempts the lifecycle cannot replay (job job_1: "
		if err == nil || !strings.Contains(err.Error(), left) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q and %q", c.name, err, left, c.want)
		}
	}
}

// TestLifecycleAttemptWithoutJob: an attempt whose job is not in the trace is
// refused with replay.ErrAttemptJobMissing, not a panic.
func TestLifecycleAttemptWithoutJob(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	tr := retryTrace(0, true)
	tr.Attempts[0].JobID = "job_missing"
	_, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
	if !errors.Is(err, replay.ErrAttemptJobMissing) || !errors.Is(err, trace.ErrBadInput) {
		t.Fatalf("err = %v, want replay.ErrAttemptJobMissing (a trace.ErrBadInput)", err)
	}
	if want := "job_missing"; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to name %q", err, want)
	}
}

// TestLifecycleObservedInit: in trace mode a job whose trace records its
// launch spends its observed submit → launch time, 4.2 s, initialising, not the
// init workers' 2 s — a YARN job (AM start recorded: submit → JOB_INITED) and
// a Hadoop 1 job with a recorded schedule (submit → LAUNCH_TIME) alike; with
// no setup task recorded its map launches at the next heartbeat, 6 s, the
// YARN job's at its AM's next allocate call after that, 6.2 s (its calls at
// 5.2, 6.2, … s; its maps reach the scheduler at the first; no attempt
// starts after JOB_INITED, so its launch time is 0: yarn_slotam.go). Without
// a launch time, with a launch before the submit (clocks), or with model task
// times, the init workers take 2 s and the map launches at 3 s.
func TestLifecycleObservedInit(t *testing.T) {
	for _, c := range []struct {
		name       string
		am, launch int64
		times      replay.TaskTimeSource
		first      int64
	}{
		{"YARN", 1000, 4200, "trace", 6.2e6},
		{"Hadoop 1", -1, 4200, "trace", 6e6},
		{"no launch", -1, trace.Unknown, "trace", 3e6},
		{"launch before submit", -1, 4200, "trace", 3e6},
		{"model times", -1, 4200, "model", 3e6},
	} {
		hw := oneNodeHardware(t, "")
		hw.TaskTimes = c.times
		submit := int64(0)
		if c.name == "launch before submit" {
			submit = 5000
		}
		tr := retryTrace(submit, false)
		tr.Jobs[0].AMStartMs, tr.Jobs[0].LaunchMs = c.am, c.launch
		r := runOne(t, tr, hw).Jobs[0]
		if got := r.FirstLaunchUs - r.SubmitUs; got != c.first {
			t.Errorf("%s: first launch %d after the submit, want %d", c.name, got, c.first)
		}
	}
}

// TestLifecycleObservedCopyTail: the reduce's observed copy tail is replayed
// after the later of its start and the last map's end. The map runs 3000–4000
// ms and the reduce 3500–9000 ms with its shuffle ending at 7000: tail 3 s
// (7000 − 4000), work 2 s. Replayed: map 3–4 s, the reduce launched at the
// heartbeat at 6, copies 6–9 and works 9–11. Without the recorded
// shuffle end the whole observed 5.5 s less the modelled copy (0 bytes: 0) is
// reduce work: 6–11.5.
func TestLifecycleObservedCopyTail(t *testing.T) {
	for _, c := range []struct {
		name    string
		shuffle int64
		finish  int64
	}{{"shuffle end recorded", 7000, 11e6}, {"no shuffle end", trace.Unknown, 11.5e6}} {
		hw := oneNodeHardware(t, "")
		hw.TaskTimes = "trace"
		tr := retryTrace(0, false)
		for i := range tr.Tasks {
			if r := &tr.Tasks[i]; r.Type == trace.Reduce {
				r.StartMs, r.ShuffleFinishMs, r.FinishMs = 3500, c.shuffle, 9000
			}
		}
		for i := range tr.Attempts {
			if a := &tr.Attempts[i]; a.Type == trace.Reduce {
				a.StartMs, a.FinishMs = 3500, 9000
			}
		}
		tr.Jobs[0].FinishMs = 10000
		if got := runOne(t, tr, hw).Jobs[0].FinishUs; got != c.finish {
			t.Errorf("%s: finish %d, want %d", c.name, got, c.finish)
		}
	}
}

// TestLifecycleClusterUp: no tracker heartbeats before task_startup (0 here)
// and one interval (3 s) before the trace's earliest task start. The job is
// initialised by 0.1 s; with its map recorded at 3–4 s the bound is 0 and the
// map launches at the heartbeat at 3 s; with the trace shifted so that its
// first task starts at 20 s (trackers that joined late) the bound is 17 s and
// the map launches at the heartbeat at 18 s.
func TestLifecycleClusterUp(t *testing.T) {
	for _, c := range []struct {
		shiftMs int64
		first   int64
	}{{0, 3e6}, {17000, 18e6}} {
		hw := oneNodeHardware(t, "")
		hw.TaskTimes = "trace"
		tr := retryTrace(0, false)
		tr.Jobs[0].LaunchMs = 100
		tr.Jobs[0].FinishMs += c.shiftMs
		for i := range tr.Tasks {
			tt := &tr.Tasks[i]
			tt.StartMs, tt.FinishMs = tt.StartMs+c.shiftMs, tt.FinishMs+c.shiftMs
			if tt.ShuffleFinishMs >= 0 {
				tt.ShuffleFinishMs += c.shiftMs
			}
		}
		for i := range tr.Attempts {
			a := &tr.Attempts[i]
			a.StartMs, a.FinishMs = a.StartMs+c.shiftMs, a.FinishMs+c.shiftMs
		}
		if got := runOne(t, tr, hw).Jobs[0].FirstLaunchUs; got != c.first {
			t.Errorf("first task at %d ms: first launch %d, want %d", 3000+c.shiftMs, got, c.first)
		}
	}
}
