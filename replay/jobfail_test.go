package replay_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// failTrace is a job recorded FAILED (submit 0, finish 7.4 s) of two maps and
// one reduce: map 0 failed 4 times (1 s each, the last at 6.3–7.3 s), map 1's
// only attempt ran 3–7.4 s and was killed, and the reduce never ran. With
// cleanup set the trace also has its cleanup task (0.5 s, Hadoop 1).
func failTrace(cleanup bool) *trace.Trace {
	j := trace.NewJob("job_1")
	j.SubmitMs, j.FinishMs, j.Status = 0, 7400, trace.StatusFailed
	j.InputBytes, j.ShuffleBytes, j.OutputBytes = 2e6, 0, 0
	m0 := trace.NewTask("job_1", "job_1_m_0", trace.Map, 0)
	m0.InputBytes, m0.OutputBytes = 1e6, 0
	m0.Host, m0.StartMs, m0.FinishMs, m0.Status = "h1", 6300, 7300, trace.StatusFailed
	m1 := trace.NewTask("job_1", "job_1_m_1", trace.Map, 1)
	m1.InputBytes, m1.OutputBytes = 1e6, 0
	m1.Host, m1.StartMs, m1.FinishMs, m1.Status = "h1", 3000, 7400, trace.StatusKilled
	r := trace.NewTask("job_1", "job_1_r_0", trace.Reduce, 0)
	r.ShuffleBytes, r.OutputBytes, r.Status = 0, 0, trace.StatusKilled
	tasks := []trace.Task{m0, m1, r}
	var atts []trace.Attempt
	for k, start := range []int64{3000, 4100, 5200, 6300} {
		a := trace.NewAttempt("job_1", m0.TaskID, m0.TaskID+"_"+string(rune('0'+k)), trace.Map)
		a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusFailed, start, start+1000, "h1"
		atts = append(atts, a)
	}
	a := trace.NewAttempt("job_1", m1.TaskID, m1.TaskID+"_0", trace.Map)
	a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusKilled, 3000, 7400, "h1"
	atts = append(atts, a)
	if cleanup {
		c := trace.NewTask("job_1", "job_1_m_2", trace.Cleanup, 0)
		c.Host, c.StartMs, c.FinishMs, c.Status = "h1", 7500, 8000, trace.StatusSucceeded
		tasks = append(tasks, c)
	}
	tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks, Attempts: atts}
	tr.Sort()
	return tr
}

// TestJobFailsWhenTaskUsesUpAttempts replays failTrace on one node (two map
// slots, one reduce slot, heartbeats at 0, 3, 6, … s, reported at once, no
// start-up, trace times): init 0–2 s; the heartbeat at 3 s launches both maps.
// Map 0 fails the job, so it keeps its recorded attempts' spacing: its three
// earlier failed attempts (1 s each, recorded 3.0, 4.1 and 5.2 s) hold its
// slot from its first attempt's start to its last one's (3.3 s, more than
// their 3 s), then its last one (1 s) fails at 7.3 s: its 4th failure fails
// the task and the job (0% of maps may fail). Map 1 (its killed attempt would
// run 3–7.4 s) is killed at 7.3 s; the reduce, never ready (no map done), is
// dropped. Without a cleanup task (.jhist: Hadoop 2 records the finish at the
// failure) the job finishes at 7.3 s; with one (Hadoop 1) the cleanup waits
// for the heartbeat at 9 s and runs 9–9.5 s: finish 9.5 s. Both maps' rows
// end at 7.3 s; the reduce has none; the job has no last map end.
func TestJobFailsWhenTaskUsesUpAttempts(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.MapSlots = 2
	hw.TaskTimes = "trace"
	for _, c := range []struct {
		cleanup bool
		finish  int64
	}{{false, 7.3e6}, {true, 9.5e6}} {
		res := runOne(t, failTrace(c.cleanup), hw)
		jr := res.Jobs[0]
		if jr.FinishUs != c.finish || jr.FlowtimeUs != c.finish || jr.FirstLaunchUs != 3e6 || jr.LastMapEndUs != replay.Unset || jr.FirstReduceLaunchUs != replay.Unset {
			t.Errorf("cleanup %v: job %+v, want finish %d, first launch 3 s, no last map end, no reduce", c.cleanup, jr, c.finish)
		}
		if len(res.Tasks) != 2 {
			t.Fatalf("cleanup %v: %d task rows, want the two maps'", c.cleanup, len(res.Tasks))
		}
		for _, tr := range res.Tasks {
			if tr.Type != "MAP" || tr.LaunchUs != 3e6 || tr.FinishUs != 7.3e6 {
				t.Errorf("cleanup %v: task row %+v, want a map 3–7.3 s", c.cleanup, tr)
			}
		}
	}
}

