// Package policy holds tracereplay's scheduling policies, one file each, and the
// registry that builds them from names such as "fair" or
// "fair:node-delay=5s,rack-delay=10s".
package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tracereplay/tracereplay/replay"
)

// Params are a policy's parameters, parsed from "name:key=value,key=value".
type Params map[string]string

// entry is one registered policy.
type entry struct {
	doc  string
	make func(p *ParamReader) (replay.Policy, error)
	// inAll says whether --policy all runs it.
	inAll bool
}

func registry() map[string]entry {
	return map[string]entry{
		"fifo":               {"FIFO, best-effort locality (Hadoop 1 JobQueueTaskScheduler)", newFIFO(false), true},
		"fifo-strict":        {"FIFO, strict node locality for maps", newFIFO(true), true},
		"fair":               {"Hadoop Fair Scheduler with delay scheduling", newFair(false), true},
		"fair-strict":        {"Fair Scheduler, strict node locality for maps", newFair(true), true},
		"capacity":           {"Hadoop 1 Capacity Scheduler, queues from the hardware model", newCapacity, true},
		"eas":                {"EAS (Zhao et al. 2013): load-balance-aware job selection, strict locality, job-granular", newEAS, true},
		"fifo-be":            {"EAS §5 FIFO-BE: alias of fifo", newFIFO(false), false},
		"fifo-s":             {"EAS §5 FIFO-S: alias of fifo-strict", newFIFO(true), false},
		"hfs-be":             {"EAS §5 HFS-BE: alias of fair", newFair(false), false},
		"hfs-s":              {"EAS §5 HFS-S: alias of fair-strict", newFair(true), false},
		"hybsmrp":            {"HybSMRP: dynamic priority (eq. 1) and localization ID (Gandomi et al. 2019)", newHybSMRP, true},
		"coupling":           {"Coupling Scheduler: map/reduce mismatch, Wait Scheduling, Random Peeking (Tan et al.)", newCoupling, true},
		"bar":                {"BAR (Jin et al. 2011): per-job balance-reduce plan, maps queued on their nodes", newBAR(false), true},
		"maxcover-balassign": {"MaxCover-BalAssign (Fischer et al. 2010), planned per job like bar", newBAR(true), false},
		"hds":                {"Hadoop default scheduler (BAR §V): alias of fifo", newFIFO(false), false},
		"ds0.15":             {"delay scheduling by skip count, threshold 15% of map nodes (BAR §V)", newDS(0.15), false},
		"ds0.25":             {"delay scheduling by skip count, threshold 25% of map nodes (BAR §V)", newDS(0.25), false},
		"gcc":                {"good-cache-compute (BAR §V): FIFO waiting for locality above 90% busy", newGCC, false},
		"yarn-fifo":          {"YARN FifoScheduler: containers by memory and vcores, AM first (YARN clusters only)", newYARNFIFO, false},
		"yarn-capacity":      {"YARN CapacityScheduler with user limits, AM limits, delay and preemption (YARN clusters only)", newYARNCapacity, false},
		"yarn-fair":          {"YARN FairScheduler: hierarchical fair shares, DRF, maxRunningApps, preemption (YARN clusters only)", newYARNFair, false},
		"hpfsp":              {"H-PFSP: fair phase, then the completable job with the shortest remaining time (Li et al. 2013)", newHPFSP, true},
	}
}

