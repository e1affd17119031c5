package replay

import (
	"math"
	"math/bits"
	"slices"
)

// Waker is implemented by a policy that can tell the engine when a node's
// heartbeat can matter again, so that the engine can skip the heartbeats in
// between ("parking" the node) with the same results.
//
// Right after the policy's Heartbeat for node n (when n still has a free slot
// and tasks wait), the engine asks IdleUntil. A time after n's next periodic
// heartbeat promises that every heartbeat of n before it would launch nothing
// and change none of the policy's state, as long as nothing else happens: the
// engine then skips them. Anything else that can make such a heartbeat matter
// earlier must wake n through the Waking the Cluster implements, except what
// the engine sees itself: a slot freeing on n, and reduces becoming ready
// while n has a free reduce slot (unless the policy is a ReadyWaker that
// needs no wake-up for them). A state change that only the first
// heartbeat after some time makes (delay scheduling's wait starting or its
// level rising) needs that heartbeat handled: WakeFirst. With the job
// lifecycle, a heartbeat that launches a setup or cleanup task does not run
// the policy: the engine then has the next heartbeat handled again (of any
// node, of a node with a free map slot, and of the same node) and counts the
// ready reduces again against the parked nodes (slotTaskTaken), so what the
// policy asked of that heartbeat moves on to the next.
type Waker interface {
	IdleUntil(c Cluster, n int32) int64
}

// Waking is how a Waker wakes parked nodes; *Sim implements it (a policy
// type-asserts its Cluster to it).
type Waking interface {
	// Wake ends node n's parking, if it is parked: it heartbeats again from
	// its next periodic heartbeat.
	Wake(n int32)
	// WakeMapNodes wakes every parked node that has a free map slot.
	WakeMapNodes()
	// WakeFirst makes sure that the first heartbeat of a node with a free
	// map slot at time t or later (after the current event if t is now or
	// earlier) is handled.
	WakeFirst(t int64)
	// WakeNext makes sure that the first heartbeat after the current event,
	// of any node, is handled: it wakes the parked node whose skipped
	// heartbeat would come first (and keeps the node of the heartbeat being
	// handled, if any, from parking).
	WakeNext()
	// WakeAllAt makes sure that every parked node's first heartbeat at time
	// t or later is handled, replacing the time given before; a negative t
	// withdraws it.
	WakeAllAt(t int64)
	// HeartbeatTime is the time of the k-th nominal heartbeat (k >= 1): the
	// first time at which Cluster.HeartbeatsSent is at least k.
	HeartbeatTime(k int64) int64
}

var _ Waking = (*Sim)(nil)

// ReadyWaker is implemented by a Waker whose IdleUntil does not count on a
// free reduce slot taking a ready reduce at its node's next heartbeat (the
// Coupling Scheduler launches one reduce at a time, on the nodes of its own
// lists): reduces becoming ready change none of its answers, and what it
// does about them it learns from the hooks of the same event (JobArrived,
// TaskFinished). ReducesReadyWake false tells the engine not to wake the
// parked nodes with a free reduce slot when a job's reduces become ready,
// nor after a heartbeat that took a setup or cleanup task (wakeReduceNodes):
// heartbeats that would launch nothing and change nothing.
type ReadyWaker interface {
	ReducesReadyWake() bool
}

// Parked nodes. A parked node's heartbeats are not scheduled: the node
// remembers its first skipped heartbeat (the anchor: its time, and the
// sequence number taken for it as scheduleHeartbeat would have) and has a
// wake-up time in wq, the heartbeat at which the policy said it may matter
// again (at most parkCap intervals on); a wake-up comes before every event at
// its time. Woken, early or at its wake-up, the node's next heartbeat is
// scheduled with the time and sequence number it would have had if every
// skipped heartbeat had been handled: handled, each would have taken the next
// sequence number for its successor, which orders that successor after every
// event scheduled before it and before every event scheduled after it.
// Sequence numbers of scheduled events are even (twice the counter s.seq); a
// skipped heartbeat's successor gets the odd number between the counter's
// values around the skipped heartbeat's place among the handled events, which
// a log of the handled events (time, sequence number, counter before) gives
// (tickKey). Nodes that share a heartbeat phase with another are never
// parked, so two heartbeats never get the same number. Under network =
// "flow" the log holds the flow network's steps too, at their place among
// the events (stepAt): a step comes before every event not yet handled at
// its time, so before the skipped heartbeats of that time that come after
// the last event handled.
//
// A parked node is not dormant: its nextHB is parkedHB. If nothing waits
// (pending == 0) when one of its skipped heartbeats falls due, handling it
// would have made the node dormant; that is settled when tasks wait again
// (wake) or the node is woken, whichever comes first (settle).
//
// Wake-ups and WakeFirst's events are not counted in Summary.Events: like
// the cancelled heartbeats, they are the engine's bookkeeping; the heartbeats
// they lead to are counted when handled.

