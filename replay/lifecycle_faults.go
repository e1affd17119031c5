package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Model-mode attempt failures, stragglers and speculative execution; all off
// by default.
//
//   - attempt_failure_rate: each attempt of a map or reduce fails with this
//     probability after a uniform fraction of its duration, and the task runs
//     again on the same slot (as trace mode replays observed failures, see
//     lifecycle_attempts.go), up to the job's max attempts (Hadoop's
//     mapred.map.max.attempts, 4); when every one fails the task fails, and
//     the job with it (jobfail.go).
//   - straggler_fraction, straggler_alpha: a task straggles with this
//     probability, its duration multiplied by a Pareto(alpha) factor (minimum
//     1, heavy-tailed; capped at 100).
//   - speculation: "none", "hadoop" or "late". When a heartbeat leaves a node
//     with a free map slot, the simulator gives it a speculative copy of one
//     running map of a job that has no pending map (as Hadoop 1's
//     JobInProgress.findNewMapTask does after the non-running maps), if a map
//     qualifies. "hadoop": Hadoop 1's TaskInProgress.hasSpeculativeTask, a map
//     running for more than 60 s (SPECULATIVE_LAG) whose progress is more
//     than 0.2 (SPECULATIVE_GAP) below its job's average map progress, the
//     first by index. "late": LATE (Zaharia et al., OSDI 2008), among maps
//     whose progress rate is at most the 25th percentile of the running maps'
//     rates (SlowTaskThreshold), the one with the longest estimated time left,
//     with at most 10% of the map slots (SpeculativeCap) running copies.
//     Progress is elapsed over duration (map progress is the input read,
//     linear in time here), so rate = 1/duration and time left = duration −
//     elapsed. The copy runs the map's duration without its straggler factor
//     and failures on the copy's node; the first to finish completes the map
//     and the other is killed at its node's next heartbeat, its slot freed
//     when its kill and clean-up are reported (lifecycle_kill.go). The map's output stays on the
//     original's node, and the policy is not told about the copy. (Under
//     network = "flow" the copy runs its own flows and a winning copy's
//     output is on its node: lifecycle_flowspec.go.)
// Failures and straggler factors are drawn from the job's own stream at build
// time, so every policy replays the same workload.

// streamFaults is the random stream of attempt failures and stragglers.
const streamFaults = 6

// Hadoop 1's speculation constants (TaskInProgress) and LATE's defaults.
const (
	hadoopSpeculativeLagUs = 60_000_000
	hadoopSpeculativeGap   = 0.2
	lateSlowTaskThreshold  = 0.25
	lateSpeculativeCap     = 0.1
)

// faultsOn reports whether failures or stragglers are modelled.
func (h *Hardware) faultsOn() bool { return h.AttemptFailureRate > 0 || h.StragglerFraction > 0 }

// validateFaults checks the failure, straggler and speculation keys.
func (h *Hardware) validateFaults(bad func(string, ...any)) {
	if !(h.AttemptFailureRate >= 0 && h.AttemptFailureRate < 1) {
		bad("attempt_failure_rate must be in [0, 1)")
	}
	if !(h.StragglerFraction >= 0 && h.StragglerFraction <= 1) {
		bad("straggler_fraction must be in [0, 1]")
	}
	if !(h.StragglerAlpha > 0 && h.StragglerAlpha <= 100) {
		bad("straggler_alpha must be in (0, 100]")
	}
	if !slices.Contains([]string{"none", "hadoop", "late"}, h.Speculation) {
		bad("speculation %q: want none, hadoop or late", h.Speculation)
	}
}

// taskFaults is what drawFaults drew for one task.
type taskFaults struct {
	factor      float64 // its straggler factor: 1, or Pareto(straggler_alpha) capped at 100
	stretchedUs int64   // its duration times factor, rounded
	failedUs    int64   // its failed attempts' time, each a uniform fraction of stretchedUs
	failed      bool    // every attempt failed (canFail only): failedUs holds them all
}

