package replay

import (
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/tracereplay/tracereplay/trace"
)

// The wait for a slot inside a launch lag. A task's recorded launch lag
// (trace.Task.LaunchLagMs) runs from the JobTracker's assignment to its
// attempt's start, and the replay holds the task's slot for it
// (tracemode.go). That is so only if the TaskTracker had the slot free when
// the task was assigned. A Hadoop TaskTracker's status counts a task in
// COMMIT_PENDING as holding no slot (TaskTrackerStatus.isTaskRunning counts
// RUNNING, UNASSIGNED and task-cleanup attempts only, as public copies of
// Hadoop 1's source read), and the TaskTracker reports a commit-pending task
// as it reports a finished one (TaskTracker.commitPending calls
// reportTaskFinished: an out-of-band heartbeat where that is on). So the
// JobTracker may assign a task to a tracker whose slots are all still held,
// by tasks waiting for their commit's approval (the child polls canCommit
// once a second, Task.commit), and the new attempt starts when one of them
// ends (in the Gridmix traces a reduce so assigned starts a median 11 ms
// after the attempt it waited for). That part of the lag is a wait for the
// slot, not a held slot: while it lasts the slot is the committing task's,
// whose recorded attempt already covers it.
//
// slotWaits measures it from the trace: for every map and reduce with a
// positive launch lag and a host of the cluster, the time within
// [attempt start − lag, attempt start) during which the trace's attempts on
// that host (every attempt when the trace lists attempts, else each task's
// successful one; setup and cleanup tasks in the slot their id names) held
// all of the node's slots of the task's kind. The replay holds the slot for
// the rest of the lag (Workload.heldLagUs). In the 22 Gridmix Rumen traces
// (job confs under 0.21+ names, out-of-band heartbeats on) 1,981 of the 2,141 reduces
// with a lag of at least 100 ms were assigned to a host whose two reduce
// slots were both held, and none of the 736 maps (docs/validation.md,
// "The Gridmix tail (h-gridtail)").

// lagQuery is one task's launch lag on a node's slots of one kind (key:
// node×2, +1 for reduce slots), [from, to) in trace ms.
type lagQuery struct {
	key      int32
	from, to int64
	id       string // retryKey of the task
}

// slotHold is one attempt holding a slot of a queried node's kind (key) over
// [start, finish) in trace ms.
type slotHold struct {
	key           int32
	start, finish int64
}

// slotWaitChunk is the queries, and the attempts, slotWaits reads between
// two drains of its heap (its chunk).
const slotWaitChunk = 1024

// slotWaits returns, per task (retryKey) whose launch lag overlapped a time
// when every slot of its kind on its host was held by the trace's other
// attempts, that time in µs (see above); nil when none did. The nodes and
// their slots are topo's, a cluster derived from the trace (hosts named).
func slotWaits(tr *trace.Trace, topo *Topology) (map[string]int64, error) {
	waits, _, err := sweepSlotWaits(tr, topo, slotWaitChunk)
	if err != nil {
		return nil, fmt.Errorf("launch lags' slot waits: %w", err)
	}
	return waits, nil
}

