package yarnconf

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Scheduling policies of a Fair Scheduler queue (schedulingPolicy).
const (
	// PolicyFair is FairSharePolicy: memory only.
	PolicyFair = "fair"
	// PolicyDRF is DominantResourceFairnessPolicy.
	PolicyDRF = "drf"
	// PolicyFIFO is FifoPolicy (leaf queues only).
	PolicyFIFO = "fifo"
)

// Unlimited is the value of a count limit that is not set (Hadoop's
// Integer.MAX_VALUE).
const Unlimited = math.MaxInt32

// FairConf is a Fair Scheduler allocation file, resolved: every queue carries
// its own values or the defaults and inherited values Hadoop's
// AllocationFileLoaderService gives it.
type FairConf struct {
	// File is where it was read from.
	File string
	// Root is the queue "root".
	Root *FairQueue
	// Users are the <user> elements, sorted by name.
	Users []FairUser
	// UserMaxAppsDefault is <userMaxAppsDefault> (default Unlimited).
	UserMaxAppsDefault int64
	// QueueMaxAppsDefault is <queueMaxAppsDefault> (default Unlimited).
	QueueMaxAppsDefault int64
	// QueueMaxAMShareDefault is <queueMaxAMShareDefault> (default 0.5; -1
	// disables the check).
	QueueMaxAMShareDefault float64
	// DefaultQueueSchedulingPolicy is <defaultQueueSchedulingPolicy>
	// (default fair).
	DefaultQueueSchedulingPolicy string
	// DefaultMinSharePreemptionTimeoutUs, DefaultFairSharePreemptionTimeoutUs
	// and DefaultFairSharePreemptionThreshold are root's values (defaults:
	// never, never, 0.5).
	DefaultMinSharePreemptionTimeoutUs, DefaultFairSharePreemptionTimeoutUs int64
	// DefaultFairSharePreemptionThreshold is root's threshold.
	DefaultFairSharePreemptionThreshold float64
	// Placement is the <queuePlacementPolicy>, or nil when the file has
	// none (the scheduler then applies its default rules).
	Placement []PlacementRule
}

// Never is a preemption timeout that is not set (Long.MAX_VALUE).
const Never = math.MaxInt64

// FairUser is a <user> element.
type FairUser struct {
	// Name is the user's name attribute.
	Name string
	// MaxRunningApps is its <maxRunningApps>, else userMaxAppsDefault.
	MaxRunningApps int64
}

// PlacementRule is one <rule> of a <queuePlacementPolicy>: Name is
// specified, user, primaryGroup, secondaryGroupExistingQueue, nestedUserQueue,
// default or reject; Create its create attribute (default true); Queue the
// queue of a default rule.
type PlacementRule struct {
	// Name is the rule's name attribute.
	Name string
	// Create says the rule may create the queue it names.
	Create bool
	// Queue is a default rule's queue attribute ("" is root.default).
	Queue string
}

// ResourceSpec is a minResources or maxResources value: absolute amounts, or
// percentages of the cluster ("50% memory, 25% cpu", "40%").
type ResourceSpec struct {
	// Set says the element was given.
	Set bool
	// MemoryMB and VCores are absolute amounts (when not Percent).
	MemoryMB, VCores int64
	// Percent says the value is MemoryPct and VCoresPct.
	Percent bool
	// MemoryPct and VCoresPct are fractions of the cluster (when Percent).
	MemoryPct, VCoresPct float64
}

// FairQueue is one queue of an allocation file.
type FairQueue struct {
	// Name is the queue's own name, Path its full path ("root.a.b").
	Name, Path string
	// Parent says the queue is a parent (type="parent" or it has child
	// queues).
	Parent bool
	// Weight is <weight> (default 1).
	Weight float64
	// MinResources and MaxResources are <minResources> and <maxResources>.
	MinResources, MaxResources ResourceSpec
	// MaxRunningApps is <maxRunningApps>, else queueMaxAppsDefault.
	MaxRunningApps int64
	// MaxAMShare is <maxAMShare>, else queueMaxAMShareDefault (-1: no
	// limit). Hadoop applies it to leaf queues only.
	MaxAMShare float64
	// SchedulingPolicy is PolicyFair, PolicyDRF or PolicyFIFO.
	SchedulingPolicy string
	// MinSharePreemptionTimeoutUs and FairSharePreemptionTimeoutUs are the
	// queue's timeouts, inherited from the parent when not set (Never when
	// nowhere set).
	MinSharePreemptionTimeoutUs, FairSharePreemptionTimeoutUs int64
	// FairSharePreemptionThreshold is inherited the same way (default 0.5).
	FairSharePreemptionThreshold float64
	// Children are the child queues in file order.
	Children []*FairQueue
}