// parkedHB is a parked node's nextHB.
const parkedHB = math.MaxInt64

// parkCap is the most heartbeat intervals a node stays parked before it is
// woken to ask the policy again: it bounds the log.
const parkCap = 100

// parkLog is a handled event in the log, beside its time in eventLog.t
// (apart, so that tickKey's binary search reads only times).
type parkLog struct {
	seq uint64
	c   uint64 // s.seq before the event was handled
}

type parking struct {
	on       bool
	can      []bool   // by node: its phase is its own
	pos      []int32  // by node: index in list, -1 when not parked
	list     []int32  // the parked nodes
	anchor   []int64  // by node: the first skipped heartbeat's time
	akey     []uint64 // and its sequence number
	phasePos []int32  // by node: index in phaseOrder
	bits     []uint64 // bit i: node phaseOrder[i] is parked with a free map slot
	rbits    []uint64 // bit i: node phaseOrder[i] is parked with a free reduce slot
	pbits    []uint64 // bit i: node phaseOrder[i] is parked
	lastWake int64    // the last WakeFirst event pushed
	alarm    int64    // WakeAllAt's time, -1 when none
	firstNow bool     // WakeFirst(now) was called during the heartbeat being handled
	wq       wakeQueue
	log      eventLog // the handled events not older than any parked node's anchor
	logCap   int      // the entries the log may hold before capLog wakes the nodes parked earliest
	zero     bool     // pending has been 0 since (zt, zs)
	zt       int64
	zs       uint64
	iv       int64
	waker    Waker // the policy, asserted once (park asks it at every heartbeat that could park)
	noReady  bool  // the policy is a ReadyWaker that needs no wake-ups for ready reduces
}

// initParking turns parking on when the policy is a Waker and the model
// allows it.
func (s *Sim) initParking() {
	wk, ok := s.pol.(Waker)
	s.pk.waker = wk
	rw, isRW := s.pol.(ReadyWaker)
	s.pk.noReady = isRW && !rw.ReducesReadyWake()
	hw := s.hw
	// With the lifecycle (on a slot cluster), setup and cleanup tasks wait
	// for any free slot: lcWaiting wakes the parked nodes whose heartbeats
	// may take them (wakeSlotNodes), no node parks while one waits (park),
	// and a heartbeat that takes one passes what the policy would have done
	// at it on (slotTaskTaken); the other changes come through events (job
	// init, setup and cleanup ends, task ends, also those reported at
	// heartbeats) that already wake nodes. Not with speculation, modelled or
	// observed (specOn: trace mode's observed speculative attempts are
	// launched at other nodes' heartbeats, obsSpeculate), nor with modelled
	// faults. A trace-mode cluster that comes up late (Workload.upUs > 0)
	// parks: what moved results there was observed speculation (testdata's
	// Hadoop 1 and Rumen folders have both; rumen's counters-test-trace,
	// whose cluster is up at once, moved too; TestParkedTraceMode). Nor
	// with per-heartbeat caps (heartbeat_cap.go): a capped heartbeat leaves
	// work its node's next one takes with nothing else changed.
	if !ok || s.opt.queueAll || hw.Lifecycle && s.yarn.on || s.specOn() || hw.faultsOn() ||
		hw.OutOfBandHeartbeat || !hw.HeartbeatJitter || hw.Heartbeat <= 0 || hw.heartbeatCaps() {
		return
	}
	pk := &s.pk
	n := len(s.nodes)
	pk.on, pk.iv = true, int64(hw.Heartbeat)
	pk.logCap = parkLogCap
	if s.opt.parkLogCap > 0 {
		pk.logCap = max(s.opt.parkLogCap, 2) // capLog keeps logCap/2 entries
	}
	pk.alarm = -1
	pk.can = make([]bool, n)
	pk.pos = make([]int32, n)
	pk.anchor = make([]int64, n)
	pk.akey = make([]uint64, n)
	pk.phasePos = make([]int32, n)
	pk.bits = make([]uint64, (n+63)/64)
	pk.rbits = make([]uint64, (n+63)/64)
	pk.pbits = make([]uint64, (n+63)/64)
	pk.wq.init(n)
	for i, x := range s.phaseOrder {
		pk.pos[x] = -1
		pk.phasePos[x] = int32(i)
		ph := s.nodes[x].phase
		pk.can[x] = (i == 0 || s.nodes[s.phaseOrder[i-1]].phase != ph) && (i == n-1 || s.nodes[s.phaseOrder[i+1]].phase != ph)
	}
}

