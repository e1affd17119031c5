package policy

import (
	"time"

	"github.com/tracereplay/tracereplay/replay"
)

// HPFSP is H-PFSP, the Hybrid Parallel Pessimistic Fair Schedule Protocol of Li,
// Lin, Ren and Geng (IEEE TrustCom 2013). A free slot goes first to a job in its
// fair phase (fewer than FAIR_LIMIT tasks of the current stage scheduled; among
// several, the one with the fewest scheduled, Algs. 2-3); otherwise to the
// completable job (Alg. 4) with the shortest estimated remaining time (Alg. 2).
// Completability comes from a virtual processor-sharing (PS) queue in which the
// cluster's slots are one processor of aggregate capacity, and a slack per job
// (eqs. 6-10) that says how much later it may finish than under PS; estimates
// are re-made from each job's own finished tasks (EWMA, eqs. 1-5) and the slacks
// updated incrementally (eqs. 11-17). The baseline of the paper is Fair (the
// registered "fair").
//
// Choices where the paper is silent or garbled (parameters in brackets):
//   - Update timing. Alg. 1 re-estimates and updates the slack system every
//     UPDATE_INTERVAL [update-interval, default 500ms, the Fair Scheduler's update
//     period]. The simulator has no policy timer, so an update runs at the first
//     scheduler event (heartbeat, task end) at least that long after the last one,
//     and always at a job's arrival and end. The service of the interval is exact
//     whatever its length: each job's slot time is integrated from the launches
//     and ends of its tasks.
//   - Order within an update. Time progression (eqs. 7-9) is applied first, with
//     the estimates that held during the interval, then the re-estimate (eqs. 1-5)
//     and its slack correction (eqs. 11-17). Alg. 1 lists the re-estimate first,
//     but eq. (5) already counts the interval's progress, so eq. (7) after it would
//     subtract the interval's service twice.
//   - Δt̂_i (eq. 10) is the slot time job i's tasks ran in the interval divided by
//     the number of slots of their kind (maps by N(S)_M, reduces by N(S)_R, as eqs.
//     3-4 normalise); a job alone on every slot gets Δt̂ = Δt.
//   - Estimates (eqs. 1-2). A policy may not know how long a running task will
//     take, so Δt/ΔP, "the average time of a Map task", is measured on the tasks
//     that finished since the last accepted update: ΔP is their number over N(T)
//     and the sample their mean duration. The update is skipped while ΔP < 0.02
//     [min-progress] and the finished tasks carry over. EWMA weight [alpha, 0.5;
//     the paper gives no value].
//   - Progress P in eq. (5) is modelled as a JobTracker could: a finished task
//     counts 1, a running one the fraction of the job's average task time it has
//     run so far, capped at 1. Reduces are estimated with the map average until
//     the job's maps have all ended (§II-B).
//   - Defaults (eq. 18): a new job's average map (reduce) time is the mean of
//     the maps (reduces) of the jobs finished so far — the paper's "average
//     execution time of the tasks of the finished jobs" — or [default-task, 1m]
//     while no job has finished; reduces fall back to the map default. Under
//     overload no job finishes for hours, so early jobs start from default-task
//     and only their own tasks correct it; this is where the fair phase helps
//     (docs/repro/hpfsp.md, Fig. 5).
//   - The stage (Alg. 3) is REDUCE once the modelled map progress reaches 0.95
//     [reduce-stage]; a job without reduces stays in the MAP stage. The fair phase
//     counts the tasks of the stage's kind scheduled, for either kind of slot.
//     fair-limit=0 disables the fair phase (pure Parallel PFSP).
//   - When v reaches 0 the job leaves the PS queue (§II-C). If it is still
//     running it is overdue: with no job ahead of it, it is completable and
//     competes by w. Re-estimates keep applying eq. (13) to its v, and it
//     re-enters the queue if v becomes positive again (its size was
//     underestimated, so PS would still be serving it). A job that finishes
//     while still in the queue gets s = ∞ and stays until PS would have
//     finished it.
//   - Ties: the PS queue puts the earlier job first on equal v (§III-A); equal w
//     among completable jobs goes to PS order; equal fair-phase counts to submit
//     order. If no completable job has a task to run (its only completable jobs
//     have all their tasks running), the slot goes to the job earliest in PS order
//     that has one, overdue jobs first, so that no slot idles while work waits.
//   - Maps are placed with the best locality the job offers on the node (no delay
//     scheduling; the paper's simulator has none). w_min [w-min, 1ms].
//
// Cost, J active jobs and Q jobs in the PS queue: a task launch costs O(1) for
// the service integration (each job's slot time is brought up to date only
// when its own running tasks change or its service is read) and the running
// list; a task end O(1) amortized (the running list keeps launch order with
// holes, compacted when they outnumber the tasks). The slack-system update runs
// at most once per update-interval, in O(J + the executed jobs' running tasks)
// plus the queue moves. A slot decision reads the comparator's index
// (hpfspIndex) instead of scanning the jobs: O(log J) for each job touched
// since the last decision (its launches, map ends, a new map average) or whose
// stage answer may have changed with time, plus one heap pop for each stale
// entry it meets (a job whose count moved, that left its fair phase or has no
// task of the slot's kind left), paid once by the change that made it stale.
// Only the first decision of each kind of slot after the slack system
// changed (an update, arrival or end, which moves every queued job's slack)
// that the fair phase does not decide costs O(J + Q): the front minima of
// the slacks and that kind's heaps of completable and PS-ordered jobs are
// rebuilt then, not per decision. A job's stage is O(1) unless its
// finished and running tasks straddle reduce-stage, and then one O(running)
// sum per task end or change of its average, its answer kept while no task of
// the phase ends and its terms cannot have reached the threshold
// (progressAtLeast), and re-checked only when that bound expires (noUntil).
type HPFSP struct {
	replay.Base
	name        string
	fairLimit   int32
	alpha       float64
	interval    int64
	defaultTask float64
	wMin        float64
	minProgress float64
	reduceStage float64

	nm, nr  float64     // map and reduce slots of the cluster
	jobs    []*hpfspJob // by job index (submit order); nil once finished
	sys     slackSystem
	lastUpd int64 // time of the last slack-system update

	// Tasks of the finished jobs, for the defaults of eq. (18).
	mapSum, redSum     int64
	mapCount, redCount int64

	front    []float64
	frontVer uint64 // sys.ver + 1 when front was computed; 0: never
	served   []served
	execd    []*hpfspJob
	idx      hpfspIndex

	// verify, when set (tests), is shown each slot decision.
	verify func(s replay.Cluster, reduce bool, got *hpfspJob)
}

