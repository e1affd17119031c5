package yarnconf

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CapacityPrefix is the prefix of every CapacityScheduler key
// (CapacitySchedulerConfiguration.PREFIX).
const CapacityPrefix = "yarn.scheduler.capacity."

// PreemptionPrefix is the prefix of the ProportionalCapacityPreemptionPolicy's
// keys (CapacitySchedulerConfiguration.PREEMPTION_*).
const PreemptionPrefix = "yarn.resourcemanager.monitor.capacity.preemption."

// MonitorEnableKey turns the scheduling monitors, hence preemption, on
// (YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS).
const MonitorEnableKey = "yarn.resourcemanager.scheduler.monitor.enable"

// Resource calculators (yarn.scheduler.capacity.resource-calculator).
const (
	// DefaultCalculator compares memory only (DefaultResourceCalculator).
	DefaultCalculator = "default"
	// DominantCalculator compares dominant shares (DominantResourceCalculator).
	DominantCalculator = "dominant"
)

// CapacityConf is a CapacityScheduler configuration: the queue tree and the
// scheduler-wide settings, resolved (defaults and inherited values filled in).
type CapacityConf struct {
	// File is where it was read from.
	File string
	// Root is the queue "root", capacity 1.
	Root *CapQueue
	// MaximumApplications is yarn.scheduler.capacity.maximum-applications
	// (default 10000): the pending and running apps the whole scheduler
	// accepts.
	MaximumApplications int64
	// MaximumAMResourcePercent is the global
	// yarn.scheduler.capacity.maximum-am-resource-percent, a fraction
	// (default 0.1).
	MaximumAMResourcePercent float64
	// ResourceCalculator is DefaultCalculator or DominantCalculator, from
	// yarn.scheduler.capacity.resource-calculator.
	ResourceCalculator string
	// NodeLocalityDelay is yarn.scheduler.capacity.node-locality-delay:
	// missed scheduling opportunities before rack-local (default 40; -1
	// turns delay scheduling off).
	NodeLocalityDelay int64
	// RackLocalityAdditionalDelay is
	// yarn.scheduler.capacity.rack-locality-additional-delay: further
	// missed opportunities before off-switch (default -1: Hadoop's
	// locality wait factor instead).
	RackLocalityAdditionalDelay int64
	// MultipleAssignments is
	// yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled
	// (default true).
	MultipleAssignments bool
	// MaxContainerAssignments is
	// yarn.scheduler.capacity.per-node-heartbeat.maximum-container-assignments
	// (default 100; -1 unlimited).
	MaxContainerAssignments int64
	// MaxOffswitchAssignments is
	// yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments
	// (default 1).
	MaxOffswitchAssignments int64
	// Preemption is the ProportionalCapacityPreemptionPolicy's settings.
	Preemption Preemption
}

// Preemption holds the ProportionalCapacityPreemptionPolicy's settings.
type Preemption struct {
	// Enabled is yarn.resourcemanager.scheduler.monitor.enable (default
	// false).
	Enabled bool
	// MonitoringIntervalUs is monitoring_interval (default 3000 ms).
	MonitoringIntervalUs int64
	// MaxWaitBeforeKillUs is max_wait_before_kill (default 15000 ms).
	MaxWaitBeforeKillUs int64
	// TotalPreemptionPerRound is total_preemption_per_round, a fraction of
	// the cluster (default 0.1).
	TotalPreemptionPerRound float64
	// NaturalTerminationFactor is natural_termination_factor (default 0.2).
	NaturalTerminationFactor float64
	// MaxIgnoredOverCapacity is max_ignored_over_capacity (default 0.1).
	MaxIgnoredOverCapacity float64
}