// record logs the event about to be handled, or a flow network's step (t, the
// handled event's seq at its time or 0 at a later one: stepAt, flowStep),
// which can schedule events too.
func (pk *parking) record(t int64, seq, c uint64) {
	pk.log.push(t, parkLog{seq, c})
	if pk.log.n&1023 == 0 {
		// A parked node's anchor is at most parkCap intervals before its
		// wake-up, which is not before now, or, if it has not been popped
		// because nothing waits, not before zt.
		h := t
		if pk.zero {
			h = min(h, pk.zt)
		}
		pk.log.trimBefore(h - (parkCap+2)*pk.iv)
	}
}

// parkLogCap is the most entries the parking log holds before capLog wakes
// the nodes parked earliest: 16 MiB with their times while the log is
// narrow, 24 MiB wide.
const parkLogCap = 1 << 20

// capLog keeps the parking log within logCap entries. The log holds the
// events of the last parkCap + 2 heartbeat intervals (record), which under
// the flow model at a fine rate-update quantum, or with many small batch
// rounds, is millions of events: on FB-2010's day under fair at
// flow_update = 100ms it was 128 of the 257 MB in use at the heap's peak
// (docs/performance.md, "The parking log bounded").
// capLog wakes every parked node anchored less than two intervals after
// the entry logCap/2 from the newest, as a policy's Wake would (resume: the
// node heartbeats again from the heartbeat it would have had, with the
// sequence number every skipped heartbeat handled would have given it, so
// results do not change), and drops the entries before that one: every node
// still parked is anchored two intervals or more after the oldest entry left,
// the margin record's trimming keeps. Called before an event is handled
// (where a policy's Wake may come), when the log holds logCap entries, before
// its ring (a power of two) would grow past them: O(parked nodes), at most
// once per logCap/2 entries logged; a node it wakes parks again at its next
// heartbeat if the policy says so.
func (s *Sim) capLog() {
	pk := &s.pk
	l := &pk.log
	cut := l.t[l.at(l.n-pk.logCap/2)]
	keep := cut + 2*pk.iv
	var woken int64
	for i := 0; i < len(pk.list); {
		if n := pk.list[i]; pk.anchor[n] < keep {
			s.resume(n, s.now) // takes n off the list: list[i] is another node now
			woken++
			continue
		}
		i++
	}
	l.trimBefore(cut)
	if st := s.opt.stats; st != nil {
		st.LogCaps++
		st.LogCapWakes += woken
	}
}

// eventLog is the parking log: a ring of handled events in the order they
// were handled, times apart from the rest (so that searches read only
// times). Its capacity is a power of two that grows only when the ring is
// full, so its memory follows the most entries it held at once: on FB-2010
// with Coupling about 480,000 (306 s of events), a 524,288-entry ring of
// 12.6 MB, where a slice trimmed at its head grew to 1.1 M entries; under
// the flow model with fair, 2,097,152 entries.
//
// An entry is 16 bytes, not 24 (parkLog's two sequence numbers as two
// uint32, narrowLog): c's low 32 bits, whose high bits are the newest
// entry's (hiC) less a borrow, since every c in the log is within 2³² of it
// (c never decreases), and seq as 2c + 1 - seq (an event's key is twice the
// sequence number when it was scheduled, plus one for a skipped heartbeat's,
// tickKey: at most 2c + 1). When a push would break either (a c 2³² or more
// after the oldest entry's, or a seq above 2c + 1 or 2³² - 1 or more below
// it), the log turns wide for the rest of the run: every entry as its
// parkLog (e).
type eventLog struct {
	t    []int64
	nar  []narrowLog // the entries but their times, while the log is narrow
	e    []parkLog   // the entries but their times, once the log is wide (nar nil)
	hiC  uint64      // the newest entry's c (narrow)
	head int         // index in t and nar (or e) of the oldest entry
	n    int         // entries
}

// narrowLog is a parkLog in a narrow eventLog: c's low 32 bits and
// 2c + 1 - seq.
type narrowLog struct {
	c, d uint32
}

// wide reports whether l holds its entries as parkLogs.
func (l *eventLog) wide() bool { return l.e != nil }

// entry is the entry at index i (l.at) in t and nar or e.
func (l *eventLog) entry(i int) parkLog {
	if l.e != nil {
		return l.e[i]
	}
	x := l.nar[i]
	c := l.hiC - uint64(uint32(l.hiC)-x.c)
	return parkLog{seq: 2*c + 1 - uint64(x.d), c: c}
}

