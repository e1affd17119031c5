package replay

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Per-node network accounting (the Coupling paper's Fig. 14 plots, at each time,
// the largest number of bytes any node sent or received).
//
// A transfer of b bytes from node u to node v over [t0, t1) counts b bytes out of
// u and into v; for the time series its bytes are spread evenly over the time it
// takes and summed per timeline interval. Counted transfers: remote map input
// (from the replica it reads, over the map's whole run) and, under the topology
// shuffle, each fetch of map output by a reduce on another node. The uniform
// shuffle has no per-node sources, so its bytes appear only in
// RunSummary.NetworkBytes.

// The rows, NodeResult and NodeNetSample, are in internal/results.

// netAcct accumulates per-node network bytes, in total and per interval.
//
// The per-interval counts are kept only for the intervals still open: a
// transfer starts at the current simulated time or later (a map's remote read
// at its launch, a shuffle fetch when both ends are ready), so the intervals
// before the current one are complete; each transfer emits those, in time then
// node order, and drops them. Memory follows the transfers
// in flight, not nodes × simulated time.
type netAcct struct {
	NopObserver
	width   int64
	series  bool
	in, out []int64 // totals per node
	// open holds the bytes in and out per node of each interval not yet
	// emitted, open[i] those of interval next+i (nil: none counted yet; the
	// last is never nil); intervals before next have been emitted. pool
	// holds emitted intervals for reuse.
	open  []*netInterval
	pool  []*netInterval
	dpool []*denseCounts // drained dense counts for reuse
	// long holds the transfers spread over more than longSpan intervals
	// whose intervals are not all emitted yet (spread, flush).
	long []longSpread
	next int64
	// sealTo: the open intervals before it (sealLag intervals before the
	// current one) have been sealed once (netInterval.sealed).
	sealTo int64
	buf    []byte // seal's scratch
	emit   func(NodeNetSample)
	now    *int64 // the current simulated time
	policy string // the run's policy name, for the rows (Sim.policyName)
	// floor, if set, is the earliest start of a transfer still under way
	// (network = "flow" learns a transfer's bytes per interval only at its
	// end): intervals from it on stay open.
	floor func() int64
}

func newNetAcct(nodes int, width int64, series bool, now *int64, emit func(NodeNetSample)) netAcct {
	a := netAcct{width: width, series: series, in: make([]int64, nodes), out: make([]int64, nodes), now: now, emit: emit}
	return a
}

// netInterval is one open interval's counts. Until it is sealed (below) it
// counts in dense: two counts a cluster node, in and out, and a bit a node
// for the nodes counted, so that a count is an index and the interval's
// counts come out in node order by walking the bits (drain), with no search
// and no sort; at most sealLag + 1 intervals are not sealed when a transfer
// is counted (sealOld runs first, and a transfer ends at the current time),
// so a run holds a few of these (denseCounts, pooled), 16 bytes a node each.
// (Before h-acct an unsealed interval too kept its counts as entries found
// through an open-addressing table and sorted them to seal or emit: on
// FB-2010's day under flow that search and sort were most of the
// accounting's 22 CPU-s; docs/network-model.md.)
//
// An interval that has been over for a while (sealLag) is sealed: its
// counts are encoded in node order into sealed, a few bytes a node, and its
// dense counts are let go; what transfers still under way add to it
// when they end goes into entries found by node through a small
// open-addressing table (tab, nodes) beside sealed, which are
// sealed in turn when they reach sealBatch nodes. Its count for a node is
// sealed's plus the table's. Under network = "flow" the per-node series
// keeps every interval from the start of the earliest transfer between
// nodes still under way open (netAcct.floor), and on FB-2010's day under
// fifo a batch round of 684 MB that lasted over three simulated hours kept
// 1,184 intervals open with 1.77 M node counts, 24 bytes each and the
// tables' slots (4 bytes, two to four a count); sealed, the same moment
// held 13.7 MB of sealed counts, about 8 bytes a count.
type netInterval struct {
	tab    []int32 // 1 + an index in nodes, 0 empty; a power of two long
	nodes  []netCount
	sealed []byte       // counts sealed: node - previous node (uvarint, the first's previous is -1), in, out (varints), in node order
	dense  *denseCounts // the counts while not sealed (nil once sealed, and before its first count)
}

// denseCounts is an unsealed interval's counts, by node.
type denseCounts struct {
	c    []int64  // c[2·node] bytes in, c[2·node+1] bytes out
	bits []uint64 // bit node%64 of word node/64: node counted
}

// add adds x to node's count in direction dir (0 in, 1 out).
func (d *denseCounts) add(node int32, dir int, x int64) {
	d.c[2*int(node)+dir] += x
	d.bits[node>>6] |= 1 << (uint(node) & 63)
}

// drain calls f with the count of each node counted, in node order, and
// clears them.
func (d *denseCounts) drain(f func(netCount)) {
	for w, word := range d.bits {
		if word == 0 {
			continue
		}
		d.bits[w] = 0
		for word != 0 {
			node := w<<6 | bits.TrailingZeros64(word)
			word &= word - 1
			c := [2]int64{d.c[2*node], d.c[2*node+1]}
			d.c[2*node], d.c[2*node+1] = 0, 0
			f(netCount{node: int32(node), c: c})
		}
	}
}

const (
	sealLag   = 1   // an interval is sealed once this many whole intervals lie between it and the current one
	sealBatch = 128 // a sealed interval's later counts are sealed when they reach this many nodes
	poolMax   = 16  // at most this many emitted or sealed intervals' tables are kept for reuse
	densePool = 4   // at most this many dense counts are kept for reuse
	longSpan  = 64  // a transfer over more intervals than this is kept whole (longSpread)
)

// longSpread is one end of a transfer spread over more than longSpan
// intervals: its bytes in each, as spread computes them (the first and last
// intervals' shares, and the same share in every interval between), kept
// until its intervals are emitted (flush) instead of counted in each of
// them. A transfer under flow is counted at its end, so one that lasted
// hours was a count in each of its hundreds of intervals, most of them
// sealed, each re-sealed as those counts came (sealBatch): on FB-2010's
// first 3,000 jobs under flow 1,744 such transfers made 2.19 M of the
// accounting's 14.8 M counts (docs/network-model.md, h-acct).
type longSpread struct {
	node             int32
	dir              int32 // 0 in, 1 out
	k0, k1           int64 // its first and last intervals
	first, mid, last int64 // its bytes in k0, in each interval between, in k1
}

// part is l's bytes in interval k (k0 ≤ k ≤ k1).
func (l *longSpread) part(k int64) int64 {
	switch k {
	case l.k0:
		return l.first
	case l.k1:
		return l.last
	}
	return l.mid
}

// sealedReader reads a netInterval's sealed counts in node order.
type sealedReader struct {
	b    []byte
	node int32
}

// next is the next node's count; ok is false at the end.
func (r *sealedReader) next() (c netCount, ok bool) {
	if len(r.b) == 0 {
		return netCount{}, false
	}
	d, k := binary.Uvarint(r.b)
	in, k2 := binary.Varint(r.b[k:])
	out, k3 := binary.Varint(r.b[k+k2:])
	r.b = r.b[k+k2+k3:]
	r.node += int32(d)
	return netCount{node: r.node, c: [2]int64{in, out}}, true
}

// merged calls f with iv's count for each node it counted, sealed and not,
// in node order; it sorts iv.nodes, and clears the dense counts (an
// interval is either dense or sealed and tabled, never both).
func (iv *netInterval) merged(f func(netCount)) {
	if iv.dense != nil {
		iv.dense.drain(f)
		return
	}
	slices.SortFunc(iv.nodes, func(x, y netCount) int { return cmp.Compare(x.node, y.node) })
	r := sealedReader{b: iv.sealed, node: -1}
	s, ok := r.next()
	i := 0
	for ok || i < len(iv.nodes) {
		switch {
		case ok && (i == len(iv.nodes) || s.node < iv.nodes[i].node):
			f(s)
			s, ok = r.next()
		case ok && s.node == iv.nodes[i].node:
			e := iv.nodes[i]
			f(netCount{node: e.node, c: [2]int64{s.c[0] + e.c[0], s.c[1] + e.c[1]}})
			s, ok = r.next()
			i++
		default:
			f(iv.nodes[i])
			i++
		}
	}
}

// seal encodes iv's counts, sealed and not, into iv.sealed, leaving out
// nodes whose counts are zero (flush would), and hands its table and
// entries to the pool.
func (a *netAcct) seal(iv *netInterval) {
	b := a.buf[:0]
	prev := int32(-1)
	iv.merged(func(e netCount) {
		if e.c == [2]int64{} {
			return
		}
		b = binary.AppendUvarint(b, uint64(e.node-prev))
		b = binary.AppendVarint(b, e.c[0])
		b = binary.AppendVarint(b, e.c[1])
		prev = e.node
	})
	a.buf = b
	iv.sealed = append(make([]byte, 0, len(b)), b...)
	a.putDense(iv)
	if len(a.pool) < poolMax && cap(iv.nodes) > 0 {
		a.pool = append(a.pool, &netInterval{tab: iv.tab, nodes: iv.nodes[:0]})
		clear(iv.tab)
	}
	iv.tab, iv.nodes = nil, nil
}

// sealOld seals the open intervals that sealLag whole intervals separate
// from the one holding now and that were not sealed yet, and seals again
// the later counts of those that are 1, 2, 4, 8, … intervals older than
// that: most later counts come soon after an interval is over, from the
// transfers under way then, so an interval is sealed O(log its age) times
// and its table does not stay beside it (on a small cluster such a table
// never reached sealBatch nodes and held more than what was sealed).
func (a *netAcct) sealOld() {
	to := *a.now/a.width - sealLag
	if to <= a.sealTo {
		return
	}
	for a.sealTo = max(a.sealTo, a.next); a.sealTo < to; a.sealTo++ {
		i := a.sealTo - a.next
		if i >= int64(len(a.open)) {
			a.sealTo = to
			break
		}
		if iv := a.open[i]; iv != nil && (iv.dense != nil || len(iv.nodes) > 0) {
			a.seal(iv)
		}
	}
	for age := int64(1); to-age >= a.next; age *= 2 {
		if i := to - age - a.next; i < int64(len(a.open)) {
			if iv := a.open[i]; iv != nil && len(iv.nodes) > 0 {
				a.seal(iv)
			}
		}
	}
}

// find is node's index in nodes, adding an entry when it has none.
func (iv *netInterval) find(node int32) int {
	if 2*(len(iv.nodes)+1) > len(iv.tab) {
		iv.grow()
	}
	mask := uint32(len(iv.tab) - 1)
	for h := uint32(node) * 0x9E3779B1 & mask; ; h = (h + 1) & mask {
		e := iv.tab[h] - 1
		if e < 0 {
			iv.nodes = append(iv.nodes, netCount{node: node})
			iv.tab[h] = int32(len(iv.nodes))
			return len(iv.nodes) - 1
		}
		if iv.nodes[e].node == node {
			return int(e)
		}
	}
}

// grow doubles the table (8 slots at first) and re-enters the nodes.
func (iv *netInterval) grow() {
	k := max(8, 2*len(iv.tab))
	if cap(iv.tab) >= k {
		iv.tab = iv.tab[:k]
		clear(iv.tab)
	} else {
		iv.tab = make([]int32, k)
	}
	mask := uint32(k - 1)
	for i, c := range iv.nodes {
		h := uint32(c.node) * 0x9E3779B1 & mask
		for iv.tab[h] != 0 {
			h = (h + 1) & mask
		}
		iv.tab[h] = int32(i + 1)
	}
}

// netCount is one node's bytes in ([0]) and out ([1]) in an interval.
type netCount struct {
	node int32
	c    [2]int64
}

// Transfer makes the accounting an observer of the run's bus (bus.go): it
// counts each transfer.
// A transfer counted at one end (e.Ends) adds nothing at the other.
func (a *netAcct) Transfer(e TransferEvent) {
	a.transferEnds(e.Src, e.Dst, e.Bytes, e.Start, e.End, e.Ends)
}

// transfer counts b bytes moved from u to v over [t0, t1).
func (a *netAcct) transfer(u, v int32, b int64, t0, t1 int64) {
	a.transferEnds(u, v, b, t0, t1, EndsBoth)
}

// transferEnds counts b bytes moved from u to v over [t0, t1) at the ends
// given.
func (a *netAcct) transferEnds(u, v int32, b int64, t0, t1 int64, ends TransferEnds) {
	if ends != EndsIn {
		a.out[u] += b
	}
	if ends != EndsOut {
		a.in[v] += b
	}
	if a.series {
		a.advance()
		if ends != EndsIn {
			a.spread(u, 1, b, t0, t1)
		}
		if ends != EndsOut {
			a.spread(v, 0, b, t0, t1)
		}
	}
}

// advance emits the intervals no transfer can count in any more (those
// before the current one and before the floor's) and seals the old ones.
func (a *netAcct) advance() {
	limit := *a.now / a.width
	if a.floor != nil {
		limit = min(limit, a.floor()/a.width)
	}
	a.flush(limit)
	a.sealOld()
}

// transfersOut counts, for each of nodes in order, bytes[node] moved out of
// the node at t, the current time (an instantaneous transfer counted at its
// source, EndsOut), as transferEnds would one by one: neither the clock nor
// the floor moves between them, so what they emit and seal is done once.
// The batch shuffle reports a map's output or a reduce's launch this way,
// a transfer per host holding outputs (flushBatchOut).
func (a *netAcct) transfersOut(nodes []int32, bytes []int64, t int64) {
	for _, n := range nodes {
		a.out[n] += bytes[n]
	}
	if !a.series || len(nodes) == 0 {
		return
	}
	a.advance()
	k := t / a.width
	for _, n := range nodes {
		a.add(k, n, 1, bytes[n])
	}
}

// spread adds b bytes evenly over [t0, t1) to node's interval counts in
// direction dir (0 in, 1 out); the last interval takes the rounding remainder.
// An instantaneous transfer counts in the interval holding t0.
func (a *netAcct) spread(node int32, dir int, b int64, t0, t1 int64) {
	if t1 <= t0 {
		a.add(t0/a.width, node, dir, b)
		return
	}
	if k0, k1 := t0/a.width, (t1-1)/a.width; k1-k0+1 > longSpan {
		// What the loop below would count, kept whole: every interval
		// between the first and the last has the same share.
		if k0 < a.next {
			panic(fmt.Sprintf("network accounting: a transfer into interval %d, already emitted up to %d", k0, a.next))
		}
		first := int64(float64(b) * float64((k0+1)*a.width-t0) / float64(t1-t0))
		mid := int64(float64(b) * float64(a.width) / float64(t1-t0))
		a.long = append(a.long, longSpread{node: node, dir: int32(dir), k0: k0, k1: k1,
			first: first, mid: mid, last: b - first - mid*(k1-k0-1)})
		for i := k1 - a.next; int64(len(a.open)) <= i; {
			a.open = append(a.open, nil) // so that flush reaches k1
		}
		return
	}
	left := b
	for t := t0; t < t1; {
		k := t / a.width
		end := min(t1, (k+1)*a.width)
		part := left
		if end < t1 {
			part = int64(float64(b) * float64(end-t) / float64(t1-t0))
		}
		a.add(k, node, dir, part)
		left -= part
		t = end
	}
}

func (a *netAcct) add(k int64, node int32, dir int, x int64) {
	if k < a.next {
		panic(fmt.Sprintf("network accounting: a transfer into interval %d, already emitted up to %d", k, a.next))
	}
	i := int(k - a.next)
	for len(a.open) <= i {
		a.open = append(a.open, nil)
	}
	iv := a.open[i]
	if iv == nil {
		if p := len(a.pool); p > 0 {
			iv, a.pool = a.pool[p-1], a.pool[:p-1]
		} else {
			iv = &netInterval{}
		}
		a.open[i] = iv
	}
	if k >= a.sealTo {
		// Not sealed yet (sealTo only grows): a dense count.
		if iv.dense == nil {
			iv.dense = a.getDense()
		}
		iv.dense.add(node, dir, x)
		return
	}
	iv.nodes[iv.find(node)].c[dir] += x
	if len(iv.nodes) >= sealBatch {
		a.seal(iv)
	}
}

// getDense is a cleared denseCounts for the cluster's nodes, from the pool
// when it has one.
func (a *netAcct) getDense() *denseCounts {
	if p := len(a.dpool); p > 0 {
		d := a.dpool[p-1]
		a.dpool = a.dpool[:p-1]
		return d
	}
	n := len(a.in)
	return &denseCounts{c: make([]int64, 2*n), bits: make([]uint64, (n+63)/64)}
}

// putDense hands iv's dense counts, drained (merged), to the pool.
func (a *netAcct) putDense(iv *netInterval) {
	if iv.dense != nil && len(a.dpool) < densePool {
		a.dpool = append(a.dpool, iv.dense)
	}
	iv.dense = nil
}

// flush emits the open intervals before limit, in time then node order, and
// drops them; nodes that moved nothing in an interval are left out.
func (a *netAcct) flush(limit int64) {
	for len(a.open) > 0 && a.next < limit {
		if iv := a.open[0]; len(a.long) > 0 {
			a.emitLong(iv)
		} else if iv != nil {
			t := a.next * a.width
			iv.merged(func(e netCount) {
				if e.c != [2]int64{} {
					a.emit(NodeNetSample{TimeUs: t, Node: e.node, InBytes: e.c[0], OutBytes: e.c[1]})
				}
			})
		}
		if iv := a.open[0]; iv != nil {
			a.recycle(iv)
		}
		a.open[0] = nil
		a.open = a.open[1:]
		a.next++
	}
	a.next = max(a.next, limit)
}

// emitLong emits interval next, whose counts are iv's (nil: none) and the
// long transfers' (a.long) that cover it, in node order through dense
// counts, and drops the long transfers that end in it.
func (a *netAcct) emitLong(iv *netInterval) {
	k := a.next
	d := a.getDense()
	if iv != nil {
		iv.merged(func(e netCount) {
			d.add(e.node, 0, e.c[0])
			d.add(e.node, 1, e.c[1])
		})
	}
	keep := a.long[:0]
	for _, l := range a.long {
		if l.k0 <= k {
			d.add(l.node, int(l.dir), l.part(k))
		}
		if l.k1 > k {
			keep = append(keep, l)
		}
	}
	a.long = keep
	t := k * a.width
	d.drain(func(e netCount) {
		if e.c != [2]int64{} {
			a.emit(NodeNetSample{TimeUs: t, Node: e.node, InBytes: e.c[0], OutBytes: e.c[1]})
		}
	})
	if len(a.dpool) < densePool {
		a.dpool = append(a.dpool, d)
	}
}

// recycle clears iv, emitted, and hands it to the pools.
func (a *netAcct) recycle(iv *netInterval) {
	iv.nodes = iv.nodes[:0]
	clear(iv.tab)
	iv.sealed = nil
	a.putDense(iv)
	if len(a.pool) < poolMax {
		a.pool = append(a.pool, iv)
	}
}

// openIntervals is the number of intervals holding counts not yet emitted.
func (a *netAcct) openIntervals() int {
	k := 0
	for _, iv := range a.open {
		if iv != nil {
			k++
		}
	}
	return k
}

// policyName is the run's policy name, asked of the policy once.
func (s *Sim) policyName() string {
	if s.net.policy == "" {
		s.net.policy = s.pol.Name()
	}
	return s.net.policy
}

// summariseNodes writes the per-node results, in node id order, and emits the
// intervals still open.
func (s *Sim) summariseNodes() {
	name := s.policyName()
	a := &s.net
	for i := range s.topo.Nodes {
		n := &s.topo.Nodes[i]
		s.res.Nodes = append(s.res.Nodes, NodeResult{Policy: name, Node: n.ID, Host: n.Host,
			Rack: s.topo.RackNames[n.Rack], NetInBytes: a.in[i], NetOutBytes: a.out[i]})
	}
	if a.series {
		a.flush(math.MaxInt64)
	}
}

// earliestStart is the start time of the earliest transfer between nodes
// under way or about to start, math.MaxInt64 when there is none: the network
// accounting keeps every interval such a transfer may still spread its bytes
// into open until then. O(1).
func (s *Sim) earliestStart() int64 { return s.inflight.earliest() }

// crossesNodes reports whether transfer x, when it ends, reports bytes
// between distinct nodes to the observers (flowTransferred): a map's read
// from another node, a fetch from another node or a batch round from other
// nodes, an output write (a reduce's, or a map's in a job without reduces)
// whose pipeline leaves the writer's node. The others
// (spills, local reads and rounds, a single-replica write) add nothing to
// the per-node time series, so they need hold none of its intervals open: a
// map's spill of 1.2 TB that took four simulated hours (FB-2010, job 763,
// under fifo) held every interval of those hours open, each with a count
// for every node that moved bytes in it.
func (x *Transfer) crossesNodes() bool {
	if x.Round > 0 {
		return x.Round-1 != roundOwn
	}
	if len(x.Pipeline) == 0 {
		return x.Src != x.Dst
	}
	prev := x.Src
	for _, n := range x.Pipeline {
		if n != prev {
			return true
		}
		prev = n
	}
	return false
}

// inflightTally counts the transfers between nodes under way
// (Transfer.crossesNodes) by start time. Transfers start at the engine's
// clock, which never goes back, so the start times are appended in order and
// the earliest with a transfer under way is the front's. Start times whose
// transfers have all ended are dropped from the front at once and from
// behind it when they are over half of those kept, so that it holds at most
// about twice the distinct start times of the transfers under way (not
// every start time since the earliest: a transfer lasting hours held
// millions).
type inflightTally struct {
	at    []int64 // distinct start times, increasing
	count []int32 // transfers under way that started at at[i]
	head  int     // at[:head] have none left
	live  int     // entries of at[head:] with transfers under way
}

// add counts transfer x started at t, no earlier than any before it, if it
// is between nodes.
func (c *inflightTally) add(x *Transfer, t int64) {
	if !x.crossesNodes() {
		return
	}
	if k := len(c.at); k > c.head && c.at[k-1] == t {
		if c.count[k-1] == 0 {
			c.live++
		}
		c.count[k-1]++
		return
	}
	c.at = append(c.at, t)
	c.count = append(c.count, 1)
	c.live++
}

// done uncounts transfer x, added before.
func (c *inflightTally) done(x *Transfer) {
	if !x.crossesNodes() {
		return
	}
	t := x.Start
	i := c.head + sort.Search(len(c.at)-c.head, func(i int) bool { return c.at[c.head+i] >= t })
	if i == len(c.at) || c.at[i] != t || c.count[i] == 0 {
		return
	}
	if c.count[i]--; c.count[i] == 0 {
		c.live--
	}
	for c.head < len(c.at) && c.count[c.head] == 0 {
		c.head++
	}
	switch n := len(c.at) - c.head; {
	case n == 0:
		c.at, c.count, c.head = c.at[:0], c.count[:0], 0
	case n > 1024 && n > 2*c.live:
		k := 0
		for i := c.head; i < len(c.at); i++ {
			if c.count[i] > 0 {
				c.at[k], c.count[k] = c.at[i], c.count[i]
				k++
			}
		}
		c.at, c.count, c.head = c.at[:k], c.count[:k], 0
	}
}

// earliest is the earliest start time counted, math.MaxInt64 when none is.
func (c *inflightTally) earliest() int64 {
	if c.head == len(c.at) {
		return math.MaxInt64
	}
	return c.at[c.head]
}
