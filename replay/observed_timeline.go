package replay

import (
	"cmp"
	"slices"
)

// timeline emits the observed schedule's sample instants on the bus as Run
// does (the timeline recorder writes their rows): at every multiple of
// timeline_sample from the first arrival (rounded up) while some job is
// active (submitted, not yet at the end of its activity); when no job is
// active, sampling resumes at the next arrival, rounded up. The jobs of a
// sample count the tasks running at its instant, a task running over [start,
// finish).
func (o *observer) timeline() {
	step := int64(o.w.hw.TimelineSample)
	type edge struct {
		t      int64
		delta  int32
		job    int32
		reduce bool
	}
	var edges []edge
	for k, sp := range o.spans {
		for _, x := range sp {
			if x.end > x.start {
				edges = append(edges, edge{x.start, 1, int32(k), x.reduce}, edge{x.end, -1, int32(k), x.reduce})
			}
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.delta, b.delta), cmp.Compare(a.job, b.job))
	})
	up := func(t int64) int64 { return (t + step - 1) / step * step }
	submit := o.w.index().submitUs
	jobs := make([]Job, len(submit)) // what the samples show of each job
	for k := range jobs {
		jobs[k].Index = int32(k)
	}
	var active []*Job
	next, e := 0, 0
	for t := up(submit[0]); ; t += step {
		for next < len(submit) && submit[next] <= t {
			active = append(active, &jobs[next])
			next++
		}
		for ; e < len(edges) && edges[e].t <= t; e++ {
			x := edges[e]
			if x.reduce {
				jobs[x.job].RunningReduces += x.delta
			} else {
				jobs[x.job].RunningMaps += x.delta
			}
		}
		active = slices.DeleteFunc(active, func(j *Job) bool { return o.ends[j.Index] <= t })
		if len(active) == 0 {
			if next == len(submit) {
				return
			}
			t = up(submit[next]) - step
			continue
		}
		o.bus.sample(SampleEvent{Time: t, Active: active})
	}
}
