package policy

import (
	"cmp"
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// HybSMRP is the hybrid scheduler of Gandomi, Reshadi, Movaghar and Khademzadeh
// (J. Big Data 6:106, 2019): a dynamic job priority (eq. 1, from HybS) combined with
// a per-node localization ID (from Matchmaking), as the paper's Alg. 2 gives them.
//
// At every heartbeat of a node with a free map slot the priority of every job in
// the queue is recomputed,
//
//	Priority = (td/avgWaitTime)^α · (r/avgRunTime)^β · (n/avgNumTask)^γ,
//
// and the jobs are scanned in decreasing priority for map tasks whose input is on
// the node ("if it is not possible to find one local map task to assign, the
// scheduler will continue searching the next jobs"). If none is found the node's
// localization ID counts a failure; after two failures (the paper's "selection
// of two") each further failing heartbeat assigns one non-local map from the first
// job in the queue. Every job arrival resets all IDs to null, giving every node a
// fresh chance at the new job's local data. α = 1, β = γ = 0 is the paper's
// FCFS-like setting (preset=fcfs, the default); α = γ = 0, β = −1 its SJF-like
// setting (preset=sjf). Parameters: preset, alpha, beta, gamma (override the
// preset) and skips (failures before a non-local task, 2).
//
// Choices where the paper is ambiguous or silent (its Alg. 2 is garbled in print:
// it increments the ID on success and tests it for 0):
//   - td is the time since the job was submitted, r the mean duration of the job's
//     finished maps (what a JobTracker knows; a job with none yet counts as
//     average), n its unfinished map and reduce tasks; each average is over the
//     unfinished jobs. A zero average makes its factor 1. Ties go to the earlier
//     job. The averages scale every job alike, so they fix the values, not the
//     order.
//   - The localization ID counts the node's failing heartbeats since the last job
//     arrival; a heartbeat that launches a local map is not a failure and leaves it
//     as it is, and it is not reset by the non-local assignment (only arrivals
//     reset it, as in Alg. 2), so once a node has skipped twice it takes one
//     non-local map at each later failing heartbeat until the next arrival.
//     Heartbeats when no job has a pending map do not count.
//   - A local pass takes as many local maps of a job as the node has free slots
//     before moving to the next job; the non-local step takes one map (Alg. 2,
//     lines 21-23), the closest one of the first job that has a pending map.
//   - Reduces (the paper does not say) go to the highest-priority job whose
//     reduces may launch, one per free reduce slot.
//
// Cost per heartbeat, over the A unfinished jobs: with the fcfs preset the
// ranking is their submission order (rankBySubmit), O(A); other settings
// compute eq. (1) for each and sort, O(A log A). The scans for a job with a
// pending map or a reduce that may launch are O(A) in both.
type HybSMRP struct {
	replay.Base
	name               string
	alpha, beta, gamma float64
	skips              int32

	loc   localization
	jobs  []hybJob // by job index
	order []*replay.JobView
	prio  []float64 // by job index, for the current ranking

	general bool // rank by eq. (1) always (tests: rankBySubmit's shortcut off)
}

// hybJob is what HybSMRP tracks of a job: its finished maps' summed duration.
type hybJob struct {
	mapUs   int64
	mapDone int64
}

// hybPreset returns the (α, β, γ) of one of the paper's named settings.
func hybPreset(name string) [3]float64 {
	if name == "sjf" {
		return [3]float64{0, -1, 0}
	}
	return [3]float64{1, 0, 0} // fcfs
}

func newHybSMRP(r *ParamReader) (replay.Policy, error) {
	preset := r.String("preset", "fcfs", "fcfs", "sjf")
	p := hybPreset(preset)
	h := &HybSMRP{alpha: r.Float("alpha", p[0]), beta: r.Float("beta", p[1]), gamma: r.Float("gamma", p[2])}
	for _, x := range []float64{h.alpha, h.beta, h.gamma} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			r.Errorf("alpha, beta and gamma must be finite (got %v)", x)
		}
	}
	skips := r.Int("skips", 2)
	if skips < 0 || skips > 1000 {
		r.Errorf("skips=%d: want 0..1000", skips)
	}
	h.skips = int32(skips)
	h.name = r.spec()
	return h, nil
}

// Name is the registry name with parameters.
func (h *HybSMRP) Name() string { return h.name }

// Init gives every node a null localization ID.
func (h *HybSMRP) Init(s replay.Cluster) {
	h.loc = newLocalization(len(s.Topology().Nodes), h.skips)
}

// JobArrived resets every node's localization ID (Alg. 2, lines 25-28).
func (h *HybSMRP) JobArrived(_ replay.Cluster, j *replay.JobView) {
	for int(j.Index()) >= len(h.jobs) {
		h.jobs = append(h.jobs, hybJob{})
		h.prio = append(h.prio, 0)
	}
	h.loc.reset()
}

// TaskFinished records a finished map's duration for the job's r.
func (h *HybSMRP) TaskFinished(_ replay.Cluster, j *replay.JobView, reduce bool, task int32) {
	if reduce {
		return
	}
	h.jobs[j.Index()].mapUs += j.MapFinishUs(task) - j.MapLaunchUs(task)
	h.jobs[j.Index()].mapDone++
}

// Heartbeat ranks the jobs by eq. (1), runs Alg. 2 on the node's map slots and
// fills its reduce slots by priority.
func (h *HybSMRP) Heartbeat(s replay.Cluster, n int32) {
	h.rank(s)
	if s.FreeMapSlots(n) > 0 {
		h.assignMaps(s, n)
	}
	for s.FreeReduceSlots(n) > 0 {
		k := slices.IndexFunc(h.order, canReduce)
		if k < 0 {
			break
		}
		s.LaunchReduce(h.order[k], n)
	}
}

