package replay_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// observedTask is one task of a hand-made history: times in ms, -1 unknown.
type observedTask struct {
	typ                 trace.TaskType
	host, loc, pref     string
	start, shuffle, fin int64
	inputMB, shuffleMB  int64
}

// observedHistory: job A submitted at 1 s, finished at 41 s; job B submitted at
// 11 s, finished at 26 s; hosts h1, h2 on /a and h3 on /b.
func observedHistory() *trace.Trace {
	rack := map[string]string{"h1": "/a", "h2": "/a", "h3": "/b"}
	tr := &trace.Trace{}
	add := func(id string, submit, finish int64, tasks []observedTask) {
		j := trace.NewJob(id)
		j.Status, j.SubmitMs, j.FinishMs = trace.StatusSucceeded, submit, finish
		tr.Jobs = append(tr.Jobs, j)
		var idx [2]int32
		for _, o := range tasks {
			t := trace.NewTask(id, id+"-t", o.typ, idx[o.typ])
			idx[o.typ]++
			t.Status, t.StartMs, t.ShuffleFinishMs, t.FinishMs = trace.StatusSucceeded, o.start, o.shuffle, o.fin
			t.Host, t.Rack, t.Locality = o.host, rack[o.host], o.loc
			if o.pref != "" {
				t.PreferredHosts, t.PreferredRacks = []string{o.pref}, []string{rack[o.pref]}
			}
			if o.typ == trace.Map {
				t.InputBytes, t.OutputBytes = o.inputMB*1e6, 0
			} else {
				t.ShuffleBytes, t.OutputBytes = o.shuffleMB*1e6, 0
			}
			tr.Tasks = append(tr.Tasks, t)
		}
	}
	add("A", 1000, 41000, []observedTask{
		{typ: trace.Map, host: "h1", loc: trace.NodeLocal, pref: "h1", start: 3000, shuffle: -1, fin: 13000, inputMB: 100},
		{typ: trace.Map, host: "h2", loc: trace.RackLocal, pref: "h1", start: 4000, shuffle: -1, fin: 21000, inputMB: 100},
		{typ: trace.Map, host: "h3", loc: trace.OffSwitch, pref: "h1", start: 5000, shuffle: -1, fin: 20000, inputMB: 50},
		{typ: trace.Reduce, host: "h2", start: 15000, shuffle: 22000, fin: 31000, shuffleMB: 30},
		{typ: trace.Reduce, host: "h3", start: 25000, shuffle: -1, fin: 41000, shuffleMB: 20},
		{typ: trace.Reduce, host: "h1", start: 29000, shuffle: -1, fin: 40000, shuffleMB: 10},
	})
	add("B", 11000, 26000, []observedTask{
		{typ: trace.Map, host: "h3", start: 12000, shuffle: -1, fin: 24000, inputMB: 60},
	})
	return tr
}

func observedWorkload(t *testing.T, tr *trace.Trace, opt replay.WorkloadOptions) *replay.Workload {
	t.Helper()
	base := handBase(t, `timeline_sample = "10s"`)
	hw, ok, err := replay.TraceHardware(tr, base)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, opt)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestObservedHandMade checks every observed value of the hand-made history,
