package replay

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// TestFlowEventPoll: event_poll under network = "flow" (shuffle.go,
// pollOutput), each schedule worked by hand. Disks and NICs at 1 MB/s,
// uplinks at 100, no start-up or compute, aligned heartbeats every second
// (out of band), so the poll chain's wait is 0.5 + 3 = 3.5 s. Job A: map 0
// on node 0 (rack 0) spills 2 MB over 0–2 s, map 1 on node 2 (rack 1) 4 MB
// over 0–4 s, both reported at once; two reduces of 3 MB each take 1 MB of
// map 0's output and 2 MB of map 1's. R0 runs on node 1 from 0 s, R1 on
// node 3 from 4 s, the instant map 1 is reported.
//
// Without event_poll: R0 fetches map 0's MB over 2–3 s and map 1's 2 MB
// from 4 s; R1, launched at 4 s, fetches both outputs at once, sharing its
// disk (0.5 MB/s each) while R0's and its own fetch of map 1 share node 2's
// disk: R1's MB of map 0 is in at 6 s, both fetches of map 1 have 1 MB left
// then and move on at 0.5 MB/s each (node 2's disk): both shuffles end at 8 s.
//
// With it: R0 sees map 0 at 2 + 3.5 = 5.5 s and map 1 at 4 + 3.5 = 7.5 s
// (after the job's maps are all done: it lags). R1 was launched at map 1's
// report, so it sees both outputs at once (as the fixed shuffles' fetch,
// which waits only for maps ending after the reduce's launch): 4–5.5 s its
// two fetches at 0.5 MB/s each (0.75 MB each); at 5.5 s R0's fetch of map 0
// joins R1's on node 0's disk, all at 0.5 MB/s: R1's MB of map 0 is in at
// 6 s, R0's fetch then runs at 1 MB/s, 0.75 MB left, to 6.75 s, and R1's of
// map 1 (1 MB left at 6 s) to 7 s. R0 fetches map 1's 2 MB alone over
// 7.5–9.5 s. Shuffles end at 9.5 s (R0) and 7 s (R1). Under flow_shuffle =
// "batch" each round here carries one output from one host, as a fetch, so
// the times are the same.
func TestFlowEventPoll(t *testing.T) {
	tr := &trace.Trace{}
	flowJob(tr, "A", [][2]int64{{0, 2e6}, {0, 4e6}}, []int64{3e6, 3e6})
	plan := func(s Cluster, jobs []*JobView) []launch {
		return []launch{{0, false, 0, 0, 0}, {0, false, 1, 2, 0}, {0, true, 0, 1, 0}, {0, true, 1, 3, 4}}
	}
	for _, mode := range FlowShuffleModeNames() {
		for _, c := range []struct {
			poll bool
			want []int64
		}{{false, []int64{8 * sec, 8 * sec}}, {true, []int64{9_500_000, 7 * sec}}} {
			t.Run(fmt.Sprintf("%s, event_poll %v", mode, c.poll), func(t *testing.T) {
				h := faultHardware(t)
				h.TaskStartup = 0
				h.EventPoll = c.poll
				h.FlowShuffle = FlowShuffleMode(mode)
				res, _ := runFlowCase(t, h, tr, 1, nil, plan)
				ends := make([]int64, 2)
				for _, tk := range res.Tasks {
					if tk.Type == "REDUCE" {
						ends[tk.Index] = tk.ShuffleEndUs
					}
				}
				if !slices.Equal(ends, c.want) {
					t.Errorf("shuffles of R0, R1 end at %v µs, want %v", ends, c.want)
				}
				if got := taskTimes(res, "A", "MAP"); got[0] != [2]int64{0, 2 * sec} || got[1] != [2]int64{0, 4 * sec} {
					t.Errorf("maps ran %v µs, want 0–2 s and 0–4 s", got)
				}
			})
		}
	}
}