// hpfspJob is H-PFSP's record of one job.
type hpfspJob struct {
	j                    *replay.JobView
	sl                   slackJob
	m, r                 phaseEstimate
	launchedM, launchedR int32
	slotM, slotR         float64 // slot time its maps and reduces have run, µs
	chargedM, chargedR   float64 // the part already given to the slack system
	lastInt              int64   // time up to which slotM and slotR are integrated

	// The comparator's index (hpfspIndex).
	seq     int64    // arrival order: its index (submission order; hpfspIndex.seq)
	gone    bool     // finished
	fair    bool     // in its fair phase (Alg. 3) when last classified
	dirty   bool     // touched since it was last classified
	stamp   uint32   // classifications so far: its stage entry is the one made at the last
	fairIn  [2]int32 // per kind: its count + 1 when it has a fair entry under that count, else 0
	readyIn bool     // in the reduce heaps of the current slack system
}

func newHPFSP(r *ParamReader) (replay.Policy, error) {
	h := &HPFSP{
		fairLimit:   int32(r.Int("fair-limit", 2)),
		alpha:       r.Float("alpha", 0.5),
		interval:    r.Duration("update-interval", 500*time.Millisecond),
		defaultTask: float64(r.Duration("default-task", time.Minute)),
		wMin:        float64(r.Duration("w-min", time.Millisecond)),
		minProgress: r.Float("min-progress", 0.02),
		reduceStage: r.Float("reduce-stage", 0.95),
	}
	bad := r.Errorf
	if h.fairLimit < 0 {
		bad("fair-limit=%d: want a count >= 0", h.fairLimit)
	}
	if !(h.alpha >= 0 && h.alpha < 1) {
		bad("alpha=%g: want a weight in [0, 1)", h.alpha)
	}
	if !(h.defaultTask > 0) {
		bad("default-task: want a positive duration")
	}
	if !(h.minProgress >= 0 && h.minProgress <= 1) {
		bad("min-progress=%g: want a fraction in [0, 1]", h.minProgress)
	}
	if !(h.reduceStage >= 0 && h.reduceStage <= 1) {
		bad("reduce-stage=%g: want a fraction in [0, 1]", h.reduceStage)
	}
	h.name = r.spec()
	return h, nil
}

// Name is the registry name with parameters.
func (h *HPFSP) Name() string { return h.name }

// Init reads the cluster's slot counts.
func (h *HPFSP) Init(s replay.Cluster) {
	hw := s.Hardware()
	h.nm, h.nr = float64(hw.TotalMapSlots()), float64(hw.TotalReduceSlots())
	h.jobs = nil
	h.sys = slackSystem{eps: 1e-6}
	h.frontVer = 0
	h.idx = hpfspIndex{}
}

// JobArrived brings the slack system up to now and queues the job with the
// default estimates of eq. (18): w = v = N_M·Âvg_M + N_R·Âvg_R.
func (h *HPFSP) JobArrived(s replay.Cluster, j *replay.JobView) {
	defM := h.defaultTask
	if h.mapCount > 0 {
		defM = float64(h.mapSum) / float64(h.mapCount)
	}
	defR := defM
	if h.redCount > 0 {
		defR = float64(h.redSum) / float64(h.redCount)
	}
	x := &hpfspJob{j: j, sl: slackJob{id: j.Index(), pos: -1}, lastInt: s.Now(),
		m: phaseEstimate{avg: defM, tasks: j.NumMaps()},
		r: phaseEstimate{avg: defR, tasks: j.NumReduces()}, seq: int64(j.Index())}
	h.touch(x)
	w := max(0, float64(j.NumMaps())*defM/h.nm+float64(j.NumReduces())*defR/h.nr)
	x.sl.w, x.sl.v = w, w
	for int(j.Index()) >= len(h.jobs) {
		h.jobs = append(h.jobs, nil)
	}
	h.jobs[j.Index()] = x // the job is already active: update finds it, with no service yet
	h.update(s, true)
	h.sys.insert(&x.sl)
}

