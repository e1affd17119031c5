package replay_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
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
// gap is task_startup (0): the map ends at 5 s; a Hadoop 1 job's reduce
// launches at the heartbeat at 6 s and runs 6–7 s: finish 7 s. A YARN job
// (AM recorded) takes its containers at its AM's allocate calls, 3, 4, 5, …
// s (yarn_slotam.go; launch time (7 − 2) mod 1 = 0 from the reduce, the
// map's start being its retry's): its map, assigned at the heartbeat at 3 s,
// is taken at the call at 3 s; its AM decides the reduce at the call after
// the map's end and asks at the next (6 and 7 s after a 5 s end, 7 and 8 s
// after a 6.5 s one), so the reduce waits for the heartbeat at 9 s, is taken
// at the call at 9 s and runs 9–10 s: finish 10 s with or without the delay.
// With retry_container_delay = 1.5 s a YARN job's map ends at 3 + 1 + 1.5 +
// 1 = 6.5 s. A Hadoop 1 job keeps task_startup: 5 s, 7 s.
func TestRetryContainerDelay(t *testing.T) {
	for _, c := range []struct {
		yarn           bool
		delay          string
		mapEnd, finish int64
	}{
		{true, "0s", 5e6, 10e6},
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

// initLimitTrace is three map-only jobs, A, B and C, submitted at 1, 1.1 and
// 1.2 s (trace time) by users ua, ub and uc (or all by one user), each with
// one 1.5 MB map.
func initLimitTrace(oneUser bool) *trace.Trace {
	tr := &trace.Trace{}
	for k, id := range []string{"A", "B", "C"} {
		j := trace.NewJob(id)
		j.SubmitMs, j.Status, j.Queue, j.User = 1000+100*int64(k), trace.StatusSucceeded, "default", "u"+strings.ToLower(id)
		if oneUser {
			j.User = "u"
		}
		j.NumMaps, j.NumReduces, j.InputBytes, j.ShuffleBytes, j.OutputBytes = 1, 0, 1.5e6, 0, 0
		m := trace.NewTask(id, id+"_m_0", trace.Map, 0)
		m.InputBytes, m.OutputBytes = 1.5e6, 0
		tr.Jobs = append(tr.Jobs, j)
		tr.Tasks = append(tr.Tasks, m)
	}
	tr.Sort()
	return tr
}

// TestInitPerUserLimits replays initLimitTrace on one node (4 map and 4
// reduce slots, heartbeats every 1 s at whole seconds, no start-up) through
// the Capacity scheduler's init poller (job_init_poll 5 s: ticks at 0, 5,
// 10, … s, the threads' rounds 2.5 s after a tick that selected jobs; one
// thread, as the Capacity scheduler has for one queue, 2.3 s per job; setup
// and cleanup 0.5 s; maps 1.5 s at 1 MB/s; a heartbeat hands out one setup
// or cleanup task, cleanups first). Times
// count from A's submission: A at 0, B at 0.1 s, C at 0.2 s.
//
// Without limits: the tick at 0 selects A: init 2.5–4.8, setup at the
// heartbeat at 5 s (5–5.5), map 6–7.5 s. The tick at 5 s selects B and C:
// init 7.5–9.8 and 9.8–12.1; B's setup at 10 s, its map 11–12.5 s; B's
// cleanup takes the heartbeat at 13 s, C's setup the one at 14 s, C's map
// launches at 15 s. First launches 6, 11, 15 s. The same with
// job_init_jobs_per_user = 1 and three users.
//
// With job_init_jobs_per_user = 1 and one user (or job_init_users = 1 and
// three users): at the tick at 5 s A is initialised but not scheduled (its
// map launches at 6 s), so it counts and neither B nor C is selected. At 10
// s A is scheduled and dropped: B is selected (init 12.5–14.8, setup at 15
// s, map at 16 s), C is not; at 15 s B is not yet scheduled, so C waits; at
// 20 s C is selected: init 22.5–24.8, setup at 25 s, map at 26 s. First
// launches 6, 16, 26 s.
func TestInitPerUserLimits(t *testing.T) {
	base := `racks = 1
nodes_per_rack = 1
map_slots = 4
reduce_slots = 4
replication = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
lifecycle = true
job_init_poll = "5s"
job_init_threads = 1
job_init_time = "2300ms"
setup_task = "500ms"
cleanup_task = "500ms"
`
	for _, c := range []struct {
		name    string
		extra   string
		oneUser bool
		want    [3]int64
	}{
		{"no limit", "", true, [3]int64{6e6, 11e6, 15e6}},
		{"one job per user", "job_init_jobs_per_user = 1", true, [3]int64{6e6, 16e6, 26e6}},
		{"one user", "job_init_users = 1", false, [3]int64{6e6, 16e6, 26e6}},
		{"one job per user, three users", "job_init_jobs_per_user = 1", false, [3]int64{6e6, 11e6, 15e6}},
	} {
		hw, err := replay.ParseHardware([]byte(base + c.extra))
		if err != nil {
			t.Fatal(err)
		}
		res := runOne(t, initLimitTrace(c.oneUser), hw)
		var got [3]int64
		for _, j := range res.Jobs {
			got[j.JobIndex] = j.FirstLaunchUs
		}
		if got != c.want {
			t.Errorf("%s: first launches %v µs, want %v", c.name, got, c.want)
		}
	}
}

// TestInitPerUserLimitsBad: negative limits are refused.
func TestInitPerUserLimitsBad(t *testing.T) {
	for _, v := range []string{"job_init_jobs_per_user = -1", "job_init_users = -2", `job_init_users = "x"`} {
		if _, err := replay.ParseHardware([]byte(v)); err == nil {
			t.Errorf("%s accepted", v)
		}
	}
}

// jvmTrace is job A (submitted at 0) of three 1 MB maps and, with b, job B
// (at 0.1 s) of one.
func jvmTrace(b bool) *trace.Trace {
	tr := &trace.Trace{}
	for k, id := range []string{"A", "B"} {
		if k == 1 && !b {
			break
		}
		n := 3 - 2*k
		j := trace.NewJob(id)
		j.SubmitMs, j.Status = 100*int64(k), trace.StatusSucceeded
		j.NumMaps, j.NumReduces, j.InputBytes, j.ShuffleBytes, j.OutputBytes = int32(n), 0, int64(n)*1e6, 0, 0
		tr.Jobs = append(tr.Jobs, j)
		for i := range n {
			m := trace.NewTask(id, fmt.Sprintf("%s_m_%d", id, i), trace.Map, int32(i))
			m.InputBytes, m.OutputBytes = 1e6, 0
			tr.Tasks = append(tr.Tasks, m)
		}
	}
	tr.Sort()
	return tr
}

// TestJVMReuse replays jvmTrace on one node with one map slot (heartbeats
// at 0, 3, 6, 9 s, no lifecycle, maps 1 s of work plus 1 s of task_startup,
// FIFO). Without reuse A's maps run 0–2, 3–5 and 6–8 s. With jvm_reuse = -1
// the second and third reuse the first's JVM and skip the start-up: 3–4 and
// 6–7 s; with jvm_reuse = 2 the JVM runs two tasks, so the third starts a new
// one: 6–8 s. With job B (FIFO runs it after A's three maps, at 9 s) and
// jvm_reuse = -1, the slot's idle JVM is A's, so B's map starts its own:
// 9–11 s. A negative limit other than -1, a string or a fraction is refused.
func TestJVMReuse(t *testing.T) {
	base := `racks = 1
nodes_per_rack = 1
map_slots = 1
reduce_slots = 1
replication = 1
disk_mb_per_s = 1
task_startup = "1s"
heartbeat = "3s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
`
	for _, c := range []struct {
		reuse string
		b     bool
		want  map[string][2]int64 // job/index → launch, finish (s)
	}{
		{"1", false, map[string][2]int64{"A0": {0, 2}, "A1": {3, 5}, "A2": {6, 8}}},
		{"-1", false, map[string][2]int64{"A0": {0, 2}, "A1": {3, 4}, "A2": {6, 7}}},
		{"2", false, map[string][2]int64{"A0": {0, 2}, "A1": {3, 4}, "A2": {6, 8}}},
		{"-1", true, map[string][2]int64{"A0": {0, 2}, "A1": {3, 4}, "A2": {6, 7}, "B0": {9, 11}}},
	} {
		hw, err := replay.ParseHardware([]byte(base + "jvm_reuse = " + c.reuse))
		if err != nil {
			t.Fatal(err)
		}
		res := runOne(t, jvmTrace(c.b), hw)
		got := map[string][2]int64{}
		for _, x := range res.Tasks {
			got[fmt.Sprintf("%s%d", x.JobID, x.Index)] = [2]int64{x.LaunchUs / 1e6, x.FinishUs / 1e6}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("jvm_reuse %s, job B %v: tasks %v, want %v", c.reuse, c.b, got, c.want)
		}
	}
	for _, v := range []string{"-2", `"x"`, "1.5"} {
		if _, err := replay.ParseHardware([]byte("jvm_reuse = " + v)); err == nil {
			t.Errorf("jvm_reuse = %s accepted", v)
		}
	}
}

// TestSortPhase replays, in model mode on one node (one map and one reduce
// slot, heartbeats every 3 s at 0, 3, …, no start-up, no lifecycle, 1 MB/s
// disk and NIC), a job of one map (1 MB in, 1 MB out: 2 s) and one reduce
// (1 MB shuffled, no output): the map runs 0–2 s; the reduce launches at the
// heartbeat at 3 s and copies 3–4 s (1 s at the NIC rate, after the map's
// output is ready); its work is 1 MB at the disk rate, 1 s: finish 5 s.
// With sort_mb_per_s = 0.5 the sort adds 2 s before it: finish 7 s; the
// shuffle still ends at 4 s.
func TestSortPhase(t *testing.T) {
	base := `racks = 1
nodes_per_rack = 1
map_slots = 1
reduce_slots = 1
replication = 1
disk_mb_per_s = 1
nic_mb_per_s = 1
task_startup = "0s"
heartbeat = "3s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
`
	j, tasks := oneNodeJob("job_1", 0)
	j.ShuffleBytes, j.OutputBytes = 1e6, 0
	tasks[0].OutputBytes = 1e6
	tasks[1].ShuffleBytes, tasks[1].OutputBytes = 1e6, 0
	tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks}
	tr.Sort()
	for _, c := range []struct {
		extra           string
		shuffle, finish int64
	}{{"", 4e6, 5e6}, {"sort_mb_per_s = 0.5", 4e6, 7e6}} {
		hw, err := replay.ParseHardware([]byte(base + c.extra))
		if err != nil {
			t.Fatal(err)
		}
		res := runOne(t, tr, hw)
		for _, x := range res.Tasks {
			if x.Type == "REDUCE" && (x.LaunchUs != 3e6 || x.ShuffleEndUs != c.shuffle || x.FinishUs != c.finish) {
				t.Errorf("%q: reduce %+v, want launch 3 s, shuffle end %d, finish %d", c.extra, x, c.shuffle, c.finish)
			}
		}
		if res.Jobs[0].FinishUs != c.finish {
			t.Errorf("%q: job finishes at %d, want %d", c.extra, res.Jobs[0].FinishUs, c.finish)
		}
	}
	for _, v := range []string{"-1", `"fast"`, "1e10"} {
		if _, err := replay.ParseHardware([]byte("sort_mb_per_s = " + v)); err == nil {
			t.Errorf("sort_mb_per_s = %s accepted", v)
		}
	}
}

// TestSetupAttemptRetried replays a Hadoop 1 job (submit 0, no recorded
// launch) whose setup task's first attempt failed after 3 s and whose second
// ran 0.5 s, on one node (one map and one reduce slot, heartbeats at 0, 3,
// 6, … s, no start-up, init 2 s, trace times): init 0–2 s; the heartbeat at
// 3 s launches the setup, which holds the map slot for its failed attempt
// and its successful one, 3–6.5 s; the map launches at 9 s (9–10 s), the
// reduce at 12 s (12–13 s): finish 13 s. Without the failed attempt the
// setup runs 3–3.5 s, the map 6–7 s, the reduce 9–10 s: finish 10 s.
func TestSetupAttemptRetried(t *testing.T) {
	build := func(failed bool) *trace.Trace {
		j, tasks := oneNodeJob("job_1", 0)
		j.FinishMs = 8000
		m, r := &tasks[0], &tasks[1]
		m.Host, m.StartMs, m.FinishMs, m.Status = "h1", 5000, 6000, trace.StatusSucceeded
		r.Host, r.StartMs, r.FinishMs, r.Status = "h1", 6500, 7500, trace.StatusSucceeded
		su := trace.NewTask("job_1", "job_1_m_1", trace.Setup, 1)
		su.Host, su.StartMs, su.FinishMs, su.Status = "h1", 3600, 4100, trace.StatusSucceeded
		tasks = append(tasks, su)
		var atts []trace.Attempt
		for _, x := range []struct {
			task          *trace.Task
			id, status    string
			start, finish int64
		}{
			{m, "_0", trace.StatusSucceeded, 5000, 6000}, {r, "_0", trace.StatusSucceeded, 6500, 7500},
			{&tasks[2], "_0", trace.StatusFailed, 500, 3500}, {&tasks[2], "_1", trace.StatusSucceeded, 3600, 4100},
		} {
			if x.status == trace.StatusFailed && !failed {
				continue
			}
			a := trace.NewAttempt("job_1", x.task.TaskID, x.task.TaskID+x.id, x.task.Type)
			a.Status, a.StartMs, a.FinishMs, a.Host = x.status, x.start, x.finish, "h1"
			atts = append(atts, a)
		}
		tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks, Attempts: atts}
		tr.Sort()
		return tr
	}
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	for _, c := range []struct {
		failed       bool
		map0, finish int64
	}{{true, 9e6, 13e6}, {false, 6e6, 10e6}} {
		res := runOne(t, build(c.failed), hw)
		if jr := res.Jobs[0]; jr.FirstLaunchUs != c.map0 || jr.FinishUs != c.finish {
			t.Errorf("failed setup attempt %v: first launch %d, finish %d µs; want %d, %d", c.failed, jr.FirstLaunchUs, jr.FinishUs, c.map0, c.finish)
		}
	}
}

