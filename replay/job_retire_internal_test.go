package replay

import (
	"math/rand/v2"
	"testing"
)

// TestMapOutputCompact: after compact, MapOutputBytes answers what the
// per-node array did, for every node, with output on few nodes (compacted)
// and on most (kept as it was); the array it drops is given back zeroed.
func TestMapOutputCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const nodes = 300
	for _, holders := range []int{0, 1, 7, 60, 250} {
		j := &Job{}
		for range holders * 3 {
			j.AddMapOutput(rng.Int32N(int32(holders)*7/6+1), rng.Int64N(1<<30), nodes)
		}
		want := make([]int64, nodes)
		for n := range int32(nodes) {
			want[n] = j.MapOutputBytes(n)
		}
		dense := j.out.bytes
		back := j.out.compact()
		if sparse := j.out.bytes == nil; sparse != (3*len(j.out.nodes) < 2*nodes) {
			t.Errorf("%d holders: compacted %v with %d nodes holding output", holders, sparse, len(j.out.nodes))
		}
		// The array it drops comes back zeroed, for the next job (Sim.outPool).
		if (back != nil) != (j.out.bytes == nil && dense != nil) {
			t.Errorf("%d holders: compact gave back %d entries, dropping %v", holders, len(back), j.out.bytes == nil)
		}
		for n, b := range back {
			if b != 0 {
				t.Fatalf("%d holders: the array given back holds %d at node %d", holders, b, n)
			}
		}
		for n := range int32(nodes) {
			if got := j.MapOutputBytes(n); got != want[n] {
				t.Fatalf("%d holders: node %d holds %d after compact, %d before", holders, n, got, want[n])
			}
		}
		for k, n := range j.MapOutputNodes() {
			if got := j.MapOutputAt(k); got != want[n] {
				t.Fatalf("%d holders: MapOutputAt(%d) (node %d) = %d after compact, want %d", holders, k, n, got, want[n])
			}
		}
	}
}
