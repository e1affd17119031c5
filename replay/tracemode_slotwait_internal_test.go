package replay

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/trace"
)

// sortedSlotWaits is slotWaits as it was before it swept chunks through a
// heap (h-slotstream): every query and every attempt on a queried node held,
// sorted, then swept. It returns, per task (retryKey) whose launch lag overlapped a time
// when every slot of its kind on its host was held by the trace's other
// attempts, that time in µs (see above); nil when none did. The nodes and
// their slots are topo's, a cluster derived from the trace (hosts named).
// It reads the tasks once and, only when some map or reduce has a positive
// lag on a known host, the attempts once, held or streamed, and holds their
// starts and ends on the queried nodes while it sweeps them.
func sortedSlotWaits(tr *trace.Trace, topo *Topology) (map[string]int64, error) {
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

// slotTopo is a cluster derived from a trace of one map on each of hosts
// h0 .. h<hosts-1>, with maps and reduces slots a node.
func slotTopo(t *testing.T, hosts, maps, reduces int) *Topology {
	t.Helper()
	tr := &trace.Trace{}
	for i := range hosts {
		k := trace.NewTask("j", fmt.Sprintf("t%d", i), trace.Map, int32(i))
		k.Host, k.Rack = fmt.Sprintf("h%d", i), "/r"
		tr.Tasks = append(tr.Tasks, k)
	}
	hw, ok, err := TraceHardware(tr, DefaultHardware())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	hw.MapSlots, hw.ReduceSlots = maps, reduces
	return NewTopology(&hw, 1)
}

// TestSlotWaitsAsSorted: slotWaits' sweep gives the waits of the sort of
// every point on random traces (tasks with lags of 0, less and more, ends and
// starts in any order: attempts far before the chunks before them, many ties
// at one instant, hosts the cluster does not know, empty and negative
// intervals, setup and cleanup tasks), drained after every 1, 2, 5, 64 and
// slotWaitChunk queries or attempts, with and without attempts (the tasks'
// then), on nodes of 1 to 3 slots.
func TestSlotWaitsAsSorted(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 2027))
	waited := 0
	for trial := range 300 {
		topo := slotTopo(t, 5, 1+rng.IntN(3), 1+rng.IntN(3))
		tr := &trace.Trace{}
		n := 1 + rng.IntN(400)
		span := int64(1 + rng.IntN(300))
		types := []trace.TaskType{trace.Map, trace.Reduce, trace.Map, trace.Reduce, trace.Setup, trace.Cleanup}
		time := func(i int) int64 {
			s := int64(i)*span/int64(n) + int64(rng.IntN(20)) - 5
			if rng.IntN(50) == 0 {
				s = int64(rng.IntN(int(span))) // far out of order
			}
			return s
		}
		host := func() string {
			if rng.IntN(30) == 0 {
				return ""
			}
			return fmt.Sprintf("h%d", rng.IntN(7)) // h5, h6: unknown
		}
		for i := range n {
			job := fmt.Sprintf("j%d", i/(1+rng.IntN(9)))
			typ := types[rng.IntN(len(types))]
			id := fmt.Sprintf("t%d", i)
			k := trace.NewTask(job, id, typ, int32(i))
			k.Host, k.StartMs = host(), time(i)
			k.FinishMs = k.StartMs + int64(rng.IntN(40)) - 2
			switch rng.IntN(4) {
			case 0:
				k.LaunchLagMs = int64(rng.IntN(3)) - 1
			default:
				k.LaunchLagMs = int64(1 + rng.IntN(30))
			}
			tr.Tasks = append(tr.Tasks, k)
			for a := range rng.IntN(3) {
				at := trace.NewAttempt(job, id, fmt.Sprintf("a%d_%d", i, a), typ)
				at.Host, at.StartMs = host(), time(i)
				at.FinishMs = at.StartMs + int64(rng.IntN(40)) - 2
				tr.Attempts = append(tr.Attempts, at)
			}
		}
		for _, attempts := range []bool{true, false} {
			if !attempts {
				tr.Attempts = nil
			}
			want, err := sortedSlotWaits(tr, topo)
			if err != nil {
				t.Fatal(err)
			}
			waited += len(want)
			for _, chunk := range []int{1, 2, 5, 64, slotWaitChunk} {
				got, _, err := sweepSlotWaits(tr, topo, chunk)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("trial %d (attempts %v), chunk %d: waits %v %v, want %v", trial, attempts, chunk, got, err, want)
				}
			}
		}
	}
	if waited < 1000 {
		t.Errorf("only %d waits in all the trials", waited)
	}
}

// TestSlotWaitsHoldTheActive: the sweep of a trace in submit order holds the
// points of the tasks and attempts under way, not the trace's: on n jobs of
// 100 maps, one job every 10 s, each map's attempt 0 to 18 s from its job's
// submit and 10 s long after a lag of 1 to 3 s (a job's attempts overlap its
// next two jobs'), on 20 hosts of 2 map slots (so some lags wait), the most
// points its heap holds is the same for 1,000 and 4,000 jobs (the fast lane:
// 250 and 1,000), and at most two chunks' and three jobs' (those under way).
// Draining only at the end
// (the sort's memory) holds about every point (all but the few queries
// before the first attempt's start, drained once the queries are read).
func TestSlotWaitsHoldTheActive(t *testing.T) {
	t.Parallel()
	topo := slotTopo(t, 20, 2, 1)
	steady := func(n int) *trace.Trace {
		tr := &trace.Trace{Tasks: make([]trace.Task, 0, 100*n), Attempts: make([]trace.Attempt, 0, 100*n)}
		for k := range n {
			job := fmt.Sprintf("job%05d", k)
			for i := range 100 {
				id := fmt.Sprintf("%s_t%d", job, i)
				m := trace.NewTask(job, id, trace.Map, int32(i))
				m.Host = fmt.Sprintf("h%d", (k+i)%20)
				m.StartMs = int64(k)*10_000 + int64(i%10)*2000
				m.FinishMs = m.StartMs + 10_000
				m.LaunchLagMs = int64(1000 + (i%3)*1000)
				tr.Tasks = append(tr.Tasks, m)
				a := trace.NewAttempt(job, id, id+"_a", trace.Map)
				a.Host, a.StartMs, a.FinishMs = m.Host, m.StartMs, m.FinishMs
				tr.Attempts = append(tr.Attempts, a)
			}
		}
		return tr
	}
	sizes := []int{1000, 4000}
	if testgate.IsFast() {
		sizes = []int{250, 1000} // still 25 and 98 chunks of slotWaitChunk queries
	}
	var held []int
	var short *trace.Trace // the shorter trace, swept again in one chunk below
	for _, n := range sizes {
		tr := steady(n)
		waits, most, err := sweepSlotWaits(tr, topo, slotWaitChunk)
		if err != nil || len(waits) == 0 {
			t.Fatal(len(waits), err)
		}
		held = append(held, most)
		if short == nil {
			short = tr
		}
	}
	bound := 2*2*slotWaitChunk + 3*4*100
	t.Logf("most points held: %d for %d jobs, %d for %d (%d and %d tasks, as many attempts)", held[0], sizes[0], held[1], sizes[1], 100*sizes[0], 100*sizes[1])
	if held[0] != held[1] || held[1] > bound {
		t.Errorf("most points held %v: want the same, at most %d, for %d and %d jobs", held, bound, sizes[0], sizes[1])
	}
	if _, most, _ := sweepSlotWaits(short, topo, 1<<30); most < 4*100*sizes[0]*99/100 {
		t.Errorf("one chunk: %d points held, want about all %d", most, 4*100*sizes[0])
	}
}
