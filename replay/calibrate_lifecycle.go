package replay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tracereplay/tracereplay/trace"
)

// parallelCopies is the number of map outputs a reduce fetches at once: the
// base model's parallel_copies, else Hadoop's default 5.
func parallelCopies(h Hardware) int {
	if h.ParallelCopies > 0 {
		return h.ParallelCopies
	}
	return 5
}

// commonConfSlots returns the most common positive value of slots over the jobs (the
// smaller on a tie) and the number of jobs that give one.
func commonConfSlots(tr *trace.Trace, slots func(*trace.Job) int32) (value, jobs int) {
	count := map[int32]int{}
	for i := range tr.Jobs {
		if s := slots(&tr.Jobs[i]); s > 0 {
			count[s]++
			jobs++
		}
	}
	best := int32(0)
	for s, n := range count {
		if best == 0 || n > count[best] || n == count[best] && s < best {
			best = s
		}
	}
	return int(best), jobs
}

// fitSlots sets map_slots and reduce_slots from the job confs
// (mapred.tasktracker.{map,reduce}.tasks.maximum) when they give them, else
// from the peak concurrency per host, and out_of_band_heartbeat when the job
// confs record mapreduce.tasktracker.outofband.heartbeat (the rule of trace
// mode, confOutOfBandHeartbeat); without it the base model's stays.
func (c *Calibration) fitSlots(tr *trace.Trace, hosts int) {
	peakMaps, peakReduces, _ := peakConcurrency(tr, useChunk) // a held trace: nothing to read, no error
	for _, k := range []struct {
		key, conf string
		slots     func(*trace.Job) int32
		peak      int
	}{
		{"map_slots", "mapred.tasktracker.map.tasks.maximum", func(j *trace.Job) int32 { return j.ConfMapSlots }, peakMaps},
		{"reduce_slots", "mapred.tasktracker.reduce.tasks.maximum", func(j *trace.Job) int32 { return j.ConfReduceSlots }, peakReduces},
	} {
		if v, n := commonConfSlots(tr, k.slots); n > 0 {
			c.add(k.key, strconv.Itoa(v), fmt.Sprintf("%s of the job confs (most common value; peak concurrency per host was %d)", k.conf, k.peak), n)
			continue
		}
		c.add(k.key, strconv.Itoa(k.peak), "peak number of such tasks running at once on one host (no job conf gives "+k.conf+"); samples are hosts", hosts)
	}
	if on, trues, n := confOutOfBandHeartbeat(tr); n > 0 {
		c.add("out_of_band_heartbeat", strconv.FormatBool(on),
			fmt.Sprintf("mapreduce.tasktracker.outofband.heartbeat of the job confs (%d of %d say true; on when more say true than false)", trues, n), n)
	}
}

// fitSetupCleanup fits the setup and cleanup task durations: the median
// observed attempt duration of each kind, plus the median launch lag of the
// trace's tasks when it records at least minFitSamples of them
// (setupCleanupLag).
func (c *Calibration) fitSetupCleanup(tr *trace.Trace, observed func(*trace.Task) bool) {
	lag, lags := setupCleanupLag(tr, observed)
	for _, k := range []struct {
		key string
		typ trace.TaskType
	}{{"setup_task", trace.Setup}, {"cleanup_task", trace.Cleanup}} {
		var d []float64
		for i := range tr.Tasks {
			t := &tr.Tasks[i]
			if t.Type == k.typ && observed(t) {
				d = append(d, msUs(t.FinishMs-t.StartMs))
			}
		}
		if len(d) == 0 {
			c.note("%s: the trace has no %s tasks with observed times (.jhist runs them in the ApplicationMaster)", k.key, k.typ)
			continue
		}
		slices.Sort(d)
		how := fmt.Sprintf("median observed duration of the %s tasks (p90 %s)", k.typ, durationValue(percentileSorted(d, 0.9)))
		if lags >= minFitSamples {
			how = fmt.Sprintf("median observed duration of the %s attempts (%s, p90 %s) plus the median launch lag of the trace's tasks (%s over %d tasks: the TaskTracker's launch, from the JobTracker's assignment to the attempt's start, which holds the slot and which model mode has no other time for)",
				k.typ, durationValue(median(d)), durationValue(percentileSorted(d, 0.9)), durationValue(lag), lags)
		}
		c.add(k.key, durationValue(median(d)+lag), how, len(d))
	}
	if lags > 0 && lags < minFitSamples {
		c.note("launch lag: %d tasks record one, fewer than %d: setup_task and cleanup_task are their attempts' medians alone", lags, minFitSamples)
	}
	c.fitAM(tr)
	var failed, killed int
	for i := range tr.Attempts {
		switch tr.Attempts[i].Status {
		case trace.StatusFailed:
			failed++
		case trace.StatusKilled:
			killed++
		}
	}
	if len(tr.Attempts) > 0 {
		c.note("attempts: %d recorded, %d failed, %d killed (trace mode replays them as observed; not a model key)", len(tr.Attempts), failed, killed)
	}
	c.noteKillDelay(tr)
}