// times from A's submit (1 s):
//
//	A: first start 2 s, last map end 20 s, reduces start at 14, 24 and 28 s; r1
//	   and r2 start after the last map: starvation (4 + 8) / 2 = 6 s; maps one
//	   node-, one rack-local, one off-rack; flowtime 40 s.
//	B: submitted at 10 s, its map ran 11..23 s (locality unknown): waiting 1 s,
//	   flowtime 15 s.
//
// The derived cluster has 3 nodes with 2 map slots (h3 ran A's m2 and B's m0
// at once) and 1 reduce slot. Busy map time 10 + 17 + 15 + 12 = 54 s over 6
// slots × 40 s; busy reduce time 16 + 16 + 11 = 43 s over 3 × 40 s. Network:
// the rack- and off-rack maps' 150 MB plus 60 MB of shuffle. Machine
// throughput (MB/s to each host's last end): maps h1 100/12, h2 100/20, h3
// (50 + 60)/23; reduces h1 10/39, h2 30/30, h3 20/40.
func TestObservedHandMade(t *testing.T) {
	w := observedWorkload(t, observedHistory(), replay.WorkloadOptions{})
	res, err := replay.Observed(w, replay.Options{Seed: 1, RecordTasks: true, Timeline: true, TraceName: "hand"})
	if err != nil {
		t.Fatal(err)
	}
	u := int64(replay.Unset)
	want := []replay.JobResult{
		{Policy: "observed", JobIndex: 0, JobID: "A", Maps: 3, Reduces: 3, SubmitUs: 0, FirstLaunchUs: 2 * sec,
			LastMapEndUs: 20 * sec, FirstReduceLaunchUs: 14 * sec, LastReduceLaunchUs: 28 * sec, FinishUs: 40 * sec,
			FlowtimeUs: 40 * sec, AloneUs: u, WaitingUs: 2 * sec, StarvationUs: 6 * sec, MapsNodeLocal: 1, MapsRackLocal: 1,
			MapsOffRack: 1, ReducesLate: 2, InputBytes: -1, ShuffleBytes: -1, OutputBytes: -1, ObservedFlowtimeUs: 40 * sec,
			Status: "SUCCEEDED"},
		{Policy: "observed", JobIndex: 1, JobID: "B", Maps: 1, Reduces: 0, SubmitUs: 10 * sec, FirstLaunchUs: 11 * sec,
			LastMapEndUs: 23 * sec, FirstReduceLaunchUs: u, LastReduceLaunchUs: u, FinishUs: 25 * sec,
			FlowtimeUs: 15 * sec, AloneUs: u, WaitingUs: 1 * sec, InputBytes: -1, ShuffleBytes: -1, OutputBytes: -1,
			ObservedFlowtimeUs: 15 * sec, Status: "SUCCEEDED"},
	}
	// The ideal is the simulated runs' own: the same job on the same model.
	sim, err := replay.Run(w, mustPolicy(t, "fifo"), replay.Options{Seed: 1, CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	var slowdowns []float64
	for i := range want {
		want[i].IdealUs = sim.Jobs[i].IdealUs
		want[i].Slowdown = float64(want[i].FlowtimeUs) / float64(want[i].IdealUs)
		slowdowns = append(slowdowns, want[i].Slowdown)
	}
	if !reflect.DeepEqual(res.Jobs, want) {
		t.Errorf("jobs:\n got %+v\nwant %+v", res.Jobs, want)
	}
	sumSD, sumSq := slowdowns[0]+slowdowns[1], slowdowns[0]*slowdowns[0]+slowdowns[1]*slowdowns[1]
	wantSum := replay.RunSummary{Policy: "observed", Trace: "hand", Seed: 1, Jobs: 2, Maps: 4, Reduces: 3,
		MakespanUs: 40 * sec, TotalFlowtimeUs: 55 * sec, MapLocality: 1.0 / 3, RackLocality: 1.0 / 3,
		MapThroughput: 0.1, ReduceThroughput: 0.075, MapUtilisation: 54.0 / 240, ReduceUtilisation: 43.0 / 120,
		MapMachineThroughput: 100.0/12 + 100.0/20 + 110.0/23, ReduceMachineThroughput: 10.0/39 + 1 + 0.5,
		JainFairness: sumSD * sumSD / (2 * sumSq), NetworkBytes: 210e6}
	if !summaryClose(res.Summary, wantSum) {
		t.Errorf("summary:\n got %+v\nwant %+v", res.Summary, wantSum)
	}

	type row struct {
		job        int32
		typ        string
		idx, node  int32
		start, end int64
	}
	var rows []row
	for _, k := range res.Tasks {
		rows = append(rows, row{k.JobIndex, k.Type, k.Index, k.Node, k.LaunchUs / sec, k.FinishUs / sec})
	}
	wantRows := []row{{0, "MAP", 0, 0, 2, 12}, {0, "MAP", 2, 2, 4, 19}, {0, "MAP", 1, 1, 3, 20}, {1, "MAP", 0, 2, 11, 23},
		{0, "REDUCE", 0, 1, 14, 30}, {0, "REDUCE", 2, 0, 28, 39}, {0, "REDUCE", 1, 2, 24, 40}}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("task rows %v, want %v", rows, wantRows)
	}
	if r := res.Tasks[4]; r.ShuffleEndUs != 21*sec || r.InputBytes != 30e6 || res.Tasks[5].ShuffleEndUs != u {
		t.Errorf("reduce 0 shuffle end %d, bytes %d; reduce 2 shuffle end %d", r.ShuffleEndUs, r.InputBytes, res.Tasks[5].ShuffleEndUs)
	}

	// Samples every 10 s from A's arrival: at 0 nothing runs; at 10 s A's three
	// maps; at 20 s A's r0 and B's map (A's m1 ended at 20 s); at 30 s A's r1 and
	// r2 (B ended at 25 s); at 40 s A has ended.
	type sample struct{ t, job, maps, reduces int64 }
	var got []sample
	for _, x := range res.Timeline {
		got = append(got, sample{x.TimeUs / sec, int64(x.JobIndex), int64(x.RunningMaps), int64(x.RunningReduces)})
	}
	wantTL := []sample{{0, -1, 0, 0}, {10, 0, 3, 0}, {10, -1, 3, 0}, {20, 0, 0, 1}, {20, 1, 1, 0}, {20, -1, 1, 1},
		{30, 0, 0, 2}, {30, -1, 0, 2}}
	if !reflect.DeepEqual(got, wantTL) {
		t.Errorf("timeline %v, want %v", got, wantTL)
	}
}

func summaryClose(a, b replay.RunSummary) bool {
	fl := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(1, math.Abs(y)) }
	ok := fl(a.MapLocality, b.MapLocality) && fl(a.RackLocality, b.RackLocality) && fl(a.MapThroughput, b.MapThroughput) &&
		fl(a.ReduceThroughput, b.ReduceThroughput) && fl(a.MapUtilisation, b.MapUtilisation) &&
		fl(a.ReduceUtilisation, b.ReduceUtilisation) && fl(a.MapMachineThroughput, b.MapMachineThroughput) &&
		fl(a.ReduceMachineThroughput, b.ReduceMachineThroughput) && fl(a.JainFairness, b.JainFairness)
	for _, p := range []*replay.RunSummary{&a, &b} {
		p.MapLocality, p.RackLocality, p.MapThroughput, p.ReduceThroughput = 0, 0, 0, 0
		p.MapUtilisation, p.ReduceUtilisation, p.MapMachineThroughput, p.ReduceMachineThroughput, p.JainFairness = 0, 0, 0, 0, 0
	}
	return ok && reflect.DeepEqual(a, b)
}