// CapQueue is one CapacityScheduler queue.
type CapQueue struct {
	// Name is the queue's own name ("a"), Path its full path ("root.a").
	Name, Path string
	// Capacity is the guaranteed fraction of the parent's capacity
	// (.capacity / 100).
	Capacity float64
	// MaximumCapacity is the fraction of the parent it may grow to
	// (.maximum-capacity / 100; default 1).
	MaximumCapacity float64
	// AbsoluteCapacity and AbsoluteMaximumCapacity are the same as
	// fractions of the cluster (products down from root).
	AbsoluteCapacity, AbsoluteMaximumCapacity float64
	// MinimumUserLimit is .minimum-user-limit-percent / 100 (default 1).
	MinimumUserLimit float64
	// UserLimitFactor is .user-limit-factor (default 1; -1 means the
	// queue's maximum capacity).
	UserLimitFactor float64
	// MaximumAMResourcePercent is the queue's fraction for AMs, the global
	// value unless the queue sets its own.
	MaximumAMResourcePercent float64
	// MaximumApplications is the queue's limit on apps, by default the
	// global maximum × AbsoluteCapacity (LeafQueue).
	MaximumApplications int64
	// Running is false for state STOPPED: the queue takes no new apps.
	Running bool
	// Children are the queues listed by .queues, in that order.
	Children []*CapQueue
}

// Leaves returns the leaf queues in depth-first order.
func (c *CapacityConf) Leaves() []*CapQueue {
	var out []*CapQueue
	var walk func(q *CapQueue)
	walk = func(q *CapQueue) {
		if len(q.Children) == 0 {
			out = append(out, q)
		}
		for _, ch := range q.Children {
			walk(ch)
		}
	}
	walk(c.Root)
	return out
}

// DefaultCapacity is the configuration with no file: root with a single
// leaf root.default at 100%, every other setting at Hadoop's default.
func DefaultCapacity() *CapacityConf {
	c, err := capacityFromProps("(default)", []prop{{name: CapacityPrefix + "root.queues", value: "default", where: "default"},
		{name: CapacityPrefix + "root.default.capacity", value: "100", where: "default"}})
	if err != nil {
		panic("yarnconf: the default capacity configuration is invalid: " + err.Error())
	}
	return c
}

// prop is one configuration property.
type prop struct{ name, value, where string }

// capacityFromXML reads a <configuration> tree's properties.
func capacityFromXML(file string, root *node) (*CapacityConf, error) {
	var ps []prop
	for _, p := range root.children {
		if p.name != "property" {
			return nil, fmt.Errorf("%s: %s: <%s> in <configuration>: unknown element, want <property>", file, p.where, p.name)
		}
		var pr prop
		pr.where = p.where
		hasName := false
		for _, f := range p.children {
			switch f.name {
			case "name":
				pr.name, hasName = f.text, true
			case "value":
				pr.value = f.text
			case "description", "final", "source", "tag":
			default:
				return nil, fmt.Errorf("%s: %s: <%s> in <property>: unknown element", file, f.where, f.name)
			}
		}
		if !hasName {
			return nil, fmt.Errorf("%s: %s: <property> without <name>", file, p.where)
		}
		ps = append(ps, pr)
	}
	return capacityFromProps(file, ps)
}

// Global keys under CapacityPrefix, their suffixes.
var capGlobalKeys = []string{
	"maximum-applications", "maximum-am-resource-percent", "resource-calculator", "node-locality-delay",
	"rack-locality-additional-delay", "per-node-heartbeat.multiple-assignments-enabled",
	"per-node-heartbeat.maximum-container-assignments", "per-node-heartbeat.maximum-offswitch-assignments",
	// Read and not modelled (docs/yarn-schedulers.md).
	"schedule-asynchronously.enable", "queue-mappings", "queue-mappings-override.enable", "application.fail-fast",
	"lazy-preemption-enabled", "node-locality-delay.enabled", "reservations-continue-look-all-nodes",
}

// Per-queue keys: yarn.scheduler.capacity.<queue-path>.<key>.
var capQueueKeys = []string{
	"queues", "capacity", "maximum-capacity", "minimum-user-limit-percent", "user-limit-factor",
	"maximum-am-resource-percent", "maximum-applications", "state",
	// Read and not modelled.
	"acl_submit_applications", "acl_administer_queue", "acl_application_max_priority", "ordering-policy",
	"priority", "disable_preemption", "user-settings", "accessible-node-labels", "default-node-label-expression",
	"maximum-allocation-mb", "maximum-allocation-vcores", "default-application-priority",
}