// TaskFinished records the task's duration for the estimates.
func (h *HPFSP) TaskFinished(s replay.Cluster, j *replay.JobView, reduce bool, task int32) {
	x := h.jobs[j.Index()]
	x.integrate(s.Now())
	if reduce {
		d := j.ReduceFinishUs(task) - j.ReduceLaunchUs(task)
		x.r.taskDone(task, d)
	} else {
		d := j.MapFinishUs(task) - j.MapLaunchUs(task)
		x.m.taskDone(task, d)
		h.touch(x) // its stage may have changed, and its reduces become ready
	}
	h.update(s, false)
	h.reducesReady(x)
}

// JobFinished charges the job's last service and marks it finished in the slack
// system (w = 0; s = ∞ while PS would still serve it).
func (h *HPFSP) JobFinished(s replay.Cluster, j *replay.JobView) {
	h.update(s, true)
	x := h.jobs[j.Index()]
	h.sys.finish(&x.sl)
	h.mapSum += x.m.sum
	h.mapCount += int64(x.m.finished)
	h.redSum += x.r.sum
	h.redCount += int64(x.r.finished)
	x.gone = true
	h.jobs[j.Index()] = nil
}

// Heartbeat brings the estimates up to date and fills the node's free slots, one
// H-PFSP comparator decision per slot.
func (h *HPFSP) Heartbeat(s replay.Cluster, n int32) {
	h.update(s, false)
	now := s.Now()
	for s.FreeMapSlots(n) > 0 {
		x := h.choose(s, false)
		if h.verify != nil {
			h.verify(s, false, x)
		}
		if x == nil {
			break
		}
		t, _ := bestMap(s, x.j, n, replay.OffRack)
		s.LaunchMap(x.j, t, n)
		x.integrate(now)
		x.launchedM++
		x.m.running.add(t, now, x.m.tasks)
		h.touch(x)
	}
	for s.FreeReduceSlots(n) > 0 {
		x := h.choose(s, true)
		if h.verify != nil {
			h.verify(s, true, x)
		}
		if x == nil {
			break
		}
		t := s.LaunchReduce(x.j, n)
		x.integrate(now)
		x.launchedR++
		x.r.running.add(t, now, x.r.tasks)
		h.touch(x)
	}
}

// integrate adds the slot time the job's running tasks used since the last
// call; it is called before the job's running tasks change and before its
// service is read, so a job costs nothing while nothing of it changes. The slot
// times are whole µs, exact in a float64 below 2⁵³ µs (285 slot-years), so
// integrating a job's intervals one by one or all at once gives the same sum.
func (x *hpfspJob) integrate(now int64) {
	dt := float64(now - x.lastInt)
	x.lastInt = now
	if dt <= 0 {
		return
	}
	x.slotM += float64(x.m.running.Len()) * dt
	x.slotR += float64(x.r.running.Len()) * dt
}

// update is Alg. 1 for the interval since the last update, when it is at least
// update-interval long or force is set: the service of each job is charged to
// the slack system (eqs. 7-10), then each job that ran is re-estimated (eqs. 1-5)
// and moved in the PS queue (eqs. 11-17).
func (h *HPFSP) update(s replay.Cluster, force bool) {
	now := s.Now()
	if !force && now-h.lastUpd < h.interval {
		return
	}
	h.lastUpd = now
	h.served, h.execd = h.served[:0], h.execd[:0]
	for _, j := range s.Active() {
		x := h.jobs[j.Index()]
		x.integrate(now)
		d := (x.slotM-x.chargedM)/h.nm + (x.slotR-x.chargedR)/h.nr
		x.chargedM, x.chargedR = x.slotM, x.slotR
		if d > 0 {
			h.served = append(h.served, served{job: &x.sl, d: d})
			h.execd = append(h.execd, x)
		}
	}
	if len(h.served) == 0 {
		return
	}
	h.sys.progress(h.served)
	for _, x := range h.execd {
		if x.m.update(h.alpha, h.minProgress) {
			h.touch(x) // its map average, and with it its stage, changed
		}
		if !x.j.MapsDone() && !x.r.observed {
			x.r.avg = x.m.avg // §II-B: no reduce estimate before the map phase ends
		}
		x.r.update(h.alpha, h.minProgress)
		h.sys.reestimate(&x.sl, remainingTime(&x.m, &x.r, now, h.nm, h.nr, h.wMin))
	}
}

// psBefore orders jobs as the PS queue does, jobs no longer in it (overdue)
// first, by submit order.
func psBefore(a, b *slackJob) bool {
	switch {
	case a.pos < 0 && b.pos < 0:
		return a.id < b.id
	case a.pos < 0 || b.pos < 0:
		return a.pos < 0
	}
	return a.pos < b.pos
}