// push appends an entry.
func (l *eventLog) push(t int64, e parkLog) {
	if l.e == nil && !l.fits(e) {
		l.widen()
	}
	if l.n == len(l.t) {
		c := max(1024, 2*len(l.t))
		nt := make([]int64, c)
		k := copy(nt, l.t[l.head:])
		copy(nt[k:], l.t[:l.head])
		if l.e != nil {
			ne := make([]parkLog, c)
			copy(ne, l.e[l.head:])
			copy(ne[k:], l.e[:l.head])
			l.e = ne
		} else {
			ne := make([]narrowLog, c)
			copy(ne, l.nar[l.head:])
			copy(ne[k:], l.nar[:l.head])
			l.nar = ne
		}
		l.t, l.head = nt, 0
	}
	i := (l.head + l.n) & (len(l.t) - 1)
	l.t[i] = t
	if l.e != nil {
		l.e[i] = e
	} else {
		l.nar[i] = narrowLog{c: uint32(e.c), d: uint32(2*e.c + 1 - e.seq)}
		l.hiC = e.c
	}
	l.n++
}

// fits reports whether e can join the narrow log: its seq at most 2c + 1 and
// within 2³² - 2 of it, and its c within 2³² - 1 of the oldest entry's and
// not before the newest's.
func (l *eventLog) fits(e parkLog) bool {
	if e.c >= 1<<62 || e.seq > 2*e.c+1 || 2*e.c+1-e.seq >= 1<<32-1 {
		return false
	}
	if l.n == 0 {
		return true
	}
	return e.c >= l.hiC && e.c-l.entry(l.head).c < 1<<32
}

// widen turns the narrow log wide: every entry as its parkLog.
func (l *eventLog) widen() {
	e := make([]parkLog, len(l.t))
	for k := range l.n {
		i := l.at(k)
		e[i] = l.entry(i)
	}
	if len(e) == 0 {
		e = make([]parkLog, 0, 1) // non-nil: wide
	}
	l.e, l.nar = e, nil
}

// trimBefore drops the entries before t, found by a galloping search from
// the oldest entry (the entries are in time order; record trims every 1,024
// entries, so about that many are dropped, near the head).
func (l *eventLog) trimBefore(t int64) {
	if l.n == 0 || l.t[l.head] >= t {
		return
	}
	// Entry lo is before t, entry hi (n: none) at or after t, and so is
	// every entry after hi.
	lo, hi := 0, l.n
	for step := 1; lo+step < l.n; step *= 2 {
		i := lo + step
		if l.t[l.at(i)] >= t {
			hi = i
			break
		}
		lo = i
	}
	hi = l.bisect(lo, hi, t)
	l.head = (l.head + hi) & (len(l.t) - 1)
	l.n -= hi
}

// at is the index in t and e of the i-th oldest entry.
func (l *eventLog) at(i int) int { return (l.head + i) & (len(l.t) - 1) }

// search is the rank of the first entry at or after t (n if none).
func (l *eventLog) search(t int64) int {
	if l.n == 0 {
		return 0
	}
	first := l.t[l.head:min(l.head+l.n, len(l.t))]
	if first[len(first)-1] >= t {
		i, _ := slices.BinarySearch(first, t)
		return i
	}
	second := l.t[:l.n-len(first)]
	i, _ := slices.BinarySearch(second, t)
	return len(first) + i
}

// searchBack is search by a galloping search from the newest entry: tickKey
// asks about times within an interval or two of now, among the last few
// thousand entries of a log that holds hundreds of thousands, so this reads
// a few cache lines at its end instead of a binary search's over the whole.
func (l *eventLog) searchBack(t int64) int {
	if l.n == 0 || l.t[l.at(l.n-1)] < t {
		return l.n
	}
	// Entry hi is at or after t, entry lo (-1: none) before t, and so is
	// every entry before lo: step back by doubling strides until an entry
	// before t is found, then search between lo and hi.
	hi, lo := l.n-1, -1
	for step := 1; hi-step >= 0; step *= 2 {
		i := hi - step
		if l.t[l.at(i)] < t {
			lo = i
			break
		}
		hi = i
	}
	return l.bisect(lo, hi, t)
}

