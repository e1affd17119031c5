package replay

import (
	"math"
	"slices"
	"unsafe"
)

// HeartbeatsSent is the number of periodic heartbeats all nodes have sent at or
// before time t on their nominal schedules (node i at phase_i + k·interval): the
// count a JobTracker receives, including the heartbeats the simulator does not
// deliver to the policy because they could not change anything (a node with no
// free slot, or nothing pending). Out-of-band heartbeats are not counted.
// Policies that count heartbeats (the Coupling Scheduler's Wait Scheduling waits
// a number of them) use it so that skipped heartbeats still count.
//
// With t = q·interval + r and every phase in [0, interval), a node whose phase is
// at most r has sent q+1 heartbeats and any other q, so the count is
// N·q + |{phase ≤ r}|: a search over the nodes in phase order, or,
// when t is later in the same interval as the previous call's (a policy
// asking at each heartbeat), a walk on from that call's count over the
// phases passed since, which turns into a search (phaseIndex) after
// hbSentWalk phases (the heartbeats asking can be far apart in phase order,
// when the nodes between them are parked or dormant). The phases are read
// from Sim.phases, a contiguous copy in phase order.
func (s *Sim) HeartbeatsSent(t int64) int64 {
	if t < 0 {
		return 0
	}
	c := &s.hbSent
	if c.ok && t == c.t {
		return c.sent // asked again at the same time (several times a heartbeat)
	}
	iv := int64(s.hw.Heartbeat)
	q, r := t/iv, t%iv
	var k int
	ph := s.phases
	if c.ok && q == c.q && r >= c.r {
		k = c.k
		for end := min(k+hbSentWalk, len(ph)); k < end && ph[k] <= r; {
			k++
		}
		if k < len(ph) && ph[k] <= r {
			k = s.phaseX.search(r + 1)
		}
	} else {
		k = s.phaseX.search(r + 1)
	}
	sent := int64(len(s.nodes))*q + int64(k)
	*c = hbSentAt{ok: true, q: q, r: r, k: k, t: t, sent: sent}
	return sent
}

// HeartbeatTime is the first time at which HeartbeatsSent is at least k (k
// >= 1): the time of the k-th nominal heartbeat, q·interval + the phase of
// the (i+1)-th node in phase order for k − 1 = q·N + i. O(1); it leaves
// HeartbeatsSent's walk where it was.
func (s *Sim) HeartbeatTime(k int64) int64 {
	n := int64(len(s.phaseOrder))
	q, i := (k-1)/n, (k-1)%n
	return q*int64(s.hw.Heartbeat) + s.phases[i]
}

// hbSentWalk is how many phases HeartbeatsSent walks on from its previous
// answer before it searches the rest.
const hbSentWalk = 8

// hbSentAt is HeartbeatsSent's last answer: at t = q·interval + r, k nodes
// had a phase of at most r, and sent heartbeats had been sent.
type hbSentAt struct {
	ok      bool
	q, r    int64
	k       int
	t, sent int64
}

// Cancelled heartbeats. A node's periodic heartbeat is scheduled when its slot
// frees or after a heartbeat that leaves it a free slot while tasks wait
// (slotFreed, heartbeat). If nothing waits anywhere when it falls due (and,
// with speculation, nothing runs), it can change nothing: it only makes the
// node dormant (nextHB = -1) until the wake-up sweep visits it. Such a
// heartbeat is cancelled rather than handled.
//
// The heartbeats are kept in their own queue, hbq, beside q, with sequence
// numbers from the same counter, and next pops whichever comes first, so
// events run in exactly the order of a single queue. While no heartbeat can
// change anything, next ignores hbq: what falls due there is cancelled, and is
// taken off hbq when tasks next come to wait (wake, on every change of the
// pending count from 0, calls cancelHeartbeats before anything reads a node's
// next heartbeat): each heartbeat before the event being handled, by time and
// sequence number, makes its node dormant, as handling it would have. A slot
// freed on a node whose heartbeat was cancelled but not yet taken off sees the
// node dormant (expireHeartbeat). Nothing else reads the nodes' next
// heartbeats. So every event that is handled runs in the same state as with
// every heartbeat handled, and the results are the same; only Summary.Events
// (and the events per second of the manifest) differ.
//
// Under network = "flow" the flow network's steps (network_retimed.go) are a
// further source, ordered against all of these (flowStep, nextDue): a step
// comes before every event not yet handled at its time, as it did when every
// heartbeat was in q, and a heartbeat that fell due before it, while nothing
// waited, is cancelled as before one of q's events.

