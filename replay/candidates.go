package replay

import (
	"cmp"
	"fmt"
	"slices"
)

// The active jobs and the policies' candidates, kept up to date where they
// change rather than rebuilt at every heartbeat: Active's views change only
// when a job arrives or finishes, and a job joins or leaves MapCandidates and
// ReduceCandidates only when its pending maps or reduces, or its slow-start
// threshold, change (admission, a launch, the threshold reached, a failed
// job's zeroing, a YARN requeue). Every place that changes PendingMaps,
// PendingReduces or ready calls noteCands; the invariant checker compares the
// lists with a scan of the active jobs at every heartbeat (checkCands).
//
// Order: the active jobs and both candidate lists are in submission order
// (job index, Job.Index), whenever each job became active. A job's becoming
// active decides when it is a candidate, not where: with the lifecycle a job
// becomes active when its setup task ends, and a job submitted later whose
// setup ends first is still placed after it. This is the order every
// scheduler the replay models keeps among the jobs ready to run: Hadoop 1's
// JobQueueTaskScheduler walks its queue of all submitted jobs, sorted by
// priority, then JobInProgress.startTime (set when the JobInProgress is made,
// at submission), then job id, skipping those not RUNNING
// (JobQueueJobInProgressListener.FIFO_JOB_QUEUE_COMPARATOR); the fair
// scheduler's FIFO and fair-share comparators and the capacity schedulers'
// job queues (branch-1's CapacitySchedulerQueue, 0.21's JobQueue) break ties
// by the same start time then job id; YARN's schedulers order applications
// by ApplicationId (submission). Without the lifecycle and on a YARN cluster
// jobs become active at their arrival, in index order, so the order is the
// same as the order of activation there. docs/validation.md's section
// "Jobs in submission order among the active ones (h-joborder)" has the
// sources' lines.

// jobCands is a job's place among the active jobs and the candidates.
type jobCands struct {
	seq    int64 // its place in submission order: its index (Job.Index)
	active bool  // in Sim.active
	maps   bool  // in Sim.mapCands
	reds   bool  // in Sim.redCands
}

// MapCandidates returns the active jobs that have a pending map (those of
// Active with PendingMaps > 0), in submission order (job index). The slice is the
// simulator's: do not modify it. It stays as it is when the candidates
// change (a launch that takes a job's last pending map makes a new list), so
// it may be ranged over while launching, but it is current only until the
// next launch or the next hook.
func (s *Sim) MapCandidates() []*JobView { return s.mapCands }

// ReduceCandidates returns the active jobs that have a reduce that may launch
// now (those of Active whose slow-start threshold is reached and that have a
// pending reduce: ReducesReady and PendingReduces > 0), in submission order. The
// slice is the simulator's, as MapCandidates' is: do not modify it; it stays
// as it is when the candidates change.
func (s *Sim) ReduceCandidates() []*JobView { return s.redCands }

// addActive makes j active, in its place in submission order: last unless a
// job submitted after it became active first (with the lifecycle, its setup
// ended first). Jobs become active only between a policy's hooks, where no
// slice of Active is held (Cluster.Active).
func (s *Sim) addActive(j *Job) {
	j.cands.seq, j.cands.active = int64(j.Index), true
	k, found := slices.BinarySearchFunc(s.active, j.cands.seq, func(a *Job, seq int64) int { return cmp.Compare(a.cands.seq, seq) })
	if found {
		panic(fmt.Sprintf("job %s made active twice", j.Trace.ID))
	}
	if k == len(s.active) {
		s.active = append(s.active, j)
		s.views = append(s.views, j.View())
	} else {
		s.active = slices.Insert(s.active, k, j)
		s.views = slices.Insert(s.views, k, j.View())
	}
	s.noteCands(j)
}

// removeActive drops j from the active jobs and the candidates.
func (s *Sim) removeActive(j *Job) {
	if k, found := slices.BinarySearchFunc(s.active, j.cands.seq, func(a *Job, seq int64) int { return cmp.Compare(a.cands.seq, seq) }); found {
		s.active = slices.Delete(s.active, k, k+1)
		s.views = slices.Delete(s.views, k, k+1)
	}
	j.cands.active = false
	s.noteCands(j)
}

// noteCands puts job j in or takes it out of the map and reduce candidates
// after its pending maps or reduces, its slow-start threshold or its being
// active changed.
func (s *Sim) noteCands(j *Job) {
	if in := j.cands.active && j.PendingMaps > 0; in != j.cands.maps {
		s.mapCands = setCand(s.mapCands, j, in)
		j.cands.maps = in
	}
	if in := j.cands.active && j.ready && j.PendingReduces > 0; in != j.cands.reds {
		s.redCands = setCand(s.redCands, j, in)
		j.cands.reds = in
	}
}

// setCand returns list, in submission order, with j in it or not. It never
// changes an element of list that a caller may hold (MapCandidates): it only
// appends past the end, and builds a new list to insert before the end or to
// remove.
func setCand(list []*JobView, j *Job, in bool) []*JobView {
	k, found := slices.BinarySearchFunc(list, j.cands.seq, func(v *JobView, seq int64) int { return cmp.Compare(v.j.cands.seq, seq) })
	if in == found {
		panic(fmt.Sprintf("job %s is a candidate already (%v) or not one to remove", j.Trace.ID, found))
	}
	if in {
		if k == len(list) {
			return append(list, j.View())
		}
		return slices.Concat(list[:k], []*JobView{j.View()}, list[k:])
	}
	return slices.Concat(list[:k], list[k+1:])
}

// checkCands checks that the active jobs' views and the candidates are what
// a scan of the active jobs gives.
func (c *checker) checkCands() {
	s := c.s
	if len(s.views) != len(s.active) {
		c.fail("%d active views for %d active jobs", len(s.views), len(s.active))
	}
	var maps, reds int
	for k, j := range s.active {
		if s.views[k] != j.View() {
			c.fail("active view %d is job %d's, not job %s's", k, s.views[k].j.Index, j.Trace.ID)
		}
		if j.cands.seq != int64(j.Index) || k > 0 && s.active[k-1].Index >= j.Index {
			c.fail("active job %d is job %s (index %d, seq %d), out of submission order", k, j.Trace.ID, j.Index, j.cands.seq)
		}
		if j.PendingMaps > 0 {
			if maps >= len(s.mapCands) || s.mapCands[maps] != j.View() {
				c.fail("job %s with %d pending maps is not map candidate %d of %d", j.Trace.ID, j.PendingMaps, maps, len(s.mapCands))
			}
			maps++
		}
		if j.ready && j.PendingReduces > 0 {
			if reds >= len(s.redCands) || s.redCands[reds] != j.View() {
				c.fail("job %s with %d launchable reduces is not reduce candidate %d of %d", j.Trace.ID, j.PendingReduces, reds, len(s.redCands))
			}
			reds++
		}
	}
	if maps != len(s.mapCands) || reds != len(s.redCands) {
		c.fail("%d map and %d reduce candidates, where the active jobs have %d and %d", len(s.mapCands), len(s.redCands), maps, reds)
	}
}
