package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/summary"
)

// A validation sets each simulated run beside the run of policy "observed"
// (results.ObservedPolicy) that replayed the same trace: the schedule the trace
// recorded. Jobs are matched by job_id; only jobs that finished in both runs
// are compared.

// ValidationPair is one simulated run and the observed run it is scored against.
type ValidationPair struct {
	// Name names the pair in tables: the simulated run's policy and the labels
	// that tell pairs apart, prefixed by Source when it is set.
	Name string
	// Source names the results directory the pair came from (for pooling several
	// result sets); it may be empty.
	Source        string
	Observed, Sim Run
}

// ValidationQuantities are the per-job quantities a validation compares, in
// table order.
var ValidationQuantities = []string{"flowtime", "wait", "map phase", "reduce phase"}

// jobQuantity returns quantity q of job j in µs and whether j has it:
//   - flowtime: finish − submit;
//   - wait: first task launch − submit (wait to the first task);
//   - map phase: last map finish − first launch, for jobs with maps;
//   - reduce phase: finish − first reduce launch, for jobs with reduces.
func jobQuantity(q string, j *results.Job) (int64, bool) {
	if j.FinishUs == results.Unset || j.FlowtimeUs < 0 {
		return 0, false
	}
	switch q {
	case "flowtime":
		return j.FlowtimeUs, true
	case "wait":
		if j.FirstLaunchUs == results.Unset {
			return 0, false
		}
		return j.FirstLaunchUs - j.SubmitUs, true
	case "map phase":
		if j.Maps == 0 || j.FirstLaunchUs == results.Unset || j.LastMapEndUs == results.Unset {
			return 0, false
		}
		return j.LastMapEndUs - j.FirstLaunchUs, true
	case "reduce phase":
		if j.Reduces == 0 || j.FirstReduceLaunchUs == results.Unset {
			return 0, false
		}
		return j.FinishUs - j.FirstReduceLaunchUs, true
	}
	return 0, false
}

// ErrorStats summarise the relative errors (sim − obs)/obs of one quantity over
// the matched jobs whose observed value is positive (a relative error of a zero
// observation is undefined).
type ErrorStats struct {
	Jobs int
	// Median and P90 are nearest-rank quantiles of |sim − obs|/obs, as fractions.
	Median, P90 float64
	// Under and Over are the shares of jobs simulated shorter and longer than
	// observed (fractions; equal values count in neither).
	Under, Over float64
	// Signed holds the signed relative errors, sorted, for the error CDF.
	Signed []float64
}

// errorStats summarises signed relative errors.
func errorStats(signed []float64) ErrorStats {
	s := ErrorStats{Jobs: len(signed), Median: math.NaN(), P90: math.NaN(), Under: math.NaN(), Over: math.NaN()}
	if len(signed) == 0 {
		return s
	}
	s.Signed = slices.Sorted(slices.Values(signed))
	abs := make([]float64, len(signed))
	var under, over int
	for i, e := range signed {
		abs[i] = math.Abs(e)
		switch {
		case e < 0:
			under++
		case e > 0:
			over++
		}
	}
	slices.Sort(abs)
	s.Median, s.P90 = Percentile(abs, 0.5), Percentile(abs, 0.9)
	n := float64(len(signed))
	s.Under, s.Over = float64(under)/n, float64(over)/n
	return s
}

// FlowPoint is one matched job's observed and simulated flowtime in seconds.
type FlowPoint struct{ Obs, Sim float64 }

// ValidationRow is the validation of one pair, or of several pooled.
type ValidationRow struct {
	Name string
	// Policy is the simulated policy ("" when pooled rows mix policies).
	Policy string
	// Pairs is the number of pairs pooled in this row (1 for a pair).
	Pairs int
	// Matched counts the jobs finished in both runs; SimOnly and ObsOnly count
	// jobs finished in one run only (left out).
	Matched, SimOnly, ObsOnly int
	// Errors holds one ErrorStats per ValidationQuantities entry.
	Errors []ErrorStats
	// Flow holds the matched jobs' flowtimes, for the scatter.
	Flow []FlowPoint
	// MakespanObs and MakespanSim are the makespans in seconds (summed over
	// pooled pairs); MakespanRatio is sim/obs of one pair, or the geometric mean
	// of the pairs' ratios when pooled.
	MakespanObs, MakespanSim, MakespanRatio float64
	// LocalityObs and LocalitySim are the node-local share of the matched jobs'
	// maps of known locality, in percent.
	LocalityObs, LocalitySim float64
	// StarvationObs and StarvationSim are mean reduce starvation in seconds over
	// the matched jobs that have reduces (RunStats' job set).
	StarvationObs, StarvationSim float64

	// Sums for pooling.
	signed                   [][]float64
	logRatioSum              float64
	locObs, locSim           [2]int64 // node-local, known
	starvObs, starvSim       float64
	starvJobs                int
	makespanObs, makespanSim int64
}

