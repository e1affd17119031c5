package replay

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopSources checks topSources against what sourceMix did before it: a
// stable sort of the indexes by bytes, decreasing, cut to k and sorted back;
// by hand, then on random source lists with many ties.
func TestTopSources(t *testing.T) {
	srcs := []roundSource{{0, 5}, {1, 9}, {2, 5}, {3, 1}, {4, 9}, {5, 5}, {6, 7}}
	// The two 9s, the 7, then the first of the 5s.
	if got, want := topSources(srcs, 4, nil), []int32{0, 1, 4, 6}; !slices.Equal(got, want) {
		t.Errorf("by hand: got %v, want %v", got, want)
	}
	if got := topSources(srcs, 0, nil); len(got) != 0 {
		t.Errorf("k = 0: got %v, want none", got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range 5000 {
		n := rng.IntN(30)
		srcs := make([]roundSource, n)
		for i := range srcs {
			srcs[i] = roundSource{node: int32(i), bytes: int64(rng.IntN(6))}
		}
		k := 1 + rng.IntN(6)
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(srcs[b].bytes, srcs[a].bytes) })
		want = want[:min(k, n)]
		slices.Sort(want)
		prefix := []int32{-1}
		got := topSources(srcs, k, prefix)
		if got[0] != -1 || !slices.Equal(got[1:], want) {
			t.Fatalf("case %d (k = %d, %v): got %v, want %v after the prefix", c, k, srcs, got, want)
		}
	}
}

// TestNetIntervalFind counts random nodes into one interval, reused after
// clearing as flush does, and checks every count and the first-count order
// against a map and a list.
func TestNetIntervalFind(t *testing.T) {
	var iv netInterval
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 3 {
		want := map[int32]int64{}
		var order []int32
		for range 5000 {
			node := int32(rng.IntN(3000))
			if round == 1 {
				node *= 64 // collisions on the low bits
			}
			if _, ok := want[node]; !ok {
				order = append(order, node)
			}
			want[node]++
			iv.nodes[iv.find(node)].c[0]++
		}
		if len(iv.nodes) != len(order) {
			t.Fatalf("round %d: %d entries, want %d", round, len(iv.nodes), len(order))
		}
		for i, e := range iv.nodes {
			if e.node != order[i] || e.c[0] != want[e.node] {
				t.Fatalf("round %d: entry %d is node %d with %d, want node %d with %d", round, i, e.node, e.c[0], order[i], want[order[i]])
			}
		}
		iv.nodes = iv.nodes[:0]
		clear(iv.tab)
	}
}

// TestRoundMix counts random outputs into a roundMix as sourceMix does
// (mixAdd, then collect), several rounds on the same scratch, and checks each
// round's sources, in the order of each node's first output, and bytes
// against a map and a list, and that collect leaves the table clear.
func TestRoundMix(t *testing.T) {
	const nodes = 50
	m := roundMix{acc: make([]int64, nodes), order: make([]int32, nodes+1)}
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		want := map[int32]int64{}
		var order []int32
		k := 0
		for range rng.IntN(120) {
			v, b := int32(rng.IntN(nodes)), 1+int64(rng.IntN(1000))
			if _, ok := want[v]; !ok {
				order = append(order, v)
			}
			want[v] += b
			k = mixAdd(m.acc, m.order, k, v, b)
		}
		got := m.collect([]roundSource{{node: -1}}, k)
		if len(got) != 1+len(order) || got[0].node != -1 {
			t.Fatalf("round %d: %d sources after the prefix, want %d", round, len(got)-1, len(order))
		}
		for i, x := range got[1:] {
			if x.node != order[i] || x.bytes != want[x.node] {
				t.Fatalf("round %d: source %d is node %d with %d bytes, want node %d with %d", round, i, x.node, x.bytes, order[i], want[order[i]])
			}
		}
		for n, a := range m.acc {
			if a != 0 {
				t.Fatalf("round %d: node %d still has %d bytes after collect", round, n, a)
			}
		}
	}
}
