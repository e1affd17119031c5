package policy

// phaseEstimate is H-PFSP's estimate of one phase (maps or reduces) of a job
// (§II-B): the EWMA of its average task time (eqs. 1-2) and what it knows of
// the tasks: the number finished, and the running ones with their launch times.
type phaseEstimate struct {
	avg      float64 // Avg(T): µs of slot time per task
	tasks    int32   // N(T)
	finished int32
	sum      int64 // summed durations of the finished tasks, µs
	running  []runningTask

	// Finished tasks since the last accepted EWMA update: their count and
	// summed durations (eq. 1's ΔP is count/tasks, eq. 2's Δt/ΔP their mean).
	pendCount int32
	pendSum   int64
	observed  bool // at least one EWMA update from this phase's own tasks
}

// runningTask is a task H-PFSP launched and has not seen finish.
type runningTask struct {
	index  int32
	launch int64
}

// taskDone records a finished task of the phase and its duration.
func (e *phaseEstimate) taskDone(index int32, durUs int64) {
	for k, r := range e.running {
		if r.index == index {
			e.running = append(e.running[:k], e.running[k+1:]...)
			break
		}
	}
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
	p := float64(e.finished)
	for _, r := range e.running {
		if e.avg > 0 {
			p += min(1, float64(now-r.launch)/e.avg)
		}
	}
	return min(1, p/float64(e.tasks))
}

// progressAtLeast reports whether progress(now) >= x, without visiting the
// running tasks when the finished ones decide it: each running task adds a term
// in [0, 1] to the float sum, which therefore lies between the finished count
// and that count plus the running ones (rounding is monotone and those bounds
// are exact integers), and so does the quotient.
func (e *phaseEstimate) progressAtLeast(now int64, x float64) bool {
	if e.tasks == 0 {
		return 1 >= x
	}
	if min(1, float64(e.finished)/float64(e.tasks)) >= x {
		return true
	}
	if min(1, float64(int64(e.finished)+int64(len(e.running)))/float64(e.tasks)) < x {
		return false
	}
	return e.progress(now) >= x
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