// Find returns the queue of path ("root.a.b"), or nil.
func (f *FairConf) Find(path string) *FairQueue {
	parts := strings.Split(path, ".")
	if len(parts) == 0 || parts[0] != "root" {
		return nil
	}
	q := f.Root
	for _, p := range parts[1:] {
		var next *FairQueue
		for _, ch := range q.Children {
			if ch.Name == p {
				next = ch
			}
		}
		if next == nil {
			return nil
		}
		q = next
	}
	return q
}

// NewLeaf makes a leaf queue named name under parent with the file's
// defaults, as the Fair Scheduler's QueueManager does for a queue a
// placement rule creates, and adds it to parent.
func (f *FairConf) NewLeaf(parent *FairQueue, name string) *FairQueue {
	q := &FairQueue{Name: name, Path: parent.Path + "." + name, Weight: 1, MaxRunningApps: f.QueueMaxAppsDefault,
		MaxAMShare: f.QueueMaxAMShareDefault, SchedulingPolicy: f.DefaultQueueSchedulingPolicy,
		MinSharePreemptionTimeoutUs: parent.MinSharePreemptionTimeoutUs, FairSharePreemptionTimeoutUs: parent.FairSharePreemptionTimeoutUs,
		FairSharePreemptionThreshold: parent.FairSharePreemptionThreshold}
	parent.Children = append(parent.Children, q)
	return q
}

// UserMaxApps is user u's maxRunningApps, else userMaxAppsDefault.
func (f *FairConf) UserMaxApps(u string) int64 {
	i, ok := slices.BinarySearchFunc(f.Users, u, func(x FairUser, u string) int { return strings.Compare(x.Name, u) })
	if ok {
		return f.Users[i].MaxRunningApps
	}
	return f.UserMaxAppsDefault
}

// DefaultFair is the allocation file the Fair Scheduler runs with when there
// is none: root with a leaf root.default, every setting at its default.
func DefaultFair() *FairConf {
	f, err := fairFromTree("(default)", &node{name: "allocations", where: "default",
		children: []*node{{name: "queue", attrs: map[string]string{"name": "default"}, where: "default"}}})
	if err != nil {
		panic("yarnconf: the default allocations are invalid: " + err.Error())
	}
	return f
}