// TestJobFailureNeedsMaxAttempts: with three failed attempts of map 0, not
// four, no task of the FAILED job used up its attempts, so nothing fails it
// in the replay: it replays as before (each map's recorded last attempt
// completes it, and the reduce runs).
func TestJobFailureNeedsMaxAttempts(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.MapSlots = 2
	hw.TaskTimes = "trace"
	tr := failTrace(false)
	for i := range tr.Attempts {
		if tr.Attempts[i].AttemptID == "job_1_m_0_0" {
			tr.Attempts = append(tr.Attempts[:i], tr.Attempts[i+1:]...)
			break
		}
	}
	res := runOne(t, tr, hw)
	if jr := res.Jobs[0]; jr.LastMapEndUs == replay.Unset || len(res.Tasks) != 3 {
		t.Errorf("three failures: job %+v with %d task rows, want every map and the reduce done", jr, len(res.Tasks))
	}
}

// TestMaxAttemptsFromConf: the job conf's max attempts decide when a task
// fails. failTrace's map 0 failed 4 times: with conf_map_max_attempts = 5
// it has not used up its attempts, so the job does not fail in the replay
// (every map and the reduce complete). Without its first attempt (3 failures,
// 4.1–5.1, 5.2–6.2, 6.3–7.3 s) and with conf_map_max_attempts = 3 it fails
// (it does not with the default 4, TestJobFailureNeedsMaxAttempts): init 0–2 s,
// both maps launched at the heartbeat at 3 s, map 0 replays its two earlier
// attempts as recorded, 2.2 s from the first's start to the last's, and its
// last (1 s) and fails at 6.2 s; map 1 is killed then and the job finishes
// at 6.2 s with both map rows 3–6.2 s.
func TestMaxAttemptsFromConf(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.MapSlots = 2
	hw.TaskTimes = "trace"
	five := failTrace(false)
	five.Jobs[0].ConfMapMaxAttempts = 5
	res := runOne(t, five, hw)
	if jr := res.Jobs[0]; jr.LastMapEndUs == replay.Unset || len(res.Tasks) != 3 || jr.Status != "SUCCEEDED" {
		t.Errorf("max attempts 5: job %+v with %d task rows, want every map and the reduce done", jr, len(res.Tasks))
	}
	three := failTrace(false)
	three.Attempts = three.Attempts[1:]
	three.Jobs[0].ConfMapMaxAttempts = 3
	res = runOne(t, three, hw)
	jr := res.Jobs[0]
	if jr.FinishUs != 6.2e6 || jr.LastMapEndUs != replay.Unset || jr.Status != "FAILED" || len(res.Tasks) != 2 {
		t.Fatalf("max attempts 3: job %+v with %d task rows, want FAILED at 6.2 s, no last map end, two map rows", jr, len(res.Tasks))
	}
	for _, x := range res.Tasks {
		if x.LaunchUs != 3e6 || x.FinishUs != 6.2e6 {
			t.Errorf("max attempts 3: row %+v, want 3–6.2 s", x)
		}
	}
}

