package replay

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRadixQueueOrder checks that radixQueue pops the same events as
// eventQueue, one by one, with unique keys (as Sim.q has them, here in
// random order, which a rebuilt queue (dropEventsWhere) may push): times at or
// after the last popped one as the engine schedules them (now, bursts at
// one time, times far ahead), some before the queue's base (which the
// engine never schedules), negative and extreme times; first, len, each and
// any along the way.
func TestRadixQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 40 {
		var q radixQueue
		var ref eventQueue
		var seq uint64
		span := int64(1) << (round % 40)
		now := int64(math.MinInt64 / 2)
		if round%3 == 0 {
			now = -span
		}
		for op := range 8000 {
			if len(ref) > 0 && rng.IntN(4) == 0 {
				q.first() // as next does, before it takes another source's event
			}
			if rng.IntN(5) < 3 || len(ref) == 0 {
				seq++
				var tm int64
				switch rng.IntN(10) {
				case 0:
					tm = now // at once
				case 1:
					tm = now + span/2 // a burst at one time
				case 2:
					tm = []int64{math.MaxInt64, math.MaxInt64 - 1, -1, 0, 1}[rng.IntN(5)]
					tm = max(tm, now)
				case 3:
					tm = now - rng.Int64N(span) // before base, which q never sees
				default:
					tm = now + rng.Int64N(span)
				}
				e := mkEvent(tm, rng.Uint64N(1<<30)<<20|seq, eventKind(rng.IntN(int(evSpecKill)+1)), int32(op), int32(round))
				q.push(e)
				ref.push(e)
			} else {
				if f := q.first(); *f != ref[0] {
					t.Fatalf("round %d op %d: first = %+v, want %+v", round, op, *f, ref[0])
				}
				got, want := q.pop(), ref.pop()
				if got != want {
					t.Fatalf("round %d op %d: pop = %+v, want %+v", round, op, got, want)
				}
				now = got.t
			}
			if q.len() != len(ref) {
				t.Fatalf("round %d op %d: len = %d, want %d", round, op, q.len(), len(ref))
			}
			if op%997 == 0 {
				var all []event
				q.each(func(e event) { all = append(all, e) })
				want := slices.Clone(ref)
				cmp := func(a, b event) int {
					if a.before(&b) {
						return -1
					}
					if b.before(&a) {
						return 1
					}
					return 0
				}
				slices.SortFunc(all, cmp)
				slices.SortFunc(want, cmp)
				if !slices.Equal(all, want) {
					t.Fatalf("round %d op %d: each visits %d events, not the %d queued", round, op, len(all), len(want))
				}
				if len(want) > 0 {
					last := want[len(want)-1]
					if !q.any(func(e event) bool { return e == last }) || q.any(func(e event) bool { return e.a < 0 }) {
						t.Fatalf("round %d op %d: any is wrong", round, op)
					}
				}
			}
		}
		for len(ref) > 0 {
			if got, want := q.pop(), ref.pop(); got != want {
				t.Fatalf("round %d drain: pop = %+v, want %+v", round, got, want)
			}
		}
		if q.len() != 0 {
			t.Fatalf("round %d: %d events left", round, q.len())
		}
	}
}
