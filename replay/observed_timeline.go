package replay

import (
	"cmp"
	"slices"
)

// obsTimeline emits the observed schedule's sample instants on the bus as
// Run does (the timeline recorder writes their rows): at every multiple of
// timeline_sample from the first arrival (rounded up) while some job is
// active (submitted, not yet at the end of its activity); when no job is
// active, sampling resumes at the next arrival, rounded up. The jobs of a
// sample count the tasks running at its instant, a task running over [start,
// finish).
//
// It is told the jobs in submit order as they are read (add) and samples
// each instant once every job submitted at or before it is known: once a
// job submitted after it has been read, or the last (run). What it holds is
// the jobs active at the instant it has reached, each with the edges of its
// tasks' spans, and the jobs read that are not yet submitted then: a job's
// count at an instant sums its edges up to it, whenever they were applied,
// so a job's edges are applied as it is sampled.
type obsTimeline struct {
	o       *observer
	step    int64
	t       int64 // the next instant to sample, once started
	started bool
	known   int64    // the submit of the last job read
	pending []*tlJob // read, not yet submitted at t, in submit order
	active  []*tlJob // submitted at or before t, not ended
	view    []*Job   // what a sample shows of active (reused)
}

// tlJob is one job as the timeline sees it.
type tlJob struct {
	job    Job // its index and running counts only
	submit int64
	end    int64 // the end of its activity
	edges  []tlEdge
	next   int // its first edge not yet applied
}

// tlEdge is a task's start (+1) or finish (-1).
type tlEdge struct {
	t      int64
	delta  int32
	reduce bool
}

// add takes replayed job k, submitted at submit, active until end, whose
// tasks ran over spans.
func (tl *obsTimeline) add(k int, submit, end int64, spans []span) {
	j := &tlJob{job: Job{Index: int32(k)}, submit: submit, end: end}
	for _, x := range spans {
		if x.end > x.start {
			j.edges = append(j.edges, tlEdge{x.start, 1, x.reduce}, tlEdge{x.end, -1, x.reduce})
		}
	}
	slices.SortFunc(j.edges, func(a, b tlEdge) int { return cmp.Compare(a.t, b.t) })
	tl.pending = append(tl.pending, j)
	tl.known = submit
}

// run samples every instant whose jobs are all known: those before the last
// job's submit, or, when last is set (every job was read), all of them.
func (tl *obsTimeline) run(last bool) {
	up := func(t int64) int64 { return (t + tl.step - 1) / tl.step * tl.step }
	for {
		if !tl.started {
			if len(tl.pending) == 0 {
				return
			}
			tl.t, tl.started = up(tl.pending[0].submit), true
		}
		t := tl.t
		if !last && tl.known <= t {
			return // a job not yet read may be submitted at t
		}
		n := 0
		for n < len(tl.pending) && tl.pending[n].submit <= t {
			n++
		}
		tl.active = append(tl.active, tl.pending[:n]...)
		clear(tl.pending[:n])
		tl.pending = tl.pending[n:]
		for _, j := range tl.active {
			for ; j.next < len(j.edges) && j.edges[j.next].t <= t; j.next++ {
				if e := j.edges[j.next]; e.reduce {
					j.job.RunningReduces += e.delta
				} else {
					j.job.RunningMaps += e.delta
				}
			}
		}
		tl.active = slices.DeleteFunc(tl.active, func(j *tlJob) bool { return j.end <= t })
		if len(tl.active) == 0 {
			if len(tl.pending) == 0 {
				tl.started = false // resumes at the next job's submit
				return
			}
			tl.t = up(tl.pending[0].submit)
			continue
		}
		tl.view = tl.view[:0]
		for _, j := range tl.active {
			tl.view = append(tl.view, &j.job)
		}
		tl.o.bus.sample(SampleEvent{Time: t, Active: tl.view})
		tl.t += tl.step
	}
}
