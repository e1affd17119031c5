package policy

import (
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// noInputHardware is 2 racks × 2 nodes with one map and one reduce slot each,
// replication 1 on half the nodes (data_node_fraction 0.5: with seed 1 the
// data nodes are 1 and 2, so nodes 0 and 3 never hold a block), a 1 MB/s disk,
// no task start-up, aligned 1 s heartbeats at 0, 1, 2 … s.
func noInputHardware(t *testing.T, extra string) replay.Hardware {
	t.Helper()
	return parseHardware(t, `
name = "noinput"
racks = 2
nodes_per_rack = 2
map_slots = 1
reduce_slots = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
out_of_band_heartbeat = true
replication = 1
data_node_fraction = 0.5
duration_cv = 0
slow_start = 0
`+extra)
}

// noInputTrace is job A at 0 s: four maps of no input (RandomWriter's kind:
// 0 bytes read, no split location) each writing 2 MB, so 2 s each at the
// 1 MB/s disk, and no reduce.
func noInputTrace() *trace.Trace {
	tr := handTrace([]job{{0, []int64{2, 2, 2, 2}, nil}})
	for i := range tr.Tasks {
		tr.Tasks[i].InputBytes, tr.Tasks[i].OutputBytes = 0, 2e6
	}
	return tr
}

// TestNoInputMapsRunAnywhere, worked by hand: at 0 s every node heartbeats with
// a free map slot, and every map of A is local on every node, so each policy
// launches one map per node at once, nodes 0 and 3 included though they hold
// no block: the strict-locality policies (fifo-strict, fair-strict, EAS's Alg.
// 2, HybSMRP's local pass) take them as local, and fair's delay scheduling
// never starts a wait. The four maps end at 2 s: A's flowtime is 2 s, and all
// 4 maps count node-local (the job's node-local fraction is 100%). EAS is the
// exception in time only: its map machines are the data nodes (1 and 2), which
// queue two maps each, 2 + 2 = 4 s.
func TestNoInputMapsRunAnywhere(t *testing.T) {
	hw := noInputHardware(t, "")
	if topo := replay.NewTopology(&hw, 1); len(topo.DataNodes) != 2 || topo.DataNodes[0] != 1 || topo.DataNodes[1] != 2 {
		t.Fatalf("data nodes %v, want [1 2] (the hand-worked numbers assume them)", topo.DataNodes)
	}
	for _, name := range NamesFor(replay.ClusterSlots) {
		t.Run(name, func(t *testing.T) {
			res := simulate(t, hw, noInputTrace(), name, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
			a := res.Jobs[0]
			wantFlow := int64(2 * sec)
			if name == "eas" {
				wantFlow = 4 * sec
			}
			if a.FlowtimeUs != wantFlow {
				t.Errorf("flowtime %d µs, want %d", a.FlowtimeUs, wantFlow)
			}
			if a.MapsNodeLocal != 4 || a.Maps != 4 {
				t.Errorf("%d of %d maps node-local, want 4 of 4", a.MapsNodeLocal, a.Maps)
			}
			if name == "eas" {
				return
			}
			for _, tk := range res.Tasks {
				if tk.LaunchUs != 0 || tk.Locality != trace.NodeLocal {
					t.Errorf("map %d launched at %d µs on node %d %s, want at 0 node-local", tk.Index, tk.LaunchUs, tk.Node, tk.Locality)
				}
			}
		})
	}
}

// TestNoInputBesideInput: a job whose maps have input still waits for
// locality under delay scheduling while a job without input beside it does
// not. A (0 s): one 2 MB map with its block on data node 1 or 2. B (0 s):
// four no-input maps of 2 s. Fair (FIFO among equal pools at 0 s: A first)
// launches A's map on its replica holder at 0 s, node-local, and B's maps on
// the three other nodes at 0 s and its fourth at 2 s, when a slot frees: all
// five maps node-local, B's flowtime 4 s.
func TestNoInputBesideInput(t *testing.T) {
	hw := noInputHardware(t, "")
	tr := handTrace([]job{{0, []int64{2}, nil}, {0, []int64{2, 2, 2, 2}, nil}})
	for i := 1; i < 5; i++ {
		tr.Tasks[i].InputBytes, tr.Tasks[i].OutputBytes = 0, 2e6
	}
	for _, name := range []string{"fair", "fair-strict", "fifo-strict"} {
		t.Run(name, func(t *testing.T) {
			res := simulate(t, hw, tr, name, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
			a, b := res.Jobs[0], res.Jobs[1]
			if a.MapsNodeLocal != 1 || b.MapsNodeLocal != 4 {
				t.Errorf("node-local maps A %d of 1, B %d of 4", a.MapsNodeLocal, b.MapsNodeLocal)
			}
			if a.FlowtimeUs != 2*sec || b.FlowtimeUs != 4*sec {
				t.Errorf("flowtimes A %d, B %d µs, want 2 s, 4 s", a.FlowtimeUs, b.FlowtimeUs)
			}
		})
	}
}

// TestNoInputYARN: on a YARN cluster of the same shape (nodes of 4 GB, 2 GB
// AMs and maps) every YARN policy runs A's four no-input maps node-local,
// nodes 0 and 3 included, with the invariant checker on.
func TestNoInputYARN(t *testing.T) {
	hw := noInputHardware(t, `cluster = "yarn"
node_memory_mb = 4096
node_vcores = 4
min_allocation_mb = 1024
am_memory_mb = 2048
map_memory_mb = 2048
reduce_memory_mb = 1024
`)
	for _, name := range NamesFor(replay.ClusterYARN) {
		t.Run(name, func(t *testing.T) {
			res := simulate(t, hw, noInputTrace(), name, replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
			a := res.Jobs[0]
			if a.MapsNodeLocal != 4 || a.Maps != 4 {
				t.Errorf("%d of %d maps node-local, want 4 of 4", a.MapsNodeLocal, a.Maps)
			}
			nodes := map[int32]bool{}
			for _, tk := range res.Tasks {
				nodes[tk.Node] = true
			}
			if !nodes[0] && !nodes[3] {
				t.Errorf("maps ran on nodes %v only: none on 0 or 3, which hold no block", nodes)
			}
		})
	}
}
