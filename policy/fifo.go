package policy

import "github.com/tracereplay/tracereplay/replay"

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
}

func newFIFO(strict bool) func(*ParamReader) (replay.Policy, error) {
	return func(r *ParamReader) (replay.Policy, error) {
		return &FIFO{name: r.spec(), strict: strict}, nil
	}
}

// Name is the registry name.
func (f *FIFO) Name() string { return f.name }

// Init counts the cluster's map slots.
func (f *FIFO) Init(s replay.Cluster) {
	f.totalMap = s.Hardware().TotalMapSlots()
	f.reduces = GreedyReduces{Order: SubmitOrder{}}
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
	if s.FreeMapSlots(n) > 0 {
		f.maps.Start(s)
		for s.FreeMapSlots(n) > 0 && f.maps.Offer(s, n, f.picker(s)) {
		}
	}
	f.reduces.FillReduces(s, n)
}