// assignMaps is Alg. 2 for one heartbeat of node n.
func (h *HybSMRP) assignMaps(s replay.Cluster, n int32) {
	pending, local := false, false
	for _, j := range h.order {
		if j.PendingMaps() == 0 {
			continue
		}
		pending = true
		for s.FreeMapSlots(n) > 0 {
			t := j.LocalMap(n)
			if t < 0 {
				break
			}
			s.LaunchMap(j, t, n)
			local = true
		}
		if s.FreeMapSlots(n) == 0 {
			break
		}
	}
	if !pending || local || !h.loc.miss(n) {
		return
	}
	for _, j := range h.order {
		if t, _ := bestMap(s, j, n, replay.OffRack); t >= 0 {
			s.LaunchMap(j, t, n)
			return
		}
	}
}

// rank orders the unfinished jobs by decreasing eq. (1) priority, earlier job
// first on ties.
func (h *HybSMRP) rank(s replay.Cluster) {
	h.order = append(h.order[:0], s.Active()...)
	act := h.order
	now := s.Now()
	if h.alpha == 1 && h.beta == 0 && h.gamma == 0 && !h.general {
		if h.rankBySubmit(now) {
			return
		}
		// The sums below are in the order Active gives.
		h.order = append(h.order[:0], s.Active()...)
		act = h.order
	}
	var sumWait, sumRun, sumN float64
	known := 0
	for _, j := range act {
		sumWait += float64(now - j.SubmitUs())
		sumN += float64(remainingTasks(j))
		if st := h.jobs[j.Index()]; st.mapDone > 0 {
			sumRun += float64(st.mapUs) / float64(st.mapDone)
			known++
		}
	}
	cnt := float64(len(act))
	avgRun := 0.0
	if known > 0 {
		avgRun = sumRun / float64(known)
	}
	for _, j := range act {
		st := h.jobs[j.Index()]
		r := avgRun
		if st.mapDone > 0 {
			r = float64(st.mapUs) / float64(st.mapDone)
		}
		h.prio[j.Index()] = hybPriority(
			[3]float64{float64(now - j.SubmitUs()), r, float64(remainingTasks(j))},
			[3]float64{sumWait / cnt, avgRun, sumN / cnt},
			[3]float64{h.alpha, h.beta, h.gamma})
	}
	slices.SortFunc(h.order, func(a, b *replay.JobView) int {
		if c := cmp.Compare(h.prio[b.Index()], h.prio[a.Index()]); c != 0 {
			return c
		}
		return cmp.Compare(a.Index(), b.Index())
	})
}

// rankBySubmit is rank for α = 1, β = γ = 0 (preset=fcfs, the default), in
// O(A) when the unfinished jobs come in submission order, as they do, instead
// of A powers and a sort, and reports whether it ranked them. Eq. (1) is then
// fl(td/avgWaitTime) (math.Pow(x, 1) is x), with td = now − submit an integer
// number of µs, the same avgWaitTime > 0 for every job, and both in float64's
// normal range. Correctly rounded division is monotone, and strictly so here:
// for integers 0 ≤ a < b < 2^52, b/a ≥ 1 + 2^-52 exceeds one rounding step. So
// a later submission has a strictly lower priority, an equal one the same:
// decreasing priority with earlier job first on ties is increasing (submit,
// index). If avgWaitTime is 0, every td is 0 and every priority 1: index order,
// which that order is too. It declines (false) if some td is negative or not
// below 2^52 µs (143 years), where that argument does not hold.
func (h *HybSMRP) rankBySubmit(now int64) bool {
	o := h.order
	if len(o) == 0 {
		return true
	}
	bySubmit := func(a, b *replay.JobView) int {
		if c := cmp.Compare(a.SubmitUs(), b.SubmitUs()); c != 0 {
			return c
		}
		return cmp.Compare(a.Index(), b.Index())
	}
	if !slices.IsSortedFunc(o, bySubmit) {
		slices.SortFunc(o, bySubmit)
	}
	return o[len(o)-1].SubmitUs() <= now && now-o[0].SubmitUs() < 1<<52
}

// remainingTasks is n of eq. (1): the job's maps and reduces not yet finished.
func remainingTasks(j *replay.JobView) int64 {
	return int64(j.NumMaps()) + int64(j.NumReduces()) - int64(j.FinishedMaps()+j.FinishedReduces())
}

// hybPriority is eq. (1): the product over (waiting time, map run time, remaining
// tasks) of (value / average)^exponent, where a zero average gives the factor 1.
func hybPriority(val, avg, exp [3]float64) float64 {
	p := 1.0
	for k := range val {
		if exp[k] == 0 || avg[k] <= 0 {
			continue
		}
		p *= math.Pow(val[k]/avg[k], exp[k])
	}
	return p
}

// localization is the per-node localization ID of Alg. 2: the number of failing
// heartbeats since the last job arrival (0 is the paper's null).
type localization struct {
	id    []int32
	skips int32
}

func newLocalization(nodes int, skips int32) localization {
	return localization{id: make([]int32, nodes), skips: skips}
}

// reset sets every node's ID to null (a job arrived).
func (l *localization) reset() { clear(l.id) }

// miss records a heartbeat at which node n found no local map and reports whether
// the node may now take a non-local one: it has already skipped l.skips times.
func (l *localization) miss(n int32) bool {
	if l.id[n] <= l.skips {
		l.id[n]++
	}
	return l.id[n] > l.skips
}
