package replay

import (
	"math/rand/v2"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// diskJob is a job of maps with the given input and output bytes and reduces
// with the given shuffle and output bytes.
func diskJob(tr *trace.Trace, id string, maps, reduces [][2]int64) {
	flowJob(tr, id, maps, nil)
	for k, so := range reduces {
		r := trace.NewTask(id, id+"r", trace.Reduce, int32(k))
		r.ShuffleBytes, r.OutputBytes = so[0], so[1]
		tr.Tasks = append(tr.Tasks, r)
	}
}

// oneDataNode is flowHardware with every block on one data node of the four.
func oneDataNode(t *testing.T, disk, nic, uplink float64) Hardware {
	h := flowHardware(t, disk, nic, uplink)
	h.DataNodeFraction = 0.25
	return h
}

// TestDiskSharedByTwoMaps: two node-local maps on one node, disk at 1 MB/s,
// nothing else costing time. Map 0 reads 4 MB from 0 s, map 1 2 MB from 1 s.
//
//	0–1 s: map 0 alone at 1 MB/s, 1 MB read, 3 MB left;
//	1 s:   map 1 starts, the disk is split, 0.5 MB/s each; map 1's 2 MB
//	       take 4 s, so it ends at 5 s, when map 0 has 3 − 2 = 1 MB left;
//	5 s:   map 0 alone again at 1 MB/s, ends at 6 s.
//
// Alone, map 0 would take 0–4 s and map 1 1–3 s.
func TestDiskSharedByTwoMaps(t *testing.T) {
	for _, c := range []struct {
		name   string
		second int64 // map 1's input
		want   [2][2]int64
	}{
		{"shared", 2e6, [2][2]int64{{0, 6}, {1, 5}}},
		{"map 0 alone", 0, [2][2]int64{{0, 4}, {1, 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &trace.Trace{}
			flowJob(tr, "A", [][2]int64{{4e6, 0}, {c.second, 0}}, nil)
			res := runPlaced(t, oneDataNode(t, 1, 10, 10), tr, func(s Cluster, jobs []*JobView) []launch {
				d := jobs[0].Replicas(0)[0]
				// A map of no input has no replicas (it is local anywhere): it
				// runs on map 0's node too.
				if c.second > 0 && jobs[0].Replicas(1)[0] != d {
					t.Fatalf("the maps' blocks are on nodes %d and %d, want one node", d, jobs[0].Replicas(1)[0])
				}
				return []launch{{0, false, 0, d, 0}, {0, false, 1, d, 1}}
			})
			got := taskTimes(res, "A", "MAP")
			for i, w := range c.want {
				if got[i] != [2]int64{w[0] * sec, w[1] * sec} {
					t.Errorf("map %d ran %v µs, want %d–%d s", i, got[i], w[0], w[1])
				}
			}
		})
	}
}

// TestDiskLimitsRemoteRead: a remote read runs at the source disk's share,
// not the NIC's. Disks at 1 MB/s, NICs and uplinks at 10 MB/s, both 4 MB
// blocks on data node d. Map 1 runs on another node of d's rack and reads
// remotely: alone, 4 MB at the disk's 1 MB/s take 4 s (the NIC would carry
// them in 0.4 s). With map 0 reading d's disk node-local over the same
// time, the disk is split, 0.5 MB/s each, and both take 8 s.
func TestDiskLimitsRemoteRead(t *testing.T) {
	for _, c := range []struct {
		name         string
		map0At       int64 // map 0's launch, s
		want0, want1 [2]int64
	}{
		{"remote alone", 10, [2]int64{10, 14}, [2]int64{0, 4}},
		{"sharing the source disk", 0, [2]int64{0, 8}, [2]int64{0, 8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &trace.Trace{}
			flowJob(tr, "A", [][2]int64{{4e6, 0}, {4e6, 0}}, nil)
			res := runPlaced(t, oneDataNode(t, 1, 10, 10), tr, func(s Cluster, jobs []*JobView) []launch {
				d := jobs[0].Replicas(0)[0]
				return []launch{{0, false, 0, d, c.map0At}, {0, false, 1, sameRack(s, d), 0}}
			})
			got := taskTimes(res, "A", "MAP")
			if got[0] != [2]int64{c.want0[0] * sec, c.want0[1] * sec} || got[1] != [2]int64{c.want1[0] * sec, c.want1[1] * sec} {
				t.Errorf("maps ran %v µs, want %v s and %v s", got, c.want0, c.want1)
			}
			if res.Summary.NetworkBytes != 4e6 {
				t.Errorf("network bytes %d, want the remote read's 4e6", res.Summary.NetworkBytes)
			}
		})
	}
}

// TestDiskOutputPipeline: a reduce on node 0 (rack 0) writes 4 MB with
// replication 3 and rack-aware placement, so its pipeline is node 0, then the
// two nodes of rack 1 in some order: node 0's disk and NIC out, rack 0's
// uplink, rack 1's downlink, then for each rack-1 node its NIC in and its
// disk (and the first one's NIC out). One flow at the slowest element:
//
//   - disks 1 MB/s, NICs and uplinks 10: 4 MB / 1 MB/s = 4 s;
//   - disks and NICs 10, uplinks 0.5: 4 / 0.5 = 8 s;
//   - disks and uplinks 10, NICs 2: 4 / 2 = 2 s;
//   - disks 1 MB/s, with job B's map reading 8 MB node-local on a rack-1
//     node from 0 s: that disk is split, 0.5 MB/s each, so the write takes
//     4 / 0.5 = 8 s, when B has read 4 MB; B reads its last 4 MB alone at
//     1 MB/s and ends at 12 s.
//
// A's map has no bytes; its reduce shuffles nothing, so its output write
// starts at 0 s and the reduce ends with it.
func TestDiskOutputPipeline(t *testing.T) {
	for _, c := range []struct {
		name              string
		disk, nic, uplink float64
		withB             bool
		redEnd, bEnd      int64
	}{
		{"disks slowest", 1, 10, 10, false, 4, 0},
		{"uplink slowest", 10, 10, 0.5, false, 8, 0},
		{"NICs slowest", 10, 2, 10, false, 2, 0},
		{"a replica's disk shared", 1, 10, 10, true, 8, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := flowHardware(t, c.disk, c.nic, c.uplink)
			h.Replication = 3
			tr := &trace.Trace{}
			diskJob(tr, "A", [][2]int64{{0, 0}}, [][2]int64{{0, 4e6}})
			var b int64
			if c.withB {
				b = 8e6
			}
			flowJob(tr, "B", [][2]int64{{b, 0}}, nil)
			res := runPlaced(t, h, tr, func(s Cluster, jobs []*JobView) []launch {
				var far int32 = -1 // a replica of B's block in rack 1
				for _, r := range jobs[1].Replicas(0) {
					if s.Topology().Nodes[r].Rack == 1 {
						far = r
					}
				}
				if far < 0 { // B reads nothing: its map has no replicas, run it in rack 1
					far = s.Topology().RackNodes[1][0]
				}
				return []launch{{0, false, 0, 0, 0}, {0, true, 0, 0, 0}, {1, false, 0, far, 0}}
			})
			for _, tk := range res.Tasks {
				if tk.JobID == "A" && tk.Type == "REDUCE" && (tk.ShuffleEndUs != 0 || tk.FinishUs != c.redEnd*sec) {
					t.Errorf("A's reduce: shuffle end %d µs, finish %d µs; want 0, %d s", tk.ShuffleEndUs, tk.FinishUs, c.redEnd)
				}
				if tk.JobID == "B" && c.withB && tk.FinishUs != c.bEnd*sec {
					t.Errorf("B's map ends at %d µs, want %d s", tk.FinishUs, c.bEnd)
				}
			}
			// The write crosses two hops: node 0 to the first rack-1 node,
			// that one to the other.
			if res.Summary.NetworkBytes != 8e6 {
				t.Errorf("network bytes %d, want 2 hops × 4e6", res.Summary.NetworkBytes)
			}
		})
	}
}

// TestDiskMapStages: a map's start-up, then its read and compute side by
// side, then its spill. Disk at 1 MB/s, start-up 1 s, a node-local map
// reading 4 MB and writing 2 MB:
//
//   - compute at 2 MB/s: read 1–5 s, compute 1–3 s, spill 5–7 s: ends at 7 s;
//   - compute at 0.5 MB/s: read 1–5 s, compute 1–9 s, spill 9–11 s: 11 s;
//   - compute free and no output: read 1–5 s, ends at 5 s.
func TestDiskMapStages(t *testing.T) {
	for _, c := range []struct {
		name    string
		compute float64
		out     int64
		want    int64
	}{
		{"read longer", 2, 2e6, 7},
		{"compute longer", 0.5, 2e6, 11},
		{"no compute, no output", 0, 0, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := flowHardware(t, 1, 10, 10)
			h.TaskStartup = sec
			h.MapComputeMBps = c.compute
			tr := &trace.Trace{}
			flowJob(tr, "A", [][2]int64{{4e6, c.out}}, nil)
			res := runPlaced(t, h, tr, func(s Cluster, jobs []*JobView) []launch {
				return []launch{{0, false, 0, jobs[0].Replicas(0)[0], 0}}
			})
			if got := taskTimes(res, "A", "MAP"); got[0] != [2]int64{0, c.want * sec} {
				t.Errorf("the map ran %v µs, want 0–%d s", got[0], c.want)
			}
		})
	}
}