// Names lists every registered policy name, sorted.
func Names() []string {
	var n []string
	for k := range registry() {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// All lists the policies that "--policy all" runs, sorted.
func All() []string {
	var n []string
	for k, e := range registry() {
		if e.inAll {
			n = append(n, k)
		}
	}
	slices.Sort(n)
	return n
}

// NamesFor lists the registered policies that schedule a cluster of the
// given kind, sorted: the slot policies (aliases included) or the YARN ones.
func NamesFor(kind replay.ClusterKind) []string {
	var n []string
	for _, name := range Names() {
		if p, err := New(name); err == nil {
			if _, ok := p.(replay.ContainerPolicy); ok == (kind == replay.ClusterYARN) {
				n = append(n, name)
			}
		}
	}
	return n
}

// AllFor lists the policies that "--policy all" runs on a cluster of the
// given kind, sorted: All() on a slot cluster; on a YARN cluster every
// registered policy that schedules containers (replay.ContainerPolicy).
func AllFor(kind replay.ClusterKind) []string {
	if kind != replay.ClusterYARN {
		return All()
	}
	return NamesFor(replay.ClusterYARN)
}

// Describe returns a one-line description of a registered policy.
func Describe(name string) string { return registry()[name].doc }

// New builds the policy a spec names: "name" or "name:key=value,...". Unknown
// names and parameters are errors that list the valid ones.
func New(spec string) (replay.Policy, error) {
	name, args, _ := strings.Cut(spec, ":")
	e, ok := registry()[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q; valid policies: %s", name, strings.Join(Names(), ", "))
	}
	pr, err := readParams(name, args)
	if err != nil {
		return nil, err
	}
	p, err := e.make(pr)
	if err != nil {
		return nil, err
	}
	if err := pr.finish(); err != nil {
		return nil, err
	}
	return p, nil
}

// readParams parses "key=value,..." into a ParamReader for the named policy.
func readParams(name, args string) (*ParamReader, error) {
	pr := &ParamReader{policy: name, params: Params{}}
	if args != "" {
		for _, kv := range strings.Split(args, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("policy %s: parameter %q is not key=value", name, kv)
			}
			pr.params[k] = v
		}
	}
	return pr, nil
}

// ParamReader hands a constructor its parameters and remembers which it read, so
// that unknown ones are reported with the list of known ones.
type ParamReader struct {
	policy string
	params Params
	known  []string
	errs   []string
	// defs holds the default of each parameter read, formatted (Parameters).
	defs map[string]string
}

// def records key's default; a negative number means "derived when not
// given" (from the hardware model or the workload) and is shown as auto.
func (r *ParamReader) def(key, v string) {
	if strings.HasPrefix(v, "-") {
		v = "auto"
	}
	if r.defs == nil {
		r.defs = map[string]string{}
	}
	r.defs[key] = v
}

func (r *ParamReader) get(key string) (string, bool) {
	r.known = append(r.known, key)
	v, ok := r.params[key]
	return v, ok
}

// Duration reads a duration parameter ("5s") as simulated microseconds.
func (r *ParamReader) Duration(key string, def time.Duration) int64 {
	r.def(key, def.String())
	v, ok := r.get(key)
	if !ok {
		return int64(def / time.Microsecond)
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		r.errs = append(r.errs, fmt.Sprintf("%s=%q: want a duration like 5s", key, v))
		return 0
	}
	return int64(d / time.Microsecond)
}

// Float reads a floating-point parameter.
func (r *ParamReader) Float(key string, def float64) float64 {
	r.def(key, strconv.FormatFloat(def, 'g', -1, 64))
	v, ok := r.get(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		r.errs = append(r.errs, fmt.Sprintf("%s=%q: want a number", key, v))
	}
	return f
}

// Int reads an integer parameter.
func (r *ParamReader) Int(key string, def int) int {
	r.def(key, strconv.Itoa(def))
	v, ok := r.get(key)
	if !ok {
		return def
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		r.errs = append(r.errs, fmt.Sprintf("%s=%q: want an integer", key, v))
	}
	return i
}

// String reads a string parameter that must be one of choices.
func (r *ParamReader) String(key, def string, choices ...string) string {
	d := def
	if len(choices) > 0 {
		d += " (" + strings.Join(choices, "|") + ")"
	}
	r.def(key, d)
	v, ok := r.get(key)
	if !ok {
		return def
	}
	if len(choices) > 0 && !slices.Contains(choices, v) {
		r.errs = append(r.errs, fmt.Sprintf("%s=%q: want one of %s", key, v, strings.Join(choices, ", ")))
	}
	return v
}

// Errorf records a constructor's complaint about its parameters; New reports
// every complaint together.
func (r *ParamReader) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}

// IsSet reports whether the spec gave parameter key.
func (r *ParamReader) IsSet(key string) bool {
	_, ok := r.params[key]
	return ok
}

func (r *ParamReader) finish() error {
	var unknown []string
	for k := range r.params {
		if !slices.Contains(r.known, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	if len(unknown) > 0 {
		known := slices.Clone(r.known)
		slices.Sort(known)
		list := strings.Join(known, ", ")
		if list == "" {
			list = "none"
		}
		r.errs = append(r.errs, fmt.Sprintf("unknown parameter %s; valid parameters: %s", strings.Join(unknown, ", "), list))
	}
	if len(r.errs) > 0 {
		return fmt.Errorf("policy %s: %s", r.policy, strings.Join(r.errs, "; "))
	}
	return nil
}

// spec renders a policy's name with the parameters it was given, in sorted order,
// so results name exactly what ran.
func (r *ParamReader) spec() string {
	if len(r.params) == 0 {
		return r.policy
	}
	keys := make([]string, 0, len(r.params))
	for k := range r.params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + r.params[k]
	}
	return r.policy + ":" + strings.Join(parts, ",")
}