// PairRuns pairs every simulated run of runs with the observed run that has the
// same labels apart from the policy and the seed (the observed schedule does
// not depend on the seed) and replayed the same trace. Allocation studies are
// left out. It fails when runs hold no observed run, no simulated run, or a
// simulated run without an observed partner. source prefixes the pair names.
func PairRuns(source string, runs []Run) ([]ValidationPair, error) {
	_, sims := SplitAllocStudies(runs)
	var obs, sim []Run
	for _, r := range sims {
		if r.Policy == results.ObservedPolicy {
			obs = append(obs, r)
		} else {
			sim = append(sim, r)
		}
	}
	where := "results"
	if source != "" {
		where = "results " + source
	}
	switch {
	case len(obs) == 0:
		return nil, fmt.Errorf("%s: no %q run to validate against (replay a trace that records a schedule with --policy observed,...)", where, results.ObservedPolicy)
	case len(sim) == 0:
		return nil, fmt.Errorf("%s: no simulated run beside %q", where, results.ObservedPolicy)
	}
	SortRuns(sim)
	keys := summary.WithoutSeed(LabelKeys(sims))
	names := VaryingLabels(sim)
	var pairs []ValidationPair
	for _, s := range sim {
		var partner *Run
		for i := range obs {
			if sameLabelsBut(s, obs[i], keys) {
				partner = &obs[i]
				break
			}
		}
		if partner == nil {
			return nil, fmt.Errorf("%s: run %s (%s): no %q run with the same labels", where, RunName(s, names), s.Dir, results.ObservedPolicy)
		}
		if partner.Summary.Trace != "" && s.Summary.Trace != "" && partner.Summary.Trace != s.Summary.Trace {
			return nil, fmt.Errorf("%s: run %s replayed trace %s, the %q run %s", where, RunName(s, names), s.Summary.Trace, results.ObservedPolicy, partner.Summary.Trace)
		}
		name := RunName(s, names)
		if source != "" {
			name = source + ": " + name
		}
		pairs = append(pairs, ValidationPair{Name: name, Source: source, Observed: *partner, Sim: s})
	}
	return pairs, nil
}

// sameLabelsBut reports whether a and b have equal labels for keys other than
// the policy.
func sameLabelsBut(a, b Run, keys []string) bool {
	for _, k := range keys {
		if k == PolicyLabel {
			continue
		}
		va, oka := a.Labels[k]
		vb, okb := b.Labels[k]
		if oka != okb || va != vb {
			return false
		}
	}
	return true
}

// ValidatePair scores one pair. It fails when no job finished in both runs.
func ValidatePair(p ValidationPair) (ValidationRow, error) {
	row := ValidationRow{Name: p.Name, Policy: p.Sim.Policy, Pairs: 1, signed: make([][]float64, len(ValidationQuantities))}
	obs := make(map[string]*results.Job, len(p.Observed.Jobs))
	for i := range p.Observed.Jobs {
		j := &p.Observed.Jobs[i]
		if j.FinishUs != results.Unset {
			obs[j.JobID] = j
		}
	}
	seen := map[string]bool{}
	for i := range p.Sim.Jobs {
		s := &p.Sim.Jobs[i]
		if s.FinishUs == results.Unset {
			continue
		}
		o, ok := obs[s.JobID]
		if !ok {
			row.SimOnly++
			continue
		}
		seen[s.JobID] = true
		row.Matched++
		for q, name := range ValidationQuantities {
			ov, ok1 := jobQuantity(name, o)
			sv, ok2 := jobQuantity(name, s)
			if ok1 && ok2 && ov > 0 {
				row.signed[q] = append(row.signed[q], float64(sv-ov)/float64(ov))
			}
		}
		row.Flow = append(row.Flow, FlowPoint{Obs: Seconds(o.FlowtimeUs), Sim: Seconds(s.FlowtimeUs)})
		for k, j := range []*results.Job{o, s} {
			loc := &row.locObs
			if k == 1 {
				loc = &row.locSim
			}
			loc[0] += int64(j.MapsNodeLocal)
			loc[1] += int64(j.MapsNodeLocal + j.MapsRackLocal + j.MapsOffRack)
		}
		if o.Reduces > 0 && s.Reduces > 0 {
			row.starvObs += Seconds(o.StarvationUs)
			row.starvSim += Seconds(s.StarvationUs)
			row.starvJobs++
		}
	}
	row.ObsOnly = len(obs) - len(seen)
	if row.Matched == 0 {
		return ValidationRow{}, fmt.Errorf("validate %s: no job finished in both the simulated run (%s) and the %q run (%s); jobs are matched by job_id", p.Name, p.Sim.Dir, results.ObservedPolicy, p.Observed.Dir)
	}
	row.makespanObs, row.makespanSim = p.Observed.Summary.MakespanUs, p.Sim.Summary.MakespanUs
	if row.makespanObs > 0 && row.makespanSim > 0 {
		row.logRatioSum = math.Log(float64(row.makespanSim) / float64(row.makespanObs))
	} else {
		row.logRatioSum = math.NaN()
	}
	row.finish()
	return row, nil
}

