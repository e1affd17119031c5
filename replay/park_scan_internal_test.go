package replay

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// scanParkedByBit is scanParked as it was written before it stepped over
// whole words: one phase-order position after the other from t's phase,
// wrapping, each word read again at every position.
func (s *Sim) scanParkedByBit(set []uint64, t int64, f func(n int32, same bool) bool) {
	r := t % s.pk.iv
	start := s.phaseX.search(r)
	nn := len(s.phaseOrder)
	for i, scanned := start, 0; scanned < nn; i, scanned = i+1, scanned+1 {
		if i >= nn {
			i = 0
		}
		if set[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		n := s.phaseOrder[i]
		if f(n, s.nodes[n].phase == r) {
			return
		}
	}
}

// TestScanParkedOrder checks scanParked against the position-by-position scan
// on clusters of one to several words of nodes, sets from empty to full, from
// every kind of start (a node's phase, between phases, past the last), with a
// callback that stops at a random node and clears bits ahead of the scan and
// behind it as it goes (resume clears the bit of the node it wakes).
func TestScanParkedOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const iv = 3_000_000
	for _, nn := range []int{1, 5, 63, 64, 65, 127, 128, 129, 200, 640, 3000} {
		s := &Sim{nodes: make([]nodeState, nn), hw: &Hardware{Heartbeat: iv}}
		s.pk.iv = iv
		for i := range s.nodes {
			s.nodes[i].phase = rng.Int64N(iv)
			if i > 0 && rng.IntN(4) == 0 {
				s.nodes[i].phase = s.nodes[i-1].phase // ties
			}
		}
		s.orderPhases()
		words := (nn + 63) / 64
		for trial := range 300 {
			density := []float64{0, 0.002, 0.02, 0.3, 1}[trial%5]
			set := make([]uint64, words)
			for p := range nn {
				if rng.Float64() < density {
					set[p>>6] |= 1 << (p & 63)
				}
			}
			var tm int64
			switch trial % 3 {
			case 0:
				tm = s.nodes[rng.IntN(nn)].phase + iv*rng.Int64N(5)
			case 1:
				tm = rng.Int64N(10 * iv)
			default:
				tm = iv - 1 // past every phase (most of the time): the scan starts at the first
			}
			stopAt := rng.IntN(nn + 1)
			seed := rng.Uint64()
			run := func(scan func([]uint64, int64, func(int32, bool) bool)) []int32 {
				cur := slices.Clone(set)
				cr := rand.New(rand.NewPCG(seed, 0))
				var got []int32
				scan(cur, tm, func(n int32, same bool) bool {
					got = append(got, n)
					if same {
						got = append(got, -1)
					}
					for range 2 {
						p := cr.IntN(nn)
						cur[p>>6] &^= 1 << (p & 63)
					}
					return len(got) >= stopAt
				})
				return got
			}
			want := run(s.scanParkedByBit)
			if got := run(s.scanParked); !slices.Equal(got, want) {
				t.Fatalf("%d nodes, trial %d: scanParked visits %v, the position-by-position scan %v", nn, trial, got, want)
			}
		}
	}
}
