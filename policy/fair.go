package policy

import (
	"math"
	"slices"
	"time"

	"github.com/tracereplay/tracereplay/replay"
)

// Fair is the Hadoop Fair Scheduler (HFS) with delay scheduling, as Zaharia et al.
// (EuroSys 2010, Algs. 1-2) publish it and the EAS, Coupling and H-PFSP papers run
// it: jobs are grouped in pools (one per user by default, pool-by=queue to use
// queues), a free slot goes to the pool furthest below its fair share (fewest
// running tasks per unit of weight; every pool has weight 1 and no minimum share)
// and within the pool to the job with the fewest running tasks of that kind, ties
// broken by submit order. Delay scheduling: a job that has no map local to the
// node is skipped; once it has waited node-delay (T1) it may launch a rack-local
// map, and after a further rack-delay (T2) any map; launching a map at a level
// resets its wait and returns it to that level, as Hadoop's
// getAllowedLocalityLevel does. Reduces launch greedily once a job's slow-start
// fraction of maps is done, to the job with the fewest running reduces.
//
// The strict variant (HFS-S of EAS §5) launches maps only where their input lies:
// delay scheduling with infinite delays.
//
// Choices: the wait is measured from the moment the job was first skipped (Alg. 2
// of the paper; Hadoop sums heartbeat intervals, which is the same up to a
// heartbeat); every free slot of a heartbeat is filled (assignmultiple); default
// delays T1 = T2 = 1.5 heartbeat intervals, the setting of Zaharia et al. §5.
//
// With skipFrac set, the wait is counted in skips instead (the paper's Alg. 1, as
// BAR §V runs it): a job skipped for want of a local map counts the skip, and
// once it has been skipped skipFrac × map nodes times it may launch a map
// anywhere; any launch restarts its count.
type Fair struct {
	replay.Base
	name  string
	order *FairOrder
	delay *DelayPicker // nil: strict
	// maps.jobs is the heartbeat's map candidates: Cluster.MapCandidates
	// itself (start; read, never modified) until fill copies it into own
	// to sort it and drop the jobs it empties.
	maps MapFiller
	own  []*replay.JobView
	reds []*replay.JobView // fillReduces' candidates
	// wake is the cluster's Waking, nil when it has none: asserted at Init
	// (the engine gives every hook the cluster it gave Init), not at every
	// heartbeat.
	wake replay.Waking

	// What anyTakes found, for the first offer of fill: the first candidate
	// (in candidate order: submission order) that takes the slot, its map and level, and the
	// candidates before it, which decline it (marked with stamp, by job
	// index).
	taker    *replay.JobView
	takerMap int32
	takerAt  replay.Locality
	declines []uint32
	stamp    uint32

	plain bool // tests: fill slots with MapFiller and GreedyReduces, as before the shortcuts

	lastNode int32 // the node and time of the last Heartbeat (IdleUntil)
	lastTime int64
}

func newFair(strict bool) func(*ParamReader) (replay.Policy, error) {
	return func(r *ParamReader) (replay.Policy, error) {
		var d *DelayPicker
		if !strict {
			d = NewDelayPicker(r.Duration("node-delay", -time.Microsecond), r.Duration("rack-delay", -time.Microsecond))
		}
		poolBy := r.String("pool-by", "user", "user", "queue")
		return newFairWith(r.spec(), poolBy, d), nil
	}
}

// newFairWith is the Fair Scheduler named name with pools by poolBy and delay
// scheduling d (strict node locality when nil).
func newFairWith(name, poolBy string, d *DelayPicker) *Fair {
	o := NewFairOrder(poolBy)
	return &Fair{name: name, order: o, delay: d}
}

// Name is the registry name with parameters.
func (f *Fair) Name() string { return f.name }

// Init sets the delays from the heartbeat interval when not given.
func (f *Fair) Init(s replay.Cluster) {
	f.order.Init()
	if f.delay != nil {
		f.delay.Init(s)
	}
	f.wake, _ = s.(replay.Waking)
	f.lastNode, f.lastTime = -1, -1
}

