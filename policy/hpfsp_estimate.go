package policy

import "math"

// phaseEstimate is H-PFSP's estimate of one phase (maps or reduces) of a job
// (§II-B): the EWMA of its average task time (eqs. 1-2) and what it knows of
// the tasks: the number finished, and the running ones with their launch times.
type phaseEstimate struct {
	avg      float64 // Avg(T): µs of slot time per task
	tasks    int32   // N(T)
	finished int32
	sum      int64 // summed durations of the finished tasks, µs
	running  runningList
	stage    stageCache // progressAtLeast's

	// Finished tasks since the last accepted EWMA update: their count and
	// summed durations (eq. 1's ΔP is count/tasks, eq. 2's Δt/ΔP their mean).
	pendCount int32
	pendSum   int64
	observed  bool // at least one EWMA update from this phase's own tasks
}

// runningTask is a task H-PFSP launched and has not seen finish.
type runningTask struct {
	index  int32 // -1: a hole left by a removed task
	launch int64
}

// runningList is a phase's running tasks in launch order (the order progress
// sums them in, so that the float sum does not depend on how they are stored):
// a slice with holes where tasks were removed, compacted once the holes
// outnumber the tasks, and the position of each task index's earliest entry.
// Adding is O(1); removing is O(1) amortized (the compaction is paid by the
// removals that made the holes), except that a task index added again while
// an entry of it is still listed (a relaunch the policy did not see finish) is
// looked up by a scan from its previous entry. Iterating costs O(tasks + holes)
// ≤ O(2·tasks + 64).
type runningList struct {
	tasks []runningTask
	at    []int32 // per task index: position+1 of its earliest entry, 0 if none
	n     int32   // entries that are tasks, not holes
	dups  int32   // entries not in at: a later entry of an index already listed
}

// Len is the number of running tasks.
func (l *runningList) Len() int { return int(l.n) }

// add appends task index, launched at launch, to the list; size is the
// phase's number of tasks (every index is below it).
func (l *runningList) add(index int32, launch int64, size int32) {
	if l.at == nil {
		l.at = make([]int32, max(size, index+1))
	}
	if int(index) >= len(l.at) {
		l.at = append(l.at, make([]int32, int(index)+1-len(l.at))...)
	}
	l.tasks = append(l.tasks, runningTask{index: index, launch: launch})
	if l.at[index] == 0 {
		l.at[index] = int32(len(l.tasks))
	} else {
		l.dups++
	}
	l.n++
}

// remove takes out the earliest entry of task index, if listed.
func (l *runningList) remove(index int32) {
	if index < 0 || int(index) >= len(l.at) || l.at[index] == 0 {
		return
	}
	p := l.at[index] - 1
	l.tasks[p].index = -1
	l.at[index] = 0
	l.n--
	if l.dups > 0 {
		for q := p + 1; q < int32(len(l.tasks)); q++ {
			if l.tasks[q].index == index {
				l.at[index] = q + 1
				l.dups--
				break
			}
		}
	}
	if holes := int32(len(l.tasks)) - l.n; holes > l.n && holes >= 64 {
		l.compact()
	}
}

// compact drops the holes, keeping the order, and re-indexes the entries.
func (l *runningList) compact() {
	k := 0
	for _, r := range l.tasks {
		if r.index >= 0 {
			l.at[r.index] = 0
			l.tasks[k] = r
			k++
		}
	}
	l.tasks = l.tasks[:k]
	l.dups = 0
	for p, r := range l.tasks {
		if l.at[r.index] == 0 {
			l.at[r.index] = int32(p + 1)
		} else {
			l.dups++
		}
	}
}

// taskDone records a finished task of the phase and its duration.
func (e *phaseEstimate) taskDone(index int32, durUs int64) {
	e.running.remove(index)
	e.finished++
	e.sum += durUs
	e.pendCount++
	e.pendSum += durUs
}

// update is eqs. (1)-(2): when the tasks finished since the last update make up
// at least minProgress of the phase (ΔP ≥ 0.02 in the paper), the average
// becomes alpha·avg + (1−alpha)·(their mean duration). It reports whether it
// updated.
func (e *phaseEstimate) update(alpha, minProgress float64) bool {
	if e.pendCount == 0 || e.tasks == 0 || float64(e.pendCount)/float64(e.tasks) < minProgress {
		return false
	}
	sample := float64(e.pendSum) / float64(e.pendCount)
	e.avg = alpha*e.avg + (1-alpha)*sample
	e.pendCount, e.pendSum = 0, 0
	e.observed = true
	return true
}

// progress is the phase's progress P at time now as a JobTracker can model it:
// finished tasks count 1, a running task the fraction of the average task time
// it has run, at most 1.
func (e *phaseEstimate) progress(now int64) float64 {
	if e.tasks == 0 {
		return 1
	}
	p, _ := e.progressSum(now)
	return min(1, p/float64(e.tasks))
}

