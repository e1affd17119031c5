package trace

import "testing"

// splitsLoop is getSplits' loop as Hadoop writes it, the reference for Splits.
func splitsLoop(input, block int64) (int64, int64) {
	if input <= 0 {
		return 1, 0
	}
	n := int64(0)
	rem := input
	for float64(rem)/float64(block) > SplitSlop {
		rem -= block
		n++
	}
	return n + 1, rem
}

func TestSplitsMatchesGetSplitsLoop(t *testing.T) {
	const mb = 1 << 20
	block := int64(128 * mb)
	cases := []int64{0, 1, block - 1, block, block + 1, int64(1.1 * float64(block)), int64(1.1*float64(block)) + 1,
		2 * block, 2*block + block/10, 2*block + block/10 + 1, 10*block + 7, 8_500_000_000_000, 740773}
	for _, in := range cases {
		n, last := Splits(in, block)
		wn, wlast := splitsLoop(in, block)
		if n != wn || last != wlast {
			t.Errorf("Splits(%d) = %d, %d; getSplits gives %d, %d", in, n, last, wn, wlast)
		}
	}
	// A hand-computed case: 300 MB at 128 MB blocks: 300/128 = 2.34 > 1.1, cut one
	// (172 MB left, 1.34 > 1.1), cut another (44 MB left): 3 splits, last 44 MB.
	if n, last := Splits(300*mb, block); n != 3 || last != 44*mb {
		t.Errorf("Splits(300 MB) = %d, %d; want 3, 44 MB", n, last)
	}
	// 140 MB: 1.09 <= 1.1, a single split of 140 MB.
	if n, last := Splits(140*mb, block); n != 1 || last != 140*mb {
		t.Errorf("Splits(140 MB) = %d, %d; want 1, 140 MB", n, last)
	}
}

func TestSynthReduces(t *testing.T) {
	const gb = 1 << 30
	cases := []struct {
		shuffle, output int64
		max             int
		want            int64
	}{
		{0, 5 * gb, 0, 0},     // map-only
		{1, 0, 0, 1},          // at least one
		{gb, gb / 2, 0, 2},    // round(1.5) = 2
		{gb, gb/2 - 1, 0, 1},  // round(1.49...) = 1
		{100 * gb, 0, 0, 100}, // one per GB
		{100 * gb, 0, 30, 30}, // capped
	}
	for _, c := range cases {
		if got := SynthReduces(c.shuffle, c.output, gb, c.max); got != c.want {
			t.Errorf("SynthReduces(%d, %d, cap %d) = %d, want %d", c.shuffle, c.output, c.max, got, c.want)
		}
	}
}