// JobArrived puts the job in its pool, at node locality, and wakes the
// parked nodes that hold its input (IdleUntil) and the first heartbeat that
// will offer it a slot.
func (f *Fair) JobArrived(c replay.Cluster, j *replay.JobView) {
	f.order.JobArrived(j)
	if f.delay != nil {
		f.delay.JobArrived(j)
	}
	if w := f.wake; w != nil && j.PendingMaps() > 0 {
		j.CountLocalMapNodes(func(n int32) bool {
			w.Wake(n)
			return false
		})
		if f.delay != nil {
			w.WakeFirst(c.Now())
		}
	}
}

// JobFinished forgets the job.
func (f *Fair) JobFinished(_ replay.Cluster, j *replay.JobView) {
	f.order.JobFinished(j)
	if f.delay != nil {
		f.delay.JobFinished(j)
	}
}

// Heartbeat fills the node's free map slots by fair share with delay scheduling,
// then its reduce slots.
//
// When no job would take the node's first free map slot (the common case of a
// node heartbeating while jobs wait for locality elsewhere), every job is
// offered the slot and declines it, in whatever order: the jobs are not
// sorted then, and each records its skip (declined) exactly as a refused offer
// does. The result is the same as offering the slot in fair order.
func (f *Fair) Heartbeat(s replay.Cluster, n int32) {
	now := s.Now()
	offeredAll := false // every job with pending maps was offered a slot and declined it
	started := false    // f.maps.jobs holds this heartbeat's candidates (fill drops those it empties)
	if s.FreeMapSlots(n) > 0 {
		f.start(s)
		started = true
		if f.anyTakes(s, n) {
			var pick MapPicker = StrictPicker{}
			if f.delay != nil {
				pick = f.delay
			}
			if f.plain {
				offeredAll = f.maps.fill(s, n, f.order, pick)
			} else {
				offeredAll = f.fill(s, n, pick)
			}
		} else {
			offeredAll = true
			if f.delay != nil {
				for _, j := range f.maps.jobs {
					f.delay.declined(j, now)
				}
			}
		}
	}
	f.fillReduces(s, n)
	if f.delay != nil {
		if !offeredAll && !started {
			if f.wake != nil {
				f.start(s) // the candidates, for notify
			}
		}
		f.delay.notify(s, f.wake, !offeredAll, f.maps.jobs)
	}
	f.lastNode, f.lastTime = n, now
}

// IdleUntil is replay.Waker: the heartbeats of node n can be skipped as long
// as no job would take a free map slot of n at its allowed level (none is at
// the any-node level), every job with pending maps is already waiting (its
// wait started), and no reduce can launch on a free reduce slot of n. It says
// "indefinitely": what can change that is seen and woken for, by the engine
// (n's slots freeing, reduces becoming ready) or by Fair (an arriving job
// wakes the nodes holding its input; a job whose wait restarts, or whose
// delay ends, has the first heartbeat after that handled, and a job whose
// level rises wakes the nodes it may now use: DelayPicker.notify). Fair by
// skip count (BAR's baseline) counts every heartbeat and is never idle.
//
// Right after Heartbeat filled n, that holds whenever n has a free slot left:
// its last map offer was declined by every job with pending maps, which
// started each one's wait and raised each level that was due, and its free
// reduce slots are left only when no reduce can launch. So IdleUntil then
// answers at once; otherwise it checks.
func (f *Fair) IdleUntil(c replay.Cluster, n int32) int64 {
	now := c.Now()
	if f.delay != nil && f.delay.skipFrac > 0 {
		return now
	}
	if n == f.lastNode && now == f.lastTime {
		return math.MaxInt64
	}
	if c.FreeReduceSlots(n) > 0 && len(c.ReduceCandidates()) > 0 {
		return now
	}
	if c.FreeMapSlots(n) > 0 {
		f.start(c)
		if f.delay != nil {
			for _, j := range f.maps.jobs {
				st := f.delay.state[j.Index()]
				if st.waitStart < 0 || st.level == replay.OffRack || f.delay.level(st, now) != st.level {
					return now
				}
			}
		}
		if f.anyTakes(c, n) {
			return now
		}
	}
	return math.MaxInt64
}

// start sets f.maps.jobs to the active jobs with a pending map, in arrival
// order: Cluster.MapCandidates itself, not copied (what MapFiller.Start
// copies), since most heartbeats only read it (anyTakes, notify); fill copies
// it before it changes it. A launch never changes a candidate list already
// handed out (MapCandidates).
func (f *Fair) start(c replay.Cluster) {
	if f.plain {
		f.maps.Start(c)
		return
	}
	f.maps.jobs = c.MapCandidates()
}