// bisect narrows a galloping search's bracket: given entry lo before t (or
// lo = -1) and entry hi at or after t (or hi = n), it returns the rank of the
// first entry at or after t.
func (l *eventLog) bisect(lo, hi int, t int64) int {
	for lo+1 < hi {
		m := int(uint(lo+hi) >> 1)
		if l.t[l.at(m)] < t {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// parked reports whether node n is parked.
func (s *Sim) parked(n int32) bool { return s.pk.on && s.pk.pos[n] >= 0 }

// park parks node n, whose next heartbeat would be at x, if the policy says
// it can skip it, and reports whether it did.
func (s *Sim) park(n int32, x int64) bool {
	pk := &s.pk
	if !pk.on || !pk.can[n] {
		return false
	}
	if pk.firstNow {
		// The policy needs the next heartbeat of a node with a free map
		// slot: that may be n's own.
		return false
	}
	if len(s.lc.cleanupWait)+len(s.lc.setupWait) > 0 {
		// A setup or cleanup task waits: n's next heartbeat may take it
		// (lcAssign; n has a free slot).
		return false
	}
	until := pk.waker.IdleUntil(s, n)
	if until <= x {
		return false
	}
	iv := int64(s.hw.Heartbeat)
	s.seq++
	pk.anchor[n], pk.akey[n] = x, s.seq<<1
	w := x + parkCap*iv
	if until < w {
		w = x + (until-x+iv-1)/iv*iv
	}
	pk.wq.push(n, w)
	ns := &s.nodes[n]
	ns.nextHB, ns.hbSeq = parkedHB, 0
	pk.pos[n] = int32(len(pk.list))
	pk.list = append(pk.list, n)
	p := pk.phasePos[n]
	pk.pbits[p>>6] |= 1 << (p & 63)
	if ns.freeMap > 0 { // it cannot change while n is parked: slotFreed wakes it
		pk.bits[p>>6] |= 1 << (p & 63)
	}
	if ns.freeReduce > 0 {
		pk.rbits[p>>6] |= 1 << (p & 63)
	}
	return true
}

// unpark takes node n off the parked list; its wake-up event goes stale.
func (s *Sim) unpark(n int32) {
	pk := &s.pk
	i := pk.pos[n]
	last := pk.list[len(pk.list)-1]
	pk.list[i] = last
	pk.pos[last] = i
	pk.list = pk.list[:len(pk.list)-1]
	pk.pos[n] = -1
	pk.wq.remove(n)
	p := pk.phasePos[n]
	pk.bits[p>>6] &^= 1 << (p & 63)
	pk.rbits[p>>6] &^= 1 << (p & 63)
	pk.pbits[p>>6] &^= 1 << (p & 63)
}

// tickKey is the sequence number node n's heartbeat at x (one of its skipped
// heartbeats or their successor) would have had, with every skipped heartbeat
// handled. Every event before the skipped heartbeat at x - interval must have
// been handled.
func (s *Sim) tickKey(n int32, x int64) uint64 {
	pk := &s.pk
	if x <= pk.anchor[n] {
		return pk.akey[n]
	}
	p := x - int64(s.hw.Heartbeat)
	l := &pk.log
	i := l.searchBack(p)
	if i < l.n && l.t[l.at(i)] == p {
		kp := s.tickKey(n, p)
		for i < l.n && l.t[l.at(i)] == p && l.entry(l.at(i)).seq < kp {
			i++
		}
	}
	c := s.seq
	if i < l.n {
		c = l.entry(l.at(i)).c
	}
	return c<<1 | 1
}

// before reports whether position (t, k) comes before the event being handled.
func (s *Sim) beforeNow(t int64, k uint64) bool { return t < s.now || t == s.now && k < s.curSeq }

// firstTick is node n's first skipped heartbeat at or after t.
func (s *Sim) firstTick(n int32, t int64) int64 {
	a := s.pk.anchor[n]
	if t <= a {
		return a
	}
	iv := int64(s.hw.Heartbeat)
	return a + (t-a+iv-1)/iv*iv
}

// resume wakes parked node n at its first heartbeat at or after x that is not
// before the event being handled, or makes it dormant if one of its skipped
// heartbeats fell due while nothing waited.
func (s *Sim) resume(n int32, x int64) {
	if s.settle(n) {
		return
	}
	x = s.firstTick(n, x)
	k := s.tickKey(n, x)
	for s.beforeNow(x, k) {
		x += int64(s.hw.Heartbeat)
		k = s.tickKey(n, x)
	}
	s.unpark(n)
	ns := &s.nodes[n]
	ns.nextHB, ns.hbSeq = x, k
	s.hbq.push(mkEvent(x, k, evHeartbeat, n, 0))
}

// settle makes parked node n dormant, and reports so, if one of its skipped
// heartbeats fell due while nothing waited (since (zt, zs) and before the
// event being handled).
func (s *Sim) settle(n int32) bool {
	pk := &s.pk
	if !pk.zero {
		return false
	}
	x := s.firstTick(n, pk.zt)
	if x == pk.zt && s.tickKey(n, x) < pk.zs {
		x += int64(s.hw.Heartbeat)
	}
	if x > s.now || x == s.now && s.tickKey(n, x) >= s.curSeq {
		// Not before the event being handled (beforeNow; the key, a
		// search in the log, is needed only at now).
		return false
	}
	s.unpark(n)
	s.nodes[n].nextHB = -1
	return true
}

// settleAll settles every parked node when tasks come to wait again.
func (s *Sim) settleAll() {
	pk := &s.pk
	if !pk.zero {
		return
	}
	if span := s.now - pk.zt; span < pk.iv {
		// Only the nodes whose phase is within span after zt's can have had
		// a heartbeat in the window.
		z := pk.zt % pk.iv
		s.scanParked(pk.pbits, pk.zt, func(n int32, _ bool) bool {
			if (s.nodes[n].phase-z+pk.iv)%pk.iv > span {
				return true
			}
			s.settle(n)
			return false
		})
	} else {
		for i := 0; i < len(pk.list); {
			if !s.settle(pk.list[i]) {
				i++
			}
		}
	}
	pk.zero = false
}

// countWakeup counts a parked node's wake-up for eventStats.
func (s *Sim) countWakeup() {
	if s.opt.stats != nil {
		s.opt.stats.Wakeups++
	}
}

// wakeUp handles WakeFirst's (b = 1) or WakeAllAt's (b = 2) event e popped
// from hbq.
func (s *Sim) wakeUp(e event) {
	if s.opt.stats != nil {
		s.opt.stats.WakeFirsts++
	}
	if s.pending == 0 {
		return
	}
	if e.b == 2 {
		if e.t == s.pk.alarm {
			s.wakeAll(e.t)
		}
		return
	}
	s.wakeFirst(e.t, false)
}

// wakeAll wakes every parked node at its first heartbeat at or after t (not
// before the event being handled), and withdraws WakeAllAt's time.
func (s *Sim) wakeAll(t int64) {
	s.pk.alarm = -1
	for l := &s.pk.list; len(*l) > 0; {
		s.resume((*l)[len(*l)-1], t) // takes the node off the list
	}
}

// WakeAllAt makes sure every parked node's first heartbeat at t or later is
// handled (Waking): at once if t is now or earlier, else by an event at t
// (before every other event then), which a later call makes stale.
func (s *Sim) WakeAllAt(t int64) {
	if !s.pk.on {
		return
	}
	switch {
	case t < 0:
		s.pk.alarm = -1
	case t <= s.now:
		s.wakeAll(s.now)
	default:
		if t != s.pk.alarm {
			s.pk.alarm = t
			s.hbq.push(mkEvent(t, 0, evHeartbeat, -1, 2))
		}
	}
}

// catchUp wakes the parked nodes whose wake-up time came while nothing
// waited, when tasks wait again (after settleAll).
func (s *Sim) catchUp() {
	for wq := &s.pk.wq; ; {
		n, t, ok := wq.first()
		if !ok || t > s.now {
			return
		}
		s.countWakeup()
		s.resume(n, t)
	}
}

// wakeQueue is the parked nodes' wake-up times: a queue of nodes by time that
// can remove any node. Wake-up times are heartbeat times of distinct phases, so
// never equal. Nodes are mostly parked in the order of their wake-ups (a node
// parked at its heartbeat at t wakes at t + parkCap intervals unless the policy
// gave an earlier time), so a wake-up not before the last one queued goes to a
// FIFO, from which removed nodes are dropped when they reach its head, and only
// the others to a binary min-heap; the first wake-up is the earlier of the two
// heads.
type wakeQueue struct {
	fifo  []wakeEntry // in time order from head; an entry whose node is no longer queued at its time is stale
	head  int
	h     []int32 // the heap's nodes
	at    []int64 // by node: its wake-up time, while queued
	idx   []int32 // by node: index in h, -1 when not in the heap
	in    []bool  // by node: queued (in the FIFO or the heap)
	count int     // nodes queued
	// first's answer, kept while valid (cached): next asks at every event,
	// the queue changes at parks and wake-ups only.
	firstN  int32
	firstT  int64
	cached  bool
	firstOK bool
}

// wakeEntry is a node's wake-up in the FIFO.
type wakeEntry struct {
	t int64
	n int32
}

func (q *wakeQueue) init(n int) {
	q.at = make([]int64, n)
	q.idx = make([]int32, n)
	q.in = make([]bool, n)
	for i := range q.idx {
		q.idx[i] = -1
	}
}

// empty reports whether no node is queued.
func (q *wakeQueue) empty() bool { return q.count == 0 }

// first returns the queued node that wakes first and its wake-up time.
func (q *wakeQueue) first() (int32, int64, bool) {
	if !q.cached {
		q.firstN, q.firstT, q.firstOK = q.findFirst()
		q.cached = true
	}
	return q.firstN, q.firstT, q.firstOK
}

// findFirst is first without the cache.
func (q *wakeQueue) findFirst() (int32, int64, bool) {
	for q.head < len(q.fifo) {
		e := q.fifo[q.head]
		if q.in[e.n] && q.idx[e.n] < 0 && q.at[e.n] == e.t {
			break
		}
		q.head++
	}
	if q.head == len(q.fifo) {
		q.fifo, q.head = q.fifo[:0], 0
		if len(q.h) == 0 {
			return 0, 0, false
		}
		return q.h[0], q.at[q.h[0]], true
	}
	e := q.fifo[q.head]
	if len(q.h) > 0 && q.at[q.h[0]] < e.t {
		return q.h[0], q.at[q.h[0]], true
	}
	return e.n, e.t, true
}

func (q *wakeQueue) less(i, j int) bool { return q.at[q.h[i]] < q.at[q.h[j]] }

func (q *wakeQueue) swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	q.idx[q.h[i]], q.idx[q.h[j]] = int32(i), int32(j)
}

func (q *wakeQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *wakeQueue) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(q.h) {
			return
		}
		if c+1 < len(q.h) && q.less(c+1, c) {
			c++
		}
		if !q.less(c, i) {
			return
		}
		q.swap(i, c)
		i = c
	}
}

