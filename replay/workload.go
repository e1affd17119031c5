package replay

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/tracereplay/tracereplay/trace"
)

// Random streams. Each concern draws from its own PCG stream derived from the run's
// seed, and per-job streams are keyed by the job's position in the trace, so every
// policy sees the identical placement and durations (common random numbers) no
// matter in which order it makes jobs run.
const (
	streamDataNodes = 1
	streamPlacement = 2
	streamDurations = 3
	streamHeartbeat = 4
	streamPolicy    = 5
)

func jobRand(seed uint64, stream uint64, job int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream<<40|uint64(job)))
}

// PolicyRand returns the random stream a policy may draw from; it depends only on
// the seed, so a policy's randomness does not disturb the workload's.
func PolicyRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, streamPolicy<<40)) }

// Workload is a trace prepared for replay on one hardware model and seed: which
// jobs run, when they arrive, and how to materialise each job's tasks (split
// synthesis, block placement and modelled task durations) when it arrives.
//
// It holds nothing per job of a streamed trace or of a held trace without
// tasks: a run takes the replayed jobs in submit order from a cursor
// (jobCursor), which reads a streamed trace (trace.Trace.Stream) from its
// files as the jobs arrive, each job with its tasks when the trace lists
// them (trace.OpenTaskStream). A held trace that lists tasks keeps each
// job's range of them (taskRange, lcRange); the position and submit time of
// every replayed job (jobIndex) are built only for what asks for a job by
// position: alone runs (the observed schedule reads a cursor too). With the lifecycle, what
// it takes from the trace's attempts (retries, fails, specs, recFails) is
// held for the tasks with a failed, killed or speculative attempt, read job
// by job from a streamed trace's attempts (lifecycle_streamed.go), or, in a
// workload built for the observed run only, made for each job as that run
// reads it.
type Workload struct {
	Trace *trace.Trace
	hw    *Hardware
	topo  *Topology
	seed  uint64

	n          int                     // replayed jobs
	firstMs    int64                   // submit time of the first replayed job
	incomplete bool                    // WorkloadOptions.IncludeIncomplete
	only       *replayedJob            // an alone run's workload: its one job (alone.go)
	idx        *jobIndex               // by position, built on demand (index)
	upUs       int64                   // no heartbeat before it (clusterUpUs), relative to the first arrival
	taskRange  [][2]int                // per trace job: its maps and reduces in Trace.Tasks; nil when it lists none
	lcRange    [][2]int                // per trace job: its setup and cleanup tasks, right after; nil likewise
	retries    map[string]int64        // trace mode with the lifecycle: failed attempts' time per task (lifecycle_attempts.go)
	fails      map[string]traceFail    // trace mode with the lifecycle: the tasks of jobs failed by a task (jobfail.go)
	specs      map[string]obsCopy      // trace mode with the lifecycle: observed speculative map attempts (lifecycle_specobs.go)
	recFails   map[string]recordedFail // model mode with the lifecycle: recorded failed attempts per task (lifecycle_modelfail.go)
	leftOut    []LeftOutJob            // trace mode with the lifecycle: the jobs whose attempts it cannot replay, in trace order (traceRetries)
	left       map[string]bool         // their ids; nil when there are none
	net        NetworkModel            // the network key's model (network.go)
	times      TaskTimeModel           // the task_times key's model (tasktimes.go)
	boundChunk int                     // trace jobs per entry of finishBounds; 0 is boundChunk (tests set others)
	// perJob: retries, fails, specs and recFails were not built
	// (WorkloadOptions.Observed); each job's are made as it is handed out
	// (jobLifecycle).
	perJob bool

	// slotWaits is, in trace mode with the lifecycle on a cluster derived
	// from the trace, per task, the part of its launch lag its host had no
	// free slot of its kind (tracemode_slotwait.go); nil when none.
	slotWaits map[string]int64
}

// replayedJob is a replayed job as a cursor hands it out: its trace position
// (which keys its random streams), its trace record and its arrival relative
// to the first replayed job.
type replayedJob struct {
	ti       int
	tj       *trace.Job
	submitUs int64
	tasks    []trace.Task // its tasks in trace order: maps and reduces, then setup and cleanup
	work     int          // its maps and reduces: tasks[:work]
	// attempts is a streamed trace's job's attempts, from a cursor opened
	// with them (jobCursor.attempts); nil otherwise.
	attempts []trace.Attempt
}

// jobIndex is every replayed job's trace position and arrival, by replayed
// position; built once, on demand (Workload.index).
type jobIndex struct {
	once     sync.Once
	jobs     []int
	submitUs []int64
}

// WorkloadOptions chooses which jobs of a trace are replayed.
type WorkloadOptions struct {
	// IncludeIncomplete replays jobs whose history ended without a finish event.
	IncludeIncomplete bool
	// MaxTasksPerHour and MaxTasks raise or lower the limits on the tasks
	// replayed (DefaultMaxTasksPerHour, DefaultMaxTasks when 0).
	MaxTasksPerHour, MaxTasks int64
	// Observed builds the workload for Observed only. With the lifecycle on
	// a streamed trace with attempts, what the lifecycle takes from each
	// job's attempts (its retries, failures and speculative copies) is then
	// not read ahead for every job: the observed run takes it from the
	// tasks and attempts its cursor reads, job by job
	// (lifecycle_streamed.go); only the jobs it leaves out are found ahead.
	// Run refuses such a workload.
	Observed bool
	// LeftOut, with Observed, is the jobs left out found as the streamed
	// trace was checked (a LeftOutSeen given to trace.OpenTaskStream),
	// taken instead of reading its tasks and attempts once more for them;
	// nil: they are read. It must have seen this trace, and all of it
	// (OpenTaskStream succeeded).
	LeftOut *LeftOutSeen
}