// fill is MapFiller.fill after anyTakes, without sorting a single candidate
// (which the sort leaves as it is), and with the first offer using what
// anyTakes found (offerFirst).
func (f *Fair) fill(c replay.Cluster, n int32, pick MapPicker) bool {
	f.own = append(f.own[:0], f.maps.jobs...) // sorted and dropped from below: not the cluster's list
	f.maps.jobs = f.own
	first := true
	for c.FreeMapSlots(n) > 0 && len(f.maps.jobs) > 0 {
		if len(f.maps.jobs) > 1 {
			f.order.Sort(f.maps.jobs, runningMaps)
		}
		took := false
		if first {
			took, first = f.offerFirst(c, n), false
		} else {
			took = f.maps.Offer(c, n, pick)
		}
		if !took {
			return true
		}
	}
	return false
}

// offerFirst is MapFiller.Offer for the first free slot of the heartbeat,
// right after anyTakes: the candidates anyTakes saw decline (those before
// its taker in candidate order) decline without looking for a map again, and
// its taker takes the map anyTakes found; the delay-scheduling state changes
// as PickMap changes it. Nothing changed between anyTakes and this offer, so
// PickMap would find the same: its allowed level is the one anyTakes computed
// (DelayPicker.level, without the change allowed makes), and the job's
// pending maps are the same.
func (f *Fair) offerFirst(c replay.Cluster, n int32) bool {
	now := c.Now()
	for k, j := range f.maps.jobs {
		var t int32
		switch {
		case j == f.taker:
			t = f.takerMap
			if d := f.delay; d != nil {
				st := d.state[j.Index()]
				d.allowed(st, now)
				st.level, st.waitStart, st.skips = f.takerAt, -1, 0
				d.touch(st)
			}
		case int(j.Index()) < len(f.declines) && f.declines[j.Index()] == f.stamp:
			if f.delay != nil {
				f.delay.declined(j, now)
			}
			continue
		default:
			if f.delay != nil {
				t = f.delay.PickMap(c, j, n)
			} else {
				t = StrictPicker{}.PickMap(c, j, n)
			}
			if t < 0 {
				continue
			}
		}
		c.LaunchMap(j, t, n)
		if j.PendingMaps() == 0 {
			f.maps.jobs = slices.Delete(f.maps.jobs, k, k+1)
		}
		return true
	}
	return false
}

// fillReduces is GreedyReduces.FillReduces in the Fair order, without
// sorting a single candidate.
func (f *Fair) fillReduces(c replay.Cluster, n int32) {
	if c.FreeReduceSlots(n) == 0 {
		return
	}
	if f.plain {
		(&GreedyReduces{Order: f.order}).FillReduces(c, n)
		return
	}
	cands := c.ReduceCandidates()
	if len(cands) == 0 {
		return
	}
	f.reds = append(f.reds[:0], cands...) // copied: sorted, and dropped from below
	for c.FreeReduceSlots(n) > 0 && len(f.reds) > 0 {
		if len(f.reds) > 1 {
			f.order.Sort(f.reds, runningReduces)
		}
		j := f.reds[0]
		c.LaunchReduce(j, n)
		if !canReduce(j) {
			f.reds = f.reds[1:]
		}
	}
}

// anyTakes reports whether some candidate of f.maps would take a free map slot
// of node n now. It changes no delay-scheduling state. It notes, for
// offerFirst, the first candidate that would take the slot, the map and level,
// and marks the candidates before it (which would not).
func (f *Fair) anyTakes(s replay.Cluster, n int32) bool {
	now := s.Now()
	f.stamp++
	if f.stamp == 0 { // wrapped: forget every mark
		clear(f.declines)
		f.stamp = 1
	}
	f.taker = nil
	for _, j := range f.maps.jobs {
		level := replay.NodeLocal
		if f.delay != nil {
			level = f.delay.level(f.delay.state[j.Index()], now)
		}
		if t, at := bestMap(s, j, n, level); t >= 0 {
			f.taker, f.takerMap, f.takerAt = j, t, at
			return true
		}
		k := int(j.Index())
		if k >= len(f.declines) {
			f.declines = append(f.declines, make([]uint32, k+1-len(f.declines))...)
		}
		f.declines[k] = f.stamp
	}
	return false
}

