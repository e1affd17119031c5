package report

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tracereplay/tracereplay/internal/results"
)

// QueueSharesFigure is the figure of YARN queue shares over time.
const QueueSharesFigure = "queue_shares"

// hasQueues reports whether some run has queue samples (a YARN run with a
// timeline): only then are the queue figure and table made.
func hasQueues(runs []Run) bool {
	for _, r := range runs {
		if len(r.Queues) > 0 {
			return true
		}
	}
	return false
}

// queueNames lists the queues of runs' samples, sorted.
func queueNames(runs []Run) []string {
	var names []string
	for _, r := range runs {
		for _, q := range r.Queues {
			if !slices.Contains(names, q.Queue) {
				names = append(names, q.Queue)
			}
		}
	}
	slices.Sort(names)
	return names
}

// queueShares draws, for each cell (its first seed), each queue's share of
// the cluster's memory over simulated time as a line, and its guaranteed
// share, where the policy reports one, as a thin horizontal line of the same
// colour: one panel per cell, stacked.
func queueShares(groups []Group, names []string, lk look) (Figure, error) {
	var runs []Run
	for _, g := range groups {
		runs = append(runs, g.Runs[0])
	}
	queues := queueNames(runs)
	var maxUs int64
	for _, r := range runs {
		for _, q := range r.Queues {
			maxUs = max(maxUs, q.TimeUs)
		}
	}
	unit, div := timeUnit(maxUs)
	var panels []*plot.Plot
	for i, r := range runs {
		p := lk.newPlot()
		if i == 0 {
			lk.title(p, "Queue shares of the cluster's memory")
		}
		p.Add(plotter.NewGrid())
		p.Y.Label.Text = names[i]
		p.X.Label.Text = "simulated time (" + unit + ")"
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, max(float64(maxUs)/div, 1e-9), 0, 1.05
		p.X.Tick.Marker = TidyTicks{}
		p.Y.Tick.Marker = TidyTicks{}
		for k, name := range queues {
			pts, guaranteed := queueSeries(r.Queues, name, div)
			if len(pts) == 0 {
				continue
			}
			thumbs, err := lk.addSeries(p, k, pts, plotter.NoStep, false)
			if err != nil {
				return Figure{}, err
			}
			if i == 0 {
				p.Legend.Add(name, thumbs...)
			}
			if guaranteed >= 0 {
				st := lk.series(k).line
				st.Dashes, st.Width = []vg.Length{vg.Points(2), vg.Points(2)}, st.Width/2
				l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: guaranteed}, {X: p.X.Max, Y: guaranteed}})
				if err != nil {
					return Figure{}, err
				}
				l.LineStyle = st
				p.Add(l)
			}
		}
		panels = append(panels, p)
	}
	f := StackFigure(QueueSharesFigure, panels, lk.height(1))
	f.Caption = "Each queue's share of the cluster's memory held by its running containers (ApplicationMasters included) at each timeline instant, one panel per cell (its first seed); a thin dashed line of the queue's colour is its guaranteed share where the policy reports one."
	return f, nil
}

// queueSeries is queue name's share over time in samples, zero at the
// instants it has no row (no active job), and its guaranteed share (-1 if
// none is reported).
func queueSeries(samples []results.QueueSample, name string, div float64) (plotter.XYs, float64) {
	var pts plotter.XYs
	guaranteed := -1.0
	seen := false
	var last int64 = -1
	for _, q := range samples {
		if q.TimeUs != last {
			if last >= 0 && !seen {
				pts = append(pts, plotter.XY{X: float64(last) / div, Y: 0})
			}
			last, seen = q.TimeUs, false
		}
		if q.Queue == name {
			pts = append(pts, plotter.XY{X: float64(q.TimeUs) / div, Y: q.Share})
			guaranteed, seen = q.Guaranteed, true
		}
	}
	if last >= 0 && !seen {
		pts = append(pts, plotter.XY{X: float64(last) / div, Y: 0})
	}
	for _, p := range pts {
		if p.Y != 0 {
			return pts, guaranteed
		}
	}
	if guaranteed < 0 {
		return nil, -1 // never held anything
	}
	return pts, guaranteed
}

// QueueTable lists, per cell and queue of the YARN runs among runs, the
// queue's jobs (per run) and their mean flowtime (over the seeds' jobs), wait to the first task and
// starvation, and the queue's mean and peak share of the cluster's memory
// over the timeline instants; nil when no run has queue samples.
func QueueTable(runs []Run) *Table {
	if !hasQueues(runs) {
		return nil
	}
	groups := GroupRuns(runs)
	keys := GroupLabels(groups)
	t := &Table{Title: "Queues (YARN runs): per cell and leaf queue"}
	t.Columns = []Column{{Header: "cell", Name: "cell"}, {Header: "queue", Name: "queue"},
		{Header: "jobs", Name: "jobs", Align: AlignRight},
		{Header: "mean\nflowtime (s)", Name: "mean_flowtime_s", Align: AlignRight},
		{Header: "mean\nwait (s)", Name: "mean_wait_s", Align: AlignRight},
		{Header: "mean\nstarvation (s)", Name: "mean_starvation_s", Align: AlignRight},
		{Header: "mean\nshare", Name: "mean_share", Align: AlignRight},
		{Header: "peak\nshare", Name: "peak_share", Align: AlignRight},
		{Header: "guaranteed", Name: "guaranteed", Align: AlignRight}}
	for _, g := range groups {
		for _, name := range queueNames(g.Runs) {
			var n int
			var flow, wait, starve, share, peak float64
			guaranteed := -1.0
			instants := 0
			for _, r := range g.Runs {
				// A YARN run records each job's leaf queue as its policy
				// placed it, the name its samples carry.
				for _, j := range r.Jobs {
					if jobQueue(j) != name || j.FlowtimeUs == results.Unset {
						continue
					}
					n++
					flow += float64(j.FlowtimeUs) / 1e6
					if j.WaitingUs != results.Unset {
						wait += float64(j.WaitingUs) / 1e6
					}
					starve += float64(j.StarvationUs) / 1e6
				}
				times := map[int64]bool{}
				for _, q := range r.Queues {
					times[q.TimeUs] = true
					if q.Queue == name {
						share += q.Share
						peak = max(peak, q.Share)
						guaranteed = q.Guaranteed
					}
				}
				instants += len(times)
			}
			// jobs per run, as the summary table counts them; the means pool
			// the seeds' jobs.
			row := []Cell{Str(g.Name(keys)), Str(name), Int(n / len(g.Runs))}
			if n > 0 {
				row = append(row, Float(flow/float64(n), 1), Float(wait/float64(n), 1), Float(starve/float64(n), 1))
			} else {
				row = append(row, Str("—"), Str("—"), Str("—"))
			}
			if instants > 0 {
				row = append(row, Float(share/float64(instants), 3), Float(peak, 3))
			} else {
				row = append(row, Str("—"), Str("—"))
			}
			if guaranteed >= 0 {
				row = append(row, Float(guaranteed, 3))
			} else {
				row = append(row, Str("—"))
			}
			t.AddRow(row...)
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Jobs are matched to queues by their queue name in the results (%q when none); shares are of the cluster's memory, averaged over the timeline instants.", "default"))
	return t
}

// jobQueue is the queue name a job's result carries, "default" when none.
func jobQueue(j results.Job) string {
	if j.Queue == "" {
		return "default"
	}
	return j.Queue
}