// push queues node n, which is not queued, to wake at t.
func (q *wakeQueue) push(n int32, t int64) {
	q.at[n], q.in[n] = t, true
	q.count++
	if q.cached && (!q.firstOK || t < q.firstT) {
		q.firstN, q.firstT, q.firstOK = n, t, true
	}
	if k := len(q.fifo); k == q.head || q.fifo[k-1].t <= t {
		if q.head > 4096 && q.head > k/2 {
			q.fifo = append(q.fifo[:0], q.fifo[q.head:]...)
			q.head = 0
		}
		q.fifo = append(q.fifo, wakeEntry{t, n})
		return
	}
	q.idx[n] = int32(len(q.h))
	q.h = append(q.h, n)
	q.up(len(q.h) - 1)
}

// remove takes node n off the queue if it is queued.
func (q *wakeQueue) remove(n int32) {
	if !q.in[n] {
		return
	}
	q.in[n] = false
	q.count--
	if q.cached && q.firstOK && q.firstN == n {
		q.cached = false
	}
	i := int(q.idx[n])
	if i < 0 {
		return // in the FIFO: stale from now on
	}
	last := len(q.h) - 1
	q.swap(i, last)
	q.h = q.h[:last]
	q.idx[n] = -1
	if i < last {
		q.down(i)
		q.up(i)
	}
}