// TestPlaceOutput: an output block's pipeline starts on the writer when it is
// a data node, puts the second replica on another rack and the third on the
// second's rack, and is the same for the same seed and writer.
func TestPlaceOutput(t *testing.T) {
	h := DefaultHardware()
	h.Racks, h.NodesPerRack = 3, 4
	topo := NewTopology(&h, 1)
	for seed := range uint64(200) {
		w := int32(seed % 12)
		p := topo.placeOutput(rand.New(rand.NewPCG(seed, streamOutput)), w, 3, true)
		q := topo.placeOutput(rand.New(rand.NewPCG(seed, streamOutput)), w, 3, true)
		rack := func(n int32) int32 { return topo.Nodes[n].Rack }
		if len(p) != 3 || p[0] != w || rack(p[1]) == rack(w) || rack(p[2]) != rack(p[1]) || p[2] == p[1] {
			t.Fatalf("seed %d, writer %d: pipeline %v", seed, w, p)
		}
		if p[0] != q[0] || p[1] != q[1] || p[2] != q[2] {
			t.Fatalf("seed %d: pipelines %v and %v", seed, p, q)
		}
	}
}

// TestDiskTraceTimedMaps: maps whose duration comes from the trace, with no
// host recorded (as the paper generators write them), keep it under flow.
// Disks and NICs at 1 MB/s, uplinks 10, start-up 0, two maps of 4 MB input
// observed at 5 s each, replication 1. Map 0 runs on its block's node: its
// observed 5 s, no flow (the observed time holds its read and spill), 0–5 s.
// Map 1 runs in the other rack: its read, 4 MB through its source disk and
// NICs at 1 MB/s, takes 0–4 s, then its observed 5 s: it ends at 9 s, as
// under fixed (4 MB / 1 MB/s + 5 s). Timed from the disk model instead (no
// compute rate), map 0 would end at 4 s.
func TestDiskTraceTimedMaps(t *testing.T) {
	tr := &trace.Trace{}
	flowJob(tr, "A", [][2]int64{{4e6, 0}, {4e6, 0}}, nil)
	for i := range tr.Tasks {
		tr.Tasks[i].StartMs, tr.Tasks[i].FinishMs = 0, 5000
	}
	res := runPlaced(t, flowHardware(t, 1, 1, 10), tr, func(s Cluster, jobs []*JobView) []launch {
		r0, r1 := jobs[0].Replicas(0)[0], jobs[0].Replicas(1)[0]
		return []launch{{0, false, 0, r0, 0}, {0, false, 1, otherRack(s, r1), 0}}
	})
	got := taskTimes(res, "A", "MAP")
	if want := [2][2]int64{{0, 5 * sec}, {0, 9 * sec}}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("maps ran %v µs, want %v", got, want)
	}
}

