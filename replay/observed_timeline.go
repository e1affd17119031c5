package replay

import (
	"cmp"
	"slices"
)

// timeline samples the observed running tasks as Run's sample events do: at
// every multiple of timeline_sample from the first arrival (rounded up) while
// some job is active (submitted, not yet at the end of its activity), a row per
// active job with a running task and a cluster row; when no job is active,
// sampling resumes at the next arrival, rounded up. A task runs over [start,
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
	submit := o.w.submitUs
	running := make([][2]int32, len(submit))
	var active []int32
	next, e := 0, 0
	for t := up(submit[0]); ; t += step {
		for next < len(submit) && submit[next] <= t {
			active = append(active, int32(next))
			next++
		}
		for ; e < len(edges) && edges[e].t <= t; e++ {
			x := edges[e]
			if x.reduce {
				running[x.job][1] += x.delta
			} else {
				running[x.job][0] += x.delta
			}
		}
		active = slices.DeleteFunc(active, func(k int32) bool { return o.ends[k] <= t })
		if len(active) == 0 {
			if next == len(submit) {
				return
			}
			t = up(submit[next]) - step
			continue
		}
		var tm, tr int32
		for _, k := range active {
			if r := running[k]; r[0]+r[1] > 0 {
				o.res.Timeline = append(o.res.Timeline, TimelineSample{Policy: ObservedPolicy, TimeUs: t, JobIndex: k,
					RunningMaps: r[0], RunningReduces: r[1]})
				tm += r[0]
				tr += r[1]
			}
		}
		o.res.Timeline = append(o.res.Timeline, TimelineSample{Policy: ObservedPolicy, TimeUs: t, JobIndex: -1,
			RunningMaps: tm, RunningReduces: tr})
	}
}
