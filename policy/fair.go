package policy

import (
	"cmp"
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
	name      string
	strict    bool
	nodeDelay int64 // -1: 1.5 heartbeats
	rackDelay int64
	poolBy    string
	skipFrac  float64 // > 0: delay by skip count (Alg. 1)
	skipLimit int32

	t1, t2 int64
	state  map[int32]*fairJob
	order  []*replay.JobView
	pools  map[string]int32 // running tasks per pool, maps or reduces while ordering
}

// fairJob is the delay-scheduling state of one job.
type fairJob struct {
	level     replay.Locality // allowed locality level
	waitStart int64           // when the job was first skipped; -1 when it is not waiting
	pool      string
	skips     int32 // skips since the job last launched a map (skip-count delay)
}

func newFair(strict bool) func(*ParamReader) (replay.Policy, error) {
	return func(r *ParamReader) (replay.Policy, error) {
		f := &Fair{strict: strict}
		if !strict {
			f.nodeDelay = r.Duration("node-delay", -time.Microsecond)
			f.rackDelay = r.Duration("rack-delay", -time.Microsecond)
		}
		f.poolBy = r.String("pool-by", "user", "user", "queue")
		f.name = r.spec()
		return f, nil
	}
}

// Name is the registry name with parameters.
func (f *Fair) Name() string { return f.name }

// Init sets the delays from the heartbeat interval when not given.
func (f *Fair) Init(s replay.Cluster) {
	hb := int64(s.Hardware().Heartbeat)
	f.t1, f.t2 = f.nodeDelay, f.rackDelay
	if f.t1 < 0 {
		f.t1 = hb * 3 / 2
	}
	if f.t2 < 0 {
		f.t2 = hb * 3 / 2
	}
	var mapNodes int
	for _, n := range s.Topology().Nodes {
		if n.MapSlots > 0 {
			mapNodes++
		}
	}
	f.skipLimit = int32(math.Round(f.skipFrac * float64(mapNodes)))
	f.state = map[int32]*fairJob{}
	f.pools = map[string]int32{}
}

// JobArrived starts the job at node locality.
func (f *Fair) JobArrived(_ replay.Cluster, j *replay.JobView) {
	f.state[j.Index()] = &fairJob{level: replay.NodeLocal, waitStart: -1, pool: poolOf(j, f.poolBy)}
}

// JobFinished forgets the job.
func (f *Fair) JobFinished(_ replay.Cluster, j *replay.JobView) { delete(f.state, j.Index()) }

// allowed is getAllowedLocalityLevel: the level a skipped job may now use.
func (f *Fair) allowed(st *fairJob, now int64) replay.Locality {
	if f.strict {
		return replay.NodeLocal
	}
	if f.skipFrac > 0 {
		if st.skips >= f.skipLimit {
			return replay.OffRack
		}
		return replay.NodeLocal
	}
	if st.waitStart < 0 {
		return st.level
	}
	switch st.level {
	case replay.NodeLocal:
		if now-st.waitStart >= f.t1 {
			st.level, st.waitStart = replay.RackLocal, now
		}
	case replay.RackLocal:
		if now-st.waitStart >= f.t2 {
			st.level, st.waitStart = replay.OffRack, now
		}
	}
	return st.level
}

// sortJobs orders candidate jobs by their pool's running count, then their own,
// then submit order.
func (f *Fair) sortJobs(running func(*replay.JobView) int32) {
	clear(f.pools)
	for _, j := range f.order {
		f.pools[f.state[j.Index()].pool] += running(j)
	}
	slices.SortFunc(f.order, func(a, b *replay.JobView) int {
		pa, pb := f.pools[f.state[a.Index()].pool], f.pools[f.state[b.Index()].pool]
		if c := cmp.Compare(pa, pb); c != 0 {
			return c
		}
		if c := cmp.Compare(f.state[a.Index()].pool, f.state[b.Index()].pool); c != 0 {
			return c
		}
		if c := cmp.Compare(running(a), running(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Index(), b.Index())
	})
}

func runningMaps(j *replay.JobView) int32    { return j.RunningMaps() }
func runningReduces(j *replay.JobView) int32 { return j.RunningReduces() }

// Heartbeat fills the node's free map slots by fair share with delay scheduling,
// then its reduce slots.
func (f *Fair) Heartbeat(s replay.Cluster, n int32) {
	f.fillMaps(s, n, f.delayPick)
	if s.FreeReduceSlots(n) > 0 {
		f.order = f.order[:0]
		for j := range s.Active() {
			if canReduce(j) {
				f.order = append(f.order, j)
			}
		}
		for s.FreeReduceSlots(n) > 0 && len(f.order) > 0 {
			f.sortJobs(runningReduces)
			j := f.order[0]
			s.LaunchReduce(j, n)
			if !canReduce(j) {
				f.order = f.order[1:]
			}
		}
	}
}

// mapPicker decides, for a free map slot of node n offered to job j, which map
// of j to launch there, or -1 to pass the slot on to the next job.
type mapPicker func(s replay.Cluster, j *replay.JobView, n int32) int32

// fillMaps fills node n's free map slots by fair share: each slot is offered to
// the jobs with pending maps in fair order (re-sorted after every launch) until
// pick takes it; a slot no job takes stays free until the next heartbeat.
func (f *Fair) fillMaps(s replay.Cluster, n int32, pick mapPicker) {
	if s.FreeMapSlots(n) == 0 {
		return
	}
	f.order = f.order[:0]
	for j := range s.Active() {
		if j.PendingMaps() > 0 {
			f.order = append(f.order, j)
		}
	}
	for s.FreeMapSlots(n) > 0 && len(f.order) > 0 {
		f.sortJobs(runningMaps)
		if !f.assignMap(s, n, pick) {
			break
		}
	}
}

// assignMap offers one slot to the jobs in order; it reports whether one took it.
func (f *Fair) assignMap(s replay.Cluster, n int32, pick mapPicker) bool {
	for k, j := range f.order {
		t := pick(s, j, n)
		if t < 0 {
			continue
		}
		s.LaunchMap(j, t, n)
		if j.PendingMaps() == 0 {
			f.order = slices.Delete(f.order, k, k+1)
		}
		return true
	}
	return false
}

// delayPick is Alg. 2 of the delay scheduling paper for one job and slot: the
// closest map within the job's allowed locality level; a job that has none starts
// (or keeps) waiting.
func (f *Fair) delayPick(s replay.Cluster, j *replay.JobView, n int32) int32 {
	now := s.Now()
	st := f.state[j.Index()]
	level := f.allowed(st, now)
	t, got := bestMap(s, j, n, level)
	if t < 0 {
		if st.waitStart < 0 {
			st.waitStart = now
		}
		st.skips++
		return -1
	}
	st.level, st.waitStart, st.skips = got, -1, 0
	return t
}