// scheduleHeartbeat schedules node n's heartbeat at t.
func (s *Sim) scheduleHeartbeat(n int32, t int64) {
	s.seq++
	ns := &s.nodes[n]
	ns.nextHB, ns.hbSeq = t, s.seq<<1
	e := mkEvent(t, s.seq<<1, evHeartbeat, n, 0)
	if s.opt.queueAll {
		s.q.push(e)
		return
	}
	s.hbq.push(e)
}

// scheduleNextHeartbeat schedules node n's heartbeat at t, one interval after
// the heartbeat being handled, which is now: such heartbeats are scheduled in
// (time, sequence number) order (now never goes back, the interval is fixed
// and the counter only grows), so they are kept in a FIFO, hbf, beside hbq,
// and next takes the earlier of the two heads. Nearly 40% of the heartbeats
// of fair on FB-2010 are scheduled so; the others (slots freeing, parked
// nodes woken, WakeFirst) go to hbq.
func (s *Sim) scheduleNextHeartbeat(n int32, t int64) {
	if s.opt.queueAll || !s.hbf.fits(t, (s.seq+1)<<1) {
		s.scheduleHeartbeat(n, t)
		return
	}
	s.seq++
	ns := &s.nodes[n]
	ns.nextHB, ns.hbSeq = t, s.seq<<1
	s.hbf.push(mkEvent(t, s.seq<<1, evHeartbeat, n, 0))
}

// hbFIFO is a queue of heartbeats scheduled in (time, sequence number)
// order (scheduleNextHeartbeat).
type hbFIFO struct {
	ev   []event
	head int
}

// len is the number of heartbeats queued.
func (f *hbFIFO) len() int { return len(f.ev) - f.head }

// fits reports whether a heartbeat at (t, seq) comes after every one queued.
func (f *hbFIFO) fits(t int64, seq uint64) bool {
	if f.len() == 0 {
		return true
	}
	l := &f.ev[len(f.ev)-1]
	return l.t < t || l.t == t && l.key() < seq
}

// push queues e, which fits.
func (f *hbFIFO) push(e event) {
	if f.head > 0 && f.head == len(f.ev) {
		f.ev, f.head = f.ev[:0], 0
	} else if f.head >= 4096 && f.head*2 >= len(f.ev) {
		n := copy(f.ev, f.ev[f.head:])
		f.ev, f.head = f.ev[:n], 0
	}
	f.ev = append(f.ev, e)
}

// first is the earliest heartbeat queued; the queue must not be empty.
func (f *hbFIFO) first() *event { return &f.ev[f.head] }

// pop takes the earliest heartbeat off the queue.
func (f *hbFIFO) pop() event {
	e := f.ev[f.head]
	f.head++
	return e
}

// scheduleSweep schedules the wake-up sweep's visit of node n at t. The sweep
// has at most one event scheduled at a time (nextSweep schedules the next one
// when it is handled), so it is kept in its own slot, sweepEv, rather than in
// q: the same time and sequence number, without a push and a pop of the large
// queue for each of the millions of visits of a big run.
func (s *Sim) scheduleSweep(t int64, n int32) {
	s.seq++
	e := mkEvent(t, s.seq<<1, evSweep, n, 0)
	if s.opt.queueAll {
		s.q.push(e)
		return
	}
	s.sweepEv, s.sweepDue = e, true
}

// arrivals are the jobs' arrival events, kept apart from q: arrival k has
// the k-th of sequence numbers reserved before the first event, as if all
// were scheduled then in workload order, and since the workload is in
// submit order they fall due in workload order: only the next one is held,
// read from the workload's cursor (a streamed trace's file) when the one
// before it is handled (Sim.arrive). q holds only what the run schedules as
// it goes (the running tasks' ends, mostly).
type arrivals struct {
	cur  event       // the next arrival, when ok
	job  replayedJob // its job
	ok   bool        // an arrival is left
	k    int         // arrivals handed out
	seq0 uint64      // arrival k has sequence number (seq0+k+1)<<1
	src  *jobCursor
	err  error // reading the trace failed: stops the run
}