// TestDiskMapOnlyPipeline: a map of a job without reduces writes its output
// through the HDFS replication pipeline, as a reduce does
// (TestDiskOutputPipeline), not to its own disk: Hadoop's MapTask hands a
// map-only job's records to its OutputFormat, with no sort or spill
// (mapWrite). Job A's one map on node 0 (rack 0) writes 4 MB with
// replication 3, rack-aware: its pipeline is node 0, then the two nodes of
// rack 1, one flow at its slowest element:
//
//   - disks 1 MB/s, NICs and uplinks 10: 4 MB / 1 MB/s = 4 s;
//   - disks and NICs 10, uplinks 0.5: 4 / 0.5 = 8 s;
//   - disks and uplinks 10, NICs 2: 4 / 2 = 2 s;
//   - disks 1 MB/s, with job B's map reading 8 MB node-local on a rack-1
//     node from 0 s: that disk is split, 0.5 MB/s each, so A's write takes
//     4 / 0.5 = 8 s, when B has read 4 MB; B reads its last 4 MB alone and
//     ends at 12 s.
//
// Its write crosses two hops, 8 MB of network bytes. A spill to node 0's
// disk (the model before) would take 4 s, 0.4 s, 0.4 s and 4 s (B 8 s), with
// no network bytes; so does the same map in a job with a reduce (of no
// bytes, on node 1), whose map output stays on its node for the shuffle.
func TestDiskMapOnlyPipeline(t *testing.T) {
	for _, c := range []struct {
		name              string
		disk, nic, uplink float64
		withB, reduce     bool
		mapEnd, bEnd      int64 // ms
		net               int64
	}{
		{"disks slowest", 1, 10, 10, false, false, 4000, 0, 8e6},
		{"uplink slowest", 10, 10, 0.5, false, false, 8000, 0, 8e6},
		{"NICs slowest", 10, 2, 10, false, false, 2000, 0, 8e6},
		{"a replica's disk shared", 1, 10, 10, true, false, 8000, 12000, 8e6},
		{"with a reduce: a spill", 10, 2, 10, false, true, 400, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := flowHardware(t, c.disk, c.nic, c.uplink)
			h.Replication = 3
			tr := &trace.Trace{}
			var reduces [][2]int64
			if c.reduce {
				reduces = [][2]int64{{0, 0}}
			}
			diskJob(tr, "A", [][2]int64{{0, 4e6}}, reduces)
			var b int64
			if c.withB {
				b = 8e6
			}
			flowJob(tr, "B", [][2]int64{{b, 0}}, nil)
			res := runPlaced(t, h, tr, func(s Cluster, jobs []*JobView) []launch {
				var far int32 = -1 // a replica of B's block in rack 1
				for _, r := range jobs[1].Replicas(0) {
					if s.Topology().Nodes[r].Rack == 1 {
						far = r
					}
				}
				if far < 0 { // B reads nothing: its map has no replicas, run it in rack 1
					far = s.Topology().RackNodes[1][0]
				}
				l := []launch{{0, false, 0, 0, 0}, {1, false, 0, far, 0}}
				if c.reduce {
					l = append(l, launch{0, true, 0, 1, 0})
				}
				return l
			})
			if got := taskTimes(res, "A", "MAP")[0]; got != [2]int64{0, c.mapEnd * 1000} {
				t.Errorf("A's map ran %v µs, want 0–%d ms", got, c.mapEnd)
			}
			if got := taskTimes(res, "B", "MAP")[0]; c.withB && got[1] != c.bEnd*1000 {
				t.Errorf("B's map ends at %d µs, want %d ms", got[1], c.bEnd)
			}
			if res.Summary.NetworkBytes != c.net {
				t.Errorf("network bytes %d, want %d", res.Summary.NetworkBytes, c.net)
			}
		})
	}
}

