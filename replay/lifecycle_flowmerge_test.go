package replay

import (
	"fmt"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// TestFlowMergesMap: with flow_merges a map whose output is over the sort
// buffer's spill threshold (80 MiB, 83,886,080 bytes) merges its spills
// after its spill, a flow of twice its output on its disk
// (lifecycle_flowmerge.go). Disks at 100 MB/s, no start-up or compute.
// Maps 0 (100 MB of output: two spills) and 1 (50 MB: one) on node 0:
//
//	0–1 s:   both spill, 50 MB/s each; map 1's 50 MB are out at 1 s;
//	1–1.5 s: map 0's last 50 MB alone at 100 MB/s;
//	1.5–3.5 s: map 0's merge reads and writes 100 MB, 200 MB at 100 MB/s.
//
// Without the key map 0 ends at 1.5 s; map 1 ends at 1 s either way. The
// job has a reduce of no bytes on node 1: a job without reduces has no sort
// and no merge (mapWrite), so without one (one replica: its write is to
// node 0's disk) map 0 ends at 1.5 s with the key too.
func TestFlowMergesMap(t *testing.T) {
	for _, c := range []struct {
		merges, mapOnly bool
		want            [2]int64
	}{{false, false, [2]int64{1_500_000, sec}}, {true, false, [2]int64{3_500_000, sec}}, {true, true, [2]int64{1_500_000, sec}}} {
		t.Run(fmt.Sprint(c.merges, c.mapOnly), func(t *testing.T) {
			h := flowHardware(t, 100, 100, 100)
			h.MapComputeMBps, h.ReduceComputeMBps, h.SortMBps = 0, 0, 0
			h.FlowMerges = c.merges
			tr := &trace.Trace{}
			reduces := [][2]int64{{0, 0}}
			plan := []launch{{0, false, 0, 0, 0}, {0, false, 1, 0, 0}, {0, true, 0, 1, 0}}
			if c.mapOnly {
				reduces, plan = nil, plan[:2]
			}
			diskJob(tr, "A", [][2]int64{{0, 100e6}, {0, 50e6}}, reduces)
			res, _ := runFlowCase(t, h, tr, 1, nil, func(s Cluster, jobs []*JobView) []launch {
				return plan
			})
			got := taskTimes(res, "A", "MAP")
			if got[0][1] != c.want[0] || got[1][1] != c.want[1] {
				t.Errorf("maps ran %v µs, want ends at %v", got, c.want)
			}
		})
	}
}

// TestFlowMergesReduce: with flow_merges a reduce's final merge reads its
// shuffle bytes from its disk beside its output write (lifecycle_flowmerge.go).
// Disks at 1 MB/s, no start-up or compute, one replica. Map 0 on node 0
// spills 2 MB over 0–2 s; the reduce, on node 0 from 0 s, fetches them from
// its own disk over 2–4 s; then its output write (1 MB, first replica on
// node 0) and its merge read (2 MB) share node 0's disk, 0.5 MB/s each: the
// write ends at 6 s, the read's last MB runs alone and ends at 7 s, and so
// does the reduce. Without the key the output write runs alone over 4–5 s.
func TestFlowMergesReduce(t *testing.T) {
	for _, c := range []struct {
		merges bool
		want   int64
	}{{false, 5 * sec}, {true, 7 * sec}} {
		t.Run(fmt.Sprint(c.merges), func(t *testing.T) {
			h := faultHardware(t)
			h.TaskStartup = 0
			h.FlowMerges = c.merges
			tr := &trace.Trace{}
			diskJob(tr, "A", [][2]int64{{0, 2e6}}, [][2]int64{{2e6, 1e6}})
			res, _ := runFlowCase(t, h, tr, 1, nil, func(s Cluster, jobs []*JobView) []launch {
				return []launch{{0, false, 0, 0, 0}, {0, true, 0, 0, 0}}
			})
			if got := taskTimes(res, "A", "REDUCE")[0]; got != [2]int64{0, c.want} {
				t.Errorf("reduce ran %v µs, want 0–%d µs", got, c.want)
			}
			for _, tk := range res.Tasks {
				if tk.Type == "REDUCE" && tk.ShuffleEndUs != 4*sec {
					t.Errorf("shuffle ends at %d µs, want 4 s", tk.ShuffleEndUs)
				}
			}
		})
	}
}

// TestFlowMergesCopy: a speculative copy merges its spills as the original
// does. TestFlowSpeculationStraggler's case (disks, NICs and uplinks at
// 10 MB/s, seed 3, the original straggling by 100 on node 3) with 100 MB
// of output: the copy on node 0 from 1 s reads 1–1.4 s, computes 1–3 s,
// spills 100 MB over 3–13 s and, with flow_merges, merges 200 MB over
// 13–33 s; it wins at 33 s (13 s without the key) while the original
// computes, so no flow is withdrawn. The job has a reduce of no bytes on
// node 1 (as in TestFlowMergesMap).
func TestFlowMergesCopy(t *testing.T) {
	for _, c := range []struct {
		merges bool
		want   int64
	}{{false, 13 * sec}, {true, 33 * sec}} {
		t.Run(fmt.Sprint(c.merges), func(t *testing.T) {
			h := flowHardware(t, 10, 10, 10)
			h.MapSlots, h.MapComputeMBps, h.Speculation = 5, 2, "late"
			h.FlowMerges = c.merges
			straggle(&h)
			tr := &trace.Trace{}
			diskJob(tr, "A", [][2]int64{{4e6, 100e6}}, [][2]int64{{0, 0}})
			res, end := runFlowCase(t, h, tr, 3, nil, func(s Cluster, jobs []*JobView) []launch {
				if r := jobs[0].Replicas(0); len(r) != 1 || r[0] != 0 {
					t.Fatalf("seed 3 puts the block on %v, want node 0", r)
				}
				return []launch{{0, false, 0, 3, 0}, {0, true, 0, 1, 0}}
			})
			if m := taskTimes(res, "A", "MAP")[0]; m != [2]int64{0, c.want} {
				t.Errorf("map ran %v µs, want 0–%d µs", m, c.want)
			}
			if end.cancels != 0 {
				t.Errorf("%d flows cancelled, want none", end.cancels)
			}
		})
	}
}
