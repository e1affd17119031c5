package replay_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// slotWaitRun replays a map-only job on host h1: m0 ran over [0, 10 s),
// m1's attempt over [10 s, 16 s) with a 1 s launch lag (assigned at 9 s),
// and, when full, a third map m2 over [0, 16 s), so that h1 ran two maps at
// once; m0 ends at m0End ms. It returns m1's span in the replay, from its
// launch to its end, in µs: its held lag plus its observed 6 s.
func slotWaitRun(t *testing.T, m0End int64, full bool, times replay.TaskTimeSource) int64 {
	t.Helper()
	j := trace.NewJob("job_1")
	j.Status, j.SubmitMs, j.FinishMs = trace.StatusSucceeded, 0, 20000
	tr := &trace.Trace{Jobs: []trace.Job{j}}
	spans := [][3]int64{{0, m0End, -1}, {10000, 16000, 1000}}
	if full {
		spans = append(spans, [3]int64{0, 16000, -1})
	}
	for i, s := range spans {
		k := trace.NewTask("job_1", "m", trace.Map, int32(i))
		k.Status, k.StartMs, k.FinishMs, k.LaunchLagMs = trace.StatusSucceeded, s[0], s[1], s[2]
		k.Host, k.Rack = "h1", "/a"
		tr.Tasks = append(tr.Tasks, k)
	}
	hw := handBase(t, "")
	hw.TaskTimes = times
	res := runPinned(t, tr, hw, true, &pin{maps: []int32{0, 0, 0}})
	for _, k := range res.Tasks {
		if k.Type == "MAP" && k.Index == 1 {
			return k.FinishUs - k.LaunchUs
		}
	}
	t.Fatal("m1 not replayed")
	return 0
}

// TestTraceModeSlotWait: a launch lag during which every slot of the task's
// kind on its host was held by the trace's other attempts is a wait for a
// slot (the JobTracker assigned into a committing task's slot), not a held
// slot: the replay holds the slot for the rest of the lag only. m1's lag is
// 1 s, [9 s, 10 s): held whole when h1's one slot was free from 9 s (m0
// ended at 9 s: 7 s), half when m0 held it until 9.5 s (6.5 s), not at all
// when m0 held it until 10 s (6 s); with two slots, one of them free
// (m2 alone), held whole (7 s), and with both held by m0 and m2 until 10 s,
// not at all. Model times read no lag: the same span whatever the slots.
func TestTraceModeSlotWait(t *testing.T) {
	for _, c := range []struct {
		name  string
		m0End int64
		full  bool
		want  int64
	}{
		{"slot free", 9000, false, 7 * sec},
		{"slot held half the lag", 9500, false, 6500 * 1000},
		{"slot held the whole lag", 10000, false, 6 * sec},
		{"one of two slots free", 9000, true, 7 * sec},
		{"both slots held", 10000, true, 6 * sec},
	} {
		if got := slotWaitRun(t, c.m0End, c.full, replay.TaskTimesTrace); got != c.want {
			t.Errorf("%s: m1 spans %d µs, want %d", c.name, got, c.want)
		}
	}
	free := slotWaitRun(t, 9000, false, replay.TaskTimesModel)
	if held := slotWaitRun(t, 10000, false, replay.TaskTimesModel); held != free {
		t.Errorf("model times: m1 spans %d µs with its slot held, %d free", held, free)
	}
}

// TestSlotWaitsRealHistoriesAsSorted: on every real history (historyInputs),
// on the cluster derived from it, slotWaits' sweep, held and streamed (with
// its attempts when it has any), drained after every 1, 64
// and 1,024 queries or attempts, gives the waits of the sort of every point
// of the held trace. The shared histories hold a wait (the testdata's, read
// in -short mode, none).
func TestSlotWaitsRealHistoriesAsSorted(t *testing.T) {
	t.Parallel()
	waits, inputs, shared := 0, 0, false
	for _, in := range historyInputs(t) {
		tr, _, err := trace.ReadTree(context.Background(), in, trace.TreeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if len(tr.Jobs) == 0 {
			continue
		}
		hw, ok, err := replay.TraceHardware(tr, replay.DefaultHardware())
		if err != nil || !ok {
			t.Fatalf("%s: no cluster derived: %v %v", in, ok, err)
		}
		topo := replay.NewTopology(&hw, 1)
		if len(tr.Tasks) == 0 {
			continue
		}
		_, held, streamed := streamDir(t, tr, trace.StreamOptions{Attempts: len(tr.Attempts) > 0})
		inputs++
		shared = shared || strings.Contains(in, "shared")
		for _, c := range []struct {
			name string
			tr   *trace.Trace
		}{{"held", held}, {"streamed", streamed}} {
			for _, chunk := range []int{1, 64, 1024} {
				got, want, err := replay.SlotWaitsAndSorted(c.tr, held, topo, chunk)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %s, chunk %d: %d waits %v, want %d", in, c.name, chunk, len(got), err, len(want))
				}
				if c.name == "held" && chunk == 1 {
					waits += len(want)
				}
			}
		}
	}
	t.Logf("%d inputs, %d tasks waited for a slot", inputs, waits)
	if inputs < 10 {
		t.Errorf("only %d inputs", inputs)
	}
	if waits == 0 && shared {
		t.Error("no task waited for a slot in the shared histories")
	}
}
