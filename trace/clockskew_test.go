package trace

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// skewHost is one TaskTracker of skewedRumen: its clock's offset from the
// JobTracker's, how many single-attempt maps it ran and their launch lag.
type skewHost struct {
	name            string
	offsetMs, lagMs int64
	maps            int
	fails           bool // each map's attempt 0 fails here; attempt 1 succeeds on n3
}

// skewedRumen returns a Rumen trace of a JobTracker's history (one job)
// whose maps ran on hosts, each attempt recorded on its host's clock
// (JobTracker time + offsetMs), with a report lag of 500 ms; and the
// attempts' true (JobTracker-clock) start times by attempt id. The last map
// has a failed attempt on the host named "ahead" (1..5 s after its task) and
// a second one on "n2" (3..7 s): a speculative copy on the JobTracker's clock.
func skewedRumen(hosts []skewHost) (string, map[string]int64) {
	var tasks []string
	want := map[string]int64{}
	const base = int64(1_000_000)
	i := 0
	attempt := func(id string, h skewHost, start int64, result string) string {
		want[id] = start
		return fmt.Sprintf(`{"attemptID": %q, "result": %q, "startTime": %d, "finishTime": %d, "hostName": "/r/%s"}`,
			id, result, start+h.offsetMs, start+4000+h.offsetMs, h.name)
	}
	byName := map[string]skewHost{}
	for _, h := range hosts {
		byName[h.name] = h
	}
	for _, h := range hosts {
		for k := 0; k < h.maps; k++ {
			tStart := base + int64(i)*10_000
			if h.fails {
				a0 := attempt(fmt.Sprintf("attempt_201001011200_0001_m_%06d_0", i), h, tStart+h.lagMs, "FAILED")
				a1 := attempt(fmt.Sprintf("attempt_201001011200_0001_m_%06d_1", i), byName["n3"], tStart+h.lagMs+4100, "SUCCESS")
				tasks = append(tasks, fmt.Sprintf(`{"taskID": "task_201001011200_0001_m_%06d", "taskType": "MAP", "taskStatus": "SUCCESS", "startTime": %d, "finishTime": %d, "attempts": [%s, %s]}`,
					i, tStart, tStart+h.lagMs+4100+4000+500, a0, a1))
				i++
				continue
			}
			a := attempt(fmt.Sprintf("attempt_201001011200_0001_m_%06d_0", i), h, tStart+h.lagMs, "SUCCESS")
			tasks = append(tasks, fmt.Sprintf(`{"taskID": "task_201001011200_0001_m_%06d", "taskType": "MAP", "taskStatus": "SUCCESS", "startTime": %d, "finishTime": %d, "attempts": [%s]}`,
				i, tStart, tStart+h.lagMs+4000+500, a))
			i++
		}
	}
	tStart := base + int64(i)*10_000
	a0 := attempt(fmt.Sprintf("attempt_201001011200_0001_m_%06d_0", i), byName["ahead"], tStart+1000, "FAILED")
	a1 := attempt(fmt.Sprintf("attempt_201001011200_0001_m_%06d_1", i), byName["n2"], tStart+3000, "SUCCESS")
	tasks = append(tasks, fmt.Sprintf(`{"taskID": "task_201001011200_0001_m_%06d", "taskType": "MAP", "taskStatus": "SUCCESS", "startTime": %d, "finishTime": %d, "attempts": [%s, %s]}`,
		i, tStart, tStart+3000+4000+500, a0, a1))
	end := tStart + 20_000
	return fmt.Sprintf(`{"jobID": "job_201001011200_0001", "submitTime": %d, "launchTime": %d, "finishTime": %d, "outcome": "SUCCESS", "mapTasks": [%s]}`,
		base-5000, base-4000, end, strings.Join(tasks, ",\n")), want
}

// skewHosts: five hosts on the JobTracker's clock, one 300 s ahead, one 200
// s behind, one whose launches are slow (9 s) but whose clock is right, one
// with a single task 30 s ahead (too few to tell from a slow launch), one
// with a single task 30 s behind (an attempt that starts before its task)
// and one 100 s behind whose attempts all fail (no finish side).
var skewHosts = []skewHost{
	{"n1", 0, 1000, 4, false}, {"n2", 0, 1000, 4, false}, {"n3", 0, 1000, 4, false}, {"n4", 0, 1000, 4, false}, {"n5", 0, 1000, 4, false},
	{"ahead", 300_000, 1000, 5, false}, {"behind", -200_000, 1000, 3, false}, {"slow", 0, 9000, 3, false},
	{"one-ahead", 30_000, 1000, 1, false}, {"one-behind", -30_000, 1000, 1, false}, {"failing", -100_000, 1000, 3, true},
}