// TestLaterKeysInRecordedModel: the later lifecycle keys are left out of the
// recorded hardware JSON (FieldJSON, and so the model's identity) at their
// defaults, and written when one is set.
func TestLaterKeysInRecordedModel(t *testing.T) {
	d := replay.DefaultHardware()
	b, err := d.FieldJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"RetryContainerDelay", "JobInitJobsPerUser", "JobInitUsers", "JVMReuse", "SortMBps"} {
		if strings.Contains(string(b), k) {
			t.Errorf("default model's FieldJSON holds %s: %s", k, b)
		}
	}
	h := d
	h.JVMReuse, h.SortMBps = -1, 2.5
	b, err = h.FieldJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"JVMReuse":-1,"SortMBps":2.5`) || strings.Contains(string(b), `"Lifecycle"`) {
		t.Errorf("FieldJSON with jvm_reuse and sort_mb_per_s set: %s", b)
	}
	if replay.HardwareSHA256(h) == replay.HardwareSHA256(d) {
		t.Error("setting jvm_reuse and sort_mb_per_s leaves the model's identity unchanged")
	}
}

// TestYARNRetryGaps prints (with -v) and pins what docs/validation.md says of
// the .jhist histories: from each failed attempt's end to its task's next
// attempt's start, and from JOB_INITED to the job's first attempt's start;
// and, for the two FAILED ones replayed on their derived clusters with the
// default model, the replay's JOB_INITED → first attempt: two of the AM's
// allocate calls (yarn_slotam.go; launch time 0, every map of theirs being
// retried; the tracker's next heartbeat plus task_startup before h-yarnturn,
// 1.780 s and 1.929 s).
func TestYARNRetryGaps(t *testing.T) {
	want := map[string]struct {
		gaps    []int64 // ms, in attempt order per task, tasks in id order
		initGap int64   // ms
		replay  int64   // µs, the replay's JOB_INITED → first attempt (FAILED ones)
	}{
		"job_2.4.0-FAILED.jhist":  {[]int64{1321, 1773, 2844}, 2192, 2000000},
		"job_0.23.9-FAILED.jhist": {[]int64{1639, 1787, 1722, 1438, 1626, 1660}, 2122, 2000000},
		"job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist":                    {nil, 2177, -1},
		"job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist": {nil, 2208, -1},
		"job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist":         {nil, 2212, -1},
	}
	for name, w := range want {
		tr, _, err := trace.ReadTree(context.Background(), filepath.Join("..", "trace", "testdata", "jhist", name), trace.TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var gaps []int64
		var pairs [][2]int64 // a failed attempt's end and its task's next start, ms
		first := int64(-1)
		for i := range tr.Attempts { // sorted by task id, then start
			a := &tr.Attempts[i]
			if first < 0 || a.StartMs < first {
				first = a.StartMs
			}
			if i > 0 {
				if p := &tr.Attempts[i-1]; p.TaskID == a.TaskID && p.Status == trace.StatusFailed {
					gaps = append(gaps, a.StartMs-p.FinishMs)
					pairs = append(pairs, [2]int64{p.FinishMs, a.StartMs})
				}
			}
		}
		initGap := first - tr.Jobs[0].LaunchMs
		t.Logf("%s: retry gaps %v ms (failed attempt's end, next start: %v), JOB_INITED -> first attempt %d ms", name, gaps, pairs, initGap)
		if !reflect.DeepEqual(gaps, w.gaps) || initGap != w.initGap {
			t.Errorf("%s: gaps %v, init gap %d; want %v, %d", name, gaps, initGap, w.gaps, w.initGap)
		}
		if w.replay < 0 {
			continue
		}
		hw, _, err := replay.TraceHardware(tr, replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		res := runOne(t, tr, hw)
		got := res.Jobs[0].FirstLaunchUs - (tr.Jobs[0].LaunchMs-tr.Jobs[0].SubmitMs)*1000
		t.Logf("%s: the replay's JOB_INITED -> first attempt %d µs", name, got)
		if got != w.replay {
			t.Errorf("%s: the replay's JOB_INITED -> first attempt %d µs, want %d", name, got, w.replay)
		}
	}
}

// setupLaunches records when each job's setup task is launched.
type setupLaunches struct {
	replay.NopObserver
	at map[int32]int64
}

func (o *setupLaunches) TaskLaunched(e replay.TaskEvent) {
	if e.Kind == replay.TaskSetup {
		o.at[e.Job.Index] = e.Time
	}
}

// TestInitWorkerPool replays six one-map jobs submitted 0.1 s apart (at 0,
// 0.1, …, 0.5 s) on eight nodes of one map slot whose heartbeats all fall on
// whole seconds, each job's init 2.3 s, and checks by hand when each job's
// setup task is launched: at the first heartbeat after its init, each node's
// heartbeat launching one setup task.
//
// Four workers (Hadoop 1's mapred.jobinit.threads default, the model's):
// jobs 0–3 init at once, 0–2.3, 0.1–2.4, 0.2–2.5 and 0.3–2.6 s; job 4 takes
// the worker freed at 2.3 s (2.3–4.6), job 5 the one freed at 2.4 s (2.4–4.7).
// Setups at 3, 3, 3, 3, 5, 5 s.
//
// One worker: the jobs init one after another, 0–2.3, 2.3–4.6, 4.6–6.9,
// 6.9–9.2, 9.2–11.5 and 11.5–13.8 s: setups at 3, 5, 7, 10, 12 and 14 s.
func TestInitWorkerPool(t *testing.T) {
	tr := &trace.Trace{}
	for k := range 6 {
		id := fmt.Sprintf("J%d", k)
		j := trace.NewJob(id)
		j.SubmitMs, j.Status, j.User = 1000+100*int64(k), trace.StatusSucceeded, "u"
		j.NumMaps, j.NumReduces, j.InputBytes = 1, 0, 1e6
		m := trace.NewTask(id, id+"_m_0", trace.Map, 0)
		m.InputBytes, m.OutputBytes = 1e6, 0
		tr.Jobs = append(tr.Jobs, j)
		tr.Tasks = append(tr.Tasks, m)
	}
	tr.Sort()
	base := `racks = 1