// TestFlowReduceFailedAttemptFetches: a reduce's failed attempts fetch as
// flows until they fail (lifecycle_flowreduce.go). Disks and NICs at 1 MB/s,
// uplinks at 100, 1 s start-up, no compute. Job A's one map (no input, 4 MB
// of output) on node 0 starts up over 0–1 s and spills over 1–5 s; its two
// reduces, 2 MB each, launch at 5 s on the other rack's nodes, R0 (node 2)
// with 3 s of failed attempts, R1 (node 3) with none.
//
//	5–6 s:  both start up (R0's failed attempts' start-up);
//	6–8 s:  both fetch from node 0, whose disk gives each 0.5 MB/s;
//	8 s:    R0's attempts fail: their fetch is withdrawn with 1 MB moved;
//	        R1 has 1 MB left, alone at 1 MB/s: its shuffle ends at 9 s;
//	8–9 s:  R0's successful attempt starts up; 9–11 s it fetches 2 MB.
//
// Node 0 sends 5 MB (the failed attempts' 1 MB counts), node 2 receives 3 MB.
// Before, the failed attempts were a wait: R1 alone over 6–8 s, node 0 sent
// 4 MB; R0 ran 5–11 s either way.
func TestFlowReduceFailedAttemptFetches(t *testing.T) {
	tr := &trace.Trace{}
	diskJob(tr, "A", [][2]int64{{0, 4e6}}, [][2]int64{{2e6, 0}, {2e6, 0}})
	tr.Tasks[1].TaskID, tr.Tasks[2].TaskID = "Ar0", "Ar1"
	edit := func(w *Workload) { w.retries = map[string]int64{retryKey("A", "Ar0"): 3 * sec} }
	res, end := runFlowCase(t, faultHardware(t), tr, 1, edit, func(s Cluster, jobs []*JobView) []launch {
		return []launch{{0, false, 0, 0, 0}, {0, true, 0, 2, 5}, {0, true, 1, 3, 5}}
	})
	if got := taskTimes(res, "A", "REDUCE"); !slices.Equal(got, [][2]int64{{5 * sec, 11 * sec}, {5 * sec, 9 * sec}}) {
		t.Errorf("reduces ran %v µs, want 5–11 s and 5–9 s", got)
	}
	if got := [3]int64{res.Nodes[0].NetOutBytes, res.Nodes[2].NetInBytes, res.Nodes[3].NetInBytes}; got != [3]int64{5e6, 3e6, 2e6} {
		t.Errorf("node 0 sent, nodes 2 and 3 received %v bytes, want 5, 3 and 2 MB", got)
	}
	if end.cancels != 1 {
		t.Errorf("%d transfers withdrawn, want 1 (the failed attempts' fetch)", end.cancels)
	}
}

// TestFlowReduceFailsForGoodFetches: a reduce whose every attempt fails
// fetches too, the outputs reported after its launch included, until its
// last attempt fails. attempt_failure_rate 0.5; seeds 77 and 71 draw four
// failed attempts for the reduce (5.736028 s and 3.991665 s in all) and
// none for the map (checked first). The map (shuffleCase, launched at 0 s)
// starts up over 0–1 s and spills 2 MB over 1–3 s; the reduce, launched at
// 0 s on the other rack, starts up over 0–1 s and fetches the output from 3 s
// at 1 MB/s (map disk, NICs, its disk). Seed 77: the fetch ends at 5 s, 2 MB
// sent; seed 71: it is withdrawn at 3.991665 s with 991,665 bytes moved.
// Then the job fails. Before, the attempts were a wait before a fetch that
// never started: node 0 sent nothing.
func TestFlowReduceFailsForGoodFetches(t *testing.T) {
	for _, c := range []struct {
		seed    uint64
		failUs  int64
		sent    int64
		cancels int64
	}{{77, 5_736_028, 2e6, 0}, {71, 3_991_665, 991_665, 1}} {
		t.Run(fmt.Sprint(c.seed), func(t *testing.T) {
			h := faultHardware(t)
			h.AttemptFailureRate = 0.5
			tr, plan := shuffleCase(0)
			w, err := NewWorkload(tr, &h, NewTopology(&h, c.seed), c.seed, WorkloadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			j := w.buildAt(0)
			if !j.life.fail.reduceFails(0) || j.life.fail.redFailUs[0] != c.failUs || j.retryUs(0) != 0 {
				t.Fatalf("seed %d draws %d µs of failed attempts for the map and fate %v, %v µs for the reduce: want none and every attempt failing in %d µs",
					c.seed, j.retryUs(0), j.life.fail.reduces, j.life.fail.redFailUs, c.failUs)
			}
			res, end := runFlowCase(t, h, tr, c.seed, nil, plan)
			if res.Jobs[0].Status != "FAILED" {
				t.Errorf("job %s, want FAILED", res.Jobs[0].Status)
			}
			if got := res.Nodes[0].NetOutBytes; got != c.sent {
				t.Errorf("node 0 sent %d bytes, want %d", got, c.sent)
			}
			if end.cancels != c.cancels {
				t.Errorf("%d transfers withdrawn, want %d", end.cancels, c.cancels)
			}
		})
	}
}