// TestTrackerClocksCorrected: the attempts of the hosts whose clocks are off
// land back on the JobTracker's clock, with their durations, launch lags and
// report lags; the slow host and the single task ahead are kept as recorded;
// --keep-tracker-clocks (KeepTrackerClocks) keeps every host as recorded.
func TestTrackerClocksCorrected(t *testing.T) {
	in, want := skewedRumen(skewHosts)
	var ds []Diagnostic
	tr, err := ReadRumen("skew.json", strings.NewReader(in), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	kept, err := ReadRumen("skew.json", strings.NewReader(in), HistoryOptions{KeepTrackerClocks: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Meta.Options[OptTrackerClocks]; got != "4" {
		t.Errorf("Meta.Options[%s] = %q, want 4 (ahead, behind, failing, one-behind); diagnostics %v", OptTrackerClocks, got, ds)
	}
	if kept.Meta.Options != nil {
		t.Errorf("kept clocks: Meta.Options %v, want none", kept.Meta.Options)
	}
	if n := len(ds); n == 0 || !strings.Contains(ds[n-1].Msg, "4 TaskTracker hosts") || !strings.Contains(ds[n-1].Msg, "ahead +300.0 s (6 tasks)") {
		t.Errorf("diagnostics %v: want the last to name the 4 corrected hosts", ds)
	}
	fixed := map[string]bool{"ahead": true, "behind": true, "one-behind": true, "failing": true}
	offset := map[string]int64{}
	for _, h := range skewHosts {
		offset[h.name] = h.offsetMs
	}
	keptAttempt := map[string]Attempt{}
	for _, k := range kept.Attempts {
		keptAttempt[k.AttemptID] = k
	}
	keptTask := map[string]Task{}
	for _, k := range kept.Tasks {
		keptTask[k.TaskID] = k
	}
	for _, a := range tr.Attempts {
		k := keptAttempt[a.AttemptID]
		if a.FinishMs-a.StartMs != k.FinishMs-k.StartMs {
			t.Errorf("%s: %d..%d corrected, %d..%d kept: duration changed", a.AttemptID, a.StartMs, a.FinishMs, k.StartMs, k.FinishMs)
		}
		w := want[a.AttemptID]
		if !fixed[a.Host] {
			w += offset[a.Host]
		}
		if a.StartMs != w {
			t.Errorf("%s on %s: start %d, want %d", a.AttemptID, a.Host, a.StartMs, w)
		}
		if k.StartMs != want[a.AttemptID]+offset[a.Host] {
			t.Errorf("kept clocks: %s on %s: start %d, want %d as recorded", k.AttemptID, k.Host, k.StartMs, want[a.AttemptID]+offset[a.Host])
		}
	}
	two := "task_201001011200_0001_m_000036"
	for _, k := range tr.Tasks {
		kk := keptTask[k.TaskID]
		if k.TaskID != two && (fixed[k.Host] || k.Host == "n1" || k.Host == "slow") {
			lag := int64(1000)
			if k.Host == "slow" {
				lag = 9000
			}
			if k.LaunchLagMs != lag || k.ReportLagMs != 500 {
				t.Errorf("%s on %s: launch lag %d, report lag %d, want %d and 500 (kept clocks: %d, %d)",
					k.TaskID, k.Host, k.LaunchLagMs, k.ReportLagMs, lag, kk.LaunchLagMs, kk.ReportLagMs)
			}
		}
		if k.FinishMs-k.StartMs != kk.FinishMs-kk.StartMs {
			t.Errorf("%s: task duration changed", k.TaskID)
		}
	}
	// The two-attempt map: on the JobTracker's clock its failed attempt on
	// "ahead" started first and its second, on n2, is a speculative copy (no
	// launch lag); as recorded, the failed one started 300 s late.
	k, kk := keptTask[two], Task{}
	for _, x := range tr.Tasks {
		if x.TaskID == two {
			kk = x
		}
	}
	if kk.LaunchLagMs != Unknown || kk.ReportLagMs != 500 || k.LaunchLagMs != 3000 {
		t.Errorf("%s: launch lag %d, report lag %d, want Unknown (not the first attempt) and 500; kept clocks: launch lag %d, want 3000",
			two, kk.LaunchLagMs, kk.ReportLagMs, k.LaunchLagMs)
	}
	for _, a := range tr.Attempts {
		if a.TaskID == two && a.Speculative != (a.Host == "n2") {
			t.Errorf("%s on %s: speculative %v, want %v", a.AttemptID, a.Host, a.Speculative, a.Host == "n2")
		}
		if k := keptAttempt[a.AttemptID]; a.TaskID == two && k.Speculative {
			t.Errorf("kept clocks: %s on %s: speculative, want not", k.AttemptID, k.Host)
		}
	}
}

// TestTrackerClocksNoSkew: a history whose clocks agree reads the same with
// the correction and without it.
func TestTrackerClocksNoSkew(t *testing.T) {
	var plain []skewHost
	for _, h := range skewHosts {
		h.offsetMs = 0
		plain = append(plain, h)
	}
	in, _ := skewedRumen(plain)
	for name, read := range map[string]func(HistoryOptions) (*Trace, error){
		"rumen":   func(o HistoryOptions) (*Trace, error) { return ReadRumen("r.json", strings.NewReader(in), o) },
		"hadoop1": func(o HistoryOptions) (*Trace, error) { return ReadHadoop1("lags", strings.NewReader(h1Lags), o) },
	} {
		on, err := read(HistoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		off, err := read(HistoryOptions{KeepTrackerClocks: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(on, off) {
			t.Errorf("%s: the correction changed a history without skew", name)
		}
	}
}

// TestTrackerClocksCopiesCountOnce: a history read twice (the same job
// twice in one Rumen file) corrects the same hosts as one copy: a host with
// two tasks 30 s ahead does not reach minTrackerTasks by being counted twice.
func TestTrackerClocksCopiesCountOnce(t *testing.T) {
	in, _ := skewedRumen(append(slices.Clone(skewHosts), skewHost{"two-ahead", 30_000, 1000, 2, false}))
	for _, s := range []string{in, in + "\n" + in} {
		var ds []Diagnostic
		tr, err := ReadRumen("r.json", strings.NewReader(s), collect(&ds))
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Meta.Options[OptTrackerClocks]; got != "4" || strings.Contains(ds[len(ds)-1].Msg, "two-ahead") {
			t.Errorf("%d jobs: %s hosts corrected, want 4, two-ahead not among them: %v", len(tr.Jobs), got, ds)
		}
	}
}
