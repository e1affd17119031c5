package flow

import (
	"fmt"
	"math"
)

// ResourceID names a resource of a Network: the order in which AddResource
// added it, from 0.
type ResourceID int32

// FlowID names an active flow. The engine chooses it; it must be unique among
// the flows active at the same time and may be reused once its flow is removed.
type FlowID int64

// Change is a flow whose finish time moved (or was set, for a flow just added).
type Change struct {
	Flow   FlowID
	Finish int64 // the new finish time, µs
}

// Network is a set of resources and the flows crossing them, with the max-min
// fair rate of every flow and its finish time. Times are integer microseconds,
// sizes integer bytes, capacities and rates bytes per second (float64).
//
// Finish times are rounded up to the next whole microsecond: a flow finishing
// at 1.2 µs is reported at 2 µs, and by then all its bytes have been delivered.
// (A quotient within 1e-12 relative of a whole microsecond counts as that
// microsecond, so floating-point noise does not add one.) Rounding up delays a
// flow by less than 1 µs, and the flows it shares resources with keep their
// lower rates for that moment, so each finish delays the flows that follow by
// less than 1 µs too.
//
// A Network is not safe for concurrent use. Its results depend only on the
// sequence of calls, never on map order or timing: the same calls give the same
// rates, finish times and changes bit for bit.
type Network struct {
	res   []resource
	flows flowTable
	now   int64
	fin   finishHeap
	epoch uint64

	// Scratch space reused by every re-solve.
	comp    []*flowState
	compRes []ResourceID
	rheap   resHeap
	order   []heapEntry
	sortTmp []heapEntry
	changes []Change
	free    []*flowState
	seeds   []ResourceID
	one     [1]Spec
	oneID   [1]FlowID
	probe   flowState // RateIfAdded's flow, never active

	// fullOnly turns the incremental solver off: every change re-solves its
	// whole component. Tests set it to check both solvers.
	fullOnly bool
	// localSolves and fullSolves count the changes each solver handled;
	// localFails counts the incremental solver's consecutive failures and
	// localSkip the changes it sits out (see resolve).
	localSolves, fullSolves int64
	localFails, localSkip   int
	stats                   Stats

	// The rate-update quantum (quantum.go): 0 is exact; otherwise changes
	// before nextSolve are deferred, their resources listed in dirty.
	quantum, nextSolve int64
	dirty              []ResourceID
	// added are the flows added since the last solve, each's addIdx its
	// place here (solveNow).
	added []*flowState
}

type resource struct {
	name     string
	capacity float64
	// flows are the active flows crossing it, in no particular order, each
	// with the weight with which it loads this resource (1 for a flow added
	// without weights): one list, so that a solve or a removal reads a flow
	// and its weight from one place.
	flows []flowEntry

	// Solver scratch: seen marks membership of the component being re-solved;
	// left is the capacity not yet given to fixed flows, unfixed the number of
	// flows crossing it still without a rate and unfixedW the sum of their
	// weights, share = left/unfixedW, and stale says the share grew since the
	// resource was queued for the solver.
	seen     uint64
	region   uint64 // incremental solver: in the region re-solved
	left     float64
	unfixed  int
	unfixedW float64
	share    float64
	stale    bool
	dirty    bool    // in Network.dirty
	used     float64 // the rates of the flows crossing it (quantum.go's provisional rates)
	wsum     float64 // the weights of the flows crossing it (quantum.go's equal share), 0 when none
	bottled  int     // the flows crossing it that have it as their bottleneck (flowState.bott)
}

// shrink gives the resource's flow list a smaller backing array, the same
// flows in the same order, when they fill under a quarter of it: the list
// keeps the capacity of the most flows that ever crossed the resource at
// once, and summed over a cluster's resources those peaks came at different
// times (FB-2010's day under network = "flow", fifo: the lists held 50 MB
// at the run's live peak, while samples of the run, one every 2 M events,
// found 2,300 to 8,900 flows active).
// Amortised O(1) a removal.
func (res *resource) shrink() {
	if c := cap(res.flows); c > 64 && 4*len(res.flows) < c {
		res.flows = append(make([]flowEntry, 0, 2*len(res.flows)), res.flows...)
	}
}

// flowEntry is one flow crossing a resource and its weight there.
type flowEntry struct {
	f *flowState
	w float64
}

