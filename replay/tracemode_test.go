package replay_test

import (
	"time"

	"reflect"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

const sec = 1_000_000

// pin is a test policy that launches map i on node maps[i] and every reduce on
// node reduceNode, at their first heartbeat; it records each job's replicas.
type pin struct {
	replay.Base
	maps       []int32
	reduceNode int32
	replicas   [][]int32
}

func (p *pin) Name() string { return "pin" }

func (p *pin) JobArrived(_ replay.Cluster, j *replay.JobView) {
	for i := range j.NumMaps() {
		p.replicas = append(p.replicas, slices.Clone(j.Replicas(i)))
	}
}

func (p *pin) Heartbeat(s replay.Cluster, n int32) {
	for _, j := range s.Active() {
		for i := range j.NumMaps() {
			if j.MapState(i) == replay.Pending && p.maps[i] == n && s.FreeMapSlots(n) > 0 {
				s.LaunchMap(j, i, n)
			}
		}
		for n == p.reduceNode && s.FreeReduceSlots(n) > 0 && s.LaunchReduce(j, n) >= 0 {
		}
	}
}

// handHistory is one job as a history records it, on hosts h1, h2 (rack /a)
// and h3 (rack /b), all maps 250 MB, starting at 0:
//
//	m0..m2  split on h1, ran on h1 node-local for 6 s
//	m3      split on h3, ran on h1 off-rack for 9 s
//	m4      no split location, ran on h2 (recorded off-rack) for 5 s
//	r0      on h2 from 1 s, shuffle finished at 8 s, finished at 11 s
//	r1      on h2 from 1 s to 11 s, shuffle end not recorded
func handHistory() *trace.Trace {
	j := trace.NewJob("job_1")
	j.Status, j.SubmitMs, j.FinishMs = trace.StatusSucceeded, 0, 30000
	tr := &trace.Trace{Jobs: []trace.Job{j}}
	maps := []struct {
		pref, host, loc string
		ms              int64
	}{
		{"h1", "h1", trace.NodeLocal, 6000}, {"h1", "h1", trace.NodeLocal, 6000}, {"h1", "h1", trace.NodeLocal, 6000},
		{"h3", "h1", trace.OffSwitch, 9000}, {"", "h2", trace.OffSwitch, 5000},
	}
	rack := map[string]string{"h1": "/a", "h2": "/a", "h3": "/b"}
	for i, m := range maps {
		t := trace.NewTask("job_1", "m", trace.Map, int32(i))
		t.InputBytes, t.OutputBytes = 250_000_000, 0
		if m.pref != "" {
			t.PreferredHosts, t.PreferredRacks = []string{m.pref}, []string{rack[m.pref]}
		}
		t.Status, t.StartMs, t.FinishMs = trace.StatusSucceeded, 0, m.ms
		t.Host, t.Rack, t.Locality = m.host, rack[m.host], m.loc
		tr.Tasks = append(tr.Tasks, t)
	}
	for i, sh := range []int64{8000, trace.Unknown} {
		t := trace.NewTask("job_1", "r", trace.Reduce, int32(i))
		t.ShuffleBytes, t.OutputBytes = 0, 0
		t.Status, t.StartMs, t.ShuffleFinishMs, t.FinishMs = trace.StatusSucceeded, 1000, sh, 11000
		t.Host, t.Rack = "h2", "/a"
		tr.Tasks = append(tr.Tasks, t)
	}
	return tr
}

// handBase has no start-up cost, exact durations, aligned and out-of-band
// heartbeats, slow start 0, a 125 MB/s NIC and a 125 MB/s rack uplink.
func handBase(t *testing.T, extra string) replay.Hardware {
	t.Helper()
	hw, err := replay.ParseHardware([]byte(`
task_startup = "0s"
duration_cv = 0
heartbeat = "1s"
heartbeat_jitter = false
out_of_band_heartbeat = true
slow_start = 0.0
nic_mb_per_s = 125
rack_uplink_mb_per_s = 125
` + extra))
	if err != nil {
		t.Fatal(err)
	}
	return hw
}

// runPinned derives the cluster from tr (or uses base as is when derive is
// false), runs pin with maps on the given nodes, and returns the result.
func runPinned(t *testing.T, tr *trace.Trace, base replay.Hardware, derive bool, p *pin) *replay.Result {
	t.Helper()
	hw := base
	if derive {
		var ok bool
		var err error
		if hw, ok, err = replay.TraceHardware(tr, base); err != nil || !ok {
			t.Fatalf("TraceHardware: %v %v", ok, err)
		}
	}
	topo := replay.NewTopology(&hw, 1)
	w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(w, p, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDerivedClusterHandHistory: racks and hosts come from the history in name
// order (h1, h2 on /a are nodes 0, 1; h3 on /b is node 2), slots from the
// busiest host (h1 ran four maps at once over [0, 6 s), h2 two reduces).
func TestDerivedClusterHandHistory(t *testing.T) {
	hw, ok, err := replay.TraceHardware(handHistory(), handBase(t, ""))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := []replay.RackLayout{{Name: "/a", Hosts: []string{"h1", "h2"}}, {Name: "/b", Hosts: []string{"h3"}}}
	if !reflect.DeepEqual(hw.Layout, want) || hw.Racks != 2 || hw.NodesPerRack != 2 || hw.MapSlots != 4 || hw.ReduceSlots != 2 {
		t.Fatalf("layout %v, racks %d × %d, slots %d/%d", hw.Layout, hw.Racks, hw.NodesPerRack, hw.MapSlots, hw.ReduceSlots)
	}
	topo := replay.NewTopology(&hw, 1)
	for i, h := range []string{"h1", "h2", "h3"} {
		if n, ok := topo.HostNode(h); !ok || n != int32(i) || topo.Nodes[i].Host != h {
			t.Errorf("host %s: node %d %v", h, n, ok)
		}
	}
	if topo.RackNames[topo.Nodes[2].Rack] != "/b" || hw.TotalMapSlots() != 12 {
		t.Errorf("h3 on %s, %d map slots", topo.RackNames[topo.Nodes[2].Rack], hw.TotalMapSlots())
	}
	if _, err := hw.WithSettings(map[string]any{"racks": int64(3)}); err == nil {
		t.Error("racks could be set on a derived cluster")
	}
	if h2, err := hw.WithSettings(map[string]any{"map_slots": int64(1)}); err != nil || h2.TotalMapSlots() != 3 {
		t.Errorf("map_slots override: %v, %d slots", err, h2.TotalMapSlots())
	}
}

// TestTraceModeHandWorked pins the hand history's maps: m0 on h1, m1 on h2,
// m2, m3 and m4 on h3, reduces on h2.
//
// Factors (Rumen's 1.5 and 3): m0 node-local as observed 6 s; m1 rack-local
// 6·1.5 = 9 s; m2 off-rack 6·3 = 18 s; m3, observed off-rack for 9 s, now
// node-local 9/3 = 3 s; m4 has no split location: 5 s anywhere. The last map
// ends at 18 s; r0's reduce work is its observed 11 − 8 = 3 s after the shuffle
// (21 s), r1's its whole 10 s less the modelled copy of 0 bytes (28 s).
//
// Bandwidth: 250 MB take 2 s at the NIC (rack-local) and 4 s at the uplink's
// per-node share 125/2 (off-rack). m1 6 + 2 = 8 s, m2 6 + 4 = 10 s, m3 9 − 4 = 5
// s node-local; reduces end at 10 + 3 and 10 + 10 s.
func TestTraceModeHandWorked(t *testing.T) {
	cases := []struct {
		model   string
		maps    []int64 // durations in s
		reduces []int64 // finish times in s
	}{
		{"factors", []int64{6, 9, 18, 3, 5}, []int64{21, 28}},
		{"bandwidth", []int64{6, 8, 10, 5, 5}, []int64{13, 20}},
	}
	locs := []string{trace.NodeLocal, trace.RackLocal, trace.OffSwitch, trace.NodeLocal}
	for _, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			p := &pin{maps: []int32{0, 1, 2, 2, 2}, reduceNode: 1}
			res := runPinned(t, handHistory(), handBase(t, `trace_locality = "`+c.model+`"`), true, p)
			for _, tr := range res.Tasks {
				switch {
				case tr.Type == "MAP":
					if d := tr.FinishUs - tr.LaunchUs; tr.LaunchUs != 0 || d != c.maps[tr.Index]*sec {
						t.Errorf("map %d: %d..%d µs, want 0..%d s", tr.Index, tr.LaunchUs, tr.FinishUs, c.maps[tr.Index])
					}
					if tr.Index < 4 && tr.Locality != locs[tr.Index] {
						t.Errorf("map %d ran %s, want %s", tr.Index, tr.Locality, locs[tr.Index])
					}
				case tr.FinishUs != c.reduces[tr.Index]*sec:
					t.Errorf("reduce %d ends at %d µs, want %d s", tr.Index, tr.FinishUs, c.reduces[tr.Index])
				}
			}
			// Split locations are the replicas, each list repeated to the run's
			// replication of 3; m4 has none and gets 3 placed replicas.
			for i, want := range [][]int32{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {2, 2, 2}} {
				if !slices.Equal(p.replicas[i], want) {
					t.Errorf("map %d replicas %v, want %v", i, p.replicas[i], want)
				}
			}
			if len(p.replicas[4]) != 3 {
				t.Errorf("map 4 replicas %v", p.replicas[4])
			}
		})
	}
}