// sweepSlotWaits is slotWaits, reading chunk queries (and chunk attempts)
// between two drains of its heap, and the most points its heap held at
// once.
//
// Its queries come from the tasks (eachLagQuery) and its attempts from the
// attempts, or the tasks when the trace lists none (eachSlotHold): two
// sources in trace order, each read twice, held or streamed, never held
// whole. They are read as two sources rather than job by job with the
// stream's job cursor (JobStream.OpenAttempts) because the cursor reads
// every column of every attempt, while eachUse reads an attempt's six
// (trace.JobStream.EachAttemptSpan). The first passes take the nodes
// queried (attempts elsewhere are not read into the sweep) and, per chunk,
// its earliest point: a query's from, an attempt's start. The second pass
// reads a chunk at a time from the source whose later chunks may start
// earliest, pushes their points onto a heap and, after each chunk, takes
// off it in time order every point before the earliest point of both
// sources' unread chunks: no point read later comes before it (a query's
// to is after its from, an attempt's finish after its start). So the heap
// holds the points of the queries and attempts under way at that instant
// and of those read that start after it: in a trace in submit order, about
// the tasks under way, not the trace's. Within one instant the points are
// taken ends first, then queries, then starts, as the sort of all of them
// did; no time passes within an instant, so the integrals a query reads are
// the same in any order of one instant.
func sweepSlotWaits(tr *trace.Trace, topo *Topology, chunk int) (waits map[string]int64, most int, err error) {
	if topo == nil || topo.hosts == nil {
		return nil, 0, nil
	}
	// First passes: the nodes queried, each chunk's earliest point.
	queried := map[int32]bool{}
	var qmins, umins []int64
	n := 0
	err = eachLagQuery(tr, topo, func(q *lagQuery) bool {
		if n%chunk == 0 {
			qmins = append(qmins, math.MaxInt64)
		}
		n++
		qmins[len(qmins)-1] = min(qmins[len(qmins)-1], q.from)
		queried[q.key] = true
		return true
	})
	if err != nil || n == 0 {
		return nil, 0, err
	}
	n = 0
	err = eachSlotHold(tr, topo, queried, func(u *slotHold) bool {
		if n%chunk == 0 {
			umins = append(umins, math.MaxInt64)
		}
		n++
		umins[len(umins)-1] = min(umins[len(umins)-1], u.start)
		return true
	})
	if err != nil {
		return nil, 0, err
	}
	// The sweep: what every node's kind has integrated so far.
	type acc struct {
		held       int32 // attempts holding a slot now
		last, full int64 // the last point's time; the time so far with every slot held
	}
	accs := make(map[int32]*acc, len(queried))
	type open struct {
		id   string
		from int64 // acc.full at the query's from
	}
	var opens []open // the queries whose from was taken and to not yet
	var free []int32 // opens' unused entries
	var h slotHeap
	drain := func(before int64) {
		for len(h) > 0 && h[0].t < before {
			p := h.pop()
			a := accs[p.key]
			if a == nil {
				a = &acc{last: p.t}
				accs[p.key] = a
			}
			slots := topo.Nodes[p.key/2].MapSlots
			if p.key%2 == 1 {
				slots = topo.Nodes[p.key/2].ReduceSlots
			}
			if a.held >= slots {
				a.full += p.t - a.last
			}
			a.last = p.t
			switch {
			case p.q < 0:
				a.held += int32(p.d)
			case p.start:
				opens[p.q].from = a.full
			default:
				if w := a.full - opens[p.q].from; w > 0 {
					if waits == nil {
						waits = map[string]int64{}
					}
					waits[opens[p.q].id] = w * 1000
				}
				opens[p.q] = open{}
				free = append(free, p.q)
			}
		}
	}
	qs := newChunkSource(qmins, func(yield func(*lagQuery) bool) error { return eachLagQuery(tr, topo, yield) })
	defer qs.stop()
	us := newChunkSource(umins, func(yield func(*slotHold) bool) error { return eachSlotHold(tr, topo, queried, yield) })
	defer us.stop()
	for !qs.done || !us.done {
		if !qs.done && (us.done || qs.bound() <= us.bound()) {
			qs.read(chunk, func(q *lagQuery) {
				var i int32
				if k := len(free); k > 0 {
					i, free = free[k-1], free[:k-1]
					opens[i].id = q.id
				} else {
					i = int32(len(opens))
					opens = append(opens, open{id: q.id})
				}
				h.push(slotPoint{t: q.from, key: q.key, q: i, start: true})
				h.push(slotPoint{t: q.to, key: q.key, q: i})
			})
		} else {
			us.read(chunk, func(u *slotHold) {
				h.push(slotPoint{t: u.start, key: u.key, d: 1, q: -1})
				h.push(slotPoint{t: u.finish, key: u.key, d: -1, q: -1})
			})
		}
		most = max(most, len(h))
		drain(min(qs.bound(), us.bound()))
	}
	if err := qs.err(); err != nil {
		return nil, 0, err
	}
	if err := us.err(); err != nil {
		return nil, 0, err
	}
	drain(math.MaxInt64)
	return waits, most, nil
}

// chunkSource reads a source of points (queries or attempts) chunk by chunk
// for sweepSlotWaits: next pulls the next one from the source's pass.
type chunkSource[T any] struct {
	next    func() (*T, bool)
	stop    func()
	after   []int64 // after[c]: the earliest point of the chunks from c on (MaxInt64: none)
	c       int     // chunks read
	done    bool    // the source is read to its end
	passErr error   // the pass's error
}

// newChunkSource pulls from pass, whose chunks' earliest points are mins
// (its first pass).
func newChunkSource[T any](mins []int64, pass func(yield func(*T) bool) error) *chunkSource[T] {
	s := &chunkSource[T]{after: make([]int64, len(mins)+1)}
	s.after[len(mins)] = math.MaxInt64
	for c := len(mins) - 1; c >= 0; c-- {
		s.after[c] = min(s.after[c+1], mins[c])
	}
	s.next, s.stop = iter.Pull(func(yield func(*T) bool) {
		s.passErr = pass(yield)
	})
	return s
}