// setupCleanupLag is the median launch lag (trace.Task.LaunchLagMs: the
// attempt's start less its task's, Hadoop 1 histories) over the trace's
// observed tasks of every kind that record one, in µs, and their number; 0
// when fewer than minFitSamples do. A Hadoop 1 setup or cleanup task holds
// its slot from the JobTracker's assignment at a heartbeat, through the
// TaskTracker's localisation and launch (TaskTracker.TaskInProgress.launchTask
// sets the attempt's START_TIME after it, apache/hadoop branch-1), to its
// attempt's end; the attempt's duration alone leaves the lag out, and model
// mode, which replays setup_task from the assignment, would run the task
// short by it. The lag is the same TaskTracker code path for maps, reduces,
// setup and cleanup tasks, so all kinds are pooled (a history has one setup
// and one cleanup task per job against its many maps and reduces). Traces without it (.jhist, YARN-id Rumen traces, schema before 2.2) give 0.
func setupCleanupLag(tr *trace.Trace, observed func(*trace.Task) bool) (float64, int) {
	var lags []float64
	for i := range tr.Tasks {
		if t := &tr.Tasks[i]; observed(t) && t.LaunchLagMs >= 0 {
			lags = append(lags, msUs(t.LaunchLagMs))
		}
	}
	if len(lags) < minFitSamples {
		return 0, len(lags)
	}
	slices.Sort(lags)
	return median(lags), len(lags)
}

// noteKillDelay notes, over the killed attempts of maps and reduces whose
// task has one successful attempt and that ended after it started (the
// losers of speculation), the time from the successful attempt's end to the
// killed one's recorded end, which the replay's kill (lifecycle_kill.go)
// stands for: at most a heartbeat plus cleanup_task after the winner's
// report.
func (c *Calibration) noteKillDelay(tr *trace.Trace) {
	byTask := map[string][]*trace.Attempt{}
	for i := range tr.Attempts {
		if a := &tr.Attempts[i]; a.Type.IsWork() && a.StartMs >= 0 && a.FinishMs >= a.StartMs {
			k := retryKey(a.JobID, a.TaskID)
			byTask[k] = append(byTask[k], a)
		}
	}
	var d []float64
	for _, as := range byTask {
		var succ *trace.Attempt
		n := 0
		for _, a := range as {
			if a.Status == trace.StatusSucceeded {
				succ, n = a, n+1
			}
		}
		if n != 1 {
			continue
		}
		for _, a := range as {
			if a.Status == trace.StatusKilled && a.FinishMs > succ.StartMs {
				d = append(d, msUs(a.FinishMs-succ.FinishMs))
			}
		}
	}
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	c.note("speculative kills: %d killed attempts beside a successful one; from its end to theirs: median %s, p90 %s (the replay kills a losing copy at its node's first heartbeat after the winner's report and frees its slot cleanup_task later, lifecycle_kill.go; not a model key)",
		len(d), durationValue(median(d)), durationValue(percentileSorted(d, 0.9)))
}