type flowState struct {
	id   FlowID
	path []ResourceID
	// weight[i] is the coefficient with which the flow loads path[i]: at rate
	// x it uses weight[i]·x of that resource's capacity. Empty: all 1.
	weight []float64
	// slot[i] is this flow's index in the flows list of resource path[i].
	slot []int

	remaining float64 // bytes still to send at time at
	at        int64
	rate      float64 // bytes per second; 0 until first solved
	finish    int64   // µs; -1 until first solved
	hidx      int     // place in the finish heap
	addIdx    int     // place in Network.added, -1 when not there

	// bott is the resource where the last solve fixed the flow's rate, its
	// bottleneck (-1 before the first); the incremental solver checks it
	// still is. setBott keeps the resources' counts.
	bott ResourceID

	seen    uint64
	fixed   bool
	newRate float64
	newBott ResourceID
}

// New returns an empty network at time 0.
func New() *Network {
	return &Network{}
}

// AddResource adds a resource with a capacity in bytes per second and returns
// its ID. The capacity must be positive and finite (ErrCapacity).
func (n *Network) AddResource(name string, capacity float64) (ResourceID, error) {
	if !(capacity > 0) || math.IsInf(capacity, 1) {
		return 0, fmt.Errorf("flow: resource %q: capacity %v: %w", name, capacity, ErrCapacity)
	}
	if len(n.res) >= math.MaxInt32 {
		return 0, fmt.Errorf("flow: resource %q: too many resources", name)
	}
	n.res = append(n.res, resource{name: name, capacity: capacity})
	return ResourceID(len(n.res) - 1), nil
}

// NumResources is the number of resources.
func (n *Network) NumResources() int { return len(n.res) }

// ResourceName is the name a resource was added with; it panics on an ID the
// network did not return.
func (n *Network) ResourceName(r ResourceID) string { return n.res[r].name }

// Capacity is a resource's capacity in bytes per second; it panics on an ID the
// network did not return.
func (n *Network) Capacity(r ResourceID) float64 { return n.res[r].capacity }

// Load is the sum of the rates of the flows crossing a resource, each times
// its weight there (Spec.Weights), in bytes per second: at most its capacity
// (up to rounding). It costs one step per flow crossing the resource; it
// panics on an ID the network did not return.
func (n *Network) Load(r ResourceID) float64 {
	s := 0.0
	res := &n.res[r]
	for _, e := range res.flows {
		s += e.w * e.f.rate
	}
	return s
}

// FlowsOn is the number of active flows crossing a resource; it panics on an
// ID the network did not return.
func (n *Network) FlowsOn(r ResourceID) int { return len(n.res[r].flows) }

// Now is the network's clock, µs.
func (n *Network) Now() int64 { return n.now }

// Active is the number of active flows.
func (n *Network) Active() int { return n.flows.len() }

// Rate is an active flow's rate in bytes per second.
func (n *Network) Rate(id FlowID) (float64, bool) {
	f := n.flows.get(id)
	if f == nil {
		return 0, false
	}
	return f.rate, true
}

// Finish is an active flow's finish time, µs (rounded up).
func (n *Network) Finish(id FlowID) (int64, bool) {
	f := n.flows.get(id)
	if f == nil {
		return 0, false
	}
	return f.finish, true
}

// Remaining is the number of bytes an active flow still has to send at the
// network's clock (0 from its finish time on).
func (n *Network) Remaining(id FlowID) (float64, bool) {
	f := n.flows.get(id)
	if f == nil {
		return 0, false
	}
	return f.remainingAt(n.now), true
}

// Next is the active flow that finishes first and its finish time; among flows
// finishing in the same microsecond, the smallest ID. ok is false when no flow
// is active. It costs O(1).
func (n *Network) Next() (id FlowID, finish int64, ok bool) {
	if len(n.fin) == 0 {
		return 0, 0, false
	}
	return n.fin[0].id, n.fin[0].finish, true
}

// Advance moves the clock to t. Rates do not change between flow starts and
// finishes, so it costs O(1). t must not be before the clock (ErrTimeBackwards),
// after the finish of an active flow (ErrPastFinish: remove each flow at its
// finish time first) nor beyond MaxTime (ErrTimeRange).
func (n *Network) Advance(t int64) error {
	if err := n.checkTime(t); err != nil {
		return err
	}
	n.now = t
	return nil
}

// MaxTime is the latest time, µs, a Network accepts (about 146,000 years), so
// that a finish time (at most maxDuration later) never overflows.
const MaxTime = int64(1) << 62

func (n *Network) checkTime(t int64) error {
	if t > MaxTime {
		return fmt.Errorf("flow: time %d µs: %w", t, ErrTimeRange)
	}
	if t < n.now {
		return fmt.Errorf("flow: time %d µs: clock is at %d µs: %w", t, n.now, ErrTimeBackwards)
	}
	if len(n.fin) > 0 && n.fin[0].finish < t {
		return fmt.Errorf("flow: time %d µs: flow %d finishes at %d µs: %w", t, n.fin[0].id, n.fin[0].finish, ErrPastFinish)
	}
	return nil
}

