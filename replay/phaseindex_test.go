package replay

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPhaseIndex checks phaseIndex.search against slices.BinarySearch over
// random sorted phases (ties included, and clusters of many phases in one
// bucket), at every phase, a µs either side, the interval's ends and random
// times, for intervals and node counts that give shifts from 0 up.
func TestPhaseIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		iv    int64
		nodes int
	}{{1, 1}, {7, 3}, {100, 50}, {100, 500}, {3_000_000, 3000}, {3_000_000, 7}, {1 << 20, 1 << 10}} {
		ph := make([]int64, c.nodes)
		for i := range ph {
			ph[i] = rng.Int64N(c.iv)
			if i > 0 && rng.IntN(4) == 0 {
				ph[i] = ph[i-1] // a tie or, sorted, a cluster
			}
		}
		slices.Sort(ph)
		var x phaseIndex
		x.init(ph, c.iv)
		rs := []int64{-1, 0, 1, c.iv - 1, c.iv, c.iv + 1, 2 * c.iv}
		for _, p := range ph {
			rs = append(rs, p-1, p, p+1)
		}
		for range 1000 {
			rs = append(rs, rng.Int64N(c.iv+2))
		}
		for _, r := range rs {
			want, _ := slices.BinarySearch(ph, r)
			if got := x.search(r); got != want {
				t.Fatalf("iv %d, %d nodes: search(%d) = %d, want %d", c.iv, c.nodes, r, got, want)
			}
		}
	}
}
