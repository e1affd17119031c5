package replay

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestEventLogRing pushes, trims and searches the parking log's ring against
// a plain slice through many wrap-arounds and two growths: every search,
// from the oldest entry (search) or the newest (searchBack), of times below,
// at and above the entries, ties included, gives the rank the slice gives,
// and every entry is the slice's. Three logs: narrow throughout (16-byte
// entries), and turned wide at step 12,000 by a c more than 2³² after the
// oldest entry's or by a seq 2³² before its c; each is checked narrow
// before and wide after.
func TestEventLogRing(t *testing.T) {
	t.Parallel()
	for _, jump := range []string{"none", "c", "seq"} {
		t.Run(jump, func(t *testing.T) { eventLogRing(t, jump) })
	}
}

func eventLogRing(t *testing.T, jump string) {
	var l eventLog
	var ts []int64
	var es []parkLog
	r := rand.New(rand.NewPCG(1, 2))
	now := int64(0)
	base := uint64(1)<<33 - 20000 // c crosses a multiple of 2³² at step 10,000
	for step := range 20000 {
		now += int64(r.IntN(3)) // ties
		c := base + uint64(2*step) + uint64(r.IntN(3))
		// An event's key: twice a sequence number at most c's, plus one
		// for a skipped heartbeat's.
		e := parkLog{seq: 2*(c-uint64(r.IntN(100))) + uint64(r.IntN(2)), c: c}
		switch {
		case step >= 12000 && jump == "c":
			e.seq += 1 << 33
			e.c += 1 << 32
		case step == 12000 && jump == "seq":
			e.seq -= 1 << 32
		}
		if want := step > 12000 && jump != "none"; l.wide() != want {
			t.Fatalf("step %d: wide %v before the push, want %v", step, l.wide(), want)
		}
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
			if l.t[l.at(i)] != ts[i] || l.entry(l.at(i)) != es[i] {
				t.Fatalf("step %d: entry %d differs", step, i)
			}
		}
	}
	if len(l.t) < 2048 {
		t.Fatalf("the ring never grew past 1024: %d", len(l.t))
	}
}

// TestEventLogNarrow: the parking log holds an entry in 16 bytes (its time
// and two uint32) while its sequence numbers fit, as they do on a run's
// events (c - seq and the span of c far below 2³²): under the flow model
// with fair, FB-2010's day held 2,097,152 entries, 48 MB at 24 bytes.
func TestEventLogNarrow(t *testing.T) {
	var l eventLog
	c := uint64(1) << 40
	for k := range 1 << 16 {
		c += uint64(k % 7)
		l.push(int64(k), parkLog{seq: 2*(c-uint64(k%1000)) + uint64(k%2), c: c})
	}
	bytes := len(l.t)*int(unsafe.Sizeof(int64(0))) + len(l.nar)*int(unsafe.Sizeof(narrowLog{})) + len(l.e)*int(unsafe.Sizeof(parkLog{}))
	if per := bytes / len(l.t); per > 16 || l.wide() {
		t.Errorf("%d bytes an entry (wide %v), want 16", per, l.wide())
	}
}