// Preemption keys under PreemptionPrefix.
var preemptKeys = []string{"max_wait_before_kill", "monitoring_interval", "total_preemption_per_round",
	"natural_termination_factor", "max_ignored_over_capacity",
	// Read and not modelled.
	"observe_only", "select_based_on_reserved_containers", "intra-queue-preemption.enabled"}

// capacityFromProps builds the tree from the properties, in file order; a
// property named twice keeps its last value, as Hadoop's Configuration does.
func capacityFromProps(file string, ps []prop) (*CapacityConf, error) {
	errf := func(p prop, format string, a ...any) error {
		return fmt.Errorf("%s: %s: %s: %s", file, p.where, p.name, fmt.Sprintf(format, a...))
	}
	vals := map[string]prop{}
	var order []string
	c := &CapacityConf{File: file, MaximumApplications: 10000, MaximumAMResourcePercent: 0.1,
		ResourceCalculator: DefaultCalculator, NodeLocalityDelay: 40, RackLocalityAdditionalDelay: -1,
		MultipleAssignments: true, MaxContainerAssignments: 100, MaxOffswitchAssignments: 1,
		Preemption: Preemption{MonitoringIntervalUs: 3_000_000, MaxWaitBeforeKillUs: 15_000_000,
			TotalPreemptionPerRound: 0.1, NaturalTerminationFactor: 0.2, MaxIgnoredOverCapacity: 0.1}}
	for _, p := range ps {
		switch {
		case p.name == MonitorEnableKey:
			b, err := parseBool(p.value)
			if err != nil {
				return nil, errf(p, "%v", err)
			}
			c.Preemption.Enabled = b
		case strings.HasPrefix(p.name, PreemptionPrefix):
			k := strings.TrimPrefix(p.name, PreemptionPrefix)
			if !slices.Contains(preemptKeys, k) {
				return nil, errf(p, "unknown key (known: %s)", strings.Join(preemptKeys, ", "))
			}
			var err error
			switch k {
			case "max_wait_before_kill":
				c.Preemption.MaxWaitBeforeKillUs, err = parseMillis(p.value)
			case "monitoring_interval":
				c.Preemption.MonitoringIntervalUs, err = parseMillis(p.value)
				if err == nil && c.Preemption.MonitoringIntervalUs == 0 {
					err = fmt.Errorf("%q: want a positive interval", p.value)
				}
			case "total_preemption_per_round":
				c.Preemption.TotalPreemptionPerRound, err = parseFrac(p.value, 1)
			case "natural_termination_factor":
				c.Preemption.NaturalTerminationFactor, err = parseFrac(p.value, 1)
			case "max_ignored_over_capacity":
				c.Preemption.MaxIgnoredOverCapacity, err = parseFloat(p.value, 0, math.MaxFloat64)
			}
			if err != nil {
				return nil, errf(p, "%v", err)
			}
		case strings.HasPrefix(p.name, CapacityPrefix):
			if _, seen := vals[p.name]; !seen {
				order = append(order, p.name)
			}
			vals[p.name] = p
		}
		// Other keys (yarn-site.xml's, say) are not the scheduler's: ignored.
	}
	// Global keys first.
	for _, k := range order {
		p := vals[k]
		suffix := strings.TrimPrefix(k, CapacityPrefix)
		if !slices.Contains(capGlobalKeys, suffix) {
			continue
		}
		var err error
		switch suffix {
		case "maximum-applications":
			c.MaximumApplications, err = parseInt(p.value, 0)
		case "maximum-am-resource-percent":
			c.MaximumAMResourcePercent, err = parseFrac(p.value, 1)
		case "resource-calculator":
			c.ResourceCalculator, err = parseCalculator(p.value)
		case "node-locality-delay":
			c.NodeLocalityDelay, err = parseInt(p.value, -1)
		case "rack-locality-additional-delay":
			c.RackLocalityAdditionalDelay, err = parseInt(p.value, -1)
		case "per-node-heartbeat.multiple-assignments-enabled":
			c.MultipleAssignments, err = parseBool(p.value)
		case "per-node-heartbeat.maximum-container-assignments":
			c.MaxContainerAssignments, err = parseInt(p.value, -1)
		case "per-node-heartbeat.maximum-offswitch-assignments":
			c.MaxOffswitchAssignments, err = parseInt(p.value, 1)
		}
		if err != nil {
			return nil, errf(p, "%v", err)
		}
	}
	// The tree from root down.
	known := map[string]bool{}
	seenPath := map[string]bool{}
	var paths []string // every queue's path
	var build func(path, name string, parent *CapQueue, from prop) (*CapQueue, error)
	build = func(path, name string, parent *CapQueue, from prop) (*CapQueue, error) {
		if seenPath[path] {
			return nil, errf(from, "queue %q named twice", path)
		}
		seenPath[path] = true
		paths = append(paths, path)
		q := &CapQueue{Name: name, Path: path, Capacity: 1, MaximumCapacity: 1, MinimumUserLimit: 1, UserLimitFactor: 1,
			MaximumAMResourcePercent: c.MaximumAMResourcePercent, MaximumApplications: -1, Running: true}
		key := func(s string) (prop, bool) {
			k := CapacityPrefix + path + "." + s
			known[k] = true
			p, ok := vals[k]
			return p, ok
		}
		for _, s := range capQueueKeys {
			key(s)
		}
		if path != "root" {
			p, ok := key("capacity")
			if !ok {
				return nil, errf(from, "queue %s has no %s%s.capacity", path, CapacityPrefix, path)
			}
			v, err := parseFloat(p.value, 0, 100)
			if err != nil {
				return nil, errf(p, "%v", err)
			}
			q.Capacity = v / 100
		}
		if p, ok := key("maximum-capacity"); ok {
			v, err := parseFloat(p.value, -1, 100)
			if err != nil {
				return nil, errf(p, "%v", err)
			}
			if v != -1 {
				q.MaximumCapacity = v / 100
			}
			if q.MaximumCapacity < q.Capacity {
				return nil, errf(p, "capacity %g%% of queue %s is over its maximum-capacity %g%%", q.Capacity*100, path, v)
			}
		}
		if p, ok := key("minimum-user-limit-percent"); ok {
			v, err := parseFloat(p.value, 0, 100)
			if err == nil && v == 0 {
				err = fmt.Errorf("%q: want a percentage in (0, 100]", p.value)
			}
			if err != nil {
				return nil, errf(p, "%v", err)
			}
			q.MinimumUserLimit = v / 100
		}
		if p, ok := key("user-limit-factor"); ok {
			v, err := parseFloat(p.value, -1, math.MaxFloat64)
			if err == nil && v != -1 && v <= 0 {
				err = fmt.Errorf("%q: want a positive factor or -1", p.value)
			}
			if err != nil {
				return nil, errf(p, "%v", err)
			}
			q.UserLimitFactor = v
		}
		if p, ok := key("maximum-am-resource-percent"); ok {
			v, err := parseFrac(p.value, 1)
			if err != nil {
				return nil, errf(p, "%v", err)
			}
			q.MaximumAMResourcePercent = v
		}
		if p, ok := key("maximum-applications"); ok {
			v, err := parseInt(p.value, 0)
			if err != nil {
				return nil, errf(p, "%v", err)
			}
			q.MaximumApplications = v
		}
		if p, ok := key("state"); ok {
			switch strings.ToUpper(p.value) {
			case "RUNNING":
			case "STOPPED":
				q.Running = false
			default:
				return nil, errf(p, "%q: want RUNNING or STOPPED", p.value)
			}
		}
		if parent == nil {
			q.AbsoluteCapacity, q.AbsoluteMaximumCapacity = 1, 1
		} else {
			q.AbsoluteCapacity = parent.AbsoluteCapacity * q.Capacity
			q.AbsoluteMaximumCapacity = parent.AbsoluteMaximumCapacity * q.MaximumCapacity
			if !parent.Running {
				q.Running = false
			}
		}
		if p, ok := key("queues"); ok {
			sum := 0.0
			for _, ch := range strings.Split(p.value, ",") {
				ch = strings.TrimSpace(ch)
				if ch == "" || strings.Contains(ch, ".") {
					return nil, errf(p, "queue name %q: want a non-empty name without dots", ch)
				}
				cq, err := build(path+"."+ch, ch, q, p)
				if err != nil {
					return nil, err
				}
				q.Children = append(q.Children, cq)
				sum += cq.Capacity
			}
			// ParentQueue.setChildQueues: the children's capacities add up
			// to 100% within ParentQueue.PRECISION (0.0005, i.e. 0.05%).
			if math.Abs(sum-1) > capacityPrecision {
				return nil, errf(p, "capacities of the children of %s add up to %.6g%%, not 100%%", path, sum*100)
			}
		}
		if len(q.Children) == 0 && q.MaximumApplications < 0 {
			q.MaximumApplications = int64(float64(c.MaximumApplications) * q.AbsoluteCapacity)
		}
		return q, nil
	}
	root, err := build("root", "root", nil, prop{name: CapacityPrefix + "root.queues", where: "root"})
	if err != nil {
		return nil, err
	}
	c.Root = root
	for _, k := range order {
		suffix := strings.TrimPrefix(k, CapacityPrefix)
		if known[k] || slices.Contains(capGlobalKeys, suffix) {
			continue
		}
		if ignoredQueueSubkey(suffix, paths) {
			continue
		}
		p := vals[k]
		if strings.HasPrefix(suffix, "root.") || suffix == "root" {
			return nil, errf(p, "unknown key (not a key of a queue listed under root.queues; queue keys: %s)", strings.Join(capQueueKeys, ", "))
		}
		return nil, errf(p, "unknown key (global keys: %s)", strings.Join(capGlobalKeys, ", "))
	}
	return c, nil
}