// drawFaults draws a task of duration d's faults from rng, for a task of
// maxA attempts: its straggler factor, its stretched duration and its failed
// attempts' time. When canFail is set and its every attempt fails, failed is
// set and failedUs holds all of them (the task fails, jobfail.go); otherwise
// its last attempt succeeds. The draws are those of a task whose last
// attempt always succeeds, plus one for the last attempt when every earlier
// one failed. The fixed models add the parts up (workload.go); the flow
// model (network_disk.go) applies the factor to the task's own stages and
// runs the failed attempts' time before its successful attempt.
func (h *Hardware) drawFaults(rng *rand.Rand, d int64, maxA int32, canFail bool) taskFaults {
	f := taskFaults{factor: 1, stretchedUs: d}
	if h.StragglerFraction > 0 && rng.Float64() < h.StragglerFraction {
		f.factor = math.Min(math.Pow(1-rng.Float64(), -1/h.StragglerAlpha), 100)
		f.stretchedUs = int64(math.Round(float64(d) * f.factor))
	}
	if h.AttemptFailureRate > 0 {
		full := f.stretchedUs
		a := int32(1)
		for ; a < maxA && rng.Float64() < h.AttemptFailureRate; a++ {
			f.failedUs += int64(math.Round(rng.Float64() * float64(full)))
		}
		if canFail && a == maxA && rng.Float64() < h.AttemptFailureRate {
			f.failedUs += int64(math.Round(rng.Float64() * float64(full)))
			f.failed = true
		}
	}
	return f
}

// specCand is a running map as speculation sees it.
type specCand struct {
	job, task  int32
	elapsedUs  int64
	durationUs int64
	jobAvg     float64 // its job's average map progress (finished maps count 1)
}

func (c *specCand) progress() float64 {
	if c.durationUs <= 0 {
		return 1
	}
	return math.Min(1, float64(c.elapsedUs)/float64(c.durationUs))
}

// pickSpeculative returns the candidate the speculation mode picks, or -1.
func pickSpeculative(mode string, cands []specCand) int {
	return pickSpeculativeBuf(mode, cands, nil)
}

// pickSpeculativeBuf is pickSpeculative with a scratch buffer for LATE's
// rates, reused between calls when buf is not nil.
func pickSpeculativeBuf(mode string, cands []specCand, buf *[]float64) int {
	switch mode {
	case "hadoop":
		for i := range cands {
			c := &cands[i]
			if c.elapsedUs > hadoopSpeculativeLagUs && c.progress() < c.jobAvg-hadoopSpeculativeGap {
				return i
			}
		}
	case "late":
		if len(cands) == 0 {
			return -1
		}
		var b []float64
		if buf != nil {
			b = (*buf)[:0]
		}
		for i := range cands {
			b = append(b, 1/float64(max(cands[i].durationUs, 1)))
		}
		rates := b[:len(cands)]
		b = append(b, rates...)
		threshold := kthSmallest(b[len(cands):], int(lateSlowTaskThreshold*float64(len(cands))))
		if buf != nil {
			*buf = b
		}
		best, bestLeft := -1, int64(-1)
		for i := range cands {
			if rates[i] > threshold {
				continue
			}
			if left := cands[i].durationUs - cands[i].elapsedUs; left > bestLeft {
				best, bestLeft = i, left
			}
		}
		return best
	}
	return -1
}

