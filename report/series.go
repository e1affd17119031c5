package report

import (
	"cmp"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tracereplay/tracereplay/internal/results"
)

// maxLinePoints bounds the points drawn per timeline line; longer series are
// reduced to the minimum and maximum of each of maxLinePoints/2 runs of samples,
// which keeps every peak and trough visible.
const maxLinePoints = 2000

// maxVectorPoints bounds the points per line in SVG and PDF figures, where each
// point costs about 20 bytes of the file: a CDF of 6,000 jobs keeps one step in
// fifteen, a y error under 0.3% of the axis, which a printed figure cannot show.
const maxVectorPoints = 400

// lineChunk is the number of points per stroked path of a long line.
const lineChunk = 64

// addLine adds pts to p as a line of the given style, stroked in chunks of
// lineChunk points that share their end points. The PNG rasteriser keeps a
// sorted list of cells per pixel row, so one long, dense path costs time
// quadratic in the plot width; short chunks keep those lists short (a 20,000-job
// run drew in 20 s as one path). It returns the first chunk, for the legend.
func addLine(p *plot.Plot, pts plotter.XYs, step plotter.StepKind, ls draw.LineStyle) (*plotter.Line, error) {
	var first *plotter.Line
	for lo := 0; lo == 0 || lo < len(pts)-1; lo += lineChunk {
		l, err := plotter.NewLine(pts[lo:min(lo+lineChunk+1, len(pts))])
		if err != nil {
			return nil, err
		}
		l.StepStyle = step
		l.LineStyle = ls
		p.Add(l)
		if first == nil {
			first = l
		}
	}
	return first, nil
}

// clusterSeries returns the cluster-wide running maps and reduces over time from
// the timeline rows with JobIndex -1, sorted by time, x in units of div µs.
//
// The simulator samples at a fixed interval while some job is active and stops
// while the cluster is idle. The interval is the smallest spacing of the samples,
// so a longer gap is idle time: both series drop to zero one interval after the
// sample before the gap and stay there until the sample after it, and they drop
// to zero one interval after the last sample, when the last job had finished.
func clusterSeries(tl []results.TimelineSample, div float64) (maps, reduces plotter.XYs) {
	var rows []results.TimelineSample
	for _, s := range tl {
		if s.JobIndex == -1 {
			rows = append(rows, s)
		}
	}
	slices.SortStableFunc(rows, func(a, b results.TimelineSample) int {
		return cmp.Compare(a.TimeUs, b.TimeUs)
	})
	var interval int64
	for i := 1; i < len(rows); i++ {
		if d := rows[i].TimeUs - rows[i-1].TimeUs; d > 0 && (interval == 0 || d < interval) {
			interval = d
		}
	}
	add := func(us int64, m, r int32) {
		x := float64(us) / div
		maps = append(maps, plotter.XY{X: x, Y: float64(m)})
		reduces = append(reduces, plotter.XY{X: x, Y: float64(r)})
	}
	for i, s := range rows {
		if i > 0 && interval > 0 && s.TimeUs-rows[i-1].TimeUs > interval {
			add(rows[i-1].TimeUs+interval, 0, 0)
			add(s.TimeUs, 0, 0)
		}
		add(s.TimeUs, s.RunningMaps, s.RunningReduces)
	}
	if n := len(rows); n > 1 && interval > 0 {
		add(rows[n-1].TimeUs+interval, 0, 0)
	}
	return maps, reduces
}

// decimate reduces pts (sorted by X) to at most limit points by keeping, in each
// of limit/2 equal runs of consecutive points, the lowest and the highest point in
// their time order. Shorter series come back unchanged.
func decimate(pts plotter.XYs, limit int) plotter.XYs {
	if len(pts) <= limit {
		return pts
	}
	buckets := limit / 2
	out := make(plotter.XYs, 0, limit)
	for b := range buckets {
		lo, hi := b*len(pts)/buckets, (b+1)*len(pts)/buckets
		iMin, iMax := lo, lo
		for i := lo; i < hi; i++ {
			if pts[i].Y < pts[iMin].Y {
				iMin = i
			}
			if pts[i].Y > pts[iMax].Y {
				iMax = i
			}
		}
		first, second := min(iMin, iMax), max(iMin, iMax)
		out = append(out, pts[first])
		if second != first {
			out = append(out, pts[second])
		}
	}
	return out
}

// mergeIdentical merges cells whose runs gave identical results (the same
// jobs, each with the same outcome, and the same timeline; policy names aside)
// into one series named by all of them, "fifo = capacity = hpfsp", so that a
// figure draws each distinct curve once and its legend says which cells it
// stands for. The first cell of each set stays, in its place.
func mergeIdentical(groups []Group, names []string) ([]Group, []string) {
	used := make([]bool, len(groups))
	var outG []Group
	var outN []string
	for i := range groups {
		if used[i] {
			continue
		}
		name := names[i]
		for j := i + 1; j < len(groups); j++ {
			if !used[j] && sameGroupResults(groups[i], groups[j]) {
				used[j] = true
				name += " = " + names[j]
			}
		}
		outG = append(outG, groups[i])
		outN = append(outN, name)
	}
	return outG, outN
}

// sameGroupResults reports whether two cells hold the same number of runs and
// each pair of runs gave equal job results and timelines (policy names aside).
func sameGroupResults(a, b Group) bool {
	if len(a.Runs) != len(b.Runs) {
		return false
	}
	for k := range a.Runs {
		ra, rb := a.Runs[k], b.Runs[k]
		if len(ra.Jobs) == 0 || len(ra.Jobs) != len(rb.Jobs) || len(ra.Timeline) != len(rb.Timeline) {
			return false
		}
		for i := range ra.Jobs {
			x, y := ra.Jobs[i], rb.Jobs[i]
			x.Policy, y.Policy = "", ""
			if x != y {
				return false
			}
		}
		for i := range ra.Timeline {
			x, y := ra.Timeline[i], rb.Timeline[i]
			x.Policy, y.Policy = "", ""
			if x != y {
				return false
			}
		}
	}
	return true
}

// facets splits n series into consecutive chunks of at most per series, as
// even in size as possible: the small multiples of a figure with more series
// than one panel can tell apart. One chunk when n ≤ per.
func facets(n, per int) [][]int {
	rows := max(1, (n+per-1)/per)
	var out [][]int
	for r := range rows {
		lo, hi := r*n/rows, (r+1)*n/rows
		idx := make([]int, 0, hi-lo)
		for i := lo; i < hi; i++ {
			idx = append(idx, i)
		}
		out = append(out, idx)
	}
	return out
}