// TestFailedHistoriesReplayed replays the two FAILED .jhist histories on their
// derived clusters with the invariants checked: the job fails when its map's
// fourth attempt fails, no map completes, and it finishes within 15% of the
// recorded JOB_FAILED time (it came out 104% and 23% long when the replay ran
// the job's other tasks).
func TestFailedHistoriesReplayed(t *testing.T) {
	for _, name := range []string{"job_2.4.0-FAILED.jhist", "job_0.23.9-FAILED.jhist"} {
		tr, _, err := trace.ReadTree(context.Background(), filepath.Join("..", "trace", "testdata", "jhist", name), trace.TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hw, ok, err := replay.TraceHardware(tr, replay.DefaultHardware())
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		topo := replay.NewTopology(&hw, 1)
		w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := policy.New("capacity")
		if err != nil {
			t.Fatal(err)
		}
		res, err := replay.Run(w, p, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		jr := res.Jobs[0]
		obs := jr.ObservedFlowtimeUs
		if jr.LastMapEndUs != replay.Unset || jr.FirstReduceLaunchUs != replay.Unset {
			t.Errorf("%s: a map completed or a reduce ran: %+v", name, jr)
		}
		if d := float64(jr.FlowtimeUs-obs) / float64(obs); d > 0.15 || d < -0.15 {
			t.Errorf("%s: flowtime %d µs, observed %d µs (%.1f%%)", name, jr.FlowtimeUs, obs, 100*d)
		}
	}
}

// TestModelFailuresFailJobs: in model mode with attempt_failure_rate = 0.7 a
// task fails all 4 attempts with probability 0.24, so jobs fail: every job
// still finishes, the invariants hold, some job has maps that never
// completed (no last map end), and the run is reproducible; every policy
// replays it, with the lifecycle and without.
func TestModelFailuresFailJobs(t *testing.T) {
	hw := smallHardware(t, "attempt_failure_rate = 0.7")
	tr := randomTrace(20, 3)
	a := runPolicy(t, tr, hw, "fifo", 1)
	b := runPolicy(t, tr, hw, "fifo", 1)
	if len(a.Jobs) != len(tr.Jobs) {
		t.Fatalf("%d jobs finished of %d", len(a.Jobs), len(tr.Jobs))
	}
	failed := 0
	for i, j := range a.Jobs {
		if j.LastMapEndUs == replay.Unset {
			failed++
		}
		if j != b.Jobs[i] {
			t.Fatalf("job %d differs between two runs: %+v, %+v", i, j, b.Jobs[i])
		}
	}
	if failed == 0 {
		t.Error("no job failed at attempt_failure_rate 0.7")
	}
	// Every policy, with and without the lifecycle, with the invariants on;
	// with speculation, whose copies neither fail nor are left running.
	for _, spec := range []string{"hadoop", "late"} {
		hs := smallHardware(t, "attempt_failure_rate = 0.7\nspeculation = \""+spec+"\"")
		if res := runPolicy(t, tr, hs, "fair", 1); len(res.Jobs) != len(tr.Jobs) {
			t.Fatalf("speculation %s: %d jobs finished of %d", spec, len(res.Jobs), len(tr.Jobs))
		}
	}
	for _, lc := range []bool{false, true} {
		hw.Lifecycle = lc
		for _, name := range policy.NamesFor(replay.ClusterSlots) {
			if res := runPolicy(t, tr, hw, name, 1); len(res.Jobs) != len(tr.Jobs) {
				t.Fatalf("%s, lifecycle %v: %d jobs finished of %d", name, lc, len(res.Jobs), len(tr.Jobs))
			}
		}
	}
}

// TestJobFailsOnReduce: a FAILED job whose map succeeded (3–4 s, one map
// slot, heartbeats every 3 s, init 0–2 s) and whose reduce failed 4 times (1 s
// each, recorded 4.0, 5.1, 6.2 and 7.3 s): the reduce launches at the
// heartbeat at 6 s, replays its three earlier attempts as recorded (3.3 s
// from the first's start to the last's) and its last, and fails at 10.3 s,
// whatever its shuffle; the job fails and finishes then. The map's row is
// 3–4 s, the reduce's 6–10.3 s.
func TestJobFailsOnReduce(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.TaskTimes = "trace"
	j, tasks := oneNodeJob("job_1", 0)
	j.FinishMs, j.Status = 8400, trace.StatusFailed
	m, r := &tasks[0], &tasks[1]
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
	if jr.FinishUs != 10.3e6 || jr.LastMapEndUs != 4e6 || jr.FirstReduceLaunchUs != 6e6 {
		t.Errorf("job %+v, want finish 10.3 s, last map end 4 s, reduce launched at 6 s", jr)
	}
	want := map[string][2]int64{"MAP": {3e6, 4e6}, "REDUCE": {6e6, 10.3e6}}
	if len(res.Tasks) != 2 {
		t.Fatalf("%d task rows, want 2", len(res.Tasks))
	}
	for _, x := range res.Tasks {
		if w := want[x.Type]; x.LaunchUs != w[0] || x.FinishUs != w[1] {
			t.Errorf("%s row %d–%d µs, want %d–%d", x.Type, x.LaunchUs, x.FinishUs, w[0], w[1])
		}
	}
}

// TestJobStatusColumn: the replay records each job's status in jobs.parquet
// (results schema 2): failTrace's job fails in the replay (FAILED), the same
// job with three failed attempts completes (SUCCEEDED), and the observed run
// carries the trace's status (FAILED; KILLED when the trace says so). The
// file records the schema version.
func TestJobStatusColumn(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.MapSlots = 2
	hw.TaskTimes = "trace"
	three := failTrace(false)
	three.Attempts = three.Attempts[1:] // job_1_m_0_0 sorts first: three failures left
	killed := failTrace(false)
	killed.Jobs[0].Status = trace.StatusKilled
	for _, c := range []struct {
		name     string
		tr       *trace.Trace
		sim, obs string
	}{
		{"fails", failTrace(false), "FAILED", "FAILED"},
		{"three failures", three, "SUCCEEDED", "FAILED"},
		{"killed in the trace", killed, "SUCCEEDED", "KILLED"},
	} {
		topo := replay.NewTopology(&hw, 1)
		w, err := replay.NewWorkload(c.tr, &hw, topo, 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sim, err := replay.Run(w, mustPolicy(t, "fifo"), replay.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		obs, err := replay.Observed(w, replay.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			res  *replay.Result
			want string
		}{{sim, c.sim}, {obs, c.obs}} {
			dir := t.TempDir()
			if err := replay.WriteRun(dir, r.res, nil); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, replay.JobsFile)
			rows, err := results.ReadJobRows(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].Status != r.want {
				t.Errorf("%s: rows %+v, want one job with status %s", c.name, rows, r.want)
			}
			if v, _, _ := results.ParquetMeta(path, results.MetaSchemaVersion); v != results.SchemaVersion {
				t.Errorf("%s: %s = %q, want %s", c.name, results.MetaSchemaVersion, v, results.SchemaVersion)
			}
		}
	}
}

// TestTraceIdentityMaxAttempts: a trace's identity leaves a job's max
// attempts out while both are unknown (a trace ingested before schema 2.1
// keeps its identity), its out-of-band heartbeat while unknown (before 2.3)
// and its common configuration version while empty (before 2.5), and counts
// them once known. TraceSHA256 cuts them off the end of the job's JSON, so
// they must stay trace.Job's last fields, in this order.
func TestTraceIdentityMaxAttempts(t *testing.T) {
	jt := reflect.TypeFor[trace.Job]()
	if n := jt.NumField(); jt.Field(n-4).Name != "ConfMapMaxAttempts" || jt.Field(n-3).Name != "ConfReduceMaxAttempts" ||
		jt.Field(n-2).Name != "ConfOutOfBandHeartbeat" || jt.Field(n-1).Name != "ConfCommonVersion" {
		t.Fatalf("trace.Job's last fields are %s, %s, %s, %s: TraceSHA256 strips the max attempts, the out-of-band heartbeat and the common version from the end",
			jt.Field(n-4).Name, jt.Field(n-3).Name, jt.Field(n-2).Name, jt.Field(n-1).Name)
	}
	tr := failTrace(false)
	b, err := json.Marshal(&tr.Jobs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), `,"ConfMapMaxAttempts":-1,"ConfReduceMaxAttempts":-1,"ConfOutOfBandHeartbeat":-1,"ConfCommonVersion":""}`) {
		t.Fatalf("job JSON %s does not end with the unknown max attempts, out-of-band heartbeat and common version", b)
	}
	unknown := replay.TraceSHA256(tr)
	tr.Jobs[0].ConfCommonVersion = "0.21.0"
	if replay.TraceSHA256(tr) == unknown {
		t.Error("a known common configuration version leaves the trace's identity unchanged")
	}
	tr.Jobs[0].ConfCommonVersion = ""
	tr.Jobs[0].ConfOutOfBandHeartbeat = 1
	if replay.TraceSHA256(tr) == unknown {
		t.Error("a known out-of-band heartbeat leaves the trace's identity unchanged")
	}
	tr.Jobs[0].ConfOutOfBandHeartbeat = trace.Unknown
	if replay.TraceSHA256(tr) != unknown {
		t.Error("setting the out-of-band heartbeat back to unknown does not restore the identity")
	}
	tr.Jobs[0].ConfMapMaxAttempts = 4
	if replay.TraceSHA256(tr) == unknown {
		t.Error("a known max attempts leaves the trace's identity unchanged")
	}
}

// TestFailingTaskKeepsAttemptSpacing: the task that fails its job keeps the
// spacing of its recorded attempts (Hadoop 1 re-queues a failed task, and on
// a busy cluster its next attempt waits for a slot): failTrace's map 0 with
// its attempts recorded at 3, 20, 40 and 60 s (1 s each) fails at 3 + 57 + 1
// = 61 s in the replay (launched at 3 s), not at 7 s as four attempts back
// to back would; recorded back to back (3, 4, 5 and 6 s) they fail it at
// 3 + 3 + 1 = 7 s, as before (the span is never shorter than the earlier
// attempts' durations and gaps: Hardware.retryGapUs). A task with failed attempts that
// then succeeds keeps them back to back: map 0 of a SUCCEEDED job with failed
// attempts at 3, 20 and 40 s and a successful one at 60–61 s ends at 3 + 3 +
// 1 = 7 s.
func TestFailingTaskKeepsAttemptSpacing(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.MapSlots = 2
	hw.TaskTimes = "trace"
	spaced := func(starts []int64) *trace.Trace {
		tr := failTrace(false)
		k := 0
		for i := range tr.Attempts {
			if a := &tr.Attempts[i]; a.TaskID == "job_1_m_0" {
				a.StartMs, a.FinishMs = starts[k], starts[k]+1000
				k++
			}
		}
		m0 := &tr.Tasks[0]
		m0.StartMs, m0.FinishMs = starts[3], starts[3]+1000
		tr.Jobs[0].FinishMs = starts[3] + 1100
		tr.Tasks[1].FinishMs = starts[3] + 1100
		for i := range tr.Attempts {
			if a := &tr.Attempts[i]; a.TaskID == "job_1_m_1" {
				a.FinishMs = starts[3] + 1100
			}
		}
		tr.Sort()
		return tr
	}
	for _, c := range []struct {
		starts []int64
		finish int64
	}{
		{[]int64{3000, 20000, 40000, 60000}, 61e6},
		{[]int64{3000, 4000, 5000, 6000}, 7e6},
	} {
		res := runOne(t, spaced(c.starts), hw)
		if jr := res.Jobs[0]; jr.Status != "FAILED" || jr.FinishUs != c.finish || jr.FirstLaunchUs != 3e6 {
			t.Errorf("attempts at %v ms: job %+v, want FAILED at %d µs, launched at 3 s", c.starts, jr, c.finish)
		}
	}
	// The same map retried and then successful, in a SUCCEEDED job.
	ok := spaced([]int64{3000, 20000, 40000, 60000})
	ok.Jobs[0].Status = trace.StatusSucceeded
	ok.Tasks[0].Status = trace.StatusSucceeded
	ok.Tasks[1].Status, ok.Tasks[1].FinishMs = trace.StatusSucceeded, 7400
	for i := range ok.Attempts {
		a := &ok.Attempts[i]
		switch {
		case a.TaskID == "job_1_m_0" && a.StartMs == 60000:
			a.Status = trace.StatusSucceeded
		case a.TaskID == "job_1_m_1":
			a.Status, a.FinishMs = trace.StatusSucceeded, 7400
		}
	}
	ok.Tasks = ok.Tasks[:2] // the maps only: a map-only job
	ok.Jobs[0].NumReduces = 0
	res := runOne(t, ok, hw)
	for _, x := range res.Tasks {
		if x.Index == 0 && x.FinishUs != 7e6 {
			t.Errorf("retried, then successful: map 0 row %+v, want its three failed attempts back to back, ending at 7 s", x)
		}
	}
	if jr := res.Jobs[0]; jr.Status != "SUCCEEDED" {
		t.Errorf("retried, then successful: job %+v, want SUCCEEDED", jr)
	}
}

// TestFailedCleanupAttemptsReplayed: Hadoop 1's two cleanup TIPs. failTrace
// (the job fails at 7.3 s) with the history's cleanup as Mumak's
// job_200904211745_0018 records it: the reduce-slot TIP r_1 (index 1, so
// first in the trace's order) has one FAILED attempt (20–20.5 s) and no
// success; the map-slot TIP m_2 fails at 7.5–8 s and succeeds at 40–40.5 s,
// which completes the job (JobInProgress.completedTask kills the other TIP).
// The replay's cleanup is m_2, holding its slot from its assignment at the
// heartbeat at 9 s for the recorded spacing of the job's cleanup attempts
// before the success (40 − 7.5 = 32.5 s, more than m_2's own earlier attempt,
// 0.5 s) and then its 0.5 s: finish 42 s. Taking the first cleanup TIP by
// index (r_1: its one failed attempt, 0.5 s) gave 9.5 s.
func TestFailedCleanupAttemptsReplayed(t *testing.T) {
	hw := oneNodeHardware(t, "")
	hw.MapSlots = 2
	hw.TaskTimes = "trace"
	tr := failTrace(false)
	tr.Jobs[0].FinishMs = 40600
	r1 := trace.NewTask("job_1", "job_1_r_1", trace.Cleanup, 1)
	r1.Host, r1.StartMs, r1.FinishMs = "h1", 20000, 20500
	m2 := trace.NewTask("job_1", "job_1_m_2", trace.Cleanup, 2)
	m2.Host, m2.StartMs, m2.FinishMs, m2.Status = "h1", 40000, 40500, trace.StatusSucceeded
	tr.Tasks = append(tr.Tasks, r1, m2)
	for _, c := range []struct {
		task, id      string
		status        string
		start, finish int64
	}{
		{"job_1_m_2", "job_1_m_2_0", trace.StatusFailed, 7500, 8000},
		{"job_1_r_1", "job_1_r_1_0", trace.StatusFailed, 20000, 20500},
		{"job_1_m_2", "job_1_m_2_1", trace.StatusSucceeded, 40000, 40500},
	} {
		a := trace.NewAttempt("job_1", c.task, c.id, trace.Cleanup)
		a.Status, a.StartMs, a.FinishMs, a.Host = c.status, c.start, c.finish, "h1"
		tr.Attempts = append(tr.Attempts, a)
	}
	tr.Sort()
	res := runOne(t, tr, hw)
	if jr := res.Jobs[0]; jr.Status != "FAILED" || jr.FinishUs != 42e6 {
		t.Errorf("job %+v, want FAILED at 42 s (cleanup 9–42 s)", jr)
	}
	// The trace's task row for m_2 as the ingest writes it for a retried
	// task: its failed attempt counted, no launch lag, the report lag known
	// (the job's finish 0.1 s after the successful attempt's end): the
	// cleanup is reported 0.1 s later.
	for i := range tr.Tasks {
		if tt := &tr.Tasks[i]; tt.TaskID == "job_1_m_2" {
			tt.FailedAttempts, tt.ReportLagMs = 1, 100
		}
	}
	res = runOne(t, tr, hw)
	if jr := res.Jobs[0]; jr.Status != "FAILED" || jr.FinishUs != 42.1e6 {
		t.Errorf("retried cleanup with its report lag: job %+v, want FAILED at 42.1 s", jr)
	}
}