// bound is the earliest time a point not yet read may have: MaxInt64 when
// the source is read, MinInt64 past the chunks its first pass counted (the
// file grew since).
func (s *chunkSource[T]) bound() int64 {
	switch {
	case s.done:
		return math.MaxInt64
	case s.c < len(s.after):
		return s.after[s.c]
	}
	return math.MinInt64
}

// read hands fn the next chunk items; fewer at the end of the source.
func (s *chunkSource[T]) read(chunk int, fn func(*T)) {
	for range chunk {
		x, ok := s.next()
		if !ok {
			s.done = true
			break
		}
		fn(x)
	}
	s.c++
}

// err is the error of the source's pass, once read.
func (s *chunkSource[T]) err() error { return s.passErr }

// eachLagQuery calls fn, in trace order, with the launch lag of every map
// and reduce with a positive lag, a start and a host of topo, held or
// streamed (reading seven columns, trace.JobStream.EachTaskLagSpan); fn
// returning false stops the read.
func eachLagQuery(tr *trace.Trace, topo *Topology, fn func(q *lagQuery) bool) error {
	var q lagQuery
	each := func(jobID, taskID, host string, typ trace.TaskType, start, lag int64) bool {
		if !typ.IsWork() || lag <= 0 || start < 0 {
			return true
		}
		k, ok := slotKindKey(topo, host, taskID, typ)
		if !ok {
			return true
		}
		q = lagQuery{key: k, from: start - lag, to: start, id: retryKey(jobID, taskID)}
		return fn(&q)
	}
	if tr.Stream != nil {
		err := tr.Stream.EachTaskLagSpan(func(_ int, s *trace.Span) error {
			if !each(s.JobID, s.TaskID, s.Host, s.Type, s.StartMs, s.LaunchLagMs) {
				return errStopPass
			}
			return nil
		})
		if errors.Is(err, errStopPass) {
			return nil
		}
		return err
	}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if !each(t.JobID, t.TaskID, t.Host, t.Type, t.StartMs, t.LaunchLagMs) {
			break
		}
	}
	return nil
}

// eachSlotHold calls fn, in trace order, with every attempt (eachUse) that
// held a slot of a node's kind in queried; fn returning false stops the
// read.
func eachSlotHold(tr *trace.Trace, topo *Topology, queried map[int32]bool, fn func(u *slotHold) bool) error {
	var h slotHold
	stopped := false
	err := eachUse(tr, func(u *slotUse) {
		if stopped || !u.held() {
			return
		}
		k, ok := slotKindKey(topo, u.host, u.taskID, u.typ)
		if !ok || !queried[k] {
			return
		}
		h = slotHold{key: k, start: u.start, finish: u.finish}
		stopped = !fn(&h)
	})
	return err
}

// errStopPass stops a pass whose reader said it wanted no more.
var errStopPass = errors.New("pass stopped")

// slotKindKey is the key of host's node's slots of the kind a task taskID of
// type typ takes (node×2, +1 for reduce slots); false when topo has no such
// host.
func slotKindKey(topo *Topology, host, taskID string, typ trace.TaskType) (int32, bool) {
	n, ok := topo.hosts[host]
	if !ok {
		return 0, false
	}
	t := trace.Task{TaskID: taskID, Type: typ}
	if t.InMapSlot() {
		return 2 * n, true
	}
	return 2*n + 1, true
}

// slotPoint is a point of slotWaits' sweep: an attempt's start (d = +1) or
// end (d = −1) under key, or a query's start (q ≥ 0, d = 0, start) or end.
type slotPoint struct {
	t     int64
	key   int32
	d     int8
	q     int32
	start bool
}

// before orders points by time, then ends, queries, starts (d).
func (a *slotPoint) before(b *slotPoint) bool {
	return a.t < b.t || a.t == b.t && a.d < b.d
}

// slotHeap is a min-heap of points (slotPoint.before).
type slotHeap = minHeap[slotPoint, *slotPoint]

// heldLagUs is lagUs, task tt of job tj's launch lag in µs (launchLagUs),
// less the part of it the task waited for a slot of its host (slotWaits):
// the time the replay holds the slot for before the attempt; lagUs when
// unknown (< 0).
func (w *Workload) heldLagUs(tj *trace.Job, tt *trace.Task, lagUs int64) int64 {
	if lagUs <= 0 || w.slotWaits == nil {
		return lagUs
	}
	return max(0, lagUs-w.slotWaits[retryKey(tj.ID, tt.TaskID)])
}