// progressSum is progress's sum before the division by N(T), in its order,
// and the number of running tasks whose term is still below 1.
func (e *phaseEstimate) progressSum(now int64) (float64, int32) {
	p := float64(e.finished)
	var growing int32
	for _, r := range e.running.tasks {
		if r.index >= 0 && e.avg > 0 {
			t := min(1, float64(now-r.launch)/e.avg)
			if t < 1 {
				growing++
			}
			p += t
		}
	}
	return p, growing
}

// stageCache remembers progressAtLeast's last full answer while the phase's
// finished count and average stay the same (tasks may launch).
type stageCache struct {
	valid    bool
	x, avg   float64
	finished int32
	reached  bool    // progress ≥ x then: it stays so
	t0       int64   // when the sum was taken
	p0       float64 // the sum then (below x·N(T))
	growing  int32   // running tasks then whose term was below 1
	running  int32   // running tasks then
}

// progressAtLeast reports whether progress(now) >= x, without visiting the
// running tasks when the finished ones decide it: each running task adds a term
// in [0, 1] to the float sum, which therefore lies between the finished count
// and that count plus the running ones (rounding is monotone and those bounds
// are exact integers), and so does the quotient.
//
// Otherwise the running tasks are summed, and the answer kept until a task
// ends or the average changes: with the same tasks in the same order and the
// same average, each term can only grow with time, a task launched since adds
// a term at the end, and float addition and division are monotone, so a
// "yes" stays yes. A "no" at t0 with sum p0 stays no while p0 plus the growth
// the terms can have had, (tasks then below 1 + tasks launched since)·(now −
// t0)/avg, stays below x·N(T) by a margin (10⁻⁶·(N(T)+1), far above the
// rounding of a sum of N(T) terms in [0, 1]). So a decision costs O(1) except
// for one O(running) sum per task end or change of the average, and the sums a
// "no" needs as the phase nears x.
func (e *phaseEstimate) progressAtLeast(now int64, x float64) bool {
	if e.tasks == 0 {
		return 1 >= x
	}
	if min(1, float64(e.finished)/float64(e.tasks)) >= x {
		return true
	}
	if min(1, float64(int64(e.finished)+int64(e.running.Len()))/float64(e.tasks)) < x {
		return false
	}
	c := &e.stage
	if c.valid && c.x == x && c.avg == e.avg && c.finished == e.finished && e.avg > 0 && now >= c.t0 {
		if c.reached {
			return true
		}
		grow := float64(c.growing+e.running.n-c.running) * float64(now-c.t0) / e.avg
		if c.p0+grow < x*float64(e.tasks)-1e-6*float64(e.tasks+1) {
			return false
		}
	}
	p, growing := e.progressSum(now)
	ok := min(1, p/float64(e.tasks)) >= x
	*c = stageCache{valid: true, x: x, avg: e.avg, finished: e.finished, reached: ok,
		t0: now, p0: p, growing: growing, running: e.running.n}
	return ok
}

// noUntil is called right after progressAtLeast(now, x) answered false. It
// returns a time through which that answer stays false while the phase's
// finished count, running tasks and average stay as they are:
// math.MaxInt64 when the finished and running tasks together cannot reach x;
// else the last time at which progressAtLeast's test of its cached sum (p0
// plus the growth the terms can have had) still answers false, found from
// the test itself, which is monotone in time; now when that test does not
// hold now (progressAtLeast would sum again at the next call).
func (e *phaseEstimate) noUntil(now int64, x float64) int64 {
	if e.tasks == 0 {
		return now
	}
	if min(1, float64(int64(e.finished)+int64(e.running.Len()))/float64(e.tasks)) < x {
		return math.MaxInt64
	}
	c := &e.stage
	if !c.valid || c.reached || c.x != x || c.avg != e.avg || c.finished != e.finished || !(e.avg > 0) || now < c.t0 {
		return now
	}
	g := float64(c.growing + e.running.n - c.running)
	no := func(t int64) bool { // progressAtLeast's test, the same float operations
		grow := g * float64(t-c.t0) / e.avg
		return c.p0+grow < x*float64(e.tasks)-1e-6*float64(e.tasks+1)
	}
	if !no(now) {
		return now
	}
	if g <= 0 {
		return math.MaxInt64
	}
	d := (x*float64(e.tasks) - 1e-6*float64(e.tasks+1) - c.p0) * e.avg / g
	if c.t0 > 1<<61 {
		return now
	}
	t := c.t0 + int64(min(d, 1<<60)) // d ≥ 0: no(t0) holds

	for step := int64(1); t > now && !no(t); step *= 2 {
		t -= step
	}
	return max(t, now)
}

// remaining is one phase's term of eq. (5): N(T)·(1−P)·Avg(T)/N(S), with eq. (3)
// or (4)'s normalisation by the slots of the phase's kind.
func (e *phaseEstimate) remaining(now int64, slots float64) float64 {
	return float64(e.tasks) * (1 - e.progress(now)) * e.avg / slots
}

// remainingTime is eq. (5): w = max(wmin, map term + reduce term), nm and nr
// the cluster's map and reduce slots.
func remainingTime(m, r *phaseEstimate, now int64, nm, nr, wmin float64) float64 {
	return max(wmin, m.remaining(now, nm)+r.remaining(now, nr))
}
