package replay

import "slices"

// LATE's choice from an index of its candidates.
//
// LATE's candidates for a copy on node n are the running maps, without a
// copy and not on n, of the jobs with no pending map. Its choice (see
// pickSpeculative) depends on their durations d (rate 1/max(d, 1)) and
// reported ends f (time left f − now), not on the time: the slow maps are
// those whose rate is at most the k-th smallest rate, k = ⌊0.25·N⌋ of the N
// candidates, that is whose max(d, 1) is at least the k-th largest (1/x in
// float64 is strictly decreasing on the integers below 2^52 µs); among them
// the one with the latest f, the first in candidate order (jobs in s.active
// order, maps in index order) on ties.
//
// The candidates of every node are kept in a treap ordered by (max(d, 1)
// descending, candidate order), each subtree with its size and its latest f.
// They change only when a job launches its last map (its running maps come
// in), a map of such a job ends (it goes; noticed through the job's running
// count) or gets a copy (it goes), so a heartbeat costs O(log n) per change
// and per map of n's — taken out for the query and put back — plus a pass
// over the active jobs, where a scan cost every running map of every job
// with no pending map.

// lateNode is a candidate in the treap.
type lateNode struct {
	d, finish   int64 // max(duration, 1) and the reported end, µs
	key         int64 // its job's place in s.active order
	task        int32
	node        int32 // where it runs
	job         *Job
	left, right int32 // -1: none
	size        int32
	best        int32 // the node of the latest finish in the subtree (first in candidate order on ties)
	prio        uint64
}

// lateIndex is the treap of LATE's candidates and what keeps it current.
type lateIndex struct {
	t       []lateNode
	free    []int32
	root    int32
	rng     uint64
	started bool
	indexed []*Job    // jobs whose running maps are in the treap
	byNode  [][]int32 // treap nodes of the maps running on each node
	excl    []int32
}

// before orders the treap: slower first, then candidate order.
func (x *lateIndex) before(a, b int32) bool {
	p, q := &x.t[a], &x.t[b]
	switch {
	case p.d != q.d:
		return p.d > q.d
	case p.key != q.key:
		return p.key < q.key
	}
	return p.task < q.task
}

// better reports whether a has more time left than b, or as much and comes
// first in candidate order.
func (x *lateIndex) better(a, b int32) bool {
	p, q := &x.t[a], &x.t[b]
	switch {
	case p.finish != q.finish:
		return p.finish > q.finish
	case p.key != q.key:
		return p.key < q.key
	}
	return p.task < q.task
}

func (x *lateIndex) size(v int32) int32 {
	if v < 0 {
		return 0
	}
	return x.t[v].size
}

func (x *lateIndex) update(v int32) {
	n := &x.t[v]
	n.size, n.best = 1, v
	for _, c := range [2]int32{n.left, n.right} {
		if c >= 0 {
			n.size += x.t[c].size
			if x.better(x.t[c].best, n.best) {
				n.best = x.t[c].best
			}
		}
	}
}

// split cuts v into the nodes before u (in the treap's order) and the rest.
func (x *lateIndex) split(v, u int32) (int32, int32) {
	if v < 0 {
		return -1, -1
	}
	if x.before(v, u) {
		l, r := x.split(x.t[v].right, u)
		x.t[v].right = l
		x.update(v)
		return v, r
	}
	l, r := x.split(x.t[v].left, u)
	x.t[v].left = r
	x.update(v)
	return l, v
}

func (x *lateIndex) merge(a, b int32) int32 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	case x.t[a].prio > x.t[b].prio:
		x.t[a].right = x.merge(x.t[a].right, b)
		x.update(a)
		return a
	}
	x.t[b].left = x.merge(a, x.t[b].left)
	x.update(b)
	return b
}

// insert puts node v (not in the treap) in.
func (x *lateIndex) insert(v int32) {
	x.t[v].left, x.t[v].right = -1, -1
	x.update(v)
	l, r := x.split(x.root, v)
	x.root = x.merge(x.merge(l, v), r)
}

// remove takes node v (in the treap) out.
func (x *lateIndex) remove(v int32) {
	l, r := x.split(x.root, v)
	// r starts with v: the smallest of r.
	x.root = x.merge(l, x.dropFirst(r))
}

func (x *lateIndex) dropFirst(v int32) int32 {
	if x.t[v].left < 0 {
		return x.t[v].right
	}
	x.t[v].left = x.dropFirst(x.t[v].left)
	x.update(v)
	return v
}