// Wake ends node n's parking (Waking).
func (s *Sim) Wake(n int32) {
	if s.parked(n) {
		s.resume(n, s.now)
	}
}

// WakeMapNodes wakes every parked node with a free map slot (Waking).
func (s *Sim) WakeMapNodes() {
	if !s.pk.on {
		return
	}
	for i := 0; i < len(s.pk.list); {
		n := s.pk.list[i]
		if s.nodes[n].freeMap > 0 {
			s.resume(n, s.now) // takes n off the list: list[i] is another node now
			continue
		}
		i++
	}
}

// WakeFirst makes sure the first heartbeat at t or later of a node with a
// free map slot is handled (Waking).
func (s *Sim) WakeFirst(t int64) {
	if !s.pk.on {
		return
	}
	if t > s.now {
		// Nodes may park before t: decide then.
		if t != s.pk.lastWake {
			s.pk.lastWake = t
			s.hbq.push(mkEvent(t, 0, evHeartbeat, -1, 1))
		}
		return
	}
	s.pk.firstNow = true
	if len(s.pk.list) > 0 {
		s.wakeFirst(s.now, true)
	}
}

// WakeNext makes sure the first heartbeat after the current event is handled
// (Waking).
func (s *Sim) WakeNext() {
	if !s.pk.on {
		return
	}
	s.pk.firstNow = true
	if len(s.pk.list) > 0 {
		s.wakeFirstOf(s.pk.pbits, s.now, true)
	}
}

// wakeFirst wakes the parked node with a free map slot whose first skipped
// heartbeat at or after t comes first (after the event being handled if
// current): the first in phase order from t's phase. A node with t's own phase
// may have had its heartbeat at t before the event being handled: then the
// next one is woken too.
func (s *Sim) wakeFirst(t int64, current bool) { s.wakeFirstOf(s.pk.bits, t, current) }

// wakeFirstOf is wakeFirst over the parked nodes whose bit is set in set.
func (s *Sim) wakeFirstOf(set []uint64, t int64, current bool) {
	woken := 0
	s.scanParked(set, t, func(n int32, same bool) bool {
		s.resume(n, t)
		woken++
		return !current || !same || woken == 2
	})
}

// scanParked calls f for the nodes whose bit is set in set (indexed by phase
// order), in phase order from t's phase, until f returns true; same tells
// whether the node's phase is t's. The positions from t's phase to the end of
// the order are scanned, then those before it; each word of set is read again
// after f (which may clear bits), and words with no bit set are stepped over
// whole.
func (s *Sim) scanParked(set []uint64, t int64, f func(n int32, same bool) bool) {
	r := t % s.pk.iv
	start := s.phaseX.search(r)
	if !s.scanRange(set, start, len(s.phaseOrder), r, f) {
		s.scanRange(set, 0, start, r, f)
	}
}