// capQueueSubtrees are per-queue key families read and not modelled: node
// label capacities and the templates of auto-created queues.
var capQueueSubtrees = []string{"accessible-node-labels.", "leaf-queue-template.", "auto-create-child-queue.", "auto-queue-creation-v2."}

// ignoredQueueSubkey reports whether suffix is <path>.<family>... for a
// queue path of the tree and a family of capQueueSubtrees.
func ignoredQueueSubkey(suffix string, paths []string) bool {
	for _, path := range paths {
		rest, ok := strings.CutPrefix(suffix, path+".")
		if !ok {
			continue
		}
		for _, f := range capQueueSubtrees {
			if strings.HasPrefix(rest, f) || rest+"." == f {
				return true
			}
		}
	}
	return false
}

// capacityPrecision is ParentQueue.PRECISION: how far from 100% the
// children's capacities may add up (as fractions).
const capacityPrecision = 0.0005

func parseCalculator(v string) (string, error) {
	switch strings.TrimSpace(v) {
	case "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator", "DefaultResourceCalculator", DefaultCalculator:
		return DefaultCalculator, nil
	case "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator", "DominantResourceCalculator", DominantCalculator:
		return DominantCalculator, nil
	}
	return "", fmt.Errorf("%q: want org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator or DominantResourceCalculator", v)
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q: malformed boolean, want true or false", v)
}

func parseInt(v string, lo int64) (int64, error) {
	i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: malformed integer", v)
	}
	if i < lo {
		return 0, fmt.Errorf("%q: want at least %d", v, lo)
	}
	return i, nil
}

func parseFloat(v string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q: malformed number", v)
	}
	if f < lo || f > hi {
		return 0, fmt.Errorf("%q: want a number in [%g, %g]", v, lo, hi)
	}
	return f, nil
}

// parseFrac reads a fraction in [0, hi].
func parseFrac(v string, hi float64) (float64, error) { return parseFloat(v, 0, hi) }

// parseMillis reads a non-negative count of milliseconds as µs.
func parseMillis(v string) (int64, error) {
	i, err := parseInt(v, 0)
	if err != nil {
		return 0, err
	}
	if i > math.MaxInt64/1000 {
		return 0, fmt.Errorf("%q: too large", v)
	}
	return i * 1000, nil
}