// due reports whether an arrival is left.
func (a *arrivals) due() bool { return a.ok }

// scheduleArrivals reserves every job's arrival's sequence number, as
// schedule would one after the other in workload order, and reads the
// first arrival.
func (s *Sim) scheduleArrivals() {
	s.arr = arrivals{src: s.w.cursor(), seq0: s.seq}
	s.seq += uint64(s.w.Len())
	s.loadArrival()
}

// loadArrival reads arrival s.arr.k from the workload's cursor.
func (s *Sim) loadArrival() {
	a := &s.arr
	r, ok, err := a.src.next()
	a.ok, a.err = ok && err == nil, err
	if !a.ok {
		a.src.close()
		return
	}
	a.job = r
	a.cur = mkEvent(r.submitUs, (a.seq0+uint64(a.k)+1)<<1, evArrival, int32(a.k), 0)
}

// next pops the next event to handle: the first of q, the next arrival, the sweep's event and,
// when a heartbeat can change anything, hbq and hbf. Parked nodes' wake-ups (park.go),
// which come before every event at their time, and WakeFirst's events in hbq
// are handled on the way and not returned; ok is false when one was the last
// event, or, under network = "flow", when one was handled (the network's
// next step may come before the next event then: the loop asks flowStep
// again).
func (s *Sim) next() (e event, ok bool) {
	for {
		hb := s.wantsHeartbeats()
		var best *event
		src := 0
		if len(s.q) > 0 {
			best, src = &s.q[0], 1
		}
		if s.arr.due() && (best == nil || s.arr.cur.before(best)) {
			best, src = &s.arr.cur, 4
		}
		if s.sweepDue && (best == nil || s.sweepEv.before(best)) {
			best, src = &s.sweepEv, 2
		}
		if hb && len(s.hbq) > 0 && (best == nil || s.hbq[0].before(best)) {
			best, src = &s.hbq[0], 3
		}
		if hb && s.hbf.len() > 0 && (best == nil || s.hbf.first().before(best)) {
			best, src = s.hbf.first(), 5
		}
		if hb && !s.pk.wq.empty() {
			if n, t, _ := s.pk.wq.first(); best == nil || t <= best.t {
				s.countWakeup()
				s.resume(n, t)
				if s.fn != nil {
					return event{}, false // the flow network's next step may come first now (flowStep)
				}
				continue
			}
		}
		switch src {
		case 1:
			e := s.q.pop()
			// A map's end reads its record, last read at its launch and
			// long out of the cache: start fetching the next one's while
			// this event is handled (prefetchMap).
			if len(s.q) > 0 && s.q[0].kind() == evMapDone {
				s.prefetchMap(s.q[0].a, s.q[0].b)
			}
			return e, true
		case 2:
			s.sweepDue = false
			return s.sweepEv, true
		case 3:
			e := s.hbq.pop()
			if e.b != 0 {
				s.wakeUp(e)
				if s.fn != nil {
					return event{}, false
				}
				continue
			}
			return e, true
		case 4:
			return *best, true // Sim.arrive takes it
		case 5:
			return s.hbf.pop(), true
		}
		return e, false
	}
}

// nextDue is the time of the next event or wake-up next would take: the
// first of q, the next arrival, the sweep's event and, when a heartbeat can
// change anything, hbq, hbf and the parked nodes' wake-ups; ok is false when
// there is none. flowStep handles the flow network's step before it when the
// step comes no later.
func (s *Sim) nextDue() (t int64, ok bool) {
	t = math.MaxInt64
	if len(s.q) > 0 {
		t, ok = s.q[0].t, true
	}
	if s.arr.due() && (!ok || s.arr.cur.t < t) {
		t, ok = s.arr.cur.t, true
	}
	if s.sweepDue && (!ok || s.sweepEv.t < t) {
		t, ok = s.sweepEv.t, true
	}
	if !s.wantsHeartbeats() {
		return t, ok
	}
	if len(s.hbq) > 0 && (!ok || s.hbq[0].t < t) {
		t, ok = s.hbq[0].t, true
	}
	if s.hbf.len() > 0 && (!ok || s.hbf.first().t < t) {
		t, ok = s.hbf.first().t, true
	}
	if !s.pk.wq.empty() {
		if _, w, _ := s.pk.wq.first(); !ok || w < t {
			t, ok = w, true
		}
	}
	return t, ok
}

