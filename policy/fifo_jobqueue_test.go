package policy

import (
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// jobQueueHardware is tinyHardware with 2 map and 2 reduce slots a node and
// no out-of-band heartbeats: both nodes heartbeat at whole seconds.
func jobQueueHardware(tb testing.TB, nodes int) replay.Hardware {
	tb.Helper()
	hw := tinyHardware(tb)
	hw.NodesPerRack = nodes
	hw.Replication = min(hw.Replication, nodes)
	hw.MapSlots, hw.ReduceSlots = 2, 2
	hw.OutOfBandHeartbeat = false
	return hw
}

// TestFIFOJobQueueLoadFactor: job A (t=0, two 2 s maps, two 1 s reduces, slow
// start 0) on 2 nodes × 2 map and 2 reduce slots. fifo fills every free slot
// of the first node to heartbeat: both maps and both reduces on one node at
// 0 s. assign=jobqueue caps each tracker at ceil(2 maps left / 4 map slots ×
// 2) = 1 map and likewise 1 reduce (JobQueueTaskScheduler's load factor):
// one map and one reduce on each node, all at 0 s.
func TestFIFOJobQueueLoadFactor(t *testing.T) {
	jobs := []job{{0, []int64{2, 2}, []int64{1, 1}}}
	opt := replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true}
	for _, c := range []struct {
		spec  string
		nodes int // distinct nodes of the maps, and of the reduces
	}{{"fifo", 1}, {"fifo:assign=jobqueue", 2}} {
		res := simulate(t, jobQueueHardware(t, 2), handTrace(jobs), c.spec, opt)
		nodes := map[string]map[int32]bool{"MAP": {}, "REDUCE": {}}
		for _, k := range res.Tasks {
			nodes[k.Type][k.Node] = true
			if k.LaunchUs != 0 {
				t.Errorf("%s: %s %d launched at %d µs, want 0", c.spec, k.Type, k.Index, k.LaunchUs)
			}
		}
		for kind, set := range nodes {
			if len(set) != c.nodes {
				t.Errorf("%s: %ss on %d nodes, want %d", c.spec, kind, len(set), c.nodes)
			}
		}
	}
}

// TestFIFOJobQueueOneReduceAHeartbeat: job A (one 1 s map, two 5 s reduces,
// slow start 0) on one node × 2 reduce slots: the load factor allows both
// reduces (ceil(2 / 2 × 2) = 2), but JobQueueTaskScheduler never hands out
// more than one reduce a heartbeat, so the second waits for the heartbeat at
// 1 s; fifo launches both at 0 s.
func TestFIFOJobQueueOneReduceAHeartbeat(t *testing.T) {
	jobs := []job{{0, []int64{1}, []int64{5, 5}}}
	opt := replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true}
	for _, c := range []struct {
		spec string
		last int64
	}{{"fifo", 0}, {"fifo:assign=jobqueue", sec}} {
		res := simulate(t, jobQueueHardware(t, 1), handTrace(jobs), c.spec, opt)
		var last int64
		for _, k := range res.Tasks {
			if k.Type == "REDUCE" {
				last = max(last, k.LaunchUs)
			}
		}
		if last != c.last {
			t.Errorf("%s: last reduce launched at %d µs, want %d", c.spec, last, c.last)
		}
	}
}

// TestFIFOJobQueueOpen: job A (t=0, four 2 s maps, no reduces) on 4 nodes ×
// 2 map slots. assign=jobqueue caps each tracker at ceil(4 / 8 × 2) = 1 map:
// four nodes, all at 0 s. With open=0.5, work the trace does not hold keeps
// both map slots of 2 nodes and one of the other 2 busy; it counts in the
// load factor (ceil((4 + 6) / 8 × 2) = 2, less the one held: 1 free), so
// the two open nodes take one map each at 0 s and the other two maps when
// those end, at 2 s; the full nodes take none.
func TestFIFOJobQueueOpen(t *testing.T) {
	jobs := []job{{0, []int64{2, 2, 2, 2}, nil}}
	opt := replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true}
	for _, c := range []struct {
		spec       string
		nodes, at0 int
	}{{"fifo:assign=jobqueue", 4, 4}, {"fifo:assign=jobqueue,open=0.5", 2, 2}} {
		res := simulate(t, jobQueueHardware(t, 4), handTrace(jobs), c.spec, opt)
		nodes := map[int32]bool{}
		at0 := 0
		for _, k := range res.Tasks {
			nodes[k.Node] = true
			if k.LaunchUs == 0 {
				at0++
			} else if k.LaunchUs != 2*sec {
				t.Errorf("%s: map %d launched at %d µs, want 0 or 2 s", c.spec, k.Index, k.LaunchUs)
			}
		}
		if len(nodes) != c.nodes || at0 != c.at0 {
			t.Errorf("%s: maps on %d nodes, %d at 0 s; want %d and %d", c.spec, len(nodes), at0, c.nodes, c.at0)
		}
	}
	if _, err := New("fifo:assign=jobqueue,open=0"); err == nil {
		t.Error("open=0 accepted")
	}
	if _, err := New("fifo:open=0.5"); err == nil {
		t.Error("open without assign=jobqueue accepted")
	}
}