// Limits on the tasks of a replayed trace, checked by NewWorkload before any
// task is built. A run materialises a job's tasks when the job arrives and
// holds them until it finishes, about 175 bytes a task (its maps only until
// they have all finished, where no model reads them afterwards:
// Sim.retireMaps), so its memory is set by the tasks of the jobs present at
// once: 1 job of 2^20 maps replays in
// 270 MB, 2 in 440 MB, 6 in 1.17 GB. Which jobs are present at once depends
// on the schedule; what arrives within an hour is known before the run, and on
// any cluster on which an hour's jobs are not done within the hour it is all
// present at once.
const (
	// DefaultMaxTasksPerHour bounds the tasks (maps, reduces, setup and
	// cleanup) of the jobs submitted within any hour of the trace: about
	// 460 MB of tasks if all are present at once. FB-2010, the largest shared
	// trace, submits at most 737,843 within an hour.
	DefaultMaxTasksPerHour = 1 << 21
	// DefaultMaxTasks bounds the tasks of the whole trace, and with them the
	// run's time: twice FB-2010's 16.5 million in 64 MB blocks (8.53 million
	// in 128 MB blocks).
	DefaultMaxTasks = 1 << 25
)

// ErrTooManyTasks is the error of a trace over MaxTasksPerHour or MaxTasks
// (replay --max-tasks-per-hour, --max-tasks raise them).
var ErrTooManyTasks = errors.New("too many tasks")

// eachJob calls fn with every job of tr in trace order, held or streamed.
func eachJob(tr *trace.Trace, fn func(i int, j *trace.Job) error) error {
	if tr.Stream != nil {
		return tr.Stream.Each(fn)
	}
	for i := range tr.Jobs {
		if err := fn(i, &tr.Jobs[i]); err != nil {
			return err
		}
	}
	return nil
}

// eachJobTasks calls fn with every job of tr in trace order with its tasks
// (held or streamed) and its work range, [0, 0] when its maps and reduces
// are synthesized from its sizes (workRange).
func (w *Workload) eachJobTasks(fn func(i int, j *trace.Job, r, lc [2]int) error) error {
	tr := w.Trace
	if tr.Stream == nil || !tr.Stream.HasTasks() {
		return eachJob(tr, func(i int, j *trace.Job) error { return fn(i, j, w.workRange(i), w.lifeRange(i)) })
	}
	c, err := tr.Stream.OpenCounts()
	if err != nil {
		return fmt.Errorf("read trace: %w", err)
	}
	defer c.Close()
	off := 0 // the job's first task's position in the trace's tasks
	for i := 0; ; i++ {
		j, err := c.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read trace: %w", err)
		}
		work, all := c.TaskCounts()
		r, lc := streamedRanges(off, work, all)
		if err := fn(i, j, r, lc); err != nil {
			return err
		}
		off += all
	}
}

// streamedRanges are the ranges mapTasks gives a held trace's job whose
// all tasks, work of them maps and reduces, start at off: [0, 0] for a job
// without tasks.
func streamedRanges(off, work, all int) (r, lc [2]int) {
	if all == 0 {
		return
	}
	return [2]int{off, off + work}, [2]int{off + work, off + all}
}

// workTasks is the maps and reduces at the head of a job's tasks.
func workTasks(tasks []trace.Task) int {
	m := 0
	for m < len(tasks) && tasks[m].Type.IsWork() {
		m++
	}
	return m
}

