package replay

import (
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// noInputTopo is 2 racks × 2 nodes with a map slot each: nodes 0, 1 in rack 0,
// nodes 2, 3 in rack 1.
func noInputTopo(t *testing.T) (*Hardware, *Topology) {
	t.Helper()
	hw, err := ParseHardware([]byte("name = \"t\"\nracks = 2\nnodes_per_rack = 2\nmap_slots = 1\nreduce_slots = 1\nreplication = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	return &hw, NewTopology(&hw, 1)
}

// TestNoInputIndex works the job locality index by hand. Maps: 0 has its one
// replica on node 1, 1 has no input (0 bytes, no replica list), 2 has its
// replica on node 3, 3 has no input.
//
//   - LocalMap(0): node 0 holds no input; the lowest pending no-input map is 1.
//   - LocalMap(1): map 0's input is on node 1, served before the no-input maps
//     (Hadoop 1's findNewMapTask: the cache, then nonLocalMaps).
//   - RackMap(1): map 2 (replica on node 3, rack 1); RackMap(0): map 0.
//   - Every node has a local map while map 1 or 3 is pending, so
//     CountLocalMapNodes(nil) = 4.
//   - With maps 1 and 3 launched: LocalMap(0) = -1, LocalMap(2) = -1,
//     CountLocalMapNodes = 2 (nodes 1 and 3), RackMap(0) = 0.
//   - With map 0 launched too: RackMap(0) = -1 (no input left in rack 0).
func TestNoInputIndex(t *testing.T) {
	_, topo := noInputTopo(t)
	maps := []MapTask{{InputBytes: 64 << 20}, {}, {InputBytes: 64 << 20}, {}}
	tj := trace.NewJob("A")
	j, err := NewJob(0, &tj, 0, maps, nil, [][]int32{{1}, nil, {3}, nil}, topo)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, true, false, true} {
		if got := j.Maps[i].NoInput(); got != want {
			t.Errorf("map %d NoInput = %v, want %v", i, got, want)
		}
	}
	if r := j.Replicas(1); len(r) != 0 {
		t.Errorf("no-input map 1 has replicas %v", r)
	}
	check := func(what string, got, want int32) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d, want %d", what, got, want)
		}
	}
	check("LocalMap(0)", j.LocalMap(0), 1)
	check("LocalMap(1)", j.LocalMap(1), 0)
	check("LocalMap(3)", j.LocalMap(3), 2)
	check("RackMap(1)", j.RackMap(1), 2)
	check("RackMap(0)", j.RackMap(0), 0)
	for n := range int32(4) {
		if !j.HasLocalMap(n) {
			t.Errorf("HasLocalMap(%d) = false with no-input maps pending", n)
		}
	}
	check("CountLocalMapNodes", int32(j.CountLocalMapNodes(nil)), 4)
	check("CountLocalMapNodes(even)", int32(j.CountLocalMapNodes(func(n int32) bool { return n%2 == 0 })), 2)

	j.Maps[1].State = Running
	check("LocalMap(0) after map 1", j.LocalMap(0), 3)
	j.Maps[3].State = Running
	check("LocalMap(0) after maps 1, 3", j.LocalMap(0), -1)
	check("LocalMap(2) after maps 1, 3", j.LocalMap(2), -1)
	check("CountLocalMapNodes after maps 1, 3", int32(j.CountLocalMapNodes(nil)), 2)
	j.Maps[0].State = Running
	check("RackMap(0) after maps 0, 1, 3", j.RackMap(0), -1)
	check("AnyMap after maps 0, 1, 3", j.AnyMap(), 2)

	// A preempted no-input map (YARN) is findable again.
	j.Maps[1].State = Pending
	j.requeueMap(1, topo)
	check("LocalMap(0) after requeue of map 1", j.LocalMap(0), 1)
}

// TestNoInputWorkload: a job of 0 input bytes gets one no-input map; a trace
// map of 0 bytes without preferred hosts has no input, one with preferred
// hosts keeps its replicas, a map of 1 byte is placed; the placement of the
// other maps is what it would be if no map had zero input (the no-input map's
// block is still drawn).
func TestNoInputWorkload(t *testing.T) {
	hw, topo := noInputTopo(t)
	tr := &trace.Trace{}
	a := trace.NewJob("A")
	a.InputBytes, a.NumReduces = 0, 0
	b := trace.NewJob("B")
	tr.Jobs = append(tr.Jobs, a, b)
	for k, c := range []struct {
		in    int64
		hosts []string
	}{{1, nil}, {0, nil}, {0, []string{"somewhere"}}, {1, nil}} {
		tk := trace.NewTask("B", "Bm", trace.Map, int32(k))
		tk.InputBytes, tk.PreferredHosts = c.in, c.hosts
		tr.Tasks = append(tr.Tasks, tk)
	}
	w, err := NewWorkload(tr, hw, topo, 3, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ja, jb := w.buildAt(0), w.buildAt(1)
	if len(ja.Maps) != 1 || !ja.Maps[0].NoInput() || len(ja.Replicas(0)) != 0 {
		t.Errorf("job A: %d maps, map 0 NoInput %v replicas %v; want one no-input map", len(ja.Maps), ja.Maps[0].NoInput(), ja.Replicas(0))
	}
	for i, want := range []bool{false, true, false, false} {
		if got := jb.Maps[i].NoInput(); got != want {
			t.Errorf("job B map %d NoInput = %v, want %v", i, got, want)
		}
	}
	// The same job with map 1 of 1 byte: maps 0, 2, 3 are placed alike.
	tr.Tasks[1].InputBytes = 1
	w2, err := NewWorkload(tr, hw, topo, 3, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jb2 := w2.buildAt(1)
	for _, i := range []int32{0, 2, 3} {
		if !slices.Equal(jb.Replicas(i), jb2.Replicas(i)) {
			t.Errorf("map %d placed on %v, %v without a no-input map", i, jb.Replicas(i), jb2.Replicas(i))
		}
	}
}