// scanRange is scanParked over the phase-order positions [lo, hi): it reports
// whether f returned true.
func (s *Sim) scanRange(set []uint64, lo, hi int, r int64, f func(n int32, same bool) bool) bool {
	ws := set[:(hi+63)>>6] // the words holding [lo, hi)
	for lo < hi {
		w := ws[lo>>6] >> (lo & 63)
		if w == 0 {
			k := lo>>6 + 1
			for k < len(ws) && ws[k] == 0 {
				k++
			}
			lo = k << 6
			continue
		}
		i := lo + bits.TrailingZeros64(w)
		if i >= hi {
			return false
		}
		n := s.phaseOrder[i]
		if f(n, s.nodes[n].phase == r) {
			return true
		}
		lo = i + 1
	}
	return false
}

// wakeReduceNodes wakes parked nodes with a free reduce slot now that a job's
// reduces became ready: in phase order from now, until their free reduce
// slots can take every ready reduce that waits. Every free reduce slot takes
// a ready reduce at its node's heartbeat (the policy is a Waker that launches
// reduces wherever a slot is free), so by the last woken node's heartbeat no
// ready reduce waits, and the later heartbeats of the nodes left parked
// cannot launch one. (A node with now's phase may have its heartbeat only
// one interval on: its slots are not counted.) Nothing for a ReadyWaker
// that needs no wake-up for ready reduces (Coupling).
func (s *Sim) wakeReduceNodes() {
	if !s.pk.on || s.pk.noReady {
		return // a ReadyWaker that needs none
	}
	var ready int64
	for _, j := range s.active {
		if j.ready {
			ready += int64(j.PendingReduces)
		}
	}
	if ready <= 0 {
		return
	}
	s.scanParked(s.pk.rbits, s.now, func(n int32, same bool) bool {
		if !same {
			ready -= int64(s.nodes[n].freeReduce)
		}
		s.resume(n, s.now)
		return ready <= 0
	})
}

// wakeSlotNodes wakes parked nodes now that a setup or cleanup task waits
// (lcWaiting). With every heartbeat handled, the waiting tasks go to the
// next heartbeats of nodes with a free slot, one task each (lcAssign), and
// every parked node has a free slot (it parked at a heartbeat that left it
// one, and only its own heartbeats take slots). So with w tasks waiting, the
// parked nodes among the w heartbeats that take them are among the first w
// parked nodes in heartbeat order from now, which are woken; park keeps
// nodes from parking while one waits, so until none waits the nodes woken
// stay awake. (A node with now's phase whose heartbeat at now came before
// the event being handled heartbeats next one interval on: it is woken but
// not counted.) A heartbeat that takes a task does not run the policy: what
// it would have done moves on (slotTaskTaken).
func (s *Sim) wakeSlotNodes() {
	w := len(s.lc.cleanupWait) + len(s.lc.setupWait)
	if !s.pk.on || len(s.pk.list) == 0 || w == 0 {
		return
	}
	woken := 0
	s.scanParked(s.pk.pbits, s.now, func(n int32, same bool) bool {
		s.resume(n, s.now)
		if x := s.nodes[n].nextHB; x >= 0 && (!same || x == s.now) {
			woken++
		}
		return woken >= w
	})
}

// slotTaskTaken is called when node n's heartbeat launched a setup or
// cleanup task (lcAssign), so that the policy was not asked: whatever it
// would have done at that heartbeat moves to later heartbeats, which must be
// handled as the Waker asked for this one. A heartbeat the policy needs
// (WakeFirst, WakeNext, Wake, WakeAllAt) becomes the next one of any node
// (WakeNext), of a node with a free map slot (WakeFirst) and n's own next
// one (WakeNext keeps n from parking); the ready reduces that the free
// reduce slots of the nodes woken for them were to take (wakeReduceNodes)
// are counted again against the parked nodes from now on.
func (s *Sim) slotTaskTaken(n int32) {
	if !s.pk.on {
		return
	}
	s.WakeNext()
	s.WakeFirst(s.now)
	s.wakeReduceNodes()
}

// noteZero notes, before the next event, that nothing waits since the event
// just handled while nodes are parked: their skipped heartbeats from then on
// would have made them dormant (settle).
func (s *Sim) noteZero() {
	if pk := &s.pk; s.pending == 0 && !pk.zero && len(pk.list) > 0 {
		pk.zero, pk.zt, pk.zs = true, s.now, s.curSeq
	}
}
