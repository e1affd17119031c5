package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/internal/summary"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Tests over seeds that Compare uses.
const (
	// PairedT is Student's paired t test on the per-seed differences
	// candidate − baseline, used when both sides ran the same seeds.
	PairedT = "paired t"
	// WelchT is Welch's unequal-variance t test on the per-seed values, used
	// when the seed sets differ.
	WelchT = "Welch t"
)

// Comparison is the outcome of Compare: one CellComparison per cell (the runs
// that differ only in the seed) present in both result sets, in GroupRuns order.
type Comparison struct {
	Cells      []CellComparison
	Thresholds []Threshold
	// AllowUntested lets a check that could not be tested pass (see
	// CheckResult.Failed).
	AllowUntested bool
	// Labels are the label keys (other than the seed) that tell the cells
	// apart, PolicyLabel first.
	Labels []string
}

// CellComparison compares one cell.
type CellComparison struct {
	// Labels are the cell's labels (the seed left out).
	Labels map[string]string
	// Name is the policy and the labels that differ between cells, e.g.
	// "fair trace=fb09".
	Name string
	// BaseSeeds and CandSeeds are the seeds of each side, in order.
	BaseSeeds, CandSeeds []string
	Metrics              []MetricComparison
}

// MetricComparison compares one metric of one cell over seeds.
type MetricComparison struct {
	Metric CompareMetric
	// Base and Cand are the per-run values (runs where the metric does not
	// exist, e.g. no job with reduces, left out; with PairedT, seeds where
	// either side lacks it).
	Base, Cand []float64
	// BaseMean ± BaseCI and CandMean ± CandCI are MeanCI95 of each side.
	BaseMean, BaseCI, CandMean, CandCI float64
	// Change is CandMean − BaseMean (the mean per-seed difference with
	// PairedT) and ChangeCI the half-width of its 95% confidence interval,
	// NaN when Test is "".
	Change, ChangeCI float64
	// Test is PairedT, WelchT, or "" when one side has fewer than two values
	// and no test is possible; DF is its degrees of freedom and P its
	// two-sided p-value.
	Test  string
	DF, P float64
	// Significant: the interval of the change excludes zero (P < 0.05).
	Significant bool
	Checks      []CheckResult
}

// CheckResult is one threshold applied to one metric of one cell.
type CheckResult struct {
	Threshold Threshold
	// Exceeded: the change is beyond the threshold's limit.
	Exceeded bool
	// Regression: exceeded and significant.
	Regression bool
	// Untested: no test over seeds was possible (one seed on a side).
	Untested bool
	// Failed: the check fails the gate: a regression, or, unless
	// CompareOptions.AllowUntested, an untested change beyond the limit (with
	// one seed nothing tells such a change from noise, so it cannot pass).
	Failed bool
}

// CompareOptions change how Compare judges the checks.
type CompareOptions struct {
	// AllowUntested lets an untested change beyond a limit pass (report
	// compare --allow-untested).
	AllowUntested bool
}

// RelChange is the change in percent of the baseline mean (±Inf when the
// baseline mean is 0 and the change is not).
func (m MetricComparison) RelChange() float64 {
	if m.Change == 0 {
		return 0
	}
	return 100 * m.Change / math.Abs(m.BaseMean)
}

// Direction describes a significant change as "worse" or "better" for the
// metric, "n.s." when it is not significant and "" when it was not tested.
func (m MetricComparison) Direction() string {
	switch {
	case m.Test == "":
		return ""
	case !m.Significant:
		return "n.s."
	case (m.Change > 0) == m.Metric.HigherIsWorse:
		return "worse"
	default:
		return "better"
	}
}

// Failures counts the checks that fail the gate (CheckResult.Failed).
func (c *Comparison) Failures() int {
	n := 0
	for _, cell := range c.Cells {
		for _, m := range cell.Metrics {
			for _, ch := range m.Checks {
				if ch.Failed {
					n++
				}
			}
		}
	}
	return n
}

// Regressions counts the checks that found a significant change beyond
// their limit.
func (c *Comparison) Regressions() int {
	n := 0
	for _, cell := range c.Cells {
		for _, m := range cell.Metrics {
			for _, ch := range m.Checks {
				if ch.Regression {
					n++
				}
			}
		}
	}
	return n
}