// kthSmallest returns the k-th smallest value of a (0-based: what a sorted
// copy holds at index k), reordering a: Hoare's selection, O(len(a)) on
// average, where sorting was O(n log n).
func kthSmallest(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		p := a[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

// jobSpec is what speculation keeps of a job: once the job has no pending
// map its running maps can only finish (no map of it is launched again), so
// they are listed once, in index order, and the list is pruned as they end.
// A heartbeat then looks at the job's running maps, not at all its maps.
type jobSpec struct {
	running []int32 // the running maps, in index order, once listed
	listed  bool
	// LATE's index (lifecycle_late.go): the index node of each of running
	// (-1: not in it, the map has a copy), the nodes of the maps pruned from
	// running since, to be taken out, and the job's place in s.active order.
	ids     []int32
	gone    []int32
	indexed bool
	key     int64
	keyed   bool
}

// specSim is speculation's state in the simulator: scratch buffers reused
// by every heartbeat, and the cluster's map slots for LATE's cap.
type specSim struct {
	cands    []specCand
	rates    []float64
	mapSlots int       // 0 until the first speculation asks (a valid model has map slots)
	late     lateIndex // lifecycle_late.go
}

// specRunning returns job j's running maps, in index order, when j has no
// pending map (nil otherwise).
func (j *Job) specRunning() []int32 {
	if j.PendingMaps > 0 || j.RunningMaps == 0 {
		return nil
	}
	sp := &j.life.spec
	if !sp.listed {
		sp.listed = true
		sp.running = make([]int32, 0, j.RunningMaps)
		for i := range j.Maps {
			if j.Maps[i].State == Running {
				sp.running = append(sp.running, int32(i))
			}
		}
	} else if int32(len(sp.running)) != j.RunningMaps {
		j.specPrune()
	}
	return sp.running
}

// specPrune drops the maps that ended from j's running list, and from LATE's
// index ids (their index nodes go to gone).
func (j *Job) specPrune() {
	sp := &j.life.spec
	if sp.ids == nil {
		sp.running = slices.DeleteFunc(sp.running, func(i int32) bool { return j.Maps[i].State != Running })
		return
	}
	k := 0
	for x, i := range sp.running {
		if j.Maps[i].State == Running {
			sp.running[k], sp.ids[k] = i, sp.ids[x]
			k++
		} else if sp.ids[x] >= 0 {
			sp.gone = append(sp.gone, sp.ids[x])
		}
	}
	sp.running, sp.ids = sp.running[:k], sp.ids[:k]
}

// specAvgEps bounds the difference between a job's average map progress
// summed in two orders (done maps first, or in index order): below 1e-9
// for up to 10^6 maps; a candidate this close to Hadoop's threshold gets the
// average summed in index order, as it always was.
const specAvgEps = 1e-6

// jobAvgProgress is job j's average map progress summed in index order
// (finished maps count 1).
func (s *Sim) jobAvgProgress(j *Job) float64 {
	var sum float64
	for i := range j.Maps {
		m := &j.Maps[i]
		switch m.State {
		case Done:
			sum++
		case Running:
			c := specCand{elapsedUs: s.now - m.LaunchUs, durationUs: m.FinishUs - m.LaunchUs}
			sum += c.progress()
		}
	}
	return sum / float64(len(j.Maps))
}

// scanPick returns the running map the speculation mode picks for a copy on
// node n, from a scan of the running maps of the jobs with no pending map
// (nil if none).
func (s *Sim) scanPick(n int32) (*Job, int32) {
	sp := &s.lc.spec
	hadoop := s.hw.Speculation == "hadoop"
	cands := sp.cands[:0]
	for _, j := range s.active {
		running := j.specRunning()
		if len(running) == 0 {
			continue
		}
		start := len(cands)
		for _, i := range running {
			m := &j.Maps[i]
			if m.specNode >= 0 || m.Node == n {
				continue
			}
			// Hadoop speculates no map younger than its lag: leaving those out
			// of the candidates changes no choice.
			if hadoop && s.now-m.LaunchUs <= hadoopSpeculativeLagUs {
				continue
			}
			cands = append(cands, specCand{job: j.Index, task: i, elapsedUs: s.now - m.LaunchUs, durationUs: m.FinishUs - m.LaunchUs})
		}
		if !hadoop || start == len(cands) {
			continue
		}
		// The job's average progress, over its finished maps and every running
		// one (with a copy or not, on node n or not).
		sum := float64(j.FinishedMaps)
		for _, i := range running {
			m := &j.Maps[i]
			c := specCand{elapsedUs: s.now - m.LaunchUs, durationUs: m.FinishUs - m.LaunchUs}
			sum += c.progress()
		}
		avg := sum / float64(len(j.Maps))
		for k := start; k < len(cands); k++ {
			c := &cands[k]
			if c.elapsedUs > hadoopSpeculativeLagUs && math.Abs(c.progress()-(avg-hadoopSpeculativeGap)) <= specAvgEps {
				avg = s.jobAvgProgress(j)
				break
			}
		}
		for k := start; k < len(cands); k++ {
			cands[k].jobAvg = avg
		}
	}
	sp.cands = cands
	k := pickSpeculativeBuf(s.hw.Speculation, cands, &sp.rates)
	if k < 0 {
		return nil, 0
	}
	return s.jobs[cands[k].job], cands[k].task
}

// specName names a pick in the invariant checker's message.
func specName(j *Job, i int32) string {
	if j == nil {
		return "none"
	}
	return fmt.Sprintf("map %d of job %s", i, j.Trace.ID)
}

// speculate gives node n, which has a free map slot after its heartbeat, a
// speculative copy of a running map, if the speculation mode picks one.
//
// "hadoop" scans the running maps of the jobs with no pending map, not all
// their maps: its candidates are the maps past its lag, its job average is
// computed only for a job with such a candidate, from the finished count and
// the running maps' progress, and summed over all the maps in index order (as
// a scan of every map did) only for a candidate within specAvgEps of the
// threshold, so the choices are those of that scan. Its cost per heartbeat is
// in those running maps: its test moves with time.
//
// "late" picks from an index of the candidates (lifecycle_late.go), rebuilt
// only when they changed, in O(log n) per heartbeat otherwise; its choices
// are those of the scan (checked against it with the invariant checker on).
func (s *Sim) speculate(n int32) {
	if s.hw.Speculation == "none" {
		s.obsSpeculate(n) // observed copies (lifecycle_specobs.go)
		return
	}
	if s.nodes[n].freeMap <= 0 {
		return
	}
	sp := &s.lc.spec
	if sp.mapSlots == 0 {
		sp.mapSlots = s.hw.TotalMapSlots()
	}
	if s.hw.Speculation == "late" && float64(s.specRunning+1) > lateSpeculativeCap*float64(sp.mapSlots) {
		return
	}
	var j *Job
	var i int32
	if s.hw.Speculation == "late" {
		j, i = s.latePick(n)
		if s.chk != nil {
			// The invariant checker also runs the scan LATE's index stands for.
			if sj, si := s.scanPick(n); sj != j || j != nil && si != i {
				s.chk.fail("speculation on node %d: LATE's index picks %v, the scan %v", n, specName(j, i), specName(sj, si))
			}
		}
	} else {
		j, i = s.scanPick(n)
	}
	if j == nil {
		return
	}
	if s.hw.Speculation == "late" {
		s.lateCopied(j, i) // the map leaves the candidates
	}
	if s.flowCopies(j, i) {
		s.launchFlowCopy(j, i, n, -1) // its own flows (lifecycle_flowspec.go)
		return
	}
	d, _, _ := s.mapCost(j, i, n)
	d -= j.retryUs(i) // the copy runs without the original's straggler factor and failures
	s.launchCopy(j, i, n, d)
}

// launchCopy starts a speculative copy of map i of job j on node n, which
// has a free map slot, running d µs; the first of the map and its copy to
// finish completes the map.
func (s *Sim) launchCopy(j *Job, i int32, n int32, d int64) {
	m := &j.Maps[i]
	s.copySlot(j, i, n)
	if f := s.reported(n, s.now+d); f < m.FinishUs {
		m.FinishUs = f // the copy wins: the map completes then (the original's event is stale)
		m.endUs = s.now + d
		m.specWon = true
		s.schedule(f, evMapDone, j.Index, i)
	}
}

// copySlot gives map i of job j's speculative copy a map slot of node n.
func (s *Sim) copySlot(j *Job, i int32, n int32) {
	m := &j.Maps[i]
	s.nodes[n].freeMap--
	s.jvmTrim(n, false)
	s.running++
	s.specRunning++
	m.specNode, j.extra(i).specLaunchUs = n, s.now
	s.bus.taskLaunched(TaskEvent{Time: s.now, Job: j, Kind: TaskSpeculative, Index: i, Node: n})
	s.otherSlot(n, TaskSpeculative, true, true) // slotwatch.go
}

// specEnded ends map i's speculative copy when the map completes or its job
// fails. With held (the map completed: holdLoser, lifecycle_kill.go), the
// losing attempt keeps its slot and its running count until its kill is
// reported, so the copy's slot is freed now only when the copy won; without
// (its job failed), the copy is killed now (under flow its flows withdrawn:
// lifecycle_flowspec.go) and its slot freed.
func (s *Sim) specEnded(j *Job, i int32, held bool) {
	m := &j.Maps[i]
	s.specRunning--
	if held {
		s.flowCopyDone(j, i, m.specWon)
		if !m.specWon {
			return
		}
	} else {
		s.flowSpecEnded(j, i)
		s.running--
	}
	n := m.specNode
	s.nodes[n].freeMap++
	s.busyMapUs += s.now - j.extra(i).specLaunchUs
	s.bus.taskEnded(TaskEvent{Time: s.now, Job: j, Kind: TaskSpeculative, Index: i, Node: n})
	s.otherSlot(n, TaskSpeculative, true, false) // slotwatch.go
	s.slotFreed(n)
}