// DelayPicker is delay scheduling (Zaharia et al., EuroSys 2010) as a
// MapPicker: a job offered a slot launches the closest map within its allowed
// locality level; a job that has none is skipped and starts (or keeps)
// waiting. Once it has waited node-delay (T1) it may launch a rack-local map,
// and after a further rack-delay (T2) any map; launching a map at a level
// resets its wait and returns it to that level, as Hadoop's
// getAllowedLocalityLevel does (Alg. 2, the wait measured from the first
// skip). With a skip fraction (NewSkipCountPicker, Alg. 1) the wait is counted
// in skips instead: once skipped that fraction of the map nodes times, a job
// may launch anywhere; any launch restarts its count.
type DelayPicker struct {
	nodeDelay int64 // < 0: 1.5 heartbeats
	rackDelay int64
	skipFrac  float64 // > 0: delay by skip count (Alg. 1)
	skipLimit int32

	t1, t2 int64
	state  []*delayJob // by job index; nil before arrival and after finish
	dirty  []*delayJob // jobs whose level or wait changed since notify
	racks  [][]int32   // nodes by rack
}

// delayJob is the delay-scheduling state of one job.
type delayJob struct {
	level     replay.Locality // allowed locality level
	waitStart int64           // when the job was first skipped; -1 when it is not waiting
	skips     int32           // skips since the job last launched a map (skip-count delay)

	j         *replay.JobView
	dirty     bool            // listed in DelayPicker.dirty
	toldLevel replay.Locality // level at the last notify
}

// touch lists st as changed for notify.
func (d *DelayPicker) touch(st *delayJob) {
	if !st.dirty {
		st.dirty = true
		d.dirty = append(d.dirty, st)
	}
}

// notify tells the engine (w, c's Waking; nil when it has none) what the
// heartbeat just handled changed in the delay state, for parked nodes
// (Fair.IdleUntil): a job with pending maps that is not waiting (it launched
// a map) starts waiting at the next heartbeat that offers it a slot, which
// must be handled (WakeFirst now); a job waiting
// at a level below any-node rises at the first heartbeat at or after its
// delay's end (WakeFirst then); a job whose level rose may launch on nodes it
// could not use: at the rack level, the nodes of the racks holding its
// pending input; at any node, every node with a free map slot.
//
// A job that this heartbeat did not reach (a job before it took the node's
// last free slot) may still be due to start waiting or to rise: with
// unreached set, jobs (those with pending maps) are checked for that, and if one is, the next
// heartbeat is handled (WakeFirst now), which repeats until one reaches it.
func (d *DelayPicker) notify(c replay.Cluster, w replay.Waking, unreached bool, jobs []*replay.JobView) {
	if w == nil || d.skipFrac > 0 {
		d.clearDirty()
		return
	}
	first := false // a job's wait starts, or its level rises, at the next heartbeat offering it a slot
	if unreached {
		now := c.Now()
		for _, j := range jobs {
			if st := d.state[j.Index()]; j.PendingMaps() > 0 && (st.waitStart < 0 || d.level(st, now) != st.level) {
				first = true
				break
			}
		}
	}
	for _, st := range d.dirty {
		st.dirty = false
		if st.j.PendingMaps() == 0 {
			st.toldLevel = st.level
			continue
		}
		if st.level > st.toldLevel {
			if st.level == replay.RackLocal {
				for r, nodes := range d.racks {
					if st.j.RackMap(int32(r)) >= 0 {
						for _, n := range nodes {
							w.Wake(n)
						}
					}
				}
			} else {
				w.WakeMapNodes()
			}
		}
		st.toldLevel = st.level
		switch {
		case st.waitStart < 0:
			first = true
		case st.level == replay.NodeLocal:
			w.WakeFirst(st.waitStart + d.t1)
		case st.level == replay.RackLocal:
			w.WakeFirst(st.waitStart + d.t2)
		}
	}
	d.dirty = d.dirty[:0]
	if first {
		w.WakeFirst(c.Now())
	}
}

// clearDirty forgets the changes.
func (d *DelayPicker) clearDirty() {
	for _, st := range d.dirty {
		st.dirty = false
	}
	d.dirty = d.dirty[:0]
}

