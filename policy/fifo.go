package policy

import (
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// FIFO is the Hadoop 1 FIFO scheduler as the EAS paper (§1) and the delay
// scheduling paper describe it: jobs in submit order; a free map slot takes a map
// of the first job that has one, preferring one whose input is on the node, then
// in its rack, then any (best effort). In the strict variant (FIFO-S of EAS §5) a
// map runs only where a replica of its input lies.
//
// Choices where the papers are silent: every free slot of a heartbeat is filled
// (Hadoop's assignmultiple); reduces go to the first job in submit order whose
// slow-start threshold is met; in the strict variant a slot that the head job
// cannot use locally goes to the first later job that can, since leaving it idle
// behind the head job is what no FIFO implementation does (JobQueueTaskScheduler
// also scans the whole queue for local work).
//
// With util set (GCC, good-cache-compute of Raicu et al. as BAR §V runs it) the
// best-effort variant turns strict while more than util of the map slots are
// busy: a slot is then kept for local work, since another will soon free.
type FIFO struct {
	replay.Base
	name     string
	strict   bool
	util     float64 // > 0: strict while busy map slots > util × all (GCC)
	totalMap int
	maps     MapFiller
	reduces  GreedyReduces
	// jobQueue: assign = "jobqueue", Hadoop 0.20/1's JobQueueTaskScheduler
	// per-heartbeat caps (heartbeatJobQueue) instead of filling every free slot.
	jobQueue bool
	// open (assign = "jobqueue" only, 1 = off): the share of the trackers
	// that work the trace does not hold leaves one map slot free; it holds
	// every map slot of the others (background, drawn at Init).
	open float64
	// background is, per node, the map slots held by that work; backgroundLoad
	// their sum, the maps it adds to the load factor's remainingMapLoad.
	background     []int32
	backgroundLoad int64
}

func newFIFO(strict bool) func(*ParamReader) (replay.Policy, error) {
	return func(r *ParamReader) (replay.Policy, error) {
		f := &FIFO{strict: strict}
		if !strict {
			f.jobQueue = r.String("assign", "fill", "fill", "jobqueue") == "jobqueue"
			if f.jobQueue {
				f.open = r.Float("open", 1)
				if !(f.open > 0 && f.open <= 1) {
					r.Errorf("open=%g: want a share in (0, 1]", f.open)
				}
			}
		}
		f.name = r.spec()
		return f, nil
	}
}

// Name is the registry name.
func (f *FIFO) Name() string { return f.name }

// Init counts the cluster's map slots.
func (f *FIFO) Init(s replay.Cluster) {
	f.totalMap = s.Hardware().TotalMapSlots()
	f.reduces = GreedyReduces{Order: SubmitOrder{}}
	if f.jobQueue && f.open < 1 {
		f.background = background(s, f.open)
		f.backgroundLoad = 0
		for _, b := range f.background {
			f.backgroundLoad += int64(b)
		}
	}
}

// background draws, with the policy's random stream, the map slots that work
// the trace does not hold keeps busy on each node for the whole run
// (assign = "jobqueue", open < 1; heartbeatJobQueue): round(open × the nodes
// with map slots), at least one, chosen at random, keep one map slot free;
// every other node's map slots are all held.
func background(s replay.Cluster, open float64) []int32 {
	nodes := s.Topology().Nodes
	bg := make([]int32, len(nodes))
	var withMaps []int32
	for n := range nodes {
		if nodes[n].MapSlots > 0 {
			bg[n] = nodes[n].MapSlots
			withMaps = append(withMaps, int32(n))
		}
	}
	k := max(1, int(math.Round(open*float64(len(withMaps)))))
	r := s.Rand()
	for _, i := range r.Perm(len(withMaps))[:min(k, len(withMaps))] {
		bg[withMaps[i]]--
	}
	return bg
}

// picker is how far a map may run from its input now: only node-local when
// strict (or, under GCC, while the map slots are busy), else best effort.
func (f *FIFO) picker(s replay.Cluster) MapPicker {
	if f.strict {
		return StrictPicker{}
	}
	if f.util > 0 {
		var busy int32
		for _, j := range s.Active() {
			busy += j.RunningMaps()
		}
		if float64(busy) > f.util*float64(f.totalMap) {
			return StrictPicker{}
		}
	}
	return BestEffortPicker{}
}

// Heartbeat fills the node's free map slots, each offered to the jobs in
// submit order (the picker chosen again for each slot, since GCC's depends
// on the busy slots), then its reduce slots. A best-effort slot always goes
// to the first job with a pending map, since BestEffortPicker never passes.
func (f *FIFO) Heartbeat(s replay.Cluster, n int32) {
	if f.jobQueue {
		f.heartbeatJobQueue(s, n)
		return
	}
	if s.FreeMapSlots(n) > 0 {
		f.maps.Start(s)
		for s.FreeMapSlots(n) > 0 && f.maps.Offer(s, n, f.picker(s)) {
		}
	}
	f.reduces.FillReduces(s, n)
}

// heartbeatJobQueue is assign = "jobqueue": what Hadoop's default scheduler,
// JobQueueTaskScheduler.assignTasks (org.apache.hadoop.mapred; apache/hadoop
// branch-1, and the same code in 0.20.1), hands one TaskTracker at one
// heartbeat:
//
//   - maps: the "load factor" remainingMapLoad / clusterMapCapacity, where
//     remainingMapLoad sums desiredMaps − finishedMaps over the running jobs,
//     caps the tracker at min(ceil(loadFactor × trackerMapCapacity),
//     trackerMapCapacity) maps, those it runs included: on a cluster with
//     more map slots than maps left, one map a tracker. Each slot goes to the
//     jobs in submit order, a job's node- or rack-local map first
//     (obtainNewLocalMapTask), else any map of it (obtainNewNonLocalMapTask),
//     and an off-rack map ends the heartbeat's maps ("We assign at most 1
//     off-switch or speculative task");
//   - reduces: the same cap over the jobs whose slow start is met
//     (JobInProgress.scheduleReduces), and never more than one reduce a
//     heartbeat.
//
// With open < 1, work the trace does not hold shares the cluster (drawn by
// background at Init, fixed for the run): its maps count among the tracker's
// running maps and in remainingMapLoad, as the JobTracker counts every
// running job's. An open tracker (a share open of them) then has one map slot
// for the trace's maps, the others none: the JobTracker of a busy cluster
// hands the trace's maps out at about open × its heartbeats a second, not at
// every heartbeat (docs/validation.md, "Why a third"). Off (1) by default.
//
// Not modelled: exceededPadding (a slot kept free beyond the first job's
// maps once the cluster is nearly full: 1% of the jobs' tasks).
func (f *FIFO) heartbeatJobQueue(s replay.Cluster, n int32) {
	node := &s.Topology().Nodes[n]
	var bg int32
	if f.background != nil {
		bg = f.background[n]
	}
	mapLoad, reduceLoad := f.backgroundLoad, int64(0)
	for _, j := range s.Active() {
		mapLoad += int64(j.NumMaps() - j.FinishedMaps())
		if j.ReducesReady() {
			reduceLoad += int64(j.NumReduces() - j.FinishedReduces())
		}
	}
	hw := s.Hardware()
	if free := s.FreeMapSlots(n) - bg; free > 0 && mapLoad > 0 {
		running := node.MapSlots - free
		avail := loadFactorCap(mapLoad, hw.TotalMapSlots(), node.MapSlots) - running
		if avail > 0 {
			f.maps.Start(s)
		}
	slots:
		for ; avail > 0 && s.FreeMapSlots(n)-bg > 0; avail-- {
			for k, j := range f.maps.jobs {
				t, level := bestMap(s, j, n, replay.OffRack)
				if t < 0 {
					continue
				}
				s.LaunchMap(j, t, n)
				if j.PendingMaps() == 0 {
					f.maps.jobs = slices.Delete(f.maps.jobs, k, k+1)
				}
				if level == replay.OffRack {
					break slots
				}
				continue slots
			}
			break
		}
	}
	if free := s.FreeReduceSlots(n); free > 0 && reduceLoad > 0 {
		running := node.ReduceSlots - free
		if loadFactorCap(reduceLoad, hw.TotalReduceSlots(), node.ReduceSlots)-running > 0 {
			if reds := s.ReduceCandidates(); len(reds) > 0 {
				s.LaunchReduce(reds[0], n)
			}
		}
	}
}

// loadFactorCap is JobQueueTaskScheduler's trackerCurrentMapCapacity (and
// its reduce twin): min(ceil(load / clusterCapacity × trackerCapacity),
// trackerCapacity), in integers.
func loadFactorCap(load int64, clusterCapacity int, trackerCapacity int32) int32 {
	if clusterCapacity <= 0 {
		return 0
	}
	c := (load*int64(trackerCapacity) + int64(clusterCapacity) - 1) / int64(clusterCapacity)
	return int32(min(c, int64(trackerCapacity)))
}
