package policy

import (
	"cmp"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// Capacity is the Hadoop 1 Capacity Scheduler (CapacityTaskScheduler): queues with
// a guaranteed fraction of the map and reduce slots, from the hardware model's
// [[queues]] (a single queue "default" with all of the cluster when none is
// given). A free slot goes to the queue with the lowest ratio of running tasks to
// guaranteed slots that is below its maximum capacity, and within the queue to the
// first job in submit order with work; maps are chosen node-local, then
// rack-local, then any, without delay (best effort, as the scheduler does).
// Reduces launch after slow-start like everywhere else.
//
// Choices: a job whose queue the model does not list goes to "default" if listed,
// else to the first queue; per-user limits and job priorities are not modelled
// (traces rarely carry them); every free slot of a heartbeat is filled.
type Capacity struct {
	replay.Base
	name   string
	queues []capQueue
	byName map[string]int
	jobQ   map[int32]int
	order  []int
}

type capQueue struct {
	name           string
	mapCap, redCap float64 // guaranteed slots
	mapMax, redMax float64 // maximum slots
	runMap, runRed int32
}

func newCapacity(r *ParamReader) (replay.Policy, error) {
	return &Capacity{name: r.spec()}, nil
}

// Name is the registry name.
func (c *Capacity) Name() string { return c.name }

// Init builds the queues from the hardware model.
func (c *Capacity) Init(s replay.Cluster) {
	hw := s.Hardware()
	qs := hw.Queues
	if len(qs) == 0 {
		qs = []replay.Queue{{Name: "default", Capacity: 1}}
	}
	ms, rs := float64(hw.TotalMapSlots()), float64(hw.TotalReduceSlots())
	c.byName = map[string]int{}
	c.jobQ = map[int32]int{}
	for i, q := range qs {
		mx := q.MaxCapacity
		if mx == 0 {
			mx = 1
		}
		mx = max(mx, q.Capacity)
		c.queues = append(c.queues, capQueue{name: q.Name, mapCap: q.Capacity * ms, redCap: q.Capacity * rs,
			mapMax: mx * ms, redMax: mx * rs})
		c.byName[q.Name] = i
	}
}

// JobArrived assigns the job to its queue.
func (c *Capacity) JobArrived(_ replay.Cluster, j *replay.JobView) {
	q, ok := c.byName[j.Queue()]
	if !ok {
		q, ok = c.byName["default"]
		if !ok {
			q = 0
		}
	}
	c.jobQ[j.Index()] = q
}

// TaskFinished releases the queue's slot.
func (c *Capacity) TaskFinished(_ replay.Cluster, j *replay.JobView, reduce bool, _ int32) {
	q := &c.queues[c.jobQ[j.Index()]]
	if reduce {
		q.runRed--
	} else {
		q.runMap--
	}
}

// JobFinished forgets the job.
func (c *Capacity) JobFinished(_ replay.Cluster, j *replay.JobView) { delete(c.jobQ, j.Index()) }

// queueOrder returns the queue indexes by ascending used/guaranteed ratio, skipping
// queues at their maximum.
func (c *Capacity) queueOrder(reduce bool) []int {
	c.order = c.order[:0]
	for i := range c.queues {
		q := &c.queues[i]
		if reduce && float64(q.runRed) < q.redMax || !reduce && float64(q.runMap) < q.mapMax {
			c.order = append(c.order, i)
		}
	}
	ratio := func(i int) float64 {
		q := &c.queues[i]
		if reduce {
			return float64(q.runRed) / q.redCap
		}
		return float64(q.runMap) / q.mapCap
	}
	slices.SortStableFunc(c.order, func(a, b int) int { return cmp.Compare(ratio(a), ratio(b)) })
	return c.order
}

// Heartbeat fills the node's free slots queue by queue.
func (c *Capacity) Heartbeat(s replay.Cluster, n int32) {
	for s.FreeMapSlots(n) > 0 && c.assign(s, n, false) {
	}
	for s.FreeReduceSlots(n) > 0 && c.assign(s, n, true) {
	}
}

func (c *Capacity) assign(s replay.Cluster, n int32, reduce bool) bool {
	for _, qi := range c.queueOrder(reduce) {
		jobs := s.MapCandidates() // the others have no map to launch (bestMap)
		if reduce {
			jobs = s.ReduceCandidates()
		}
		for _, j := range jobs {
			if c.jobQ[j.Index()] != qi {
				continue
			}
			if reduce {
				s.LaunchReduce(j, n)
				c.queues[qi].runRed++
				return true
			}
			if t, _ := bestMap(s, j, n, replay.OffRack); t >= 0 {
				s.LaunchMap(j, t, n)
				c.queues[qi].runMap++
				return true
			}
		}
	}
	return false
}