// finish computes the exported statistics from the sums.
func (r *ValidationRow) finish() {
	r.Errors = make([]ErrorStats, len(ValidationQuantities))
	for q := range ValidationQuantities {
		r.Errors[q] = errorStats(r.signed[q])
	}
	r.MakespanObs, r.MakespanSim = Seconds(r.makespanObs), Seconds(r.makespanSim)
	r.MakespanRatio = math.Exp(r.logRatioSum / float64(r.Pairs))
	r.LocalityObs, r.LocalitySim = percent(r.locObs[0], r.locObs[1]), percent(r.locSim[0], r.locSim[1])
	r.StarvationObs, r.StarvationSim = math.NaN(), math.NaN()
	if r.starvJobs > 0 {
		r.StarvationObs, r.StarvationSim = r.starvObs/float64(r.starvJobs), r.starvSim/float64(r.starvJobs)
	}
}

// PoolRows pools rows into one named row: the jobs of all rows together, the
// makespans summed and the makespan ratio the geometric mean of the rows'.
func PoolRows(name string, rows []ValidationRow) ValidationRow {
	p := ValidationRow{Name: name, signed: make([][]float64, len(ValidationQuantities))}
	for i, r := range rows {
		if i == 0 {
			p.Policy = r.Policy
		} else if p.Policy != r.Policy {
			p.Policy = ""
		}
		p.Pairs += r.Pairs
		p.Matched += r.Matched
		p.SimOnly += r.SimOnly
		p.ObsOnly += r.ObsOnly
		for q := range ValidationQuantities {
			p.signed[q] = append(p.signed[q], r.signed[q]...)
		}
		p.Flow = append(p.Flow, r.Flow...)
		p.logRatioSum += r.logRatioSum
		for k := range 2 {
			p.locObs[k] += r.locObs[k]
			p.locSim[k] += r.locSim[k]
		}
		p.starvObs += r.starvObs
		p.starvSim += r.starvSim
		p.starvJobs += r.starvJobs
		p.makespanObs += r.makespanObs
		p.makespanSim += r.makespanSim
	}
	p.finish()
	return p
}

// Validation is the result of validating one or more pairs.
type Validation struct {
	// Rows holds one row per pair, then, when there are several pairs, one
	// pooled row per policy that has several pairs and, when pairs mix
	// policies, one row pooling all pairs.
	Rows []ValidationRow
	// Checked indexes the rows that are checked against a limit: the pooled row
	// of each policy (or its single pair).
	Checked []int
}

// Validate scores pairs (PairRuns) and pools them.
func Validate(pairs []ValidationPair) (*Validation, error) {
	if len(pairs) == 0 {
		return nil, fmt.Errorf("validate: no simulated run paired with an %q run", results.ObservedPolicy)
	}
	v := &Validation{}
	byPolicy := map[string][]ValidationRow{}
	var policies []string
	for _, p := range pairs {
		row, err := ValidatePair(p)
		if err != nil {
			return nil, err
		}
		v.Rows = append(v.Rows, row)
		if _, ok := byPolicy[row.Policy]; !ok {
			policies = append(policies, row.Policy)
		}
		byPolicy[row.Policy] = append(byPolicy[row.Policy], row)
	}
	if len(pairs) == 1 {
		v.Checked = []int{0}
		return v, nil
	}
	for _, pol := range policies {
		rows := byPolicy[pol]
		if len(rows) == 1 {
			v.Checked = append(v.Checked, slices.IndexFunc(v.Rows, func(r ValidationRow) bool { return r.Policy == pol }))
			continue
		}
		v.Checked = append(v.Checked, len(v.Rows))
		v.Rows = append(v.Rows, PoolRows(fmt.Sprintf("%s (pooled, %d runs)", pol, len(rows)), rows))
	}
	if len(policies) > 1 {
		v.Rows = append(v.Rows, PoolRows(fmt.Sprintf("all (pooled, %d runs)", len(pairs)), v.Rows[:len(pairs)]))
	}
	return v, nil
}

