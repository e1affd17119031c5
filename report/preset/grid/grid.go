// Package grid is the form the eas and hybsmrp presets share: a grid of
// metrics against an x axis (replication factor, number of tasks), one column
// per policy, each cell the values of the seeds' runs, rendered as a table and
// as bar or line figures.
package grid

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracereplay/tracereplay/report"
)

// A grid is the form of the eas and hybsmrp presets' outputs (and of those
// papers' figures and tables): for each metric and context (the values of the
// labels that tell runs apart other than the policy, the seed and the x axis),
// one row per value of the x axis (replication factor, number of tasks) and one
// column per policy, each cell the values of the seeds' runs. This file holds the
// part both presets share: building the grid and rendering it as a table.

// Series names a policy as its paper does.
type Series struct{ Policy, Display string }

// Metric is one quantity a preset reports.
type Metric struct {
	ID    string // short name, used in figure file names
	Short string // short name with unit, in the table
	Title string // what it is, with unit: a figure's y axis
	Prec  int    // decimals in the table
	Value func(report.Run) float64
	// paper names the paper's figure or table that shows the metric for r
	// ("Fig. 3", "Table 4"), or "" when the paper has none.
	Paper func(r report.Run) string
	// applies, when set, says which runs have the metric.
	Applies func(report.Run) bool
	// normalise divides every value of a block by the largest mean of the block
	// (EAS Fig. 4: "we normalize final load balance value to [0,1]").
	Normalise bool
	// relGain makes gain rows relative: (Σ base − Σ column)/Σ base over the rows,
	// in percent; without it they are differences of the rows' mean.
	RelGain bool
}

// Preset describes a preset whose table and figures are grids.
type Preset struct {
	Name      string // file name prefix of the figures
	Label     string // the paper's name of its policy, in figure titles
	Title     string // the table's title
	What      string // header of the column naming the figure or table
	XLabel    string // the label the paper puts on the x axis
	XHeader   string // its header in the table and figures
	Series    []Series
	Metrics   []Metric
	Summaries bool // add rows "average" and "vs BASE" for each base in bases
	Bases     []string
	Notes     []string
}

// seedValues are the values of one grid cell, one per seed.
type seedValues struct {
	seeds []string
	vals  []float64
}

// value returns the value of seed s.
func (v *seedValues) value(s string) (float64, bool) {
	if v == nil {
		return 0, false
	}
	if i := slices.Index(v.seeds, s); i >= 0 {
		return v.vals[i], true
	}
	return 0, false
}

// gridBlock is one reproduced figure or table: a metric on one context.
type gridBlock struct {
	metric  *Metric
	paper   string
	context []string // label=value, in label order
	xs      []string // sorted, numerically where possible
	series  []string // policies, in column order
	cells   map[[2]string]*seedValues
}

// cell returns the values at x and series.
func (b *gridBlock) cell(x, series string) *seedValues { return b.cells[[2]string{x, series}] }

// grid is the blocks of a set of runs and the label on their x axis.
type grid struct {
	// xLabel is the preset's x label when the runs have it, else the first
	// varying label other than policy, trace, hw and seed, else "".
	xLabel string
	// ctxLabels are the varying labels other than policy, seed and xLabel.
	ctxLabels []string
	series    []string // every policy, in column order
	blocks    []*gridBlock
}

// runSeed is the seed of r: its label, else its summary's.
func runSeed(r report.Run) string {
	if s, ok := r.Label("seed"); ok {
		return s
	}
	return strconv.FormatUint(r.Summary.Seed, 10)
}

// display returns the paper's name of a policy; a known policy with parameters
// is its name followed by them ("EAS threshold=3"); others are left as they are.
func (p *Preset) display(policy string) string {
	for _, s := range p.Series {
		if s.Policy == policy {
			return s.Display
		}
	}
	base, args, _ := strings.Cut(policy, ":")
	for _, s := range p.Series {
		if s.Policy == base {
			return s.Display + " " + strings.ReplaceAll(args, ",", " ")
		}
	}
	return policy
}