// fitRetryContainerDelay fits retry_container_delay, the YARN
// ApplicationMaster's container round trip (lifecycle_ext.go): the median,
// over the jobs that record their ApplicationMaster, of the time from a failed
// or killed map or reduce attempt's end to the start of its task's next
// attempt. A trace with no such retry gets, noted as such, the median time
// from JOB_INITED to the job's first attempt's start, the same round trip for
// the job's first containers (2,122–2,212 ms in the five .jhist histories of
// the validation set, against 1,321–2,844 ms, median 1,660 ms, for their nine
// retries).
func (c *Calibration) fitRetryContainerDelay(tr *trace.Trace) {
	jobs := map[string]*trace.Job{}
	for i := range tr.Jobs {
		if j := &tr.Jobs[i]; j.AMStartMs >= 0 {
			jobs[j.ID] = j
		}
	}
	if len(jobs) == 0 {
		return
	}
	byTask := map[string][]*trace.Attempt{}
	first := map[string]int64{}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if jobs[a.JobID] == nil || !a.Type.IsWork() || a.StartMs < 0 {
			continue
		}
		k := retryKey(a.JobID, a.TaskID)
		byTask[k] = append(byTask[k], a)
		if f, ok := first[a.JobID]; !ok || a.StartMs < f {
			first[a.JobID] = a.StartMs
		}
	}
	var gaps []float64
	for _, as := range byTask {
		slices.SortFunc(as, func(x, y *trace.Attempt) int { return cmp.Compare(x.StartMs, y.StartMs) })
		for x := 1; x < len(as); x++ {
			p := as[x-1]
			if (p.Status == trace.StatusFailed || p.Status == trace.StatusKilled) && p.FinishMs >= 0 && p.FinishMs <= as[x].StartMs {
				gaps = append(gaps, msUs(as[x].StartMs-p.FinishMs))
			}
		}
	}
	var inits []float64
	for id, f := range first {
		if j := jobs[id]; j.LaunchMs >= 0 && f >= j.LaunchMs {
			inits = append(inits, msUs(f-j.LaunchMs))
		}
	}
	slices.Sort(gaps)
	slices.Sort(inits)
	initNote := ""
	if len(inits) > 0 {
		initNote = fmt.Sprintf("; JOB_INITED to the job's first attempt: median %s over %d jobs", durationValue(median(inits)), len(inits))
	}
	switch {
	case len(gaps) > 0:
		c.add("retry_container_delay", durationValue(median(gaps)), fmt.Sprintf("median time from a failed or killed attempt's end to its task's next attempt's start, in the jobs that record a YARN ApplicationMaster (p90 %s%s)", durationValue(percentileSorted(gaps, 0.9)), initNote), len(gaps))
	case len(inits) > 0:
		c.add("retry_container_delay", durationValue(median(inits)), "no attempt of a YARN job was retried: median time from JOB_INITED to the job's first attempt's start, the same container request round trip of the ApplicationMaster (in the validation set's .jhist histories it is about 0.5 s longer than the retries')", len(inits))
	}
}

// medianOf is the median of v, which it leaves unsorted.
func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return median(s)
}

// fitAM fits the YARN model's AM times from the jobs that record their
// ApplicationMaster's start: am_launch, the median submit → AM start less
// half of YARN's 1 s NodeManager heartbeat (the mean wait for the AM's
// allocation on a cluster with room: the traces do not record the
// allocation); am_startup, the median submit → JOB_INITED less the same.
func (c *Calibration) fitAM(tr *trace.Trace) {
	var launch, startup []float64
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		if j.AMStartMs >= j.SubmitMs && j.SubmitMs >= 0 {
			launch = append(launch, msUs(j.AMStartMs-j.SubmitMs))
			if j.LaunchMs >= j.AMStartMs {
				startup = append(startup, msUs(j.LaunchMs-j.SubmitMs))
			}
		}
	}
	wait := float64(yarnNMHeartbeat) / 2
	for _, k := range []struct {
		key, what string
		v         []float64
	}{{"am_launch", "submit - AM start", launch}, {"am_startup", "submit - JOB_INITED", startup}} {
		if len(k.v) == 0 {
			c.note("%s: no job records its YARN ApplicationMaster's start", k.key)
			continue
		}
		slices.Sort(k.v)
		c.add(k.key, durationValue(max(0, median(k.v)-wait)), fmt.Sprintf("YARN: median %s (%s) less half of the 1 s NodeManager heartbeat, the mean wait for the AM's container on a cluster with room", k.what, durationValue(median(k.v))), len(k.v))
	}
}