// Checks counts the checks (thresholds times cells).
func (c *Comparison) Checks() int { return len(c.Thresholds) * len(c.Cells) }

// Compare lines up the cells of a baseline and a candidate result set (runs with
// equal labels apart from the seed, e.g. policy, trace, hw and sweep values),
// compares each metric of CompareMetrics over the seeds, and applies the
// thresholds.
//
// The test over seeds: when a cell ran the same seeds on both sides, a paired t
// test on the per-seed differences candidate − baseline. replay draws block
// placement, task-time noise and heartbeat phases from the seed (common random
// numbers), so the two runs of a seed see the same workload and their
// difference isolates the code change; pairing removes the between-seed
// variance, which for tail metrics is usually far larger than the effect. When
// the seed sets differ, Welch's t test on the per-seed values, which does not
// assume equal variances. Either way the 95% confidence interval of the change
// is Student's t (PairedT: MeanCI95 of the differences). A check is a
// regression when the change is beyond its limit (relative limits against the
// baseline mean) and significant (the interval excludes zero); with one seed
// on a side nothing can be tested and the check passes as untested.
//
// Cells are matched by their labels and must agree in identity: the trace
// content and hardware model of both sides (Run.TraceID, Run.HardwareID) must
// be the same, so a cell whose hardware changed is a mismatch, not a change.
//
// Allocation studies (Run.Alloc) are left out. Errors (all bad input): no
// simulation runs on a side; runs of a side that are not seeds of one cell
// (CheckCells); cells present in one set only, all named; cells whose trace or
// hardware differ between the sets, all named; and cells whose runs of a seed
// replayed different jobs (job count, ids or submit times differ: different
// traces).
func Compare(base, cand []Run, thresholds []Threshold, opt ...CompareOptions) (*Comparison, error) {
	// Allocation studies have no jobs to compare.
	_, base = SplitAllocStudies(base)
	_, cand = SplitAllocStudies(cand)
	if len(base) == 0 || len(cand) == 0 {
		return nil, fmt.Errorf("no simulation runs to compare (allocation studies are not compared)")
	}
	if err := CheckCells(base); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if err := CheckCells(cand); err != nil {
		return nil, fmt.Errorf("candidate: %w", err)
	}
	bg, cg := GroupRuns(base), GroupRuns(cand)
	keys := cellKeys(append(slices.Clone(base), cand...))
	if err := matchCells(bg, cg, keys); err != nil {
		return nil, err
	}
	if err := matchIdentities(bg, cg, keys); err != nil {
		return nil, err
	}
	c := &Comparison{Thresholds: thresholds, Labels: GroupLabels(bg)}
	for _, o := range opt {
		c.AllowUntested = c.AllowUntested || o.AllowUntested
	}
	for _, b := range bg {
		k := cellKey(b.Runs[0], keys)
		i := slices.IndexFunc(cg, func(g Group) bool { return cellKey(g.Runs[0], keys) == k })
		cell, err := compareCell(b, cg[i], thresholds, c.AllowUntested)
		if err != nil {
			return nil, fmt.Errorf("cell %s: %w", k, err)
		}
		cell.Name = b.Name(c.Labels)
		c.Cells = append(c.Cells, cell)
	}
	return c, nil
}

// cellKeys are the label keys that identify a cell: every key but the seed.
func cellKeys(runs []Run) []string { return summary.WithoutSeed(LabelKeys(runs)) }

