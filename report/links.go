package report

import (
	"cmp"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/tracereplay/tracereplay/internal/results"
)

// BusiestLinksFigure is the figure of the busiest links' utilisation over
// time (runs under network = "flow").
const BusiestLinksFigure = "busiest_links"

// busiestLinksShown is how many links a cell's panel of BusiestLinksFigure
// draws, and its rows of LinkTable.
const busiestLinksShown = 6

// linkStat is one link's load over a run's timeline instants.
type linkStat struct {
	link             string
	mean, peak       float64 // utilisation, over every instant of the run (0 where it carried nothing)
	saturated        float64 // share of the instants at which it was at least 99% used
	meanMBps, capMBs float64
}

// linkStats ranks a run's links by mean utilisation over its instants,
// busiest first (ties by name).
//
// The instants are the run's timeline instants (links.parquet has rows only
// at instants with a transfer under way, so counting its own instants would
// leave out the idle ones and overstate every link's mean); a run without a
// timeline falls back to the instants links.parquet names.
func linkStats(r Run) []linkStat {
	instants := map[int64]bool{}
	for _, s := range r.Timeline {
		instants[s.TimeUs] = true
	}
	by := map[string]*linkStat{}
	for _, s := range r.Links {
		instants[s.TimeUs] = true
		st := by[s.Link]
		if st == nil {
			st = &linkStat{link: s.Link, capMBs: s.CapacityMBps}
			by[s.Link] = st
		}
		st.mean += s.Utilisation
		st.meanMBps += s.LoadMBps
		st.peak = max(st.peak, s.Utilisation)
		if s.Utilisation >= 0.99 {
			st.saturated++
		}
	}
	n := float64(len(instants))
	out := make([]linkStat, 0, len(by))
	for _, st := range by {
		st.mean, st.meanMBps, st.saturated = st.mean/n, st.meanMBps/n, st.saturated/n
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b linkStat) int { return cmp.Or(cmp.Compare(b.mean, a.mean), cmp.Compare(a.link, b.link)) })
	return out
}

// hasLinks reports whether some run recorded link loads.
func hasLinks(runs []Run) bool {
	return slices.ContainsFunc(runs, func(r Run) bool { return len(r.Links) > 0 })
}

// linkRun is the cell's first seed that recorded link loads: a seed whose
// transfers all fell between timeline instants has no links.parquet rows.
func linkRun(g Group) (Run, bool) {
	i := slices.IndexFunc(g.Runs, func(r Run) bool { return len(r.Links) > 0 })
	if i < 0 {
		return Run{}, false
	}
	return g.Runs[i], true
}

// busiestLinks draws, for each cell (its first seed with link loads), the utilisation over
// simulated time of its busiestLinksShown busiest links by mean utilisation:
// one panel per cell, stacked.
func busiestLinks(groups []Group, names []string, lk look) (Figure, error) {
	var maxUs int64
	for _, g := range groups {
		r, _ := linkRun(g)
		for _, s := range r.Links {
			maxUs = max(maxUs, s.TimeUs)
		}
	}
	unit, div := timeUnit(maxUs)
	var panels []*plot.Plot
	for i, g := range groups {
		r, ok := linkRun(g)
		if !ok {
			continue
		}
		p := lk.newPlot()
		if len(panels) == 0 {
			lk.title(p, "Busiest links: utilisation over time")
		}
		p.Add(plotter.NewGrid())
		p.Y.Label.Text = names[i]
		p.X.Label.Text = "simulated time (" + unit + ")"
		shown := busiestOf(r)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, max(float64(maxUs)/div, 1e-9), 0, 1.05*max(1, peakOf(shown))
		p.X.Tick.Marker = TidyTicks{}
		p.Y.Tick.Marker = TidyTicks{}
		var times []int64
		for _, s := range r.Links {
			if len(times) == 0 || times[len(times)-1] != s.TimeUs {
				times = append(times, s.TimeUs)
			}
		}
		for k, st := range shown {
			pts := linkSeries(r.Links, st.link, times, div)
			thumbs, err := lk.addSeries(p, k, pts, plotter.NoStep, false)
			if err != nil {
				return Figure{}, err
			}
			p.Legend.Add(st.link, thumbs...)
		}
		panels = append(panels, p)
	}
	f := StackFigure(BusiestLinksFigure, panels, lk.height(1))
	f.Caption = "Utilisation (load over capacity) of each cell's busiest links by mean utilisation over the run, at the timeline instants, one panel per cell (its first seed that recorded link loads); network = \"flow\" only."
	return f, nil
}

