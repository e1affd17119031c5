package trace

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ParamReader reads a generator's parameters, given as TOML values (an
// experiment spec) or as strings (ingest --param key=value), and collects
// every problem instead of stopping at the first. It remembers the keys it was
// asked for, in order, so that a generator whose valid parameters are exactly
// those it reads can report the others with Check. Generators outside this
// package (the paper workloads under report/preset) read their parameters
// with it.
type ParamReader struct {
	p     GenParams
	known []string
	errs  []string
}

// NewParamReader returns a reader of the parameters p.
func NewParamReader(p GenParams) *ParamReader { return &ParamReader{p: p} }

// get returns the value of key, if given, and notes key as known.
func (r *ParamReader) get(key string) (any, bool) {
	if !slices.Contains(r.known, key) {
		r.known = append(r.known, key)
	}
	v, ok := r.p[key]
	return v, ok
}

// Bad records a problem, formatted as fmt.Sprintf formats it.
func (r *ParamReader) Bad(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}

// has reports whether key was given (without noting it as known).
func (r *ParamReader) has(key string) bool { _, ok := r.p[key]; return ok }

// err returns every problem recorded, joined, or nil.
func (r *ParamReader) err() error {
	if len(r.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(r.errs, "; "))
}

// unknown reports the given parameters not in keys, sorted, with the valid list.
func (r *ParamReader) unknown(keys []string) {
	var u []string
	for k := range r.p {
		if !slices.Contains(keys, k) {
			u = append(u, k)
		}
	}
	slices.Sort(u)
	if len(u) > 0 {
		valid := strings.Join(keys, ", ")
		if valid == "" {
			valid = "none"
		}
		r.Bad("unknown parameter %s; valid parameters: %s", strings.Join(u, ", "), valid)
	}
}

// Check reports the parameters that were never read as unknown (the valid
// ones being those read, in the order read) and returns every problem, or nil.
func (r *ParamReader) Check() error {
	r.unknown(r.known)
	return r.err()
}

// MaxGenTasks bounds the tasks of a generated trace, those it lists and those
// replay synthesizes from its jobs' sizes, so that generating one at the limit
// and writing it (ingest --generate) fits in 1 GB: 800,000 tasks peak at about
// 750 MB (synthetic); 2,000,000 took 1.7-2.05 GB. The sample experiments
// generate at most 21,293. Generators check it from their parameters before
// generating anything.
const MaxGenTasks = 800_000

// Budget records a problem when jobs jobs of about perJob tasks each exceed
// MaxGenTasks; what names the parameters involved.
func (r *ParamReader) Budget(jobs, perJob float64, what string) {
	if total := jobs * perJob; total > MaxGenTasks {
		r.Bad("%s give about %.4g tasks, more than the limit of %d per generated trace", what, total, MaxGenTasks)
	}
}

// checkGenerated fails when a generated trace has a time outside [0,
// MaxTimeMs] (parameters whose times overflow) or more than MaxGenTasks tasks.
func checkGenerated(t *Trace) error {
	if len(t.Tasks) > MaxGenTasks {
		return fmt.Errorf("the parameters give %d tasks, more than the limit of %d per generated trace", len(t.Tasks), MaxGenTasks)
	}
	bad := func(v int64) bool { return v != Unknown && (v < 0 || v > MaxTimeMs) }
	for i := range t.Jobs {
		j := &t.Jobs[i]
		if bad(j.SubmitMs) || bad(j.FinishMs) || bad(j.LaunchMs) {
			return fmt.Errorf("job %s: the parameters give a time outside [0, %d] ms", j.ID, int64(MaxTimeMs))
		}
	}
	for i := range t.Tasks {
		k := &t.Tasks[i]
		if bad(k.StartMs) || bad(k.FinishMs) {
			return fmt.Errorf("task %s: the parameters give a time outside [0, %d] ms", k.TaskID, int64(MaxTimeMs))
		}
	}
	return nil
}

// number converts a TOML or string value to float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// Float reads the finite number key in [lo, hi], or def if it is not given;
// hi = math.MaxFloat64 leaves it unbounded above.
func (r *ParamReader) Float(key string, def, lo, hi float64) float64 {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	f, ok := number(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		r.Bad("%s = %v: want a number", key, v)
		return def
	}
	if f < lo || f > hi {
		if hi == math.MaxFloat64 {
			r.Bad("%s = %v: want a number in [%g, +Inf)", key, v, lo)
		} else {
			r.Bad("%s = %v: want a number in [%g, %g]", key, v, lo, hi)
		}
		return def
	}
	return f
}

// Int reads the integer key in [lo, hi], or def if it is not given.
func (r *ParamReader) Int(key string, def, lo, hi int64) int64 {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		r.Bad("%s = %v: want an integer in [%d, %d]", key, v, lo, hi)
		return def
	}
	return int64(f)
}

// Choice reads the string key, which must be one of choices, or def if it
// is not given.
func (r *ParamReader) Choice(key, def string, choices ...string) string {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	s, isStr := v.(string)
	if !isStr || !slices.Contains(choices, s) {
		r.Bad("%s = %v: want one of %s", key, v, strings.Join(choices, ", "))
		return def
	}
	return s
}

// Str reads the non-empty string key, or def if it is not given.
func (r *ParamReader) Str(key, def string) string {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	s, isStr := v.(string)
	if !isStr || s == "" {
		r.Bad("%s = %v: want a non-empty string", key, v)
		return def
	}
	return s
}

// List reads the list of integers key in [lo, hi]: a TOML array or a
// comma-separated string. It returns nil if key is not given or not valid.
func (r *ParamReader) List(key string, lo, hi int64) []int64 {
	v, ok := r.get(key)
	if !ok {
		return nil
	}
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case []int64:
		for _, i := range x {
			items = append(items, i)
		}
	case string:
		for _, f := range strings.Split(x, ",") {
			items = append(items, f)
		}
	default:
		r.Bad("%s = %v: want a list of integers", key, v)
		return nil
	}
	if len(items) == 0 {
		r.Bad("%s: want at least one value", key)
		return nil
	}
	out := make([]int64, 0, len(items))
	for _, it := range items {
		f, ok := number(it)
		if !ok || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
			r.Bad("%s: value %v: want an integer in [%d, %d]", key, it, lo, hi)
			return nil
		}
		out = append(out, int64(f))
	}
	return out
}
