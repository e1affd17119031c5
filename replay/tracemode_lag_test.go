package replay_test

import (
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// lagRun replays the hand history pinned as in TestTraceModeHandWorked
// (factors: m2 observed node-local, replayed off-rack, ×3) with task_startup
// 2 s and the given launch lags (ms, by task index: maps then reduces), and
// returns each task's launch and finish, maps then reduces.
func lagRun(t *testing.T, times replay.TaskTimeSource, lags map[int]int64) [][2]int64 {
	t.Helper()
	tr := handHistory()
	for i, lag := range lags {
		tr.Tasks[i].LaunchLagMs = lag
	}
	hw := handBase(t, "")
	hw.TaskStartup, hw.TaskTimes = 2*sec, times
	res := runPinned(t, tr, hw, true, &pin{maps: []int32{0, 1, 2, 2, 2}, reduceNode: 1})
	out := make([][2]int64, 7)
	for _, k := range res.Tasks {
		i := int(k.Index)
		if k.Type == "REDUCE" {
			i += 5
		}
		out[i] = [2]int64{k.LaunchUs, k.FinishUs}
	}
	return out
}

// TestTraceModeLaunchLag: a map whose trace records its launch lag holds its
// slot for the lag, not rescaled, and then for its observed duration
// rescaled, instead of task_startup: m2 (observed 6 s node-local, replayed
// off-rack) runs 40 + 6·3 = 58 s with a 40 s lag, (6 + 2)·3 = 24 s without;
// m0 stays 6 + 2 s. A reduce launched 1 s into the job with a 30 s lag
// copies from then on: the observed copy tail is 0 (its shuffle ended
// before the last map), so its shuffle ends at the later of launch + 30 s
// and the last map's end, and its observed 3 s of work follow.
func TestTraceModeLaunchLag(t *testing.T) {
	base := lagRun(t, replay.TaskTimesTrace, nil)
	if d := base[2][1] - base[2][0]; d != 24*sec {
		t.Fatalf("m2 without a lag: %d µs, want 24 s", d)
	}
	got := lagRun(t, replay.TaskTimesTrace, map[int]int64{2: 40_000})
	if d := got[2][1] - got[2][0]; d != 58*sec {
		t.Errorf("m2 with a 40 s lag: %d µs, want 58 s", d)
	}
	if d := got[0][1] - got[0][0]; d != 8*sec {
		t.Errorf("m0: %d µs, want 8 s", d)
	}
	red := lagRun(t, replay.TaskTimesTrace, map[int]int64{5: 30_000})
	lastMap := int64(0)
	for _, m := range red[:5] {
		lastMap = max(lastMap, m[1])
	}
	if want := max(red[5][0]+30*sec, lastMap) + 3*sec; red[5][1] != want || red[5][0]+30*sec <= lastMap {
		t.Errorf("r0 with a 30 s lag: %v, last map end %d, want its end at %d", red[5], lastMap, want)
	}
	if red[5][1] == base[5][1] {
		t.Errorf("r0 ends at %d µs with and without its lag", red[5][1])
	}
}

// TestModelModeIgnoresLaunchLag: model times read no observed time, the
// launch lag included: the same replay with and without lags.
func TestModelModeIgnoresLaunchLag(t *testing.T) {
	without := lagRun(t, replay.TaskTimesModel, nil)
	with := lagRun(t, replay.TaskTimesModel, map[int]int64{0: 40_000, 2: 40_000, 5: 30_000})
	for i := range without {
		if with[i] != without[i] {
			t.Errorf("task %d: %v with lags, %v without", i, with[i], without[i])
		}
	}
}

// TestTraceIdentityLaunchLag: a trace's identity leaves a task's launch lag
// out while it is unknown, so the hand history keeps the identity a schema
// 2.1 build gave it (pinned: fb87ba7's TraceSHA256), and counts it once
// known; so too the report lag (schema 2.4). TraceSHA256 cuts them off the
// end of the task's JSON, so they must stay trace.Task's last two fields, the
// report lag last.
func TestTraceIdentityLaunchLag(t *testing.T) {
	tt := reflect.TypeFor[trace.Task]()
	if a, b := tt.Field(tt.NumField()-2).Name, tt.Field(tt.NumField()-1).Name; a != "LaunchLagMs" || b != "ReportLagMs" {
		t.Fatalf("trace.Task's last fields are %s, %s: TraceSHA256 strips the launch and report lags from the end", a, b)
	}
	tr := handHistory()
	const before = "sha256:46efdd6eaa5fbff50d2f040b42374805e58b067440d95bcca07576f86725ac36"
	if got := replay.TraceSHA256(tr); got != before {
		t.Errorf("identity without lags %s, want the 2.1 build's %s", got, before)
	}
	tr.Tasks[0].ReportLagMs = 240
	withReport := replay.TraceSHA256(tr)
	if withReport == before {
		t.Error("a known report lag leaves the trace's identity unchanged")
	}
	tr.Tasks[0].ReportLagMs = trace.Unknown
	tr.Tasks[0].LaunchLagMs = 1130
	withLag := replay.TraceSHA256(tr)
	if withLag == before {
		t.Error("a known launch lag leaves the trace's identity unchanged")
	}
	tr.Tasks[0].ReportLagMs = 240
	if got := replay.TraceSHA256(tr); got == withLag || got == withReport {
		t.Error("known launch and report lags give the identity of one of them")
	}
}

// TestTraceModeHistoryTimesLaunchLag: with the lifecycle a job's recorded
// first launch and first and last reduce launch are its history's, the
// earliest (latest) attempt start: a task's assignment plus its own observed
// launch lag where the trace records it (every map 7 s, both reduces 30 s
// here), plus task_startup (2 s) where it does not.
func TestTraceModeHistoryTimesLaunchLag(t *testing.T) {
	for _, c := range []struct {
		name     string
		lags     map[int]int64
		map1, r1 int64 // what the first map's and the reduce's launch add
	}{
		{"no lags", nil, 2 * sec, 2 * sec},
		{"lags", map[int]int64{0: 7_000, 1: 7_000, 2: 7_000, 3: 7_000, 4: 7_000, 5: 30_000, 6: 30_000}, 7 * sec, 30 * sec},
	} {
		tr := handHistory()
		for i, lag := range c.lags {
			tr.Tasks[i].LaunchLagMs = lag
		}
		hw := handBase(t, "")
		hw.TaskStartup, hw.TaskTimes = 2*sec, replay.TaskTimesTrace
		res := runPinned(t, tr, hw, true, &pin{maps: []int32{0, 1, 2, 2, 2}, reduceNode: 1})
		firstMap, firstRed, lastRed := int64(-1), int64(-1), int64(-1)
		for _, k := range res.Tasks {
			if k.Type == "REDUCE" {
				if firstRed < 0 || k.LaunchUs < firstRed {
					firstRed = k.LaunchUs
				}
				lastRed = max(lastRed, k.LaunchUs)
			} else if firstMap < 0 || k.LaunchUs < firstMap {
				firstMap = k.LaunchUs
			}
		}
		j := res.Jobs[0]
		if want := firstMap + c.map1; j.FirstLaunchUs != want {
			t.Errorf("%s: first launch %d µs, want the first map's assignment %d + %d", c.name, j.FirstLaunchUs, firstMap, c.map1)
		}
		if j.FirstReduceLaunchUs != firstRed+c.r1 || j.LastReduceLaunchUs != lastRed+c.r1 {
			t.Errorf("%s: first and last reduce launch %d, %d µs, want their assignments %d, %d + %d",
				c.name, j.FirstReduceLaunchUs, j.LastReduceLaunchUs, firstRed, lastRed, c.r1)
		}
	}
}