// linkSeries is link's utilisation at each of times (zero where it carried
// nothing).
func linkSeries(samples []results.LinkSample, link string, times []int64, div float64) plotter.XYs {
	pts := make(plotter.XYs, len(times))
	for i, t := range times {
		pts[i].X = float64(t) / div
	}
	k := 0
	for _, s := range samples {
		for k < len(times) && times[k] < s.TimeUs {
			k++
		}
		if s.Link == link && k < len(times) {
			pts[k].Y = s.Utilisation
		}
	}
	return pts
}

// LinkTable lists, per cell (its first seed) of the runs under network =
// "flow", its busiest links by mean utilisation over the run; nil when no run
// recorded link loads.
func LinkTable(runs []Run) *Table {
	if !hasLinks(runs) {
		return nil
	}
	groups := GroupRuns(runs)
	keys := GroupLabels(groups)
	t := &Table{Title: "Busiest links (network = \"flow\"): per cell, by mean utilisation"}
	t.Columns = []Column{{Header: "cell", Name: "cell"}, {Header: "link", Name: "link"},
		{Header: "capacity\n(MB/s)", Name: "capacity_mb_per_s", Align: AlignRight},
		{Header: "mean load\n(MB/s)", Name: "mean_load_mb_per_s", Align: AlignRight},
		{Header: "mean\nutilisation", Name: "mean_utilisation", Align: AlignRight},
		{Header: "peak\nutilisation", Name: "peak_utilisation", Align: AlignRight},
		{Header: "time\nsaturated", Name: "share_saturated", Align: AlignRight}}
	over := false
	for _, g := range groups {
		r, ok := linkRun(g)
		if !ok {
			continue
		}
		shown := busiestOf(r)
		over = over || peakOf(shown) > 1
		for _, st := range shown {
			t.AddRow(Str(g.Name(keys)), Str(st.link), Float(st.capMBs, 0), Float(st.meanMBps, 1),
				Float(st.mean, 3), Float(st.peak, 3), Float(st.saturated, 3))
		}
	}
	t.Notes = append(t.Notes, "Means are over the run's timeline instants (a link that carried nothing at an instant counts 0); saturated is at least 99% used; the first seed of each cell that recorded link loads.")
	if over {
		t.Notes = append(t.Notes, overCapacityNote)
	}
	return t
}

// overCapacityNote explains a peak utilisation above 1, which only the flow
// model's rate-update quantum gives (internal/flow/quantum.go).
const overCapacityNote = "A peak above 1 is flow_update's: a transfer started between two rate solves runs at its equal share of the link until the next solve while the transfers already there keep their rates, so a link can carry more than its capacity for up to one quantum (docs/network-model.md, \"An equal share while a solve is deferred\")."

// busiestOf is r's busiestLinksShown busiest links by mean utilisation
// (linkStats' order), the ones the table and the figure show.
func busiestOf(r Run) []linkStat {
	stats := linkStats(r)
	return stats[:min(busiestLinksShown, len(stats))]
}

// peakOf is the largest peak utilisation among stats, 0 when none.
func peakOf(stats []linkStat) float64 {
	var peak float64
	for _, st := range stats {
		peak = max(peak, st.peak)
	}
	return peak
}