// fairFromTree reads an <allocations> tree (from XML or TOML).
func fairFromTree(file string, root *node) (*FairConf, error) {
	errf := func(n *node, format string, a ...any) error {
		return fmt.Errorf("%s: %s: <%s>: %s", file, n.where, n.name, fmt.Sprintf(format, a...))
	}
	if root.name != "allocations" {
		return nil, errf(root, "want <allocations>")
	}
	f := &FairConf{File: file, UserMaxAppsDefault: Unlimited, QueueMaxAppsDefault: Unlimited, QueueMaxAMShareDefault: 0.5,
		DefaultQueueSchedulingPolicy: PolicyFair, DefaultMinSharePreemptionTimeoutUs: Never,
		DefaultFairSharePreemptionTimeoutUs: Never, DefaultFairSharePreemptionThreshold: 0.5}
	var queues []*node
	users := map[string]bool{}
	for _, e := range root.children {
		var err error
		switch e.name {
		case "queue", "pool":
			queues = append(queues, e)
		case "user":
			name := e.attrs["name"]
			if name == "" {
				return nil, errf(e, "no name attribute")
			}
			if users[name] {
				return nil, errf(e, "user %q named twice", name)
			}
			users[name] = true
			u := FairUser{Name: name, MaxRunningApps: -1}
			for _, ch := range e.children {
				if ch.name != "maxRunningApps" {
					return nil, errf(ch, "unknown element in <user>")
				}
				if u.MaxRunningApps, err = parseInt(ch.text, 0); err != nil {
					return nil, errf(ch, "%v", err)
				}
			}
			f.Users = append(f.Users, u)
		case "userMaxAppsDefault":
			f.UserMaxAppsDefault, err = parseInt(e.text, 0)
		case "queueMaxAppsDefault":
			f.QueueMaxAppsDefault, err = parseInt(e.text, 0)
		case "queueMaxAMShareDefault":
			f.QueueMaxAMShareDefault, err = parseAMShare(e.text)
		case "defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode":
			f.DefaultQueueSchedulingPolicy, err = parsePolicy(e.text)
			if err == nil && f.DefaultQueueSchedulingPolicy == PolicyFIFO {
				err = fmt.Errorf("fifo is not allowed as the default policy (parent queues cannot be fifo)")
			}
		case "defaultMinSharePreemptionTimeout":
			f.DefaultMinSharePreemptionTimeoutUs, err = parseSeconds(e.text)
		case "defaultFairSharePreemptionTimeout", "fairSharePreemptionTimeout":
			f.DefaultFairSharePreemptionTimeoutUs, err = parseSeconds(e.text)
		case "defaultFairSharePreemptionThreshold":
			f.DefaultFairSharePreemptionThreshold, err = parseFrac(e.text, 1)
		case "queuePlacementPolicy":
			f.Placement, err = parsePlacement(file, e)
			if err != nil {
				return nil, err
			}
		case "queueMaxResourcesDefault", "defaultQueueSchedulingPolicyForParent", "reservation-agent",
			"reservation-policy", "reservation-planner":
			// Read and not modelled (docs/yarn-schedulers.md).
		default:
			return nil, errf(e, "unknown element in <allocations>")
		}
		if err != nil {
			return nil, errf(e, "%v", err)
		}
	}
	for i := range f.Users {
		if f.Users[i].MaxRunningApps < 0 {
			f.Users[i].MaxRunningApps = f.UserMaxAppsDefault
		}
	}
	slices.SortFunc(f.Users, func(a, b FairUser) int { return strings.Compare(a.Name, b.Name) })
	f.Root = &FairQueue{Name: "root", Path: "root", Parent: true, Weight: 1, MaxRunningApps: f.QueueMaxAppsDefault,
		MaxAMShare: f.QueueMaxAMShareDefault, SchedulingPolicy: f.DefaultQueueSchedulingPolicy,
		MinSharePreemptionTimeoutUs: f.DefaultMinSharePreemptionTimeoutUs, FairSharePreemptionTimeoutUs: f.DefaultFairSharePreemptionTimeoutUs,
		FairSharePreemptionThreshold: f.DefaultFairSharePreemptionThreshold}
	// A top-level <queue name="root"> is root itself.
	var top []*node
	for _, q := range queues {
		if q.attrs["name"] == "root" {
			if err := fairQueueProps(f, file, q, f.Root, true); err != nil {
				return nil, err
			}
			top = append(top, q.children...)
			continue
		}
		top = append(top, q)
	}
	if err := fairChildren(f, file, f.Root, top); err != nil {
		return nil, err
	}
	if f.Find("root.default") == nil {
		// QueueManager always creates root.default.
		f.NewLeaf(f.Root, "default")
	}
	return f, nil
}

// fairChildren adds the <queue> elements among es under parent.
func fairChildren(f *FairConf, file string, parent *FairQueue, es []*node) error {
	for _, e := range es {
		if e.name != "queue" && e.name != "pool" {
			continue
		}
		name := strings.TrimSpace(e.attrs["name"])
		if name == "" || strings.Contains(name, ".") || name != e.attrs["name"] {
			return fmt.Errorf("%s: %s: <%s>: name %q: want a non-empty name without dots or spaces", file, e.where, e.name, e.attrs["name"])
		}
		for _, ch := range parent.Children {
			if ch.Name == name {
				return fmt.Errorf("%s: %s: <%s>: queue %q named twice", file, e.where, e.name, parent.Path+"."+name)
			}
		}
		q := f.NewLeaf(parent, name)
		if err := fairQueueProps(f, file, e, q, false); err != nil {
			return err
		}
		if err := fairChildren(f, file, q, e.children); err != nil {
			return err
		}
		if len(q.Children) > 0 {
			q.Parent = true
		}
		if q.Parent && q.SchedulingPolicy == PolicyFIFO {
			return fmt.Errorf("%s: %s: <%s>: queue %s: fifo is only allowed on leaf queues", file, e.where, e.name, q.Path)
		}
	}
	return nil
}