// Spec is a flow for AddBatch: its ID, size and the resources it crosses.
//
// Weights, when not nil, holds one coefficient per resource of Path: at rate
// x the flow uses Weights[i]·x of Path[i]'s capacity (a transfer that draws
// only a fraction of its bytes from a source loads that source's disk with
// that fraction). Rates are then max-min fair with usage weights, the
// sharing of SimGrid's LMM solver: a resource r is saturated when
// Σ_f w_{f,r}·x_f equals its capacity, and progressive filling raises every
// unfixed flow's rate alike until one of its resources saturates. nil means
// every weight is 1, the plain max-min of flows crossing whole resources,
// computed with the same floating-point operations as before weights existed.
type Spec struct {
	ID      FlowID
	Bytes   int64
	Path    []ResourceID
	Weights []float64
}

// Add starts a flow of the given size at time t across the resources of path
// (in any order; the order changes the result by rounding at most). It advances the clock
// to t as Advance does, then re-solves the rates of the flows connected to the
// new one through shared resources, and returns the flows whose finish times
// moved, the new flow included, in a deterministic order (that in which the
// re-solve found them, not sorted). The returned slice is reused by the next
// call.
//
// Cost: the incremental solver (incremental.go) re-solves a region around
// the new flow, each solve costing as the full solve below does but over the
// flows and resources the region touches, not the component; when the region passes a quarter of the active
// flows, the whole connected component is re-solved instead, in
// O(E + R + S log R + C log F), where E is the number of (flow, resource)
// pairs of the component, R the number of its resources, S the resources
// whose share grew before the solver reached them (at most E; see resolve), C
// the number of flows whose finish time changed and F the number of active
// flows. In a cluster where flows cross racks the component is usually every
// active flow.
//
// A zero-byte flow finishes at t. Errors, with nothing changed: a negative size
// (ErrBytes), an empty path (ErrEmptyPath), an unknown or repeated resource
// (ErrUnknownResource, ErrDuplicateResource), an ID already active
// (ErrDuplicateFlow) and the errors of Advance.
func (n *Network) Add(t int64, id FlowID, bytes int64, path []ResourceID) ([]Change, error) {
	n.one[0] = Spec{ID: id, Bytes: bytes, Path: path}
	ch, err := n.AddBatch(t, n.one[:])
	n.one[0] = Spec{}
	return ch, err
}

// AddBatch starts several flows at time t with a single re-solve, which costs
// as much as one Add: use it for flows that start together (a reduce's
// parallel fetches, the flows present at the start). It is otherwise Add for
// each spec, and rejects the whole batch, changing nothing, if any spec is bad
// or two share an ID.
func (n *Network) AddBatch(t int64, specs []Spec) ([]Change, error) {
	if err := n.checkTime(t); err != nil {
		return nil, fmt.Errorf("adding %d flows: %w", len(specs), err)
	}
	for i, sp := range specs {
		if err := n.checkSpec(sp); err != nil {
			return nil, err
		}
		for _, prev := range specs[:i] {
			if prev.ID == sp.ID {
				return nil, fmt.Errorf("flow: adding flow %d twice in one batch: %w", sp.ID, ErrDuplicateFlow)
			}
		}
	}
	n.now = t
	seeds := n.seeds[:0]
	for _, sp := range specs {
		f := n.alloc()
		f.id = sp.ID
		f.path = append(f.path[:0], sp.Path...)
		f.weight = f.weight[:0]
		if !allOnes(sp.Weights) {
			f.weight = append(f.weight, sp.Weights...)
		}
		f.slot = f.slot[:0]
		f.remaining = float64(sp.Bytes)
		f.at = t
		f.rate = 0
		f.finish = -1
		f.hidx = -1
		f.bott = -1
		f.addIdx = len(n.added)
		n.added = append(n.added, f)
		for i, r := range sp.Path {
			res := &n.res[r]
			f.slot = append(f.slot, len(res.flows))
			res.flows = append(res.flows, flowEntry{f, f.w(i)})
			res.wsum += f.w(i)
		}
		n.flows.set(sp.ID, f)
		seeds = append(seeds, sp.Path...)
	}
	n.seeds = seeds[:0]
	n.stats.Added += int64(len(specs))
	n.stats.AddBatches++
	if n.deferring() {
		changes := n.changes[:0]
		for _, sp := range specs {
			changes = append(changes, n.provisional(n.flows.get(sp.ID)))
			n.deferChange(sp.Path)
		}
		n.changes = changes
		return changes, nil
	}
	ch := n.solveNow(seeds, true)
	n.stats.Retimed += int64(len(ch) - len(specs))
	return ch, nil
}