// TestFixedMapOnlyOutput: under network = "fixed" a reduce's output write
// costs its bytes at disk_mb_per_s, whatever the replication and the links
// (no pipeline, no hop: workload.go), and so does a map's output, in a job
// with reduces or without. Disks 1 MB/s, NICs 2, uplinks 0.5, replication 3,
// no start-up: a map-only map writing 4 MB ends at 4 s, as a reduce writing
// 4 MB does (its map of no bytes ends at 0 s, its copy of nothing takes no
// time). The fixed model charges the HDFS write of a map-only job's map as
// it charges a reduce's: this test holds that they stay the same.
func TestFixedMapOnlyOutput(t *testing.T) {
	h := flowHardware(t, 1, 2, 0.5)
	h.Network = NetworkFixed
	h.Replication = 3
	tr := &trace.Trace{}
	diskJob(tr, "A", [][2]int64{{0, 4e6}}, nil)
	diskJob(tr, "B", [][2]int64{{0, 0}}, [][2]int64{{0, 4e6}})
	res := runPlaced(t, h, tr, func(s Cluster, jobs []*JobView) []launch {
		return []launch{{0, false, 0, 0, 0}, {1, false, 0, 1, 0}, {1, true, 0, 1, 0}}
	})
	if got := taskTimes(res, "A", "MAP")[0]; got != [2]int64{0, 4 * sec} {
		t.Errorf("A's map-only map ran %v µs, want 0–4 s", got)
	}
	if got := taskTimes(res, "B", "REDUCE")[0]; got[1] != 4*sec {
		t.Errorf("B's reduce ran %v µs, want its end at 4 s", got)
	}
}