// NewWorkload prepares tr for replay. Jobs must be sorted by submit time (trace
// readers guarantee it); a job whose tasks are listed is replayed with exactly
// those tasks, one with bytes only gets tasks synthesized from its bytes. A
// streamed trace (tr.Stream) is read once here, to check it (its tasks'
// job ids and types only: JobStream.OpenCounts), and holds nothing per job
// afterwards.
func NewWorkload(tr *trace.Trace, hw *Hardware, topo *Topology, seed uint64, opt WorkloadOptions) (*Workload, error) {
	times := hw.TaskTimeModel()
	hw = runHardware(hw, times) // a YARN container's start-up (yarn_startup.go)
	w := &Workload{Trace: tr, hw: hw, topo: topo, seed: seed, incomplete: opt.IncludeIncomplete, idx: &jobIndex{},
		net: hw.NetworkModel(), times: times}
	if tr.Stream == nil {
		if err := w.mapTasks(); err != nil {
			return nil, err
		}
	}
	if hw.Lifecycle && w.times.UsesTrace() {
		var err error
		if w.slotWaits, err = slotWaits(tr, topo); err != nil {
			return nil, err
		}
	}
	switch {
	case hw.Lifecycle && tr.Stream != nil && tr.Stream.HasAttempts() && opt.Observed:
		// Only the jobs left out, from a few columns of the attempts and
		// tasks; the observed run reads the rest with each job
		// (lifecycle_streamed.go).
		w.perJob = true
		if err := w.streamedLeftOut(opt.LeftOut); err != nil {
			return nil, err
		}
	case hw.Lifecycle && tr.Stream != nil && tr.Stream.HasAttempts():
		// The attempts are read job by job (lifecycle_streamed.go).
		if err := w.streamedAttempts(); err != nil {
			return nil, err
		}
	case hw.Lifecycle && w.times.UsesTrace():
		var err error
		if w.retries, w.leftOut, err = traceRetries(tr, hw, opt.IncludeIncomplete); err != nil {
			return nil, err
		}
		w.fails, w.retries = traceFailures(tr, hw, w.retries)
		// Observed speculative copies take map slots (under flow with their
		// own timer, lifecycle_flowspec.go); on a YARN cluster they are not
		// replayed yet (docs/yarn.md).
		if hw.Speculation == "none" && hw.Cluster != ClusterYARN {
			w.specs = traceSpeculation(tr, hw)
		}
	case hw.Lifecycle:
		w.recFails = recordedFailures(tr, hw) // lifecycle_modelfail.go
	}
	// A job the lifecycle cannot replay from its attempts is left out as
	// an incomplete one is: not counted, not handed out by a cursor (so
	// neither simulated nor in the observed schedule); its tasks' and
	// attempts' hosts still shape the cluster (TraceHardware, clusterUp).
	if len(w.leftOut) > 0 {
		w.left = make(map[string]bool, len(w.leftOut))
		for _, l := range w.leftOut {
			w.left[l.JobID] = true
		}
	}
	// One pass; the first error of each kind is kept and they are returned
	// in the order of the checks of a held trace: a job's containers (all
	// jobs, in mapTasks), then the jobs' order and sizes, then the limits
	// (after every job).
	lim := newTaskLimits(opt)
	var yarnErr, jobErr, limErr error
	var last *trace.Job // the last replayed job
	err := w.eachJobTasks(func(i int, j *trace.Job, r, lc [2]int) error {
		if hw.Cluster == ClusterYARN && tr.Stream != nil && yarnErr == nil {
			// A container the ResourceManager would refuse, or no node can
			// hold, is bad input, found before any run (yarn.go; mapTasks
			// for a held trace).
			_, yarnErr = hw.jobContainers(&Job{Trace: j})
		}
		if jobErr != nil || j.Status == trace.StatusIncomplete && !opt.IncludeIncomplete || w.left != nil && w.left[j.ID] {
			return nil
		}
		if last == nil {
			w.firstMs = j.SubmitMs
		} else if j.SubmitMs < last.SubmitMs {
			jobErr = fmt.Errorf("job %s is submitted before the job listed ahead of it: the trace is not sorted", j.ID)
			return nil
		}
		n := int64(r[1]-r[0]) + int64(lc[1]-lc[0])
		if r == [2]int{0, 0} {
			maps, reduces, err := w.checkSynthSize(j)
			if err != nil {
				jobErr = err
				return nil
			}
			n = maps + reduces
		}
		if limErr == nil {
			limErr = lim.add(j, (j.SubmitMs-w.firstMs)*1000, n)
		}
		last = j
		w.n++
		return nil
	})
	if err == nil {
		err = cmp.Or(yarnErr, jobErr, limErr)
	}
	if err != nil {
		return nil, err
	}
	if w.n == 0 {
		if len(w.leftOut) > 0 {
			return nil, fmt.Errorf("the trace has no job to replay: %d left out, whose attempts the lifecycle cannot replay (job %s: %s)",
				len(w.leftOut), w.leftOut[0].JobID, w.leftOut[0].Reason)
		}
		return nil, fmt.Errorf("the trace has no job to replay")
	}
	if hw.Lifecycle && w.times.UsesTrace() {
		w.upUs, err = w.clusterUp(tr, hw)
		if err != nil {
			return nil, err
		}
	}
	return w, nil
}