// Exceeding returns the checked rows whose median flowtime error is above limit
// (a fraction), as "NAME: median X% > Y%" lines.
func (v *Validation) Exceeding(limit float64) []string {
	var out []string
	for _, i := range v.Checked {
		r := v.Rows[i]
		if m := r.Errors[0].Median; !(m <= limit) {
			out = append(out, fmt.Sprintf("%s: median flowtime error %.1f%% > %.1f%%", r.Name, 100*m, 100*limit))
		}
	}
	return out
}

// ErrorTable is the per-job error table: per row and quantity, the jobs
// compared and the median, p90 and shares under- and over-estimated of
// |sim − obs|/obs in percent.
func (v *Validation) ErrorTable() *Table {
	t := &Table{
		Title: "Per-job errors against the observed schedule (|sim - obs| / obs)",
		Columns: []Column{
			{Header: "run", Name: "run"},
			{Header: "quantity", Name: "quantity"},
			{Header: "jobs", Name: "jobs", Align: AlignRight},
			{Header: "median\n%", Name: "median_pct", Align: AlignRight},
			{Header: "p90\n%", Name: "p90_pct", Align: AlignRight},
			{Header: "under\n% jobs", Name: "under_pct", Align: AlignRight},
			{Header: "over\n% jobs", Name: "over_pct", Align: AlignRight},
		},
	}
	for _, r := range v.Rows {
		for q, name := range ValidationQuantities {
			e := r.Errors[q]
			t.AddRow(Str(r.Name), Str(name), Int(e.Jobs), Float(100*e.Median, 1), Float(100*e.P90, 1), Float(100*e.Under, 1), Float(100*e.Over, 1))
		}
	}
	t.Notes = []string{
		"jobs finished in both runs, matched by job_id; a quantity counts the jobs that have it with a positive observed value",
		"wait: submit to first task; map phase: first task to last map end; reduce phase: first reduce launch to finish",
	}
	return t
}

// RunTable is the run-level table: matched jobs, makespans and their ratio,
// map locality and mean starvation, observed and simulated.
func (v *Validation) RunTable() *Table {
	t := &Table{
		Title: "Run-level metrics, observed and simulated",
		Columns: []Column{
			{Header: "run", Name: "run"},
			{Header: "jobs\nmatched", Name: "jobs_matched", Align: AlignRight},
			{Header: "jobs\nunmatched", Name: "jobs_unmatched", Align: AlignRight},
			{Header: "makespan\nobs s", Name: "makespan_obs_s", Align: AlignRight},
			{Header: "makespan\nsim s", Name: "makespan_sim_s", Align: AlignRight},
			{Header: "makespan\nsim/obs", Name: "makespan_ratio", Align: AlignRight},
			{Header: "node-local\nobs %", Name: "locality_obs_pct", Align: AlignRight},
			{Header: "node-local\nsim %", Name: "locality_sim_pct", Align: AlignRight},
			{Header: "starvation\nobs s", Name: "starvation_obs_s", Align: AlignRight},
			{Header: "starvation\nsim s", Name: "starvation_sim_s", Align: AlignRight},
		},
	}
	for _, r := range v.Rows {
		t.AddRow(Str(r.Name), Int(r.Matched), Int(r.SimOnly+r.ObsOnly),
			Float(r.MakespanObs, 1), Float(r.MakespanSim, 1), Float(r.MakespanRatio, 3),
			Float(r.LocalityObs, 1), Float(r.LocalitySim, 1),
			Float(r.StarvationObs, 2), Float(r.StarvationSim, 2))
	}
	t.Notes = []string{"pooled rows: makespans summed, ratio the geometric mean of the runs' ratios; locality over maps of known locality; starvation mean over matched jobs with reduces"}
	return t
}