// fitJobInit fits job_init_time, the JobTracker's init of one job
// (JobInProgress.initTasks, which sets LAUNCH_TIME; lifecycle.go), from the
// launch − submit of the jobs in seenJobs (a YARN job's is its
// ApplicationMaster's start and init, which the replay also runs through
// the init workers: lifecycle.go). A job submitted when every earlier job
// had been launched found a free worker, however many there are (Hadoop 1's
// EagerTaskInitializationListener pool, mapred.jobinit.threads, default 4):
// its launch − submit is one job's init, without queueing, and
// job_init_time is the median over those jobs. The jobs that found fewer
// than job_init_threads earlier jobs in init also found a free worker, but
// counting them was measured and not kept (docs/validation.md, "What
// changed: Hadoop's init workers"). When no job found the queue empty, the
// 10th percentile of all of them.
func (c *Calibration) fitJobInit(tr *trace.Trace, observed func(*trace.Task) bool, jobs map[string]*trace.Job, seenJobs map[string]bool) {
	type sub struct {
		id             string
		submit, launch int64
	}
	var subs []sub
	var firstWait []float64
	firstStart := map[string]int64{}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if observed(t) && (t.Type == trace.Map || t.Type == trace.Reduce) {
			if s, ok := firstStart[t.JobID]; !ok || t.StartMs < s {
				firstStart[t.JobID] = t.StartMs
			}
		}
	}
	for id := range seenJobs {
		j, ok := jobs[id]
		if !ok {
			continue
		}
		if s, ok := firstStart[id]; ok && j.SubmitMs >= 0 && s >= j.SubmitMs {
			firstWait = append(firstWait, msUs(s-j.SubmitMs))
		}
		if j.LaunchMs >= j.SubmitMs && j.SubmitMs >= 0 {
			subs = append(subs, sub{id, j.SubmitMs, j.LaunchMs})
		}
	}
	slices.SortFunc(subs, func(a, b sub) int { return cmp.Or(cmp.Compare(a.submit, b.submit), cmp.Compare(a.id, b.id)) })
	var all, alone []float64
	lastLaunch := int64(math.MinInt64)
	for _, s := range subs {
		d := msUs(s.launch - s.submit)
		all = append(all, d)
		if lastLaunch <= s.submit {
			alone = append(alone, d)
		}
		lastLaunch = max(lastLaunch, s.launch)
	}
	slices.Sort(all)
	slices.Sort(alone)
	slices.Sort(firstWait)
	switch {
	case len(alone) > 0:
		c.add("job_init_time", durationValue(median(alone)), fmt.Sprintf("median launch - submit of the jobs submitted when every earlier job had been initialised (a free init worker: no queueing; over all %d jobs the median is %s, p10 %s, p90 %s)",
			len(all), durationValue(median(all)), durationValue(percentileSorted(all, 0.1)), durationValue(percentileSorted(all, 0.9))), len(alone))
	case len(all) > 0:
		c.add("job_init_time", durationValue(percentileSorted(all, 0.1)), fmt.Sprintf("10th percentile of launch - submit (no job found the init queue empty; the median %s includes queueing)", durationValue(median(all))), len(all))
	default:
		c.note("job_init_time: no job records a launch time")
	}
	if len(firstWait) > 0 {
		c.note("submit to first map or reduce start: median %s, p90 %s over %d jobs (what init, setup and the first heartbeat add up to)",
			durationValue(median(firstWait)), durationValue(percentileSorted(firstWait, 0.9)), len(firstWait))
	}
}