nodes_per_rack = 8
map_slots = 1
reduce_slots = 1
replication = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
lifecycle = true
job_init_time = "2300ms"
setup_task = "500ms"
cleanup_task = "500ms"
`
	for _, c := range []struct {
		name  string
		extra string
		want  [6]int64
	}{
		{"default (4 workers)", "", [6]int64{3e6, 3e6, 3e6, 3e6, 5e6, 5e6}},
		{"4 workers", "job_init_threads = 4", [6]int64{3e6, 3e6, 3e6, 3e6, 5e6, 5e6}},
		{"1 worker", "job_init_threads = 1", [6]int64{3e6, 5e6, 7e6, 10e6, 12e6, 14e6}},
	} {
		hw, err := replay.ParseHardware([]byte(base + c.extra))
		if err != nil {
			t.Fatal(err)
		}
		topo := replay.NewTopology(&hw, 1)
		w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o := &setupLaunches{at: map[int32]int64{}}
		if _, err := replay.Run(w, mustPolicy(t, "fifo"), replay.Options{Seed: 1, CheckInvariants: true, Observers: []replay.Observer{o}}); err != nil {
			t.Fatal(err)
		}
		var got [6]int64
		for k := range got {
			got[k] = o.at[int32(k)]
		}
		if got != c.want {
			t.Errorf("%s: setup launches %v µs, want %v", c.name, got, c.want)
		}
	}
}

// TestSetupCleanupLaunchLag: in trace mode a setup or cleanup task whose trace
// records its launch lag (trace schema 2.2: the attempt's start less the
// JobTracker's assignment, Hadoop 1 histories and Rumen traces of them) holds
// its slot for that lag before its observed attempt, as a map or reduce does,
// instead of task_startup (0 here). One node (heartbeats at 0, 3, 6, … s,
// init 2 s), the setup's attempt 0.5 s, the cleanup's 0.5 s, the map's 1 s,
// the reduce's 1 s. No lags: setup 3–3.5 s, map 6–7 s, reduce 9–10 s, cleanup
// 12–12.5 s. A 3 s setup lag: setup 3–6.5 s, map 9–10 s, reduce 12–13 s,
// cleanup 15–15.5 s. A 3 s cleanup lag: the cleanup 12–15.5 s.
func TestSetupCleanupLaunchLag(t *testing.T) {
	build := func(setupLag, cleanupLag int64) *trace.Trace {
		j, tasks := oneNodeJob("job_1", 0)
		j.FinishMs = 13000
		m, r := &tasks[0], &tasks[1]
		m.Host, m.StartMs, m.FinishMs, m.Status = "h1", 5000, 6000, trace.StatusSucceeded
		r.Host, r.StartMs, r.FinishMs, r.Status = "h1", 6500, 7500, trace.StatusSucceeded
		su := trace.NewTask("job_1", "job_1_m_1", trace.Setup, 1)
		su.Host, su.StartMs, su.FinishMs, su.Status, su.LaunchLagMs = "h1", 3600, 4100, trace.StatusSucceeded, setupLag
		cu := trace.NewTask("job_1", "job_1_m_2", trace.Cleanup, 2)
		cu.Host, cu.StartMs, cu.FinishMs, cu.Status, cu.LaunchLagMs = "h1", 8000, 8500, trace.StatusSucceeded, cleanupLag
		tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: append(tasks, su, cu)}
		tr.Sort()
		return tr
	}
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	for _, c := range []struct {
		name                  string
		setupLag, cleanupLag  int64
		firstLaunch, finishUs int64
	}{
		{"no lags", trace.Unknown, trace.Unknown, 6e6, 12.5e6},
		{"setup lag", 3000, trace.Unknown, 9e6, 15.5e6},
		// The cleanup's known lag also replays its report: the job's
		// recorded finish (13 s) less its attempt's end (8.5 s), 4.5 s
		// (TestCleanupReportLag).
		{"cleanup lag", trace.Unknown, 3000, 6e6, 20e6},
	} {
		res := runOne(t, build(c.setupLag, c.cleanupLag), hw)
		if jr := res.Jobs[0]; jr.FirstLaunchUs != c.firstLaunch || jr.WaitingUs != c.firstLaunch || jr.FinishUs != c.finishUs {
			t.Errorf("%s: first launch %d, wait %d, finish %d µs; want %d, %d, %d", c.name, jr.FirstLaunchUs, jr.WaitingUs, jr.FinishUs, c.firstLaunch, c.firstLaunch, c.finishUs)
		}
	}
}

// TestCleanupReportLag checks that in trace mode a cleanup task whose launch
// lag is known holds its slot, and its job finishes, its recorded report
// later: the job's recorded finish less the cleanup attempt's end (Hadoop 1's
// JobTracker sets the job's finish when the heartbeat that carries the
// cleanup's completion reaches it). The job of TestSetupCleanupLaunchLag
// without lags finishes at 12.5 s (cleanup held 12-12.5 s); with a 0.5 s
// cleanup lag at 13 s; with a job finish recorded 2 s after the cleanup
// attempt's end at 15 s. Without a known lag (the clocks not shown to agree)
// the report is not replayed, nor in model mode.
func TestCleanupReportLag(t *testing.T) {
	build := func(cleanupLag, jobFinishMs int64) *trace.Trace {
		j, tasks := oneNodeJob("job_1", 0)
		j.FinishMs = jobFinishMs
		m, r := &tasks[0], &tasks[1]
		m.Host, m.StartMs, m.FinishMs, m.Status = "h1", 5000, 6000, trace.StatusSucceeded
		r.Host, r.StartMs, r.FinishMs, r.Status = "h1", 6500, 7500, trace.StatusSucceeded
		su := trace.NewTask("job_1", "job_1_m_1", trace.Setup, 1)
		su.Host, su.StartMs, su.FinishMs, su.Status = "h1", 3600, 4100, trace.StatusSucceeded
		cu := trace.NewTask("job_1", "job_1_m_2", trace.Cleanup, 2)
		cu.Host, cu.StartMs, cu.FinishMs, cu.Status, cu.LaunchLagMs = "h1", 8000, 8500, trace.StatusSucceeded, cleanupLag
		tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: append(tasks, su, cu)}
		tr.Sort()
		return tr
	}
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	for _, c := range []struct {
		name                    string
		cleanupLag, jobFinishMs int64
		finishUs                int64
	}{
		{"lag unknown, finish at the attempt's end", trace.Unknown, 8500, 12.5e6},
		{"lag unknown, finish 2 s later", trace.Unknown, 10500, 12.5e6},
		{"lag 0.5 s, finish at the attempt's end", 500, 8500, 13e6},
		{"lag 0.5 s, finish 2 s later", 500, 10500, 15e6},
		{"lag 0.5 s, finish before the attempt's end", 500, 8000, 13e6},
	} {
		res := runOne(t, build(c.cleanupLag, c.jobFinishMs), hw)
		if jr := res.Jobs[0]; jr.FinishUs != c.finishUs {
			t.Errorf("%s: finish %d µs, want %d", c.name, jr.FinishUs, c.finishUs)
		}
	}
	// With report_at_heartbeat the model's report at the node's next
	// heartbeat stands for the recorded one: every task is reported at a
	// heartbeat (setup 3-3.5 s at 6, map 6-7 at 9, reduce 9-10 at 12), and
	// the cleanup, 12-13 s with its lag, at the heartbeat at 15 s, whether
	// the job's finish is recorded at the attempt's end or 3 s after it (which,
	// added, would end it at 16 s and report it at 18 s).
	rh := oneNodeHardware(t, "report_at_heartbeat = true")
	rh.TaskTimes = "trace"
	for _, fin := range []int64{8500, 11500} {
		if got := runOne(t, build(500, fin), rh).Jobs[0].FinishUs; got != 15e6 {
			t.Errorf("report_at_heartbeat, job finish recorded at %d ms: finish %d µs, want 15000000", fin, got)
		}
	}
	// Model times read no observed time: the setup and cleanup are the
	// model's whatever the trace records.
	model := oneNodeHardware(t, "")
	a, b := runOne(t, build(500, 8500), model), runOne(t, build(500, 10500), model)
	if a.Jobs[0].FinishUs != b.Jobs[0].FinishUs {
		t.Errorf("model times: finish %d µs with the report, %d without", b.Jobs[0].FinishUs, a.Jobs[0].FinishUs)
	}
}

// TestSetupReportLag: in trace mode a setup task whose launch lag is known
// ends at its recorded report (trace.Task.ReportLagMs after its attempt's
// end), and that report is its node's heartbeat, at which the job's first
// map is assigned, instead of the node's next periodic heartbeat after it.
// One node, a 3 s heartbeat without out-of-band heartbeats: the init ends at
// 2 s, the setup is assigned at the heartbeat at 3 s, its attempt takes
// 0.5 s with no launch lag, so it ends at 3.5 s; without a replayed report
// the map waits for the heartbeat at 6 s. A report of 1 s ends it at 4.5 s
// and the map is assigned then, not at 6 s (the report counted twice); the
// node heartbeats 3 s after each of its heartbeats, from 4.5 s.
func TestSetupReportLag(t *testing.T) {
	build := func(setupLag, reportLag int64) *trace.Trace {
		j, tasks := oneNodeJob("job_1", 0)
		m, r := &tasks[0], &tasks[1]
		m.Host, m.StartMs, m.FinishMs, m.Status = "h1", 5000, 6000, trace.StatusSucceeded
		r.Host, r.StartMs, r.FinishMs, r.Status = "h1", 6500, 7500, trace.StatusSucceeded
		su := trace.NewTask("job_1", "job_1_m_1", trace.Setup, 1)
		su.Host, su.StartMs, su.FinishMs, su.Status = "h1", 3600, 4100, trace.StatusSucceeded
		su.LaunchLagMs, su.ReportLagMs = setupLag, reportLag
		cu := trace.NewTask("job_1", "job_1_m_2", trace.Cleanup, 2)
		cu.Host, cu.StartMs, cu.FinishMs, cu.Status = "h1", 8000, 8500, trace.StatusSucceeded
		tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: append(tasks, su, cu)}
		tr.Sort()
		return tr
	}
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	for _, c := range []struct {
		name                 string
		setupLag, reportLag  int64
		firstLaunchUs, finUs int64
	}{
		{"lag unknown, report 1 s", trace.Unknown, 1000, 6e6, 12.5e6},
		{"lag 0, report unknown", 0, trace.Unknown, 6e6, 12.5e6},
		{"lag 0, report 0", 0, 0, 3.5e6, 9.5e6},
		{"lag 0, report 1 s", 0, 1000, 4.5e6, 9.5e6},
		{"lag 0, report 2.5 s", 0, 2500, 6e6, 12.5e6},
	} {
		res := runOne(t, build(c.setupLag, c.reportLag), hw)
		jr := res.Jobs[0]
		if jr.FirstLaunchUs != c.firstLaunchUs || jr.FinishUs != c.finUs {
			t.Errorf("%s: first launch / finish %d / %d µs, want %d / %d", c.name, jr.FirstLaunchUs, jr.FinishUs, c.firstLaunchUs, c.finUs)
		}
	}
	// With report_at_heartbeat the model's report at the node's next
	// heartbeat (6 s) stands for the recorded one (a report of 2.6 s added
	// would end the setup at 6.1 s and report it at 9 s).
	rh := oneNodeHardware(t, "report_at_heartbeat = true")
	rh.TaskTimes = "trace"
	for _, rep := range []int64{0, 1000, 2600} {
		if got := runOne(t, build(0, rep), rh).Jobs[0].FirstLaunchUs; got != 6e6 {
			t.Errorf("report_at_heartbeat, setup report %d ms: first launch %d µs, want 6000000", rep, got)
		}
	}
	// Model times read no observed time.
	model := oneNodeHardware(t, "")
	a, b := runOne(t, build(0, 0), model), runOne(t, build(0, 2500), model)
	if a.Jobs[0].FirstLaunchUs != b.Jobs[0].FirstLaunchUs || a.Jobs[0].FinishUs != b.Jobs[0].FinishUs {
		t.Errorf("model times: first launch / finish %d / %d µs with the report, %d / %d without",
			b.Jobs[0].FirstLaunchUs, b.Jobs[0].FinishUs, a.Jobs[0].FirstLaunchUs, a.Jobs[0].FinishUs)
	}
}

// TestTaskReportLag replays a job of two maps and a reduce on one node (one
// map slot, one reduce slot, heartbeats every 3 s) in trace mode; the setup
// (launch lag and report 0) ends at 3.5 s and its node heartbeats then, so the
// first map runs 3.5–4.5 s. A map or reduce with a known launch lag and
// report lag (trace.Task.ReportLagMs) is reported at its recorded report and
// its node heartbeats then (taskReportUs): the second map launches at 4.5 s
// plus the first map's report (0: 4.5 s, 1 s: 5.5 s, 2.5 s: 7 s, not the
// 9.5 s of the report added before the next modelled heartbeat), and at the
// next modelled heartbeat, 6.5 s, with the report or the launch lag unknown
// or (at 9 s) with report_at_heartbeat. The reduce's report delays the job's finish
// (the cleanup follows it) by its length; model times read none of it.
func TestTaskReportLag(t *testing.T) {
	build := func(mapLag, mapRep, redRep int64) *trace.Trace {
		j, tasks := oneNodeJob("job_1", 0)
		m0, r := &tasks[0], &tasks[1]
		m0.Host, m0.StartMs, m0.FinishMs, m0.Status = "h1", 5000, 6000, trace.StatusSucceeded
		m0.LaunchLagMs, m0.ReportLagMs = mapLag, mapRep
		m1 := trace.NewTask("job_1", "job_1_m_1", trace.Map, 1)
		m1.InputBytes = 1e6
		m1.Host, m1.StartMs, m1.FinishMs, m1.Status = "h1", 6500, 7500, trace.StatusSucceeded
		m1.LaunchLagMs, m1.ReportLagMs = 0, 0
		r.Host, r.StartMs, r.FinishMs, r.Status = "h1", 8000, 9000, trace.StatusSucceeded
		r.LaunchLagMs, r.ReportLagMs = 0, redRep
		su := trace.NewTask("job_1", "job_1_m_2", trace.Setup, 2)
		su.Host, su.StartMs, su.FinishMs, su.Status = "h1", 3600, 4100, trace.StatusSucceeded
		su.LaunchLagMs, su.ReportLagMs = 0, 0
		cu := trace.NewTask("job_1", "job_1_m_3", trace.Cleanup, 3)
		cu.Host, cu.StartMs, cu.FinishMs, cu.Status = "h1", 9500, 10000, trace.StatusSucceeded
		tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: append(tasks, m1, su, cu)}
		tr.Sort()
		return tr
	}
	secondMap := func(res *replay.Result) int64 {
		for _, x := range res.Tasks {
			if x.Type == "MAP" && x.Index == 1 {
				return x.LaunchUs
			}
		}
		t.Fatal("no second map")
		return 0
	}
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	for _, c := range []struct {
		name                   string
		mapLag, mapRep, redRep int64
		launchUs, finUs        int64
	}{
		// The second map runs 1 s, the reduce's work 1 s after it, then the
		// cleanup 0.5 s from the reduce's report (its node heartbeats then).
		{"report 0", 0, 0, 0, 4.5e6, 7e6},
		{"report 1 s", 0, 1000, 0, 5.5e6, 8e6},
		{"report 2.5 s", 0, 2500, 0, 7e6, 9.5e6},
		{"report unknown", 0, trace.Unknown, 0, 6.5e6, 9e6},
		{"lag unknown, report 1 s", trace.Unknown, 1000, 0, 6.5e6, 9e6},
		{"reduce report 2 s", 0, 0, 2000, 4.5e6, 9e6},
	} {
		res := runOne(t, build(c.mapLag, c.mapRep, c.redRep), hw)
		if got, fin := secondMap(res), res.Jobs[0].FinishUs; got != c.launchUs || fin != c.finUs {
			t.Errorf("%s: second map launched at %d µs, job finished at %d, want %d, %d", c.name, got, fin, c.launchUs, c.finUs)
		}
	}
	// With report_at_heartbeat the model's reports at the node's heartbeats
	// stand for the recorded ones: the setup is reported at 6 s, the first
	// map runs 6–7 s and is reported at 9 s, whatever its recorded report.
	rh := oneNodeHardware(t, "report_at_heartbeat = true")
	rh.TaskTimes = "trace"
	for _, rep := range []int64{0, 1000, 2600} {
		if got := secondMap(runOne(t, build(0, rep, 0), rh)); got != 9e6 {
			t.Errorf("report_at_heartbeat, map report %d ms: second map launched at %d µs, want 9000000", rep, got)
		}
	}
	// Model times read no observed time.
	model := oneNodeHardware(t, "")
	a, b := runOne(t, build(0, 0, 0), model), runOne(t, build(0, 2500, 2000), model)
	if secondMap(a) != secondMap(b) || a.Jobs[0].FinishUs != b.Jobs[0].FinishUs {
		t.Errorf("model times: second map / finish %d / %d µs with the reports, %d / %d without",
			secondMap(b), b.Jobs[0].FinishUs, secondMap(a), a.Jobs[0].FinishUs)
	}
}