// NewDelayPicker is delay scheduling by time with delays T1 and T2 in µs; a
// negative delay is 1.5 heartbeat intervals, the setting of Zaharia et al. §5.
func NewDelayPicker(nodeDelay, rackDelay int64) *DelayPicker {
	return &DelayPicker{nodeDelay: nodeDelay, rackDelay: rackDelay}
}

// NewSkipCountPicker is delay scheduling by skip count (Alg. 1): a job may
// launch anywhere once skipped frac × map nodes times.
func NewSkipCountPicker(frac float64) *DelayPicker { return &DelayPicker{skipFrac: frac} }

// Init sets the delays from the heartbeat interval when not given, and the skip
// limit from the map nodes.
func (d *DelayPicker) Init(s replay.Cluster) {
	hb := int64(s.Hardware().Heartbeat)
	d.t1, d.t2 = d.nodeDelay, d.rackDelay
	if d.t1 < 0 {
		d.t1 = hb * 3 / 2
	}
	if d.t2 < 0 {
		d.t2 = hb * 3 / 2
	}
	var mapNodes int
	for _, n := range s.Topology().Nodes {
		if n.MapSlots > 0 {
			mapNodes++
		}
	}
	d.skipLimit = int32(math.Round(d.skipFrac * float64(mapNodes)))
	d.state = d.state[:0]
	d.dirty = d.dirty[:0]
	d.racks = s.Topology().RackNodes
}

// JobArrived starts the job at node locality, not waiting.
func (d *DelayPicker) JobArrived(j *replay.JobView) {
	k := int(j.Index())
	if k >= len(d.state) {
		d.state = append(d.state, make([]*delayJob, k+1-len(d.state))...)
	}
	d.state[k] = &delayJob{level: replay.NodeLocal, waitStart: -1, j: j}
}

// JobFinished forgets the job.
func (d *DelayPicker) JobFinished(j *replay.JobView) { d.state[j.Index()] = nil }

// level is the locality level allowed would return now, without changing st.
func (d *DelayPicker) level(st *delayJob, now int64) replay.Locality {
	if d.skipFrac > 0 {
		if st.skips >= d.skipLimit {
			return replay.OffRack
		}
		return replay.NodeLocal
	}
	if st.waitStart < 0 {
		return st.level
	}
	switch {
	case st.level == replay.NodeLocal && now-st.waitStart >= d.t1:
		return replay.RackLocal // one level per call, as allowed
	case st.level == replay.RackLocal && now-st.waitStart >= d.t2:
		return replay.OffRack
	}
	return st.level
}

// declined records that job j was offered a slot at now and took none: what
// PickMap does when it finds no map within the allowed level.
func (d *DelayPicker) declined(j *replay.JobView, now int64) {
	st := d.state[j.Index()]
	d.allowed(st, now)
	if st.waitStart < 0 {
		st.waitStart = now
		d.touch(st)
	}
	st.skips++
}

// allowed is getAllowedLocalityLevel: the level a skipped job may now use.
func (d *DelayPicker) allowed(st *delayJob, now int64) replay.Locality {
	if d.skipFrac > 0 {
		if st.skips >= d.skipLimit {
			return replay.OffRack
		}
		return replay.NodeLocal
	}
	if st.waitStart < 0 {
		return st.level
	}
	switch st.level {
	case replay.NodeLocal:
		if now-st.waitStart >= d.t1 {
			st.level, st.waitStart = replay.RackLocal, now
			d.touch(st)
		}
	case replay.RackLocal:
		if now-st.waitStart >= d.t2 {
			st.level, st.waitStart = replay.OffRack, now
			d.touch(st)
		}
	}
	return st.level
}

// PickMap is Alg. 2 of the delay scheduling paper for one job and slot: the
// closest map within the job's allowed locality level; a job that has none
// starts (or keeps) waiting.
func (d *DelayPicker) PickMap(s replay.Cluster, j *replay.JobView, n int32) int32 {
	now := s.Now()
	st := d.state[j.Index()]
	level := d.allowed(st, now)
	t, got := bestMap(s, j, n, level)
	if t < 0 {
		if st.waitStart < 0 {
			st.waitStart = now
			d.touch(st)
		}
		st.skips++
		return -1
	}
	st.level, st.waitStart, st.skips = got, -1, 0
	d.touch(st)
	return t
}
