package replay

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIndexWithScratch builds the pending-map indexes of random jobs one
// after another with one scratch (Sim.idx), as admit does, and checks each
// against its definition: node k's segment of nodeMaps lists, ascending, the
// maps with input that have a replica on node nodeKeys[k]; rack r's segment
// of rackMaps those with a replica in rack r, each once; noInMaps the maps
// without input; taken the maps not pending. The jobs vary in size,
// replication (1 to 4, more replicas than racks included) and maps without
// input, so a rack list left over from an earlier, larger job in the
// scratch, or read at the wrong place, shows.
func TestIndexWithScratch(t *testing.T) {
	hw := DefaultHardware()
	hw.Racks, hw.NodesPerRack = 3, 4
	topo := NewTopology(&hw, 1)
	rng := rand.New(rand.NewPCG(7, 8))
	var sc indexScratch
	for round := range 300 {
		repl := 1 + rng.IntN(4)
		nm := []int{0, 1, 5, 70, 300}[rng.IntN(5)]
		j := &Job{Maps: make([]MapTask, nm), replication: int32(repl)}
		for i := range nm {
			perm := rng.Perm(len(topo.Nodes))
			for _, n := range perm[:repl] {
				j.replicas = append(j.replicas, int32(n))
			}
			j.Maps[i].noInput = rng.IntN(6) == 0
			if rng.IntN(4) == 0 {
				j.Maps[i].State = Running
			}
		}
		j.indexWith(topo, &sc)
		var noIn []int32
		byNode := map[int32][]int32{}
		byRack := map[int32][]int32{}
		for i := range int32(nm) {
			if j.isTaken(i) != (j.Maps[i].State != Pending) {
				t.Fatalf("round %d: map %d taken %v, state %d", round, i, j.isTaken(i), j.Maps[i].State)
			}
			if j.Maps[i].noInput {
				noIn = append(noIn, i)
				continue
			}
			seen := map[int32]bool{}
			for _, n := range j.replicas[int(i)*repl : int(i)*repl+repl] {
				byNode[n] = append(byNode[n], i)
				if r := topo.Nodes[n].Rack; !seen[r] {
					seen[r] = true
					byRack[r] = append(byRack[r], i)
				}
			}
		}
		if !slices.Equal(j.noInMaps, noIn) {
			t.Fatalf("round %d: noInMaps %v, want %v", round, j.noInMaps, noIn)
		}
		if len(j.nodeKeys) != len(byNode) {
			t.Fatalf("round %d: %d node keys, want %d", round, len(j.nodeKeys), len(byNode))
		}
		for k, n := range j.nodeKeys {
			if got := j.nodeMaps[j.nodeOff[k]:j.nodeOff[k+1]]; !slices.Equal(got, byNode[n]) {
				t.Fatalf("round %d: node %d's maps %v, want %v", round, n, got, byNode[n])
			}
		}
		for r := range int32(len(topo.RackNodes)) {
			if got := j.rackMaps[j.rackOff[r]:j.rackOff[r+1]]; !slices.Equal(got, byRack[r]) {
				t.Fatalf("round %d: rack %d's maps %v, want %v", round, r, got, byRack[r])
			}
		}
	}
}
