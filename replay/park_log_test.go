package replay

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEventLogRing pushes, trims and searches the parking log's ring against
// a plain slice through many wrap-arounds and two growths: every search,
// from the oldest entry (search) or the newest (searchBack), of times below,
// at and above the entries, ties included, gives the rank the slice gives,
// and every entry is the slice's.
func TestEventLogRing(t *testing.T) {
	var l eventLog
	var ts []int64
	var es []parkLog
	r := rand.New(rand.NewPCG(1, 2))
	now := int64(0)
	for step := range 20000 {
		now += int64(r.IntN(3)) // ties
		e := parkLog{seq: uint64(step), c: uint64(2 * step)}
		l.push(now, e)
		ts, es = append(ts, now), append(es, e)
		if r.IntN(5) == 0 {
			// Keep the window small at first and larger later, so the
			// ring wraps many times and grows.
			w := int64(200)
			if step > 10000 {
				w = 1500
			}
			cut := now - w
			l.trimBefore(cut)
			i, _ := slices.BinarySearch(ts, cut)
			ts, es = ts[i:], es[i:]
		}
		if l.n != len(ts) {
			t.Fatalf("step %d: %d entries, want %d", step, l.n, len(ts))
		}
		for q := now - 1600; q <= now+1; q += 1 + int64(r.IntN(40)) {
			want, _ := slices.BinarySearch(ts, q)
			if got := l.search(q); got != want {
				t.Fatalf("step %d: search(%d) = %d, want %d", step, q, got, want)
			}
			if got := l.searchBack(q); got != want {
				t.Fatalf("step %d: searchBack(%d) = %d, want %d", step, q, got, want)
			}
		}
		if len(ts) > 0 {
			i := r.IntN(len(ts))
			if l.t[l.at(i)] != ts[i] || l.e[l.at(i)] != es[i] {
				t.Fatalf("step %d: entry %d differs", step, i)
			}
		}
	}
	if len(l.t) < 2048 {
		t.Fatalf("the ring never grew past 1024: %d", len(l.t))
	}
}