// checkSpec checks a flow to add against the network.
func (n *Network) checkSpec(sp Spec) error {
	if n.flows.get(sp.ID) != nil {
		return fmt.Errorf("flow: adding flow %d: %w", sp.ID, ErrDuplicateFlow)
	}
	if sp.Bytes < 0 {
		return fmt.Errorf("flow: adding flow %d: %d bytes: %w", sp.ID, sp.Bytes, ErrBytes)
	}
	if err := n.checkPath(sp.Path); err != nil {
		return fmt.Errorf("flow: adding flow %d: %w", sp.ID, err)
	}
	if sp.Weights != nil {
		if len(sp.Weights) != len(sp.Path) {
			return fmt.Errorf("flow: adding flow %d: %d weights for %d resources: %w", sp.ID, len(sp.Weights), len(sp.Path), ErrWeight)
		}
		for i, w := range sp.Weights {
			if !(w > 0) || w > maxWeight {
				return fmt.Errorf("flow: adding flow %d: weight %v on resource %q: %w", sp.ID, w, n.res[sp.Path[i]].name, ErrWeight)
			}
		}
	}
	return nil
}

// maxWeight bounds a flow's weight on a resource (and keeps it finite).
const maxWeight = 1e9

// allOnes reports whether every weight is 1 (true for none).
func allOnes(ws []float64) bool {
	for _, w := range ws {
		if w != 1 {
			return false
		}
	}
	return true
}

// w is the flow's weight on path[i].
func (f *flowState) w(i int) float64 {
	if len(f.weight) == 0 {
		return 1
	}
	return f.weight[i]
}

// checkPath checks a flow's path: not empty, known resources, none twice.
func (n *Network) checkPath(path []ResourceID) error {
	if len(path) == 0 {
		return ErrEmptyPath
	}
	n.epoch++
	for _, r := range path {
		if r < 0 || int(r) >= len(n.res) {
			return fmt.Errorf("resource %d of %d: %w", r, len(n.res), ErrUnknownResource)
		}
		if n.res[r].seen == n.epoch {
			return fmt.Errorf("resource %q: %w", n.res[r].name, ErrDuplicateResource)
		}
		n.res[r].seen = n.epoch
	}
	return nil
}

// RateIfAdded is the rate in bytes per second a flow across path would get if
// it were added now, without adding it or changing anything: what a
// scheduler's estimate of a transfer's time needs. It costs as much as an Add
// (the component is solved, nothing applied). Errors: those of Add's path
// (ErrEmptyPath, ErrUnknownResource, ErrDuplicateResource).
func (n *Network) RateIfAdded(path []ResourceID) (float64, error) {
	if err := n.checkPath(path); err != nil {
		return 0, fmt.Errorf("flow: rate of a flow if added: %w", err)
	}
	p := &n.probe
	p.path = append(p.path[:0], path...)
	p.weight = p.weight[:0]
	p.slot = p.slot[:0]
	for _, r := range path {
		res := &n.res[r]
		p.slot = append(p.slot, len(res.flows))
		res.flows = append(res.flows, flowEntry{p, 1})
	}
	comp := n.fill(path)
	rate := p.newRate
	for i := range comp {
		comp[i] = nil
	}
	n.comp = comp[:0]
	for _, r := range path {
		res := &n.res[r]
		// The probe is the last flow of each of its resources.
		res.flows[len(res.flows)-1] = flowEntry{}
		res.flows = res.flows[:len(res.flows)-1]
	}
	return rate, nil
}

// Remove ends an active flow at time t, whether it finished or was cancelled,
// re-solves the flows that shared resources with it and returns those whose
// finish times moved (not the removed flow), in a deterministic order. It
// advances the clock as Advance does; the flow removed may finish exactly at
// t. The returned slice is reused by the next call. Cost as for Add. Errors,
// with nothing changed: an ID not active (ErrUnknownFlow) and the errors of
// Advance.
func (n *Network) Remove(t int64, id FlowID) ([]Change, error) {
	n.oneID[0] = id
	return n.RemoveBatch(t, n.oneID[:])
}