// compareSeries orders policies as the paper lists them, a known policy with
// parameters after it, others after all of them; ties in natural order
// (threshold=3 before threshold=10).
func (p *Preset) compareSeries(a, b string) int {
	rank := func(s string) int {
		base, _, _ := strings.Cut(s, ":")
		for _, name := range []string{s, base} {
			if i := slices.IndexFunc(p.Series, func(g Series) bool { return g.Policy == name }); i >= 0 {
				return i
			}
		}
		return len(p.Series)
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	if c := compareNatural(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// compareNatural compares strings by their runs of digits as numbers and the
// rest as text.
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da > 0 && db > 0 {
			na, _ := strconv.ParseUint(a[:da], 10, 64)
			nb, _ := strconv.ParseUint(b[:db], 10, 64)
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitPrefix returns the length of the leading run of ASCII digits of s.
func digitPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// build groups runs into the grid's blocks.
func (p *Preset) build(runs []report.Run) *grid {
	g := &grid{}
	if len(runs) == 0 {
		return g
	}
	sorted := slices.Clone(runs)
	report.SortRuns(sorted)
	varying := report.VaryingLabels(sorted)
	if slices.ContainsFunc(sorted, func(r report.Run) bool { _, ok := r.Labels[p.XLabel]; return ok }) {
		g.xLabel = p.XLabel
	} else if i := slices.IndexFunc(varying, func(k string) bool { return !slices.Contains(report.FixedLabels, k) }); i >= 0 {
		g.xLabel = varying[i]
	}
	for _, k := range varying {
		if k != report.PolicyLabel && k != "seed" && k != g.xLabel {
			g.ctxLabels = append(g.ctxLabels, k)
		}
	}
	find := func(m *Metric, paper string, ctx []string) *gridBlock {
		for _, b := range g.blocks {
			if b.metric == m && b.paper == paper && slices.Equal(b.context, ctx) {
				return b
			}
		}
		b := &gridBlock{metric: m, paper: paper, context: ctx, cells: map[[2]string]*seedValues{}}
		g.blocks = append(g.blocks, b)
		return b
	}
	for _, r := range sorted {
		pol, _ := r.Label(report.PolicyLabel)
		if !slices.Contains(g.series, pol) {
			g.series = append(g.series, pol)
		}
		x := "–"
		if g.xLabel != "" {
			x, _ = r.Label(g.xLabel)
		}
		var ctx []string
		for _, k := range g.ctxLabels {
			v, _ := r.Label(k)
			ctx = append(ctx, k+"="+v)
		}
		for i := range p.Metrics {
			m := &p.Metrics[i]
			if m.Applies != nil && !m.Applies(r) {
				continue
			}
			b := find(m, m.Paper(r), ctx)
			if !slices.Contains(b.xs, x) {
				b.xs = append(b.xs, x)
			}
			if !slices.Contains(b.series, pol) {
				b.series = append(b.series, pol)
			}
			c := b.cell(x, pol)
			if c == nil {
				c = &seedValues{}
				b.cells[[2]string{x, pol}] = c
			}
			c.seeds = append(c.seeds, runSeed(r))
			c.vals = append(c.vals, m.Value(r))
		}
	}
	slices.SortFunc(g.series, p.compareSeries)
	for _, b := range g.blocks {
		slices.SortFunc(b.xs, report.CompareLabelValues)
		slices.SortFunc(b.series, p.compareSeries)
		if b.metric.Normalise {
			normaliseBlock(b)
		}
	}
	metricIndex := func(m *Metric) int {
		return slices.IndexFunc(p.Metrics, func(q Metric) bool { return q.ID == m.ID })
	}
	slices.SortStableFunc(g.blocks, func(a, b *gridBlock) int {
		if c := cmp.Compare(metricIndex(a.metric), metricIndex(b.metric)); c != 0 {
			return c
		}
		if (a.paper == "") != (b.paper == "") {
			if a.paper == "" {
				return 1
			}
			return -1
		}
		if c := report.CompareLabelValues(a.paper, b.paper); c != 0 {
			return c
		}
		return slices.CompareFunc(a.context, b.context, report.CompareLabelValues)
	})
	return g
}

// normaliseBlock divides every value of b by the largest mean of its cells.
func normaliseBlock(b *gridBlock) {
	top := 0.0
	for _, c := range b.cells {
		top = max(top, report.Mean(c.vals))
	}
	if top <= 0 {
		return
	}
	for _, c := range b.cells {
		for i := range c.vals {
			c.vals[i] /= top
		}
	}
}

// name is the block's figure or table name with its metric, e.g. "Fig. 3
// locality (%)".
func (b *gridBlock) name() string {
	if b.paper == "" {
		return b.metric.Short
	}
	return b.paper + " " + b.metric.Short
}

// fileName is the block's figure file name without extension, e.g.
// eas_fig3_locality or hybsmrp_table6_completion_wordcount.
func (p *Preset) fileName(b *gridBlock) string {
	parts := []string{p.Name}
	if b.paper != "" {
		parts = append(parts, strings.ReplaceAll(b.paper, ".", ""))
	}
	parts = append(parts, b.metric.ID)
	for _, kv := range b.context {
		_, v, _ := strings.Cut(kv, "=")
		parts = append(parts, v)
	}
	for i, s := range parts {
		parts[i] = strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
				return r
			case r >= 'A' && r <= 'Z':
				return r - 'A' + 'a'
			}
			return -1
		}, strings.ReplaceAll(s, " ", ""))
	}
	return strings.Join(parts, "_")
}

// csvName makes a label or policy usable as a CSV column name.
func csvName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// Table renders the grid of runs: a row per block and x value (plus the summary
// rows), a mean and a 95% half-width column per policy.
func (p *Preset) Table(runs []report.Run) *report.Table {
	g := p.build(runs)
	t := &report.Table{Title: p.Title, Notes: p.Notes}
	t.Columns = append(t.Columns, report.Column{Header: p.What, Name: csvName(p.What)})
	for _, k := range g.ctxLabels {
		t.Columns = append(t.Columns, report.Column{Header: k, Name: csvName(k)})
	}
	xHeader, xName := g.xLabel, csvName(g.xLabel)
	if g.xLabel == "" || g.xLabel == p.XLabel {
		xHeader, xName = p.XHeader, csvName(p.XLabel)
	}
	t.Columns = append(t.Columns, report.Column{Header: xHeader, Name: xName, Align: report.AlignRight},
		report.Column{Header: "seeds", Name: "seeds", Align: report.AlignRight})
	for _, s := range g.series {
		t.Columns = append(t.Columns,
			report.Column{Header: p.display(s), Name: csvName(s), Align: report.AlignRight},
			report.Column{Header: "±", Name: csvName(s) + "_ci95", Align: report.AlignRight})
	}
	for _, b := range g.blocks {
		row := func(x string, seeds int, cell func(s string) (float64, float64)) {
			cells := []report.Cell{report.Str(b.name())}
			for _, kv := range b.context {
				_, v, _ := strings.Cut(kv, "=")
				cells = append(cells, report.Str(v))
			}
			cells = append(cells, report.Str(x), report.Int(seeds))
			for _, s := range g.series {
				m, h := cell(s)
				cells = append(cells, report.Float(m, b.metric.Prec), report.Float(h, b.metric.Prec))
			}
			t.AddRow(cells...)
		}
		for _, x := range b.xs {
			seeds := 0
			for _, s := range g.series {
				if c := b.cell(x, s); c != nil {
					seeds = max(seeds, len(c.vals))
				}
			}
			row(x, seeds, func(s string) (float64, float64) {
				c := b.cell(x, s)
				if c == nil {
					return math.NaN(), math.NaN()
				}
				return report.MeanCI95(c.vals)
			})
		}
		if !p.Summaries {
			continue
		}
		seeds := b.completeSeeds(g.series)
		row("average", len(seeds), func(s string) (float64, float64) {
			return b.summary(seeds, s, "")
		})
		for _, base := range p.Bases {
			if !slices.Contains(b.series, base) || len(b.series) < 2 {
				continue
			}
			row("vs "+p.display(base), len(seeds), func(s string) (float64, float64) {
				return b.summary(seeds, s, base)
			})
		}
	}
	return t
}

// completeSeeds returns the seeds that have a value at every x of b for at least
// one of the policies, in the order of the first cell's seeds.
func (b *gridBlock) completeSeeds(series []string) []string {
	var out []string
	for _, s := range series {
		for _, x := range b.xs {
			c := b.cell(x, s)
			if c == nil {
				continue
			}
			for _, seed := range c.seeds {
				if !slices.Contains(out, seed) && b.seedComplete(seed, s) {
					out = append(out, seed)
				}
			}
		}
	}
	slices.SortFunc(out, report.CompareLabelValues)
	return out
}

// seedComplete reports whether policy s has a value for seed at every x.
func (b *gridBlock) seedComplete(seed, s string) bool {
	for _, x := range b.xs {
		if _, ok := b.cell(x, s).value(seed); !ok {
			return false
		}
	}
	return true
}

// summary is the mean and 95% half-width over seeds of a per-seed summary of
// policy s over the rows of b: with base "", the mean over the rows; else the
// paired gain over base (see gridMetric.relGain). Seeds that lack a row of s or
// of base are left out; NaN when s is base or no seed is left.
func (b *gridBlock) summary(seeds []string, s, base string) (float64, float64) {
	if s == base {
		return math.NaN(), math.NaN()
	}
	var per []float64
	for _, seed := range seeds {
		if !b.seedComplete(seed, s) || base != "" && !b.seedComplete(seed, base) {
			continue
		}
		var sum, sumBase float64
		for _, x := range b.xs {
			v, _ := b.cell(x, s).value(seed)
			sum += v
			if base != "" {
				w, _ := b.cell(x, base).value(seed)
				sumBase += w
			}
		}
		n := float64(len(b.xs))
		switch {
		case base == "":
			per = append(per, sum/n)
		case b.metric.RelGain:
			per = append(per, 100*(sumBase-sum)/sumBase)
		default:
			per = append(per, (sum-sumBase)/n)
		}
	}
	if len(per) == 0 {
		return math.NaN(), math.NaN()
	}
	return report.MeanCI95(per)
}
