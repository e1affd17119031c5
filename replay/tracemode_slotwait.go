package replay

import (
	"cmp"
	"fmt"
	"slices"

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

// slotPoint is a point of slotWaits' sweep: an attempt's start (d = +1) or
// end (d = −1) under key, or a query's start (q ≥ 0, d = 0, start) or end.
type slotPoint struct {
	t     int64
	key   int32
	d     int8
	q     int32
	start bool
}

// slotWaits returns, per task (retryKey) whose launch lag overlapped a time
// when every slot of its kind on its host was held by the trace's other
// attempts, that time in µs (see above); nil when none did. The nodes and
// their slots are topo's, a cluster derived from the trace (hosts named).
// It reads the tasks once and, only when some map or reduce has a positive
// lag on a known host, the attempts once, held or streamed, and holds their
// starts and ends on the queried nodes while it sweeps them.
func slotWaits(tr *trace.Trace, topo *Topology) (map[string]int64, error) {
	if topo == nil || topo.hosts == nil {
		return nil, nil
	}
	kindKey := func(host, taskID string, typ trace.TaskType) (int32, bool) {
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
	var qs []lagQuery
	queried := map[int32]bool{}
	err := eachTask(tr, func(_ int, t *trace.Task) error {
		if !t.Type.IsWork() || t.LaunchLagMs <= 0 || t.StartMs < 0 {
			return nil
		}
		k, ok := kindKey(t.Host, t.TaskID, t.Type)
		if !ok {
			return nil
		}
		qs = append(qs, lagQuery{key: k, from: t.StartMs - t.LaunchLagMs, to: t.StartMs, id: retryKey(t.JobID, t.TaskID)})
		queried[k] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("launch lags' slot waits: %w", err)
	}
	if len(qs) == 0 {
		return nil, nil
	}
	pts := make([]slotPoint, 0, 2*len(qs))
	for i := range qs {
		q := &qs[i]
		pts = append(pts, slotPoint{t: q.from, key: q.key, q: int32(i), start: true}, slotPoint{t: q.to, key: q.key, q: int32(i)})
	}
	err = eachUse(tr, func(u *slotUse) {
		if !u.held() {
			return
		}
		k, ok := kindKey(u.host, u.taskID, u.typ)
		if !ok || !queried[k] {
			return
		}
		pts = append(pts, slotPoint{t: u.start, key: k, d: 1, q: -1}, slotPoint{t: u.finish, key: k, d: -1, q: -1})
	})
	if err != nil {
		return nil, fmt.Errorf("launch lags' slot waits: %w", err)
	}
	// In time order; at one instant an attempt's end before a start, as
	// what is freed at t can be taken at t (peakUse); a query reads the
	// integral, which the order of one instant does not change.
	slices.SortFunc(pts, func(a, b slotPoint) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.d, b.d)
	})
	type acc struct {
		held       int32 // attempts holding a slot now
		last, full int64 // the last point's time; the time so far with every slot held
	}
	accs := make(map[int32]*acc, len(queried))
	from := make([]int64, len(qs))
	var waits map[string]int64
	for i := range pts {
		p := &pts[i]
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
			from[p.q] = a.full
		default:
			if w := a.full - from[p.q]; w > 0 {
				if waits == nil {
					waits = map[string]int64{}
				}
				waits[qs[p.q].id] = w * 1000
			}
		}
	}
	return waits, nil
}

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