// fairQueueProps reads a <queue> element's own settings into q.
func fairQueueProps(f *FairConf, file string, e *node, q *FairQueue, isRoot bool) error {
	errf := func(n *node, format string, a ...any) error {
		return fmt.Errorf("%s: %s: <%s>: %s", file, n.where, n.name, fmt.Sprintf(format, a...))
	}
	for k, v := range e.attrs {
		switch k {
		case "name":
		case "type":
			switch v {
			case "parent":
				q.Parent = true
			case "leaf":
			default:
				return errf(e, "type=%q: want parent or leaf", v)
			}
		default:
			return errf(e, "unknown attribute %q", k)
		}
	}
	for _, ch := range e.children {
		var err error
		switch ch.name {
		case "queue", "pool":
			continue
		case "weight":
			q.Weight, err = parseFloat(ch.text, 0, math.MaxFloat64)
		case "minResources":
			q.MinResources, err = ParseResources(ch.text)
		case "maxResources":
			q.MaxResources, err = ParseResources(ch.text)
		case "maxRunningApps":
			q.MaxRunningApps, err = parseInt(ch.text, 0)
		case "maxAMShare":
			q.MaxAMShare, err = parseAMShare(ch.text)
		case "schedulingPolicy", "schedulingMode":
			q.SchedulingPolicy, err = parsePolicy(ch.text)
		case "minSharePreemptionTimeout":
			q.MinSharePreemptionTimeoutUs, err = parseSeconds(ch.text)
		case "fairSharePreemptionTimeout":
			q.FairSharePreemptionTimeoutUs, err = parseSeconds(ch.text)
		case "fairSharePreemptionThreshold":
			q.FairSharePreemptionThreshold, err = parseFrac(ch.text, 1)
		case "aclSubmitApps", "aclAdministerApps", "aclAdministerReservations", "aclListReservations",
			"aclSubmitReservations", "allowPreemptionFrom", "maxChildResources", "maxContainerAllocation", "reservation":
			// Read and not modelled (docs/yarn-schedulers.md).
		default:
			return errf(ch, "unknown element in <queue>")
		}
		if err != nil {
			return errf(ch, "%v", err)
		}
	}
	if q.MinResources.Set && q.MaxResources.Set && !q.MinResources.Percent && !q.MaxResources.Percent &&
		(q.MinResources.MemoryMB > q.MaxResources.MemoryMB || q.MinResources.VCores > q.MaxResources.VCores) {
		return errf(e, "queue %s: minResources over maxResources", q.Path)
	}
	if isRoot {
		q.Parent = true
	}
	return nil
}

// parsePlacement reads a <queuePlacementPolicy>.
func parsePlacement(file string, e *node) ([]PlacementRule, error) {
	var rules []PlacementRule
	for _, r := range e.children {
		if r.name != "rule" {
			return nil, fmt.Errorf("%s: %s: <%s>: unknown element in <queuePlacementPolicy>, want <rule>", file, r.where, r.name)
		}
		pr := PlacementRule{Name: r.attrs["name"], Create: true}
		switch pr.Name {
		case "specified", "user", "primaryGroup", "secondaryGroupExistingQueue", "nestedUserQueue", "default", "reject":
		default:
			return nil, fmt.Errorf("%s: %s: <rule>: name %q: unknown placement rule", file, r.where, pr.Name)
		}
		for k, v := range r.attrs {
			switch k {
			case "name":
			case "create":
				b, err := parseBool(v)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: <rule>: create: %w", file, r.where, err)
				}
				pr.Create = b
			case "queue":
				pr.Queue = v
			default:
				return nil, fmt.Errorf("%s: %s: <rule>: unknown attribute %q", file, r.where, k)
			}
		}
		rules = append(rules, pr)
	}
	return rules, nil
}

func parsePolicy(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "fair", "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.fairsharepolicy":
		return PolicyFair, nil
	case "drf", "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.dominantresourcefairnesspolicy":
		return PolicyDRF, nil
	case "fifo", "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.fifopolicy":
		return PolicyFIFO, nil
	}
	return "", fmt.Errorf("%q: want fair, drf or fifo", v)
}

func parseAMShare(v string) (float64, error) {
	f, err := parseFloat(v, -1, 1)
	if err == nil && f < 0 && f != -1 {
		err = fmt.Errorf("%q: want a fraction in [0, 1] or -1", v)
	}
	return f, err
}

