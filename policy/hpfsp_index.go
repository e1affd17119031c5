package policy

import (
	"math"

	"github.com/tracereplay/tracereplay/replay"
)

// hpfspIndex keeps H-PFSP's comparator (Alg. 2) answerable without a scan of
// the active jobs. Per kind of slot (0 maps, 1 reduces) it holds three heaps
// whose least valid entry is the scan's answer for that tier:
//
//   - fair: the jobs in their fair phase with a task of the kind to launch,
//     by (tasks of the kind scheduled, arrival order). Arrival order is the
//     jobs' submission order (job index), not the order of JobArrived: with
//     the lifecycle a job arrives when its setup ends, but a Hadoop 1
//     scheduler learns of a job at its submission (JobTracker.addJob calls
//     every JobInProgressListener's jobAdded), as the engine's candidate
//     lists are ordered (replay/candidates.go);
//   - comp: the completable jobs with such a task, by (w, PS order);
//   - ps: the jobs with such a task, by PS order.
//
// Entries are checked when they reach the top and dropped when stale (the job
// ended, has no task of the kind left, left its fair phase, or its count
// moved on), so a change costs a push, and a stale entry one pop. comp and ps
// depend on the slack system (w, the slacks, the queue order), which an update
// changes for every queued job: those of a kind are rebuilt in O(J) at the
// first decision of the kind after the slack system changed (sys.ver) that
// the fair phase does not decide, and otherwise only gain the jobs whose
// reduces become ready. A job's fair phase depends on its launches (a
// launch touches it) and, when its two counts straddle fair-limit, on its
// stage, which moves with time, its map ends and its average (a task end and
// an update touch it); a touched job is re-classified at the next decision,
// and a job whose stage is not yet REDUCE waits in a heap by the first time
// progressAtLeast's answer can change (phaseEstimate.noUntil).
type hpfspIndex struct {
	fair, comp, ps [2]entryHeap
	stage          entryHeap   // by the time b at which to re-classify x
	dirty          []*hpfspJob // touched since the last decision
	ver            [2]uint64   // per kind: sys.ver + 1 when comp and ps were built; 0: never
}

// hpfspEntry is one heap entry: job x under the key (a, b); stamp is x.stamp
// when the entry was made (stage heap only).
type hpfspEntry struct {
	x     *hpfspJob
	a     float64
	b     int64
	stamp uint32
}

// entryHeap is a binary min-heap of entries by (a, b).
type entryHeap []hpfspEntry

func (e *hpfspEntry) less(o *hpfspEntry) bool { return e.a < o.a || e.a == o.a && e.b < o.b }

func (h *entryHeap) push(e hpfspEntry) {
	*h = append(*h, e)
	h.up(len(*h) - 1)
}