// cellKey names a cell by all its labels, e.g. "policy=fair hw=fb-600 trace=x".
func cellKey(r Run, keys []string) string {
	var parts []string
	for _, k := range keys {
		if v, ok := r.Label(k); ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// matchCells checks that both sets have the same cells and names those that
// are not.
func matchCells(bg, cg []Group, keys []string) error {
	names := func(gs []Group) []string {
		out := make([]string, len(gs))
		for i, g := range gs {
			out[i] = cellKey(g.Runs[0], keys)
		}
		return out
	}
	bn, cn := names(bg), names(cg)
	var onlyB, onlyC []string
	for _, n := range bn {
		if !slices.Contains(cn, n) {
			onlyB = append(onlyB, n)
		}
	}
	for _, n := range cn {
		if !slices.Contains(bn, n) {
			onlyC = append(onlyC, n)
		}
	}
	if len(onlyB)+len(onlyC) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("the result sets have different cells")
	if len(onlyB) > 0 {
		fmt.Fprintf(&b, "; only in the baseline: %s", strings.Join(onlyB, ", "))
	}
	if len(onlyC) > 0 {
		fmt.Fprintf(&b, "; only in the candidate: %s", strings.Join(onlyC, ", "))
	}
	for _, k := range keys {
		bv, cv := labelValues(bg, k), labelValues(cg, k)
		if !slices.Equal(bv, cv) {
			fmt.Fprintf(&b, "; label %s is %s in the baseline, %s in the candidate", k, listOrNone(bv), listOrNone(cv))
		}
	}
	return fmt.Errorf("%s", b.String())
}

// labelValues lists the distinct values of label k, sorted; "" stands for a
// group without the label.
func labelValues(gs []Group, k string) []string {
	var out []string
	for _, g := range gs {
		v, ok := g.Label(k)
		if !ok {
			v = "(none)"
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, CompareLabelValues)
	return out
}

func listOrNone(v []string) string {
	if len(v) == 0 {
		return "(none)"
	}
	return "{" + strings.Join(v, ", ") + "}"
}

// matchIdentities checks that the matched cells of both sets replayed the same
// trace on the same hardware, and names every cell that did not.
func matchIdentities(bg, cg []Group, keys []string) error {
	var diffs []string
	for _, b := range bg {
		k := cellKey(b.Runs[0], keys)
		i := slices.IndexFunc(cg, func(g Group) bool { return cellKey(g.Runs[0], keys) == k })
		x, y := b.Runs[0], cg[i].Runs[0]
		if !sameHardware(x, y) {
			diffs = append(diffs, fmt.Sprintf("%s: hardware %s in the baseline, %s in the candidate", k, hardwareText(x), hardwareText(y)))
		}
		if !sameTraceID(x, y) {
			diffs = append(diffs, fmt.Sprintf("%s: trace %s in the baseline, %s in the candidate", k, traceText(x), traceText(y)))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("the result sets do not match: %s", strings.Join(diffs, "; "))
	}
	return nil
}

// compareCell compares the runs of one cell.
func compareCell(b, c Group, thresholds []Threshold, allowUntested bool) (CellComparison, error) {
	out := CellComparison{Labels: map[string]string{}, BaseSeeds: b.Seeds(), CandSeeds: c.Seeds()}
	for _, k := range summary.WithoutSeed(b.Runs[0].LabelKeys()) {
		out.Labels[k], _ = b.Label(k)
	}
	paired := slices.Equal(out.BaseSeeds, out.CandSeeds)
	if paired {
		for i := range b.Runs {
			if err := sameTrace(b.Runs[i], c.Runs[i], true); err != nil {
				return out, fmt.Errorf("seed %s: %w", out.BaseSeeds[i], err)
			}
		}
	} else if err := sameTrace(b.Runs[0], c.Runs[0], false); err != nil {
		return out, err
	}
	bs, cs := runStats(b.Runs), runStats(c.Runs)
	for _, m := range compareMetrics {
		mc := compareMetric(m, bs, cs, paired)
		for _, t := range thresholds {
			if t.Metric == m.Name {
				mc.Checks = append(mc.Checks, check(mc, t, allowUntested))
			}
		}
		out.Metrics = append(out.Metrics, mc)
	}
	return out, nil
}

func runStats(runs []Run) []RunStats {
	out := make([]RunStats, len(runs))
	for i, r := range runs {
		out[i] = ComputeStats(r)
	}
	return out
}

// sameTrace reports whether two runs replayed the same trace: the same job ids in
// the same order and, when strict (the same seed on both sides), the same
// submit times.
func sameTrace(b, c Run, strict bool) error {
	if len(b.Jobs) != len(c.Jobs) {
		return fmt.Errorf("different traces: %d jobs in the baseline (%s), %d in the candidate (%s)", len(b.Jobs), b.Dir, len(c.Jobs), c.Dir)
	}
	for i := range b.Jobs {
		x, y := b.Jobs[i], c.Jobs[i]
		if x.JobID != y.JobID || strict && x.SubmitUs != y.SubmitUs {
			return fmt.Errorf("different traces: job %d is %s submitted at %.6g s in the baseline (%s), %s submitted at %.6g s in the candidate (%s)",
				i, x.JobID, Seconds(x.SubmitUs), b.Dir, y.JobID, Seconds(y.SubmitUs), c.Dir)
		}
	}
	return nil
}

// compareMetric compares metric m over the runs' statistics.
func compareMetric(m CompareMetric, bs, cs []RunStats, paired bool) MetricComparison {
	mc := MetricComparison{Metric: m, Change: math.NaN(), ChangeCI: math.NaN(), DF: math.NaN(), P: math.NaN()}
	if paired {
		for i := range bs {
			x, y := m.value(bs[i]), m.value(cs[i])
			if !math.IsNaN(x) && !math.IsNaN(y) {
				mc.Base, mc.Cand = append(mc.Base, x), append(mc.Cand, y)
			}
		}
	} else {
		mc.Base, mc.Cand = finite(bs, m.value), finite(cs, m.value)
	}
	mc.BaseMean, mc.BaseCI = meanCI(mc.Base)
	mc.CandMean, mc.CandCI = meanCI(mc.Cand)
	if len(mc.Base) < 2 || len(mc.Cand) < 2 {
		if len(mc.Base) > 0 && len(mc.Cand) > 0 {
			mc.Change = mc.CandMean - mc.BaseMean
		}
		return mc
	}
	var se float64
	if paired {
		d := make([]float64, len(mc.Base))
		for i := range d {
			d[i] = mc.Cand[i] - mc.Base[i]
		}
		mc.Test = PairedT
		mc.Change, mc.ChangeCI = MeanCI95(d)
		mc.DF = float64(len(d) - 1)
		se = stat.StdDev(d, nil) / math.Sqrt(float64(len(d)))
	} else {
		mc.Test = WelchT
		vb := stat.Variance(mc.Base, nil) / float64(len(mc.Base))
		vc := stat.Variance(mc.Cand, nil) / float64(len(mc.Cand))
		se = math.Sqrt(vb + vc)
		mc.Change = mc.CandMean - mc.BaseMean
		// Welch-Satterthwaite degrees of freedom.
		mc.DF = (vb + vc) * (vb + vc) / (vb*vb/float64(len(mc.Base)-1) + vc*vc/float64(len(mc.Cand)-1))
		mc.ChangeCI = 0
		if se > 0 {
			mc.ChangeCI = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: mc.DF}.Quantile(0.975) * se
		}
	}
	switch {
	case se == 0 && mc.Change == 0:
		mc.P = 1
	case se == 0:
		mc.P = 0
	default:
		t := math.Abs(mc.Change) / se
		mc.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: mc.DF}.Survival(t)
	}
	mc.Significant = math.Abs(mc.Change) > mc.ChangeCI
	return mc
}

// finite returns the non-NaN values of value over stats.
func finite(stats []RunStats, value func(RunStats) float64) []float64 {
	var out []float64
	for _, s := range stats {
		if v := value(s); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// meanCI is MeanCI95 that also accepts no values (NaN, NaN).
func meanCI(x []float64) (float64, float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	return MeanCI95(x)
}

// check applies threshold t to mc.
func check(mc MetricComparison, t Threshold, allowUntested bool) CheckResult {
	r := CheckResult{Threshold: t, Untested: mc.Test == ""}
	beyond := func(v, limit float64) bool {
		if t.Increase {
			return v > limit
		}
		return v < limit
	}
	v := mc.Change
	if t.Relative {
		v = mc.RelChange()
	}
	if math.IsNaN(v) {
		return r
	}
	r.Exceeded = beyond(v, t.Limit) && (!t.HasFloor || beyond(mc.Change, t.Floor))
	r.Regression = r.Exceeded && mc.Significant
	r.Failed = r.Regression || r.Exceeded && r.Untested && !allowUntested
	return r
}