// clusterUp is clusterUpUs of tr; of a streamed trace, from the one job
// whose ApplicationMaster started first at or after the first replayed
// submit and the host and start of the one task and the one attempt that
// started first with a host at or after it (the only fields it reads).
func (w *Workload) clusterUp(tr *trace.Trace, hw *Hardware) (int64, error) {
	if tr.Stream == nil {
		return clusterUpUs(tr, w.firstMs, hw), nil
	}
	var first trace.Trace
	if hw.Cluster == ClusterYARN {
		var j0 *trace.Job
		err := tr.Stream.Each(func(_ int, j *trace.Job) error {
			if j.AMStartMs >= w.firstMs && (j0 == nil || j.AMStartMs < j0.AMStartMs) {
				j0 = j
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("read trace: %w", err)
		}
		if j0 != nil {
			first.Jobs = []trace.Job{*j0}
		}
	}
	// The first task's and the first attempt's host and start: the span
	// columns only (trace.JobStream.EachTaskSpan).
	earliest := func(each func(func(int, *trace.Span) error) error) (host string, startMs int64, ok bool, err error) {
		err = each(func(_ int, s *trace.Span) error {
			if s.Host != "" && s.StartMs >= w.firstMs && (!ok || s.StartMs < startMs) {
				host, startMs, ok = s.Host, s.StartMs, true
			}
			return nil
		})
		return host, startMs, ok, err
	}
	host, start, ok, err := earliest(tr.Stream.EachTaskSpan)
	if err != nil {
		return 0, fmt.Errorf("read trace: %w", err)
	}
	if ok {
		first.Tasks = []trace.Task{{Host: host, StartMs: start}}
	}
	host, start, ok, err = earliest(tr.Stream.EachAttemptSpan)
	if err != nil {
		return 0, fmt.Errorf("read trace: %w", err)
	}
	if ok {
		first.Attempts = []trace.Attempt{{Host: host, StartMs: start}}
	}
	return clusterUpUs(&first, w.firstMs, hw), nil
}

// mapTasks finds each job's tasks in a held trace (taskRange, lcRange; left
// nil when the trace lists none), refusing duplicate jobs, tasks of no job
// or out of order, and on a YARN cluster a job whose containers cannot run.
func (w *Workload) mapTasks() error {
	tr, hw := w.Trace, w.hw
	pos := make(map[string]int, len(tr.Jobs)) // dropped when NewWorkload returns
	for i := range tr.Jobs {
		if _, dup := pos[tr.Jobs[i].ID]; dup {
			return fmt.Errorf("job %s appears twice in the trace", tr.Jobs[i].ID)
		}
		pos[tr.Jobs[i].ID] = i
		if hw.Cluster == ClusterYARN {
			// A container the ResourceManager would refuse, or no node can
			// hold, is bad input, found before any run (yarn.go).
			if _, err := hw.jobContainers(&Job{Trace: &tr.Jobs[i]}); err != nil {
				return err
			}
		}
	}
	if len(tr.Tasks) == 0 {
		return nil
	}
	w.taskRange, w.lcRange = make([][2]int, len(tr.Jobs)), make([][2]int, len(tr.Jobs))
	for k := 0; k < len(tr.Tasks); {
		id := tr.Tasks[k].JobID
		e := k
		for e < len(tr.Tasks) && tr.Tasks[e].JobID == id {
			e++
		}
		i, ok := pos[id]
		if !ok {
			return fmt.Errorf("task %s belongs to job %s, which the trace does not list", tr.Tasks[k].TaskID, id)
		}
		if w.taskRange[i] != [2]int{0, 0} || w.lcRange[i] != [2]int{0, 0} {
			return fmt.Errorf("the tasks of job %s are not contiguous in the trace", id)
		}
		// Maps and reduces come first in a job's tasks (trace order); setup and
		// cleanup tasks after them replay only with the lifecycle on.
		m := k
		for m < e && tr.Tasks[m].Type.IsWork() {
			m++
		}
		for x := m; x < e; x++ {
			if tr.Tasks[x].Type.IsWork() {
				return fmt.Errorf("the tasks of job %s are not in trace order (maps and reduces before setup and cleanup)", id)
			}
		}
		w.taskRange[i] = [2]int{k, m}
		w.lcRange[i] = [2]int{m, e}
		k = e
	}
	return nil
}

// heldTasks is held trace job ti's tasks in Trace.Tasks, and how many of
// them are maps and reduces.
func (w *Workload) heldTasks(ti int) (tasks []trace.Task, work int) {
	r, lc := w.workRange(ti), w.lifeRange(ti)
	if r == [2]int{0, 0} && lc == [2]int{0, 0} {
		return nil, 0
	}
	return w.Trace.Tasks[r[0]:lc[1]], r[1] - r[0]
}

// workRange is trace job ti's maps and reduces in Trace.Tasks, [0, 0] when
// the trace lists none.
func (w *Workload) workRange(ti int) [2]int {
	if w.taskRange == nil {
		return [2]int{}
	}
	return w.taskRange[ti]
}

// lifeRange is trace job ti's setup and cleanup tasks in Trace.Tasks.
func (w *Workload) lifeRange(ti int) [2]int {
	if w.lcRange == nil {
		return [2]int{}
	}
	return w.lcRange[ti]
}

// MaxSynthTasksPerJob bounds the maps (one per block of input) and the reduces
// replay synthesizes for a job the trace gives only by its sizes: a byte count
// of a few digits could otherwise ask for billions of tasks.
const MaxSynthTasksPerJob = 1 << 20

// taskLimits refuses, before any task is built, a trace whose jobs submitted
// within an hour, or all of them, have more tasks than the limits
// (opt.MaxTasksPerHour, opt.MaxTasks). It is told each replayed job in
// order (add) and holds the jobs of the last hour only.
type taskLimits struct {
	perHour, total int64
	sum, all       int64 // tasks of the jobs in the window, of every job so far
	win            []limitJob
	lo             int // the window's first job in win
	k              int // jobs so far
}

type limitJob struct {
	id       string
	submitMs int64
	submitUs int64
	tasks    int64
}

func newTaskLimits(opt WorkloadOptions) *taskLimits {
	l := &taskLimits{perHour: opt.MaxTasksPerHour, total: opt.MaxTasks}
	if l.perHour <= 0 {
		l.perHour = DefaultMaxTasksPerHour
	}
	if l.total <= 0 {
		l.total = DefaultMaxTasks
	}
	return l
}

// add takes the next replayed job, j, arriving at submitUs with n tasks.
func (l *taskLimits) add(j *trace.Job, submitUs, n int64) error {
	const hourUs = 3600 * 1_000_000
	l.win = append(l.win, limitJob{id: j.ID, submitMs: j.SubmitMs, submitUs: submitUs, tasks: n})
	l.k++
	l.sum += n
	l.all += n
	for submitUs-l.win[l.lo].submitUs >= hourUs {
		l.sum -= l.win[l.lo].tasks
		l.lo++
	}
	if l.lo > 1024 && l.lo > len(l.win)/2 { // drop what left the window
		l.win = append(l.win[:0], l.win[l.lo:]...)
		l.lo = 0
	}
	if l.sum > l.perHour {
		a, b := &l.win[l.lo], &l.win[len(l.win)-1]
		return fmt.Errorf("%w: the %d jobs submitted within an hour from job %s (%d s) to job %s (%d s) have %d tasks, more than the limit of %d an hour (a run holds about 175 bytes a task of the jobs present at once; replay --max-tasks-per-hour raises it)",
			ErrTooManyTasks, len(l.win)-l.lo, a.id, a.submitMs/1000, b.id, b.submitMs/1000, l.sum, l.perHour)
	}
	if l.all > l.total {
		return fmt.Errorf("%w: the first %d jobs, to job %s, have %d tasks, more than the limit of %d for a trace (replay --max-tasks raises it)",
			ErrTooManyTasks, l.k, j.ID, l.all, l.total)
	}
	return nil
}

// checkSynthSize refuses, before anything is built, a job whose synthesized
// tasks would exceed MaxSynthTasksPerJob; it returns the maps and reduces
// replay synthesizes for the job.
func (w *Workload) checkSynthSize(j *trace.Job) (maps, reduces int64, err error) {
	block := int64(w.hw.BlockSizeMB) * mib
	maps = int64(j.NumMaps)
	if j.InputBytes >= 0 || j.NumMaps <= 0 {
		maps = max(j.InputBytes, 0)/block + 1
	}
	if maps > MaxSynthTasksPerJob {
		return 0, 0, fmt.Errorf("job %s: %d input bytes in blocks of %d MB make %d maps, more than the limit of %d per job",
			j.ID, j.InputBytes, w.hw.BlockSizeMB, maps, MaxSynthTasksPerJob)
	}
	reduces = int64(j.NumReduces)
	if reduces < 0 {
		reduces = trace.SynthReduces(max(j.ShuffleBytes, 0), j.OutputBytes, w.hw.ReduceMBPerTask*mib, w.maxReduces())
	}
	if reduces > MaxSynthTasksPerJob {
		return 0, 0, fmt.Errorf("job %s: %d reduces, more than the limit of %d per job", j.ID, reduces, MaxSynthTasksPerJob)
	}
	return maps, reduces, nil
}

// Len is the number of replayed jobs.
func (w *Workload) Len() int { return w.n }

// LeftOut is the jobs of the trace the workload leaves out because the
// lifecycle cannot replay them from their attempts (trace mode with the
// lifecycle: an attempt outside its job's lifetime by more than 10 minutes,
// or a map or reduce of a successful job without a successful attempt), in
// trace order, each with why; nil when there are none. Their runs record
// them (RunSummary.JobsLeftOut).
func (w *Workload) LeftOut() []LeftOutJob { return w.leftOut }

// index is every replayed job's trace position and arrival by replayed
// position, built on the first call (8 + 8 bytes a job): for what asks for
// jobs by position (alone runs). A streamed trace is read for it.
func (w *Workload) index() *jobIndex {
	w.idx.once.Do(func() {
		if w.only != nil {
			w.idx.jobs, w.idx.submitUs = []int{w.only.ti}, []int64{w.only.submitUs}
			return
		}
		w.idx.jobs, w.idx.submitUs = make([]int, 0, w.n), make([]int64, 0, w.n)
		c := w.cursor()
		defer c.close()
		for {
			r, ok, err := c.next()
			if err != nil || !ok {
				return // a streamed trace read once already: checked by NewWorkload
			}
			w.idx.jobs = append(w.idx.jobs, r.ti)
			w.idx.submitUs = append(w.idx.submitUs, r.submitUs)
		}
	})
	return w.idx
}

// buildAt materialises replayed job k, found by position (index).
func (w *Workload) buildAt(k int) *Job {
	ix := w.index()
	return w.build(k, w.jobAt(ix.jobs[k], ix.submitUs[k]), nil)
}

// jobAt is trace job ti, arriving at submitUs, as a cursor hands it out; a
// streamed trace is read up to it.
func (w *Workload) jobAt(ti int, submitUs int64) replayedJob {
	r := replayedJob{ti: ti, submitUs: submitUs}
	s := w.Trace.Stream
	switch {
	case s == nil:
		r.tj = &w.Trace.Jobs[ti]
		r.tasks, r.work = w.heldTasks(ti)
	case !s.HasTasks():
		r.tj = w.traceJob(ti)
	default:
		c, err := s.OpenTasks()
		if err != nil {
			return r // a streamed trace read once already: checked by NewWorkload
		}
		defer c.Close()
		for i := 0; i <= ti; i++ {
			if r.tj, err = c.Next(); err != nil {
				return r
			}
		}
		r.tasks = c.Tasks()
		r.work = workTasks(r.tasks)
	}
	return r
}

// traceJob is the trace's job at position ti; a streamed trace is read up
// to it.
func (w *Workload) traceJob(ti int) *trace.Job {
	if w.Trace.Stream == nil {
		return &w.Trace.Jobs[ti]
	}
	var tj *trace.Job
	w.Trace.Stream.Each(func(i int, j *trace.Job) error {
		if i == ti {
			tj = j
			return io.EOF // found: stop reading
		}
		return nil
	})
	return tj
}

// jobCursor hands out a workload's replayed jobs in submit order (next);
// close it.
type jobCursor struct {
	w    *Workload
	i    int              // the next trace position
	c    *trace.JobCursor // a streamed trace's, once opened
	err  error            // opening the stream failed
	done bool
	// attempts, set before the first next, has a streamed trace's cursor
	// hand out each job's attempts too (replayedJob.attempts).
	attempts bool
}

// cursor opens a cursor on w's replayed jobs.
func (w *Workload) cursor() *jobCursor { return &jobCursor{w: w} }

// next returns the next replayed job; ok is false after the last.
func (c *jobCursor) next() (r replayedJob, ok bool, err error) {
	w := c.w
	if c.done {
		return r, false, c.err
	}
	if w.only != nil {
		c.done = true
		return *w.only, true, nil
	}
	for {
		var tj *trace.Job
		if s := w.Trace.Stream; s != nil {
			if c.c == nil {
				open := s.OpenTasks
				if c.attempts {
					open = s.OpenAttempts
				}
				if c.c, err = open(); err != nil {
					c.done, c.err = true, fmt.Errorf("read trace: %w", err)
					return r, false, c.err
				}
			}
			if tj, err = c.c.Next(); err != nil {
				c.done = true
				if errors.Is(err, io.EOF) {
					return r, false, nil
				}
				c.err = fmt.Errorf("read trace: %w", err)
				return r, false, c.err
			}
		} else {
			if c.i >= len(w.Trace.Jobs) {
				c.done = true
				return r, false, nil
			}
			tj = &w.Trace.Jobs[c.i]
		}
		ti := c.i
		c.i++
		if tj.Status == trace.StatusIncomplete && !w.incomplete || w.left != nil && w.left[tj.ID] {
			continue
		}
		r = replayedJob{ti: ti, tj: tj, submitUs: (tj.SubmitMs - w.firstMs) * 1000}
		if c.c != nil {
			r.tasks = c.c.Tasks()
			r.work = workTasks(r.tasks)
			r.attempts = c.c.Attempts()
		} else {
			r.tasks, r.work = w.heldTasks(ti)
		}
		return r, true, nil
	}
}

// close releases a streamed trace's file.
func (c *jobCursor) close() {
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
	c.done = true
}

const mib = 1 << 20

// bytesUs is the time in microseconds to move b bytes at r MB/s (1 MB = 10^6 bytes,
// so r MB/s is r bytes per microsecond); a rate of 0 means no cost.
func bytesUs(b int64, r float64) float64 {
	if r <= 0 || b <= 0 {
		return 0
	}
	return float64(b) / r
}

// logNormal is the log-normal duration factor with mean 1 and the model's
// CV, its parameters worked out once for a job's tasks (newNoise) instead
// of at every draw.
type logNormal struct {
	off   bool    // CV 0: every factor is 1, and nothing is drawn
	mu    float64 // -s2/2, s2 = log(1 + cv²)
	sigma float64 // √s2
}

// newNoise is the log-normal factor with mean 1 and CV cv.
func newNoise(cv float64) logNormal {
	if cv == 0 {
		return logNormal{off: true}
	}
	s2 := math.Log1p(cv * cv)
	return logNormal{mu: -s2 / 2, sigma: math.Sqrt(s2)}
}

// draw is one factor, exp(-s2/2 + √s2·z) for a standard normal z.
func (l logNormal) draw(rng *rand.Rand) float64 {
	if l.off {
		return 1
	}
	return math.Exp(l.mu + l.sigma*rng.NormFloat64())
}

// build materialises replayed job k, rj as the workload's cursor handed it
// out: its map splits with replicas and modelled durations, and its
// reduces. It depends only on the seed and the job's trace position.
// splits, if not nil, is the caller's scratch for a job without tasks'
// map input and output sizes (Sim.splits), which build only reads while
// it runs.
func (w *Workload) build(k int, rj replayedJob, splits *[]int64) *Job {
	ti, tj := rj.ti, rj.tj
	hw := w.hw
	j := &Job{Index: int32(k), Trace: tj, SubmitUs: rj.submitUs}
	place := jobRand(w.seed, streamPlacement, ti)
	dur := jobRand(w.seed, streamDurations, ti)
	durNoise := newNoise(hw.DurationCV)
	var faults *rand.Rand
	if hw.faultsOn() {
		faults = jobRand(w.seed, streamFaults, ti)
	}
	block := int64(hw.BlockSizeMB) * mib
	mapMax, redMax, mapPct, redPct := failLimits(tj)
	j.life.fail.mapPercent, j.life.fail.reducePercent = mapPct, redPct

	tasks := rj.tasks[:rj.work]
	var mapIn []int64
	var mapOut []int64
	var redShuffle, redOut []int64
	var mapObs, redObs []int64 // observed durations in µs, -1 unknown
	var mapTT, redTT []*trace.Task
	if len(tasks) > 0 {
		for t := range tasks {
			tt := &tasks[t]
			if tt.Type == trace.Map {
				mapIn = append(mapIn, tt.InputBytes)
				mapOut = append(mapOut, tt.OutputBytes)
				mapObs = append(mapObs, w.taskObs(tj, tt))
				mapTT = append(mapTT, tt)
			} else {
				redShuffle = append(redShuffle, tt.ShuffleBytes)
				redOut = append(redOut, tt.OutputBytes)
				redObs = append(redObs, w.taskObs(tj, tt))
				redTT = append(redTT, tt)
			}
		}
		if len(mapIn) == 0 { // a job must map: give it one empty split
			mapIn, mapOut = []int64{0}, []int64{0}
		}
		fillUnknown(mapIn, tj.InputBytes, block)
		fillUnknown(mapOut, tj.ShuffleBytes, 0)
		fillUnknown(redShuffle, tj.ShuffleBytes, 0)
		fillUnknown(redOut, tj.OutputBytes, 0)
	} else {
		in := tj.InputBytes
		var n, last int64
		if in < 0 && tj.NumMaps > 0 {
			n, last = int64(tj.NumMaps), block
			in = n * block
		} else {
			n, last = trace.Splits(in, block)
		}
		var buf []int64
		if splits != nil && int64(cap(*splits)) >= 2*n {
			buf = (*splits)[:2*n]
		} else {
			buf = make([]int64, 2*n)
			if splits != nil {
				*splits = buf
			}
		}
		mapIn, mapOut = buf[:n:n], buf[n:]
		for i := range mapIn {
			mapIn[i] = block
		}
		mapIn[n-1] = last
		shuffle := max(tj.ShuffleBytes, 0)
		for i := range mapOut {
			if in > 0 {
				mapOut[i] = int64(float64(shuffle) * float64(mapIn[i]) / float64(in))
			} else {
				mapOut[i] = shuffle / n
			}
		}
		var r int64
		if tj.NumReduces >= 0 {
			r = int64(tj.NumReduces)
		} else {
			r = trace.SynthReduces(shuffle, tj.OutputBytes, hw.ReduceMBPerTask*mib, w.maxReduces())
		}
		redShuffle = make([]int64, r)
		redOut = make([]int64, r)
		for i := range redShuffle {
			redShuffle[i] = shuffle / r
			redOut[i] = max(tj.OutputBytes, 0) / r
		}
	}

	// Maps: placement then durations, each from its own stream.
	repl := min(hw.Replication, len(w.topo.DataNodes))
	j.replication = int32(repl)
	j.replicas = make([]int32, 0, len(mapIn)*repl)
	j.Maps = make([]MapTask, len(mapIn))
	rackAware := hw.Placement == PlacementRackAware
	if !w.traceReplicas(j, mapTT, len(mapIn), place, rackAware) {
		j.replicas = w.placeSplits(j.replicas, tj, len(mapIn), repl, place, rackAware) // datasets.go
	}
	var sumMap, maxMap float64
	var disk *jobDisk // network = "flow": disk time is in the task's flows (network_disk.go)
	if w.net.Retimes() {
		disk = w.newJobDisk(ti, len(mapIn), len(redShuffle))
		j.out.disk = disk
	}
	for i := range j.Maps {
		m := &j.Maps[i]
		m.InputBytes = mapIn[i]
		m.OutputBytes = mapOut[i]
		// No input and no recorded location: no replicas (MapTask.NoInput). Its
		// block was drawn above all the same, so the other maps' placement is
		// what it was.
		m.noInput = m.InputBytes == 0 && (i >= len(mapTT) || len(mapTT[i].PreferredHosts) == 0)
		f := durNoise.draw(dur)
		compute := hw.mapComputeMBps(m.InputBytes, m.OutputBytes, len(redShuffle)) // maprate.go
		work := f * (bytesUs(m.InputBytes+m.OutputBytes, hw.DiskMBps) + bytesUs(m.InputBytes, compute))
		m.localUs = int64(hw.TaskStartup) + int64(math.Ceil(work))
		if disk != nil {
			m.localUs = disk.mapLocalUs(hw, i, m, f, compute)
		}
		lagUs := int64(-1) // the observed launch lag held before the attempt (tracemode.go)
		if i < len(mapObs) && mapObs[i] >= 0 {
			obs := mapObs[i]
			if o := w.specOrigUs(tj, mapTT[i]); o >= 0 {
				obs = o // the original was killed: its copy succeeded (lifecycle_specobs.go)
			} else {
				lagUs = w.heldLagUs(tj, mapTT[i], launchLagUs(hw, mapTT[i]))
			}
			if hw.Lifecycle && lagUs < 0 {
				// An attempt's recorded start is after its assignment: by the
				// launch lag, which task_startup stands for when the trace does
				// not record it (tracemode.go).
				obs += int64(hw.TaskStartup)
			}
			if rule, obsUs := hw.observedMap(m, mapTT[i], obs, w.net); rule != obsNone {
				x := j.extra(int32(i))
				x.obs, x.obsUs = rule, obsUs
			}
			if disk != nil && j.obsOf(int32(i)) == obsNone {
				disk.setTimed(hw, i, m.localUs) // its observed time, not the disk model's (network_disk.go)
			}
		}
		var retryUs int64 // mapExtra.retryUs
		if i < len(mapTT) && w.retries != nil {
			retryUs = w.retries[retryKey(tj.ID, mapTT[i].TaskID)]
		}
		if lagUs >= 0 {
			retryUs += lagUs // the slot is held from the assignment
			j.histLags(len(mapIn), len(redShuffle)).maps[i] = lagUs
			if rep := taskReportUs(hw, mapTT[i], lagUs); rep >= 0 && !w.failsLast(tj, mapTT[i]) {
				j.hist.setReport(false, i, rep) // reported at its recorded report (lifecycle.go)
			}
		}
		if i < len(mapTT) && w.fails != nil && w.fails[retryKey(tj.ID, mapTT[i].TaskID)].fate == fateFail {
			j.life.fail.setMapFate(i, len(j.Maps), fateFail)
		}
		var mapT *trace.Task
		if i < len(mapTT) {
			mapT = mapTT[i]
		}
		if fd, lastUs, rec := w.recordedFaults(tj, mapT, w.drawnFaults(faults, m.localUs, mapMax), m.localUs); faults != nil || rec {
			total := fd.stretchedUs + fd.failedUs
			if fd.failed {
				total = fd.failedUs
				j.life.fail.setMapFate(i, len(j.Maps), fateFail)
			}
			retryUs += total - m.localUs
			if disk != nil {
				disk.setMapFaults(i, fd, fd.stretchedUs-m.localUs) // network_disk.go
				if lastUs > 0 {
					// Its recorded last attempt fails: under flow it runs
					// as a timed map for that attempt's time, after the
					// earlier ones (lifecycle_modelfail.go).
					retryUs += m.localUs - lastUs
					disk.setTimed(hw, i, lastUs)
				}
			}
		}
		if retryUs != 0 {
			j.extra(int32(i)).retryUs = retryUs
		}
		m.Node, m.specNode = -1, -1
		ideal := float64(m.localUs)
		if i < len(mapTT) {
			ideal = float64(w.idealMapUs(tj, mapTT[i], m.localUs)) // an observed copy may finish first
		}
		if lagUs >= 0 {
			ideal += float64(hw.TaskStartup) // alone, it starts up as modelled: no observed lag
		}
		sumMap += ideal
		maxMap = max(maxMap, ideal)
	}
	w.setObsCopies(j, mapTT)
	j.Reduces = make([]ReduceTask, len(redShuffle))
	lastMapMs := observedLastMapEnd(hw, w.times, mapTT)
	var maxRed, sumRed float64
	nMaps := float64(len(j.Maps))
	for i := range j.Reduces {
		r := &j.Reduces[i]
		r.ShuffleBytes = redShuffle[i]
		r.OutputBytes = redOut[i]
		f := durNoise.draw(dur)
		// The copy at the NIC rate, then the fetch rounds' latency on top.
		netCopyUs := int64(hw.TaskStartup) + int64(math.Ceil(bytesUs(r.ShuffleBytes, hw.NICMBps)))
		r.copyUs = netCopyUs + hw.fetchOverheadUs(len(j.Maps))
		r.tailUs = int64(math.Ceil(bytesUs(r.ShuffleBytes, hw.NICMBps) / nMaps))
		if hw.ShuffleFetchLatency > 0 {
			r.tailUs += int64(hw.ShuffleFetchLatency)
		}
		// the sort (merge) phase, then the reduce function (sort_mb_per_s 0: free)
		work := f * (bytesUs(r.ShuffleBytes+r.OutputBytes, hw.DiskMBps) + bytesUs(r.ShuffleBytes, hw.ReduceComputeMBps) + bytesUs(r.ShuffleBytes, hw.SortMBps))
		r.workUs = int64(math.Ceil(work))
		if disk != nil {
			r.workUs = disk.reduceWorkUs(hw, i, r, f)
		}
		if i < len(redObs) && redObs[i] >= 0 {
			if disk != nil {
				disk.redOut[i] = false // the observed work holds the output write
			}
			// The observed time covers copy and reduce work; the copy is modelled
			// (it depends on when the maps end), the rest is the reduce work. The
			// fetch rounds are the model's own cost, added to it.
			r.workUs = observedReduceWork(redTT[i], redObs[i], netCopyUs)
			if tail, ok := observedCopyTail(redTT[i], lastMapMs); ok {
				r.copyUs = int64(hw.TaskStartup)
				r.tailUs, r.obsTail = tail, true
			}
			if lag := w.heldLagUs(tj, redTT[i], launchLagUs(hw, redTT[i])); lag >= 0 {
				// Its slot held for the observed launch lag instead of
				// task_startup (tracemode.go).
				j.histLags(len(j.Maps), len(j.Reduces)).reduces[i] = lag
				if rep := taskReportUs(hw, redTT[i], lag); rep >= 0 && !w.failsLast(tj, redTT[i]) {
					j.hist.setReport(true, i, rep) // reported at its recorded report (lifecycle.go)
				}
				lag -= int64(hw.TaskStartup)
				r.copyUs += lag
				if disk != nil {
					disk.addReduceRetry(i, lag) // network_disk.go
				}
			}
		}
		if i < len(redTT) && w.retries != nil {
			// A failed reduce attempt held the slot before the successful one.
			r.copyUs += w.retries[retryKey(tj.ID, redTT[i].TaskID)]
			if disk != nil {
				disk.addReduceRetry(i, w.retries[retryKey(tj.ID, redTT[i].TaskID)]) // network_disk.go
			}
		}
		if i < len(redTT) && w.fails != nil && w.fails[retryKey(tj.ID, redTT[i].TaskID)].fate == fateFail && redObs[i] >= 0 {
			// Its earlier attempts, then its recorded last one, which fails.
			j.life.fail.setReduceFate(i, len(j.Reduces), fateFail, w.retries[retryKey(tj.ID, redTT[i].TaskID)]+redObs[i]+int64(hw.TaskStartup))
		}
		var redT *trace.Task
		if i < len(redTT) {
			redT = redTT[i]
		}
		if fd, _, rec := w.recordedFaults(tj, redT, w.drawnFaults(faults, r.copyUs+r.workUs, redMax), r.copyUs+r.workUs); faults != nil || rec {
			total := fd.stretchedUs + fd.failedUs
			if fd.failed {
				total = fd.failedUs
				j.life.fail.setReduceFate(i, len(j.Reduces), fateFail, total)
			}
			r.copyUs += total - r.copyUs - r.workUs
			if disk != nil {
				disk.setReduceFaults(i, fd) // network_disk.go
			}
		}
		r.Node = -1
		tail := r.tailUs
		if hw.Shuffle == ShuffleTopology || w.net.Retimes() {
			tail = 0 // the last map's output may lie on the reduce's own node: no copy after it
		}
		post := float64(tail + r.workUs)
		if disk != nil {
			post = float64(tail + disk.reducePostUs(hw, i, r))
		}
		maxRed = max(maxRed, post)
		sumRed += post
	}
	// The ideal: the job alone on the cluster, launched the instant it arrives,
	// every map local. Maps need at least their longest task and their total
	// work spread over all map slots; reduces cannot finish their last copy and
	// their reduce work before the last map ends.
	mapPhase := max(maxMap, math.Ceil(sumMap/float64(hw.TotalMapSlots())))
	redPhase := 0.0
	if len(j.Reduces) > 0 {
		redPhase = max(maxRed, math.Ceil(sumRed/float64(hw.TotalReduceSlots())))
	}
	j.IdealUs = int64(mapPhase + redPhase)
	if hw.Lifecycle {
		w.lifeOf(j, rj.tasks, rj.work)
		w.slotAMOf(j, rj.tasks, rj.work) // yarn_slotam.go
	}
	return j
}

// taskObs is task tt's observed duration, or for a task of a job failed by
// a task that never ran, the job's observed lifetime (jobfail.go).
func (w *Workload) taskObs(tj *trace.Job, tt *trace.Task) int64 {
	if w.fails != nil {
		if f := w.fails[retryKey(tj.ID, tt.TaskID)]; f.lifeUs > 0 {
			return f.lifeUs
		}
	}
	return w.times.ObservedUs(tt)
}

func (w *Workload) maxReduces() int {
	if w.hw.MaxReducesPerJob > 0 {
		return w.hw.MaxReducesPerJob
	}
	return w.hw.TotalReduceSlots()
}

// fillUnknown replaces Unknown entries by an even share of the job's total (or by
// def when the total is unknown too).
func fillUnknown(v []int64, total int64, def int64) {
	known, unknown := int64(0), int64(0)
	for _, x := range v {
		if x < 0 {
			unknown++
		} else {
			known += x
		}
	}
	if unknown == 0 {
		return
	}
	share := def
	if total >= 0 {
		share = max(total-known, 0) / unknown
	}
	for i, x := range v {
		if x < 0 {
			v[i] = share
		}
	}
}