// kth returns the node at position k (0-based) in the treap's order.
func (x *lateIndex) kth(k int32) int32 {
	v := x.root
	for {
		ls := x.size(x.t[v].left)
		switch {
		case k < ls:
			v = x.t[v].left
		case k == ls:
			return v
		default:
			k -= ls + 1
			v = x.t[v].right
		}
	}
}

// bestAtLeast returns the best node (latest finish) among those with
// d >= minD, or -1.
func (x *lateIndex) bestAtLeast(minD int64) int32 {
	best := int32(-1)
	take := func(c int32) {
		if c >= 0 && (best < 0 || x.better(x.t[c].best, best)) {
			best = x.t[c].best
		}
	}
	for v := x.root; v >= 0; {
		if x.t[v].d >= minD {
			// v and its left subtree qualify; some of the right may.
			take(x.t[v].left)
			if best < 0 || x.better(v, best) {
				best = v
			}
			v = x.t[v].right
		} else {
			v = x.t[v].left
		}
	}
	return best
}

// add puts map i of job j (running, without a copy) in, and returns its node.
func (x *lateIndex) add(j *Job, i int32) int32 {
	m := &j.Maps[i]
	var v int32
	if k := len(x.free); k > 0 {
		v, x.free = x.free[k-1], x.free[:k-1]
	} else {
		v = int32(len(x.t))
		x.t = append(x.t, lateNode{})
	}
	x.rng = x.rng*6364136223846793005 + 1442695040888963407
	x.t[v] = lateNode{d: max(m.FinishUs-m.LaunchUs, 1), finish: m.FinishUs, key: j.life.spec.key, task: i,
		node: m.Node, job: j, prio: x.rng}
	x.insert(v)
	x.byNode[m.Node] = append(x.byNode[m.Node], v)
	return v
}

// drop takes node v out for good.
func (x *lateIndex) drop(v int32) {
	x.remove(v)
	l := x.byNode[x.t[v].node]
	k := slices.Index(l, v)
	l[k] = l[len(l)-1]
	x.byNode[x.t[v].node] = l[:len(l)-1]
	x.t[v].job = nil
	x.free = append(x.free, v)
}

// sync brings the treap up to date with s's jobs.
func (x *lateIndex) sync(s *Sim) {
	if !x.started {
		x.started, x.root = true, -1
		x.byNode = make([][]int32, len(s.nodes))
	}
	for _, j := range s.active {
		sp := &j.life.spec
		if !sp.keyed {
			// s.active is in submission order (candidates.go): the job's
			// index is its place in it.
			sp.key, sp.keyed = j.cands.seq, true
		}
		if sp.indexed {
			continue
		}
		running := j.specRunning()
		if len(running) == 0 {
			continue
		}
		sp.indexed = true
		sp.ids = make([]int32, len(running))
		for k, i := range running {
			sp.ids[k] = -1
			if j.Maps[i].specNode < 0 {
				sp.ids[k] = x.add(j, i)
			}
		}
		x.indexed = append(x.indexed, j)
	}
	x.indexed = slices.DeleteFunc(x.indexed, func(j *Job) bool {
		sp := &j.life.spec
		if int32(len(sp.running)) != j.RunningMaps {
			j.specPrune()
		}
		for _, v := range sp.gone {
			x.drop(v)
		}
		sp.gone = sp.gone[:0]
		return len(sp.running) == 0
	})
}

// lateCopied takes map i of job j out of the candidates: it got a copy.
func (s *Sim) lateCopied(j *Job, i int32) {
	sp := &j.life.spec
	k, ok := slices.BinarySearch(sp.running, i)
	if !ok || sp.ids == nil || sp.ids[k] < 0 {
		panic("replay: LATE copied a map that is not a candidate")
	}
	s.lc.spec.late.drop(sp.ids[k])
	sp.ids[k] = -1
}

// latePick returns the map LATE picks for a copy on node n (nil if none).
func (s *Sim) latePick(n int32) (*Job, int32) {
	x := &s.lc.spec.late
	x.sync(s)
	// n's maps are not candidates for a copy on n: out for the query.
	x.excl = append(x.excl[:0], x.byNode[n]...)
	for _, v := range x.excl {
		x.remove(v)
	}
	var pick int32 = -1
	if c := x.size(x.root); c > 0 {
		minD := x.t[x.kth(int32(lateSlowTaskThreshold*float64(c)))].d
		pick = x.bestAtLeast(minD)
	}
	for _, v := range x.excl {
		x.insert(v)
	}
	if pick < 0 || x.t[pick].finish-s.now < 0 {
		return nil, 0 // none, or no time left: the scan's pick needs more than −1 µs (never for a running map)
	}
	return x.t[pick].job, x.t[pick].task
}