// RemoveBatch ends several flows at time t with a single re-solve (flows
// finishing in the same microsecond, a job killed). It is otherwise Remove for
// each ID, and rejects the whole batch, changing nothing, if any ID is not
// active or is listed twice (ErrUnknownFlow).
func (n *Network) RemoveBatch(t int64, ids []FlowID) ([]Change, error) {
	if t > MaxTime {
		return nil, fmt.Errorf("flow: removing %d flows: time %d µs: %w", len(ids), t, ErrTimeRange)
	}
	if t < n.now {
		return nil, fmt.Errorf("flow: removing %d flows: time %d µs: clock is at %d µs: %w", len(ids), t, n.now, ErrTimeBackwards)
	}
	for i, id := range ids {
		f := n.flows.get(id)
		if f == nil {
			return nil, fmt.Errorf("flow: removing flow %d: %w", id, ErrUnknownFlow)
		}
		for _, prev := range ids[:i] {
			if prev == id {
				return nil, fmt.Errorf("flow: removing flow %d twice in one batch: %w", id, ErrUnknownFlow)
			}
		}
		if f.finish < t {
			return nil, fmt.Errorf("flow: removing flow %d: time %d µs: it finished at %d µs: %w", id, t, f.finish, ErrPastFinish)
		}
	}
	// The flows removed may finish at t; no other flow may finish before t.
	for _, id := range ids {
		n.fin.remove(n.flows.get(id))
	}
	if len(n.fin) > 0 && n.fin[0].finish < t {
		err := fmt.Errorf("flow: removing flow %d: time %d µs: flow %d finishes at %d µs: %w", ids[0], t, n.fin[0].id, n.fin[0].finish, ErrPastFinish)
		for _, id := range ids {
			n.fin.push(n.flows.get(id))
		}
		return nil, err
	}
	n.now = t

	seeds := n.seeds[:0]
	for _, id := range ids {
		f := n.flows.get(id)
		for i, r := range f.path {
			res := &n.res[r]
			res.used -= f.w(i) * f.rate
			res.wsum -= f.w(i)
			last := len(res.flows) - 1
			moved := res.flows[last]
			k := f.slot[i]
			res.flows[k] = moved
			res.flows[last] = flowEntry{}
			res.flows = res.flows[:last]
			if moved := moved.f; moved != f {
				moved.slot[moved.pathIndex(r)] = k
			}
			if last == 0 {
				res.wsum = 0 // no rounding left over from the sums
			}
			res.shrink()
		}
		n.flows.del(id)
		n.setBott(f, -1)
		if k := f.addIdx; k >= 0 { // added since the last solve: it leaves n.added
			last := len(n.added) - 1
			n.added[k] = n.added[last]
			n.added[k].addIdx = k
			n.added[last] = nil
			n.added = n.added[:last]
			f.addIdx = -1
		}
		seeds = append(seeds, f.path...)
		n.free = append(n.free, f)
	}
	n.seeds = seeds[:0]
	n.stats.Removed += int64(len(ids))
	n.stats.RemoveBatches++
	if n.deferring() {
		n.deferChange(seeds)
		return n.changes[:0], nil
	}
	ch := n.solveNow(seeds, false)
	n.stats.Retimed += int64(len(ch))
	return ch, nil
}

// setBott makes b flow f's bottleneck (-1: none), keeping the resources'
// counts of the flows they hold (resource.bottled).
func (n *Network) setBott(f *flowState, b ResourceID) {
	if f.bott == b {
		return
	}
	if f.bott >= 0 {
		n.res[f.bott].bottled--
	}
	if b >= 0 {
		n.res[b].bottled++
	}
	f.bott = b
}

func (f *flowState) pathIndex(r ResourceID) int {
	for i, q := range f.path {
		if q == r {
			return i
		}
	}
	panic("flow: internal error: flow not on its resource")
}

// remainingAt is the number of bytes left at time t (t at or after f.at).
func (f *flowState) remainingAt(t int64) float64 {
	if f.finish >= 0 && t >= f.finish {
		return 0
	}
	r := f.remaining - f.rate*float64(t-f.at)/1e6
	if r < 0 {
		return 0
	}
	return r
}

func (n *Network) alloc() *flowState {
	if k := len(n.free); k > 0 {
		f := n.free[k-1]
		n.free[k-1] = nil
		n.free = n.free[:k-1]
		return f
	}
	return &flowState{}
}

// maxDuration caps a finish time's distance from the clock (about 31,700
// years), so that additions never overflow int64.
const maxDuration = int64(1) << 60

// durationUs is the time to send remaining bytes at rate, in whole µs rounded
// up; a quotient within 1e-12 relative of a whole number counts as that number.
func durationUs(remaining, rate float64) int64 {
	if remaining <= 0 {
		return 0
	}
	d := remaining * 1e6 / rate
	if !(d < float64(maxDuration)) {
		return maxDuration
	}
	fl := math.Floor(d)
	if d-fl <= 1e-12*d {
		return int64(fl)
	}
	return int64(fl) + 1
}