func mustPolicy(t *testing.T, name string) replay.Policy {
	t.Helper()
	p, err := policy.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestObservedIncomplete: a job whose history ends early is left out unless
// asked for; then the observed row lists it unfinished, with what it recorded.
func TestObservedIncomplete(t *testing.T) {
	tr := observedHistory()
	c := trace.NewJob("C")
	c.Status, c.SubmitMs = trace.StatusIncomplete, 50000
	tr.Jobs = append(tr.Jobs, c)
	m := trace.NewTask("C", "C-m", trace.Map, 0)
	m.Host, m.StartMs = "h1", 52000
	tr.Tasks = append(tr.Tasks, m)

	res, err := replay.Observed(observedWorkload(t, tr, replay.WorkloadOptions{}), replay.Options{})
	if err != nil || len(res.Jobs) != 2 {
		t.Fatalf("default: %v, %d jobs, want 2", err, len(res.Jobs))
	}
	res, err = replay.Observed(observedWorkload(t, tr, replay.WorkloadOptions{IncludeIncomplete: true}), replay.Options{})
	if err != nil || len(res.Jobs) != 3 {
		t.Fatalf("included: %v, %d jobs, want 3", err, len(res.Jobs))
	}
	r := res.Jobs[2]
	if r.JobID != "C" || r.FinishUs != replay.Unset || r.FlowtimeUs != replay.Unset || r.FirstLaunchUs != 51*sec ||
		r.LastMapEndUs != replay.Unset || r.WaitingUs != 2*sec {
		t.Errorf("incomplete job row %+v", r)
	}
}

// TestObservedNeedsSchedule: traces that do not record where tasks ran (SWIM,
// synthetic) have no observed row.
func TestObservedNeedsSchedule(t *testing.T) {
	tr := handTraceNoHosts()
	if replay.HasObservedSchedule(tr) {
		t.Fatal("a trace without hosts has a schedule")
	}
	hw := handBase(t, "")
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Observed(w, replay.Options{}); err == nil || !strings.Contains(err.Error(), "records no schedule") {
		t.Errorf("error %v", err)
	}
	if !replay.HasObservedSchedule(observedHistory()) {
		t.Error("the hand history has no schedule")
	}
}

func handTraceNoHosts() *trace.Trace {
	tr := observedHistory()
	for i := range tr.Tasks {
		tr.Tasks[i].Host = ""
	}
	return tr
}

// TestObservedFirstAttempt: a job whose trace lists attempts waited until
// its first attempt started, not until a task that never succeeded recorded
// its TASK_STARTED (.jhist: when the AM created it). Job F, submitted at
// 50 s: its map's TASK_STARTED is at 52 s, its two failed attempts ran at
// 54–55 s and 56–57 s: its wait is 4 s.
func TestObservedFirstAttempt(t *testing.T) {
	tr := observedHistory()
	f := trace.NewJob("F")
	f.Status, f.SubmitMs, f.FinishMs = trace.StatusFailed, 50000, 58000
	tr.Jobs = append(tr.Jobs, f)
	m := trace.NewTask("F", "F-m", trace.Map, 0)
	m.Host, m.StartMs, m.FinishMs = "h1", 52000, 57000
	tr.Tasks = append(tr.Tasks, m)
	for k, start := range []int64{54000, 56000} {
		a := trace.NewAttempt("F", "F-m", fmt.Sprintf("F-m-%d", k), trace.Map)
		a.Host, a.StartMs, a.FinishMs, a.Status = "h1", start, start+1000, trace.StatusFailed
		tr.Attempts = append(tr.Attempts, a)
	}
	res, err := replay.Observed(observedWorkload(t, tr, replay.WorkloadOptions{}), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Jobs {
		if r.JobID == "F" && r.WaitingUs != 4*sec {
			t.Errorf("job F waited %d µs, want %d (to its first attempt)", r.WaitingUs, 4*sec)
		}
	}
}
