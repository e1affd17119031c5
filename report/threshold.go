package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// metricKind says what unit a compare metric has and which threshold units fit
// it.
type metricKind int

const (
	timeMetric    metricKind = iota // seconds: thresholds in % or a duration (30s, 500ms)
	percentMetric                   // percent: thresholds in % (relative) or pt (points)
	ratioMetric                     // plain number: thresholds in % or a plain number
)

// CompareMetric is one statistic that report compare lines up between result
// sets: a per-run value, compared over seeds.
type CompareMetric struct {
	// Name is the metric's name in thresholds, e.g. "flowtime.p95".
	Name string
	// Title is a heading with the unit, e.g. "flowtime p95 (s)".
	Title string
	// HigherIsWorse tells which direction is a deterioration (false for
	// locality).
	HigherIsWorse bool
	kind          metricKind
	value         func(RunStats) float64
}

// compareMetrics are the metrics of report compare, in display order.
var compareMetrics = []CompareMetric{
	{"flowtime.mean", "flowtime mean (s)", true, timeMetric, func(s RunStats) float64 { return s.FlowtimeMean }},
	{"flowtime.p95", "flowtime p95 (s)", true, timeMetric, func(s RunStats) float64 { return s.FlowtimeP95 }},
	{"flowtime.p99", "flowtime p99 (s)", true, timeMetric, func(s RunStats) float64 { return s.FlowtimeP99 }},
	{"starvation.mean", "starvation mean (s)", true, timeMetric, func(s RunStats) float64 { return s.StarvationMean }},
	{"slowdown.mean", "slowdown mean", true, ratioMetric, func(s RunStats) float64 { return s.SlowdownMean }},
	{"locality", "node-local maps (%)", false, percentMetric, func(s RunStats) float64 { return s.NodeLocalPct }},
	{"makespan", "makespan (s)", true, timeMetric, func(s RunStats) float64 { return s.Makespan }},
}

// CompareMetrics returns the metrics report compare shows, in order: mean, p95
// and p99 flowtime, mean starvation and slowdown (see RunStats), node-local map
// locality in percent, and makespan.
func CompareMetrics() []CompareMetric { return append([]CompareMetric(nil), compareMetrics...) }