// parseSeconds reads a timeout in seconds as µs.
func parseSeconds(v string) (int64, error) {
	i, err := parseInt(v, 0)
	if err != nil {
		return 0, err
	}
	if i > math.MaxInt64/1_000_000 {
		return 0, fmt.Errorf("%q: too large", v)
	}
	return i * 1_000_000, nil
}

// ParseResources reads a Fair Scheduler resource value
// (FairSchedulerConfiguration.parseResourceConfigValue): "1024 mb, 2 vcores"
// (either order, "mb" or "MB"), "memory-mb=1024, vcores=2", "50% memory, 25%
// cpu" or "40%" (every resource). A missing resource is an error, as Hadoop
// makes it.
func ParseResources(v string) (ResourceSpec, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	bad := func(why string) (ResourceSpec, error) {
		return ResourceSpec{}, fmt.Errorf("%q: %s; want \"1024 mb, 2 vcores\", \"memory-mb=1024, vcores=2\" or \"50%% memory, 50%% cpu\"", v, why)
	}
	if s == "" {
		return bad("empty")
	}
	r := ResourceSpec{Set: true}
	if strings.Contains(s, "=") {
		var mem, cpu bool
		for _, part := range strings.Split(s, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok {
				return bad("malformed")
			}
			k, val = strings.TrimSpace(k), strings.TrimSpace(val)
			pct := strings.HasSuffix(val, "%")
			if pct {
				f, err := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
				if err != nil || !(f >= 0 && f <= 100) {
					return bad("malformed percentage")
				}
				r.Percent = true
				switch k {
				case "memory-mb", "memory":
					r.MemoryPct, mem = f/100, true
				case "vcores", "cpu":
					r.VCoresPct, cpu = f/100, true
				default:
					return bad("unknown resource " + strconv.Quote(k))
				}
				continue
			}
			i, err := strconv.ParseInt(val, 10, 64)
			if err != nil || i < 0 {
				return bad("malformed number")
			}
			switch k {
			case "memory-mb", "memory":
				r.MemoryMB, mem = i, true
			case "vcores", "cpu":
				r.VCores, cpu = i, true
			default:
				return bad("unknown resource " + strconv.Quote(k))
			}
		}
		if !mem || !cpu {
			return bad("memory and vcores both needed")
		}
		if r.Percent && (r.MemoryMB != 0 || r.VCores != 0) {
			return bad("percentages and amounts mixed")
		}
		return r, nil
	}
	if strings.Contains(s, "%") && !strings.Contains(s, "memory") && !strings.Contains(s, "cpu") {
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
		if err != nil || !(f >= 0 && f <= 100) || strings.Count(s, "%") != 1 {
			return bad("malformed percentage")
		}
		r.Percent, r.MemoryPct, r.VCoresPct = true, f/100, f/100
		return r, nil
	}
	var mem, cpu bool
	for _, part := range strings.Split(s, ",") {
		fs := strings.Fields(part)
		if len(fs) == 1 {
			// "1024mb"
			num := strings.TrimRight(fs[0], "abcdefghijklmnopqrstuvwxyz%")
			fs = []string{num, fs[0][len(num):]}
		}
		if len(fs) != 2 {
			return bad("malformed")
		}
		if strings.HasSuffix(fs[0], "%") {
			f, err := strconv.ParseFloat(strings.TrimSuffix(fs[0], "%"), 64)
			if err != nil || !(f >= 0 && f <= 100) {
				return bad("malformed percentage")
			}
			r.Percent = true
			switch fs[1] {
			case "memory":
				r.MemoryPct, mem = f/100, true
			case "cpu", "vcores":
				r.VCoresPct, cpu = f/100, true
			default:
				return bad("unknown resource " + strconv.Quote(fs[1]))
			}
			continue
		}
		i, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil || i < 0 {
			return bad("malformed number")
		}
		switch fs[1] {
		case "mb":
			r.MemoryMB, mem = i, true
		case "gb":
			if i > math.MaxInt64/1024 {
				return bad("too large")
			}
			r.MemoryMB, mem = i*1024, true
		case "vcores", "vcore":
			r.VCores, cpu = i, true
		default:
			return bad("unknown unit " + strconv.Quote(fs[1]))
		}
	}
	if !mem || !cpu {
		return bad("memory and vcores both needed")
	}
	if r.Percent && (r.MemoryMB != 0 || r.VCores != 0) {
		return bad("percentages and amounts mixed")
	}
	return r, nil
}