func (h *entryHeap) up(i int) {
	q := *h
	for i > 0 {
		p := (i - 1) / 2
		if !q[i].less(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *entryHeap) down(i int) {
	q := *h
	n := len(q)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q[r].less(&q[l]) {
			m = r
		}
		if !q[m].less(&q[i]) {
			return
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
}

// pop removes and returns the least entry.
func (h *entryHeap) pop() hpfspEntry {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q[n] = hpfspEntry{}
	*h = q[:n]
	h.down(0)
	return top
}

// heapify orders the entries appended without push.
func (h *entryHeap) heapify() {
	for i := len(*h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// psKey orders jobs as psBefore does: jobs out of the PS queue (overdue)
// first, by submit order, then by queue position.
func psKey(j *slackJob) int64 {
	if j.pos < 0 {
		return int64(j.id) - 1<<32
	}
	return int64(j.pos)
}

// kindIndex is the heaps' index of a kind of slot.
func kindIndex(reduce bool) int {
	if reduce {
		return 1
	}
	return 0
}

// eligible reports whether x has a task of the kind ready to launch.
func eligible(x *hpfspJob, reduce bool) bool {
	if reduce {
		return canReduce(x.j)
	}
	return x.j.PendingMaps() > 0
}

// count is the number of x's tasks of the kind scheduled.
func (x *hpfspJob) count(reduce bool) int32 {
	if reduce {
		return x.launchedR
	}
	return x.launchedM
}

// touch marks x for re-classification at the next decision.
func (h *HPFSP) touch(x *hpfspJob) {
	if !x.dirty {
		x.dirty = true
		h.idx.dirty = append(h.idx.dirty, x)
	}
}

// classify is Alg. 3 for x at now (its fair phase), and puts x in the fair
// heaps of the kinds it has a task of; a job whose stage decides and is not
// yet REDUCE is queued for the time its answer can next change.
func (h *HPFSP) classify(x *hpfspJob, now int64) {
	x.dirty = false
	x.stamp++
	if x.gone {
		return
	}
	if !eligible(x, false) && !eligible(x, true) {
		// Nothing to launch, so no fair entry: its stage is not needed. Only a
		// map end (a touch) can give it a task to launch again.
		x.fair, x.fairIn = false, [2]int32{}
		return
	}
	inM, inR := x.launchedM < h.fairLimit, x.launchedR < h.fairLimit
	fair := inM // the stage does not matter, or it is MAP
	if x.j.NumReduces() != 0 && inM != inR {
		if x.m.progressAtLeast(now, h.reduceStage) {
			fair = inR
		} else if until := x.m.noUntil(now, h.reduceStage); until < math.MaxInt64 {
			h.idx.stage.push(hpfspEntry{x: x, b: until + 1, stamp: x.stamp})
		}
	}
	x.fair = fair
	if !fair {
		x.fairIn = [2]int32{}
		return
	}
	h.pushFair(x)
}

// pushFair gives fair job x an entry under its current count in the fair heap
// of each kind it has a task of, unless it has one.
func (h *HPFSP) pushFair(x *hpfspJob) {
	for k, reduce := range [2]bool{false, true} {
		c := x.count(reduce)
		if x.fairIn[k] != c+1 && eligible(x, reduce) {
			h.idx.fair[k].push(hpfspEntry{x: x, a: float64(c), b: x.seq})
			x.fairIn[k] = c + 1
		}
	}
}

// settle re-classifies the touched jobs and those whose stage answer may have
// changed by now.
func (h *HPFSP) settle(now int64) {
	for _, x := range h.idx.dirty {
		if x.dirty {
			h.classify(x, now)
		}
	}
	clear(h.idx.dirty)
	h.idx.dirty = h.idx.dirty[:0]
	for st := &h.idx.stage; len(*st) > 0 && (*st)[0].b <= now; {
		e := st.pop()
		if e.stamp == e.x.stamp && !e.x.gone {
			h.classify(e.x, now)
		}
	}
}

// rebuild refreshes the slacks' front minima and the comp and ps heaps of
// kind k after the slack system changed: O(J) once per change and kind, at
// the first decision of the kind that gets past the fair phase.
func (h *HPFSP) rebuild(s replay.Cluster, k int) {
	if h.idx.ver[k] == h.sys.ver+1 {
		return
	}
	h.idx.ver[k] = h.sys.ver + 1
	if h.frontVer != h.sys.ver+1 {
		h.front = h.sys.frontMin(h.front)
		h.frontVer = h.sys.ver + 1
	}
	h.idx.comp[k] = h.idx.comp[k][:0]
	h.idx.ps[k] = h.idx.ps[k][:0]
	reduce := k == 1
	for _, j := range s.Active() {
		x := h.jobs[j.Index()]
		if reduce {
			x.readyIn = false
		}
		if eligible(x, reduce) {
			h.addTiers(x, k, false)
		}
	}
	h.idx.comp[k].heapify()
	h.idx.ps[k].heapify()
}

// addTiers puts eligible x into the comp (if completable) and ps heaps of
// kind k, by push or, during a rebuild, by append.
func (h *HPFSP) addTiers(x *hpfspJob, k int, push bool) {
	if k == 1 {
		x.readyIn = true
	}
	key := psKey(&x.sl)
	add := func(q *entryHeap, e hpfspEntry) {
		if push {
			q.push(e)
		} else {
			*q = append(*q, e)
		}
	}
	if completable(&x.sl, h.front) {
		add(&h.idx.comp[k], hpfspEntry{x: x, a: x.sl.w, b: key})
	}
	add(&h.idx.ps[k], hpfspEntry{x: x, b: key})
}

// reducesReady adds x to the reduce heaps when its reduces became ready
// between two changes of the slack system.
func (h *HPFSP) reducesReady(x *hpfspJob) {
	if !x.readyIn && h.idx.ver[1] == h.sys.ver+1 && canReduce(x.j) {
		h.addTiers(x, 1, true)
	}
}

// choose is the H-PFSP comparator of Alg. 2 for a map (or reduce) slot: a job in
// its fair phase with the fewest tasks of the slot's kind scheduled (ties in
// arrival order); else the completable job with the least w (ties in PS
// order); else (see the type's doc) the first job in PS order. Only jobs with
// a task of the slot's kind ready to launch compete. It returns the least
// valid entry of the index's heaps, dropping the stale ones it meets.
func (h *HPFSP) choose(s replay.Cluster, reduce bool) *hpfspJob {
	h.settle(s.Now())
	k := kindIndex(reduce)
	for q := &h.idx.fair[k]; len(*q) > 0; {
		e := &(*q)[0]
		x := e.x
		if !x.gone && x.fair && float64(x.count(reduce)) == e.a && eligible(x, reduce) {
			return x
		}
		if x.fairIn[k] == int32(e.a)+1 {
			x.fairIn[k] = 0
		}
		q.pop()
	}
	h.rebuild(s, k)
	for _, q := range []*entryHeap{&h.idx.comp[k], &h.idx.ps[k]} {
		for len(*q) > 0 {
			if x := (*q)[0].x; !x.gone && eligible(x, reduce) {
				return x
			}
			q.pop()
		}
	}
	return nil
}