// TestHardwareFileKeepsPlacement: with a hardware model instead of the derived
// cluster, replicas are placed as for any trace: the split locations change
// nothing (the same placement draws as with the locations removed).
func TestHardwareFileKeepsPlacement(t *testing.T) {
	base := handBase(t, "racks = 2\nnodes_per_rack = 2\nmap_slots = 5\nreduce_slots = 2\n")
	with := &pin{maps: []int32{0, 1, 2, 2, 2}, reduceNode: 1}
	runPinned(t, handHistory(), base, false, with)
	bare := handHistory()
	for i := range bare.Tasks {
		bare.Tasks[i].PreferredHosts, bare.Tasks[i].PreferredRacks = nil, nil
	}
	without := &pin{maps: []int32{0, 1, 2, 2, 2}, reduceNode: 1}
	runPinned(t, bare, base, false, without)
	if !reflect.DeepEqual(with.replicas, without.replicas) {
		t.Errorf("replicas with split locations %v, without %v", with.replicas, without.replicas)
	}
}

// TestJobTrackerHeartbeat: Hadoop 0.20's JobTracker.getNextHeartbeatInterval,
// max(1000 · ceil(trackers / 100) ms, 3 s).
func TestJobTrackerHeartbeat(t *testing.T) {
	for _, c := range []struct {
		trackers int
		want     time.Duration
	}{{0, 3 * time.Second}, {1, 3 * time.Second}, {300, 3 * time.Second}, {301, 4 * time.Second}, {547, 6 * time.Second}, {1680, 17 * time.Second}} {
		if got := replay.JobTrackerHeartbeat(c.trackers); got != replay.Duration(c.want/time.Microsecond) {
			t.Errorf("JobTrackerHeartbeat(%d) = %d µs, want %v", c.trackers, got, c.want)
		}
	}
}