func metricNames() string {
	names := make([]string, len(compareMetrics))
	for i, m := range compareMetrics {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

func lookupMetric(name string) (CompareMetric, bool) {
	for _, m := range compareMetrics {
		if m.Name == name {
			return m, true
		}
	}
	return CompareMetric{}, false
}

// Threshold is one rule of --fail-on: a change of a metric beyond a limit, in
// the direction that counts as a regression.
type Threshold struct {
	// Metric is a CompareMetric's Name.
	Metric string
	// Increase is true for METRIC>LIMIT (a rise beyond Limit is a regression),
	// false for METRIC<LIMIT (a fall below Limit, Limit ≤ 0).
	Increase bool
	// Relative makes Limit a percentage of the baseline mean ("%"); otherwise
	// Limit is in the metric's unit: seconds, percentage points ("pt") of
	// locality, or plain slowdown.
	Relative bool
	Limit    float64
	// Floor, when HasFloor, is a second, absolute limit (in the metric's unit)
	// that the change must also be beyond: METRIC>+10%&+1s fails only on a
	// change of more than 10% and more than 1 s, which keeps a relative rule
	// quiet on a metric near zero. Only a relative rule has one.
	HasFloor bool
	Floor    float64
}

// String returns the rule in the canonical form ParseThresholds reads, e.g.
// "flowtime.p95>+5%", "locality<-2pt", "makespan>+30s",
// "starvation.mean>+10%&+1s".
func (t Threshold) String() string {
	op := "<"
	if t.Increase {
		op = ">"
	}
	s := t.Metric + op + t.limitString(t.Relative, t.Limit)
	if t.HasFloor {
		s += "&" + t.limitString(false, t.Floor)
	}
	return s
}

// limitString formats one limit with its sign and unit.
func (t Threshold) limitString(relative bool, v float64) string {
	unit := ""
	m, _ := lookupMetric(t.Metric)
	switch {
	case relative:
		unit = "%"
	case m.kind == timeMetric:
		unit = "s"
	case m.kind == percentMetric:
		unit = "pt"
	}
	sign := "-"
	if t.Increase {
		sign = "+"
	}
	return sign + strconv.FormatFloat(math.Abs(v), 'f', -1, 64) + unit
}

// limitText is the limit with its sign and unit, e.g. "+5%".
func (t Threshold) limitText() string {
	s := t.String()
	return s[strings.IndexAny(s, "<>")+1:]
}

// ParseThresholds parses a comma-separated list of rules METRIC>CHANGE or
// METRIC<CHANGE, spaces allowed around the parts:
//
//	flowtime.p95>+5%, starvation.mean>+10%&+1s, locality<-2pt, makespan>+30s
//
// METRIC is one of CompareMetrics. CHANGE is a signed number with a unit: "%"
// (relative to the baseline mean, any metric), "pt" (percentage points,
// locality), a Go duration unit such as s, ms or m (time metrics), or none
// (slowdown.mean). A ">" rule needs a change ≥ 0 and a "<" rule one ≤ 0. A
// relative CHANGE may be followed by "&" and an absolute one that the change must
// also exceed (Threshold.Floor). An empty list gives no thresholds.
func ParseThresholds(s string) ([]Threshold, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []Threshold
	for i, part := range strings.Split(s, ",") {
		t, err := ParseThreshold(part)
		if err != nil {
			return nil, fmt.Errorf("rule %d: %w", i+1, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// ParseThreshold parses one rule; see ParseThresholds.
func ParseThreshold(rule string) (Threshold, error) {
	r := strings.TrimSpace(rule)
	if r == "" {
		return Threshold{}, fmt.Errorf("empty rule: want METRIC>CHANGE or METRIC<CHANGE, e.g. flowtime.p95>+5%%")
	}
	k := strings.IndexAny(r, "<>")
	if k < 0 {
		return Threshold{}, fmt.Errorf("%q: no '>' or '<': want METRIC>CHANGE or METRIC<CHANGE, e.g. flowtime.p95>+5%%", r)
	}
	name, change := strings.TrimSpace(r[:k]), strings.TrimSpace(r[k+1:])
	t := Threshold{Metric: name, Increase: r[k] == '>'}
	m, ok := lookupMetric(name)
	if !ok {
		return Threshold{}, fmt.Errorf("%q: unknown metric %q; metrics: %s", r, name, metricNames())
	}
	if strings.ContainsAny(change, "<>") {
		return Threshold{}, fmt.Errorf("%q: more than one comparison", r)
	}
	parts := strings.Split(change, "&")
	if len(parts) > 2 {
		return Threshold{}, fmt.Errorf("%q: at most two limits joined by '&' (a relative and an absolute one)", r)
	}
	var rel []bool
	var vals []float64
	for _, p := range parts {
		relative, v, err := parseChange(m, strings.TrimSpace(p))
		if err != nil {
			return Threshold{}, fmt.Errorf("%q: %w", r, err)
		}
		if t.Increase && v < 0 || !t.Increase && v > 0 {
			return Threshold{}, fmt.Errorf("%q: a '%c' rule needs a change of that sign, e.g. %s", r, r[k],
				Threshold{Metric: name, Increase: t.Increase, Relative: relative, Limit: -v})
		}
		rel, vals = append(rel, relative), append(vals, v)
	}
	t.Relative, t.Limit = rel[0], vals[0]
	if len(parts) == 2 {
		if rel[0] == rel[1] {
			return Threshold{}, fmt.Errorf("%q: the two limits joined by '&' must be one relative (%%) and one absolute", r)
		}
		if !rel[0] { // canonical order: relative first
			vals[0], vals[1] = vals[1], vals[0]
		}
		t.Relative, t.Limit, t.HasFloor, t.Floor = true, vals[0], true, vals[1]
	}
	return t, nil
}

// parseChange reads one signed limit of metric m: whether it is relative, and
// its value (percent, or the metric's unit).
func parseChange(m CompareMetric, change string) (bool, float64, error) {
	sign := 1.0
	switch {
	case strings.HasPrefix(change, "+"):
		change = change[1:]
	case strings.HasPrefix(change, "-"):
		sign, change = -1, change[1:]
	}
	var v float64
	var err error
	relative := false
	switch {
	case strings.HasSuffix(change, "%"):
		relative = true
		v, err = parseLimit(strings.TrimSuffix(change, "%"))
	case strings.HasSuffix(change, "pt"):
		if m.kind != percentMetric {
			return false, 0, fmt.Errorf("unit pt (percentage points) fits locality only; use %% for %s", m.Name)
		}
		v, err = parseLimit(strings.TrimSuffix(change, "pt"))
	case m.kind == timeMetric:
		d, derr := time.ParseDuration(change)
		if derr != nil || strings.HasPrefix(change, "-") || strings.HasPrefix(change, "+") {
			return false, 0, fmt.Errorf("change %q: want a percentage (5%%) or a duration (30s, 500ms)", change)
		}
		v = d.Seconds()
	case m.kind == percentMetric:
		return false, 0, fmt.Errorf("change %q needs a unit: %% (relative) or pt (percentage points)", change)
	default:
		v, err = parseLimit(change)
	}
	if err != nil {
		return false, 0, fmt.Errorf("change %q: %w", change, err)
	}
	return relative, sign * v, nil
}

// parseLimit reads an unsigned decimal number.
func parseLimit(s string) (float64, error) {
	if s == "" || strings.ContainsAny(s, "+-") {
		return 0, fmt.Errorf("want an unsigned number after the sign")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a number")
	}
	return v, nil
}

// thresholdFile is the TOML form of --fail-on-file.
type thresholdFile struct {
	FailOn []string `toml:"fail_on"`
}

// LoadThresholdFile reads rules from a TOML file holding one key, fail_on, a list
// of rules in the syntax of ParseThresholds:
//
//	fail_on = ["flowtime.p95 > +5%", "starvation.mean > +10% & +1s", "locality < -2pt"]
//
// Unknown keys are an error. Errors name the file and the rule.
func LoadThresholdFile(path string) ([]Threshold, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("thresholds: %w", err)
	}
	var f thresholdFile
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&f)
	if err != nil {
		return nil, fmt.Errorf("thresholds %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("thresholds %s: unknown key %s; the only key is fail_on, a list of rules", path, und[0])
	}
	var out []Threshold
	for i, rule := range f.FailOn {
		t, err := ParseThreshold(rule)
		if err != nil {
			return nil, fmt.Errorf("thresholds %s: fail_on[%d]: %w", path, i, err)
		}
		out = append(out, t)
	}
	return out, nil
}