// cancelled reports whether a heartbeat at t with sequence number seq is before
// the event being handled; if it is still scheduled, it fell due while no
// heartbeat could change anything (next handles hbq in order otherwise).
func (s *Sim) cancelled(t int64, seq uint64) bool {
	return t < s.now || t == s.now && seq < s.curSeq
}

// cancelHeartbeats takes the cancelled heartbeats off hbq, making their nodes
// dormant, unless the node has another heartbeat scheduled since, possibly at
// the same time (a slot freed with report_at_heartbeat at the microsecond of
// a cancelled heartbeat: expireHeartbeat, then slotFreed's heartbeat at now),
// which the sequence number tells apart.
func (s *Sim) cancelHeartbeats() {
	for len(s.hbq) > 0 && s.cancelled(s.hbq[0].t, s.hbq[0].key()) {
		e := s.hbq.pop()
		if e.b != 0 {
			continue // WakeFirst's: nothing waited at its time
		}
		if ns := &s.nodes[e.a]; ns.nextHB == e.t && ns.hbSeq == e.key() {
			ns.nextHB = -1
		}
		if s.opt.stats != nil {
			s.opt.stats.Cancelled++
		}
	}
	for s.hbf.len() > 0 && s.cancelled(s.hbf.first().t, s.hbf.first().key()) {
		e := s.hbf.pop()
		if ns := &s.nodes[e.a]; ns.nextHB == e.t && ns.hbSeq == e.key() {
			ns.nextHB = -1
		}
		if s.opt.stats != nil {
			s.opt.stats.Cancelled++
		}
	}
}

// expireHeartbeat makes node n dormant if its scheduled heartbeat was
// cancelled.
func (s *Sim) expireHeartbeat(n int32) {
	if ns := &s.nodes[n]; ns.nextHB >= 0 && s.cancelled(ns.nextHB, ns.hbSeq) {
		ns.nextHB = -1
	}
}

// phaseIndex finds a time's place among the nodes' phases (Sim.phases, in
// phase order) in O(1) instead of a binary search: the phases fall into
// buckets of 2^shift µs, at most about 2N of them over an interval, and
// first holds, by bucket, the first index whose phase's bucket is not below
// it; the search starts there and steps over the few phases of the same
// bucket below the time.
type phaseIndex struct {
	ph    []int64
	shift uint
	first []int32
}

// init indexes ph, phases in [0, iv) in ascending order.
func (x *phaseIndex) init(ph []int64, iv int64) {
	*x = phaseIndex{ph: ph}
	if iv <= 0 || len(ph) == 0 {
		return
	}
	for iv>>x.shift > 2*int64(len(ph)) {
		x.shift++
	}
	x.first = make([]int32, iv>>x.shift+2)
	i := 0
	for b := range x.first {
		for i < len(ph) && ph[i]>>x.shift < int64(b) {
			i++
		}
		x.first[b] = int32(i)
	}
}

// search is the first index whose phase is at least r (len(ph) if none), as
// slices.BinarySearch(ph, r) gives.
func (x *phaseIndex) search(r int64) int {
	if x.first == nil {
		i, _ := slices.BinarySearch(x.ph, r)
		return i
	}
	if r <= 0 {
		return 0
	}
	b := min(r>>x.shift, int64(len(x.first)-1))
	i := int(x.first[b])
	for i < len(x.ph) && x.ph[i] < r {
		i++
	}
	return i
}

// prefetchMap starts bringing map b of job a's record (one cache line,
// MapTask) into the cache for its end, the next event of q: the next event
// handled unless a heartbeat, the sweep or an arrival comes first or this
// event schedules an earlier one, and a hint either way. On FB-2010 through
// fair the map ends' read of the record went from 0.69 s of 10.49 s of CPU
// samples to 0.01 s (docs/performance.md, h-fairten).
func (s *Sim) prefetchMap(a, b int32) {
	if j := s.jobs[a]; j != nil && uint(b) < uint(len(j.Maps)) {
		prefetch(uintptr(unsafe.Pointer(&j.Maps[b])))
	}
}
