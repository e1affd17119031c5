package policy

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/internal/yarnconf"
	"github.com/tracereplay/tracereplay/replay"
)

// YARNCapacity is YARN's CapacityScheduler (scheduler/capacity/) with the
// ProportionalCapacityPreemptionPolicy (monitor/capacity/), on the queue tree
// of a capacity-scheduler.xml or its TOML form (conf=PATH; without it one
// leaf root.default with all of the cluster).
//
//   - Queues (ParentQueue.assignContainers): a heartbeat descends from root,
//     offering the node to the children in ascending used capacity relative
//     to their guarantee (PriorityUtilizationQueueOrderingPolicy; ties by
//     queue path), skipping a queue whose usage plus the container would pass
//     its maximum-capacity (AbstractCSQueue.canAssignToThisQueue; every
//     ancestor is checked too).
//   - Leaf queues (LeafQueue.assignContainers) serve their active
//     applications in FIFO order (FifoOrderingPolicy: submission order),
//     skipping those whose user is over the user limit
//     (UsersManager.computeUserLimit: the larger of the queue's current
//     capacity over its active users and the current capacity times
//     minimum-user-limit-percent, at most the guarantee times
//     user-limit-factor; a user is over it when its usage is greater than
//     the limit, so it may pass it by one container, as
//     LeafQueue.canAssignToUser allows).
//   - AM limit (LeafQueue.activateApplications): a submitted application
//     becomes active only while the AMs of the queue's active applications
//     and its own fit in maximum-am-resource-percent of the queue's
//     guaranteed resources (rounded up to the minimum allocation); the first
//     application of a queue is always activated. Applications activate in
//     submission order and an application that does not fit holds back the
//     ones after it.
//   - An application (RegularContainerAllocator) gets its AM, then a map:
//     node-local at once, rack-local once it has missed more scheduling
//     opportunities than min(node-locality-delay, cluster nodes),
//     off-switch once it has missed more than min(nodes, pending maps ×
//     locality wait factor) (or, with rack-locality-additional-delay ≥ 0,
//     more than min(node delay + that, nodes)); every offer of a node
//     where a map container fits counts as an opportunity, before the
//     check (addSchedulingOpportunity); a node- or rack-local container
//     resets the count, an off-switch one does not. Then a reduce.
//   - A heartbeat assigns containers while the node has room, as
//     per-node-heartbeat.multiple-assignments-enabled (default true) and
//     maximum-container-assignments allow, stopping after
//     maximum-offswitch-assignments (default 1) off-switch ones
//     (CapacityScheduler.canAllocateMore); an AM or a reduce, asked for on
//     ANY host, is an off-switch assignment, so by default a heartbeat that
//     starts one assigns nothing after it.
//   - Resources compare with the DefaultResourceCalculator (memory) or the
//     DominantResourceCalculator (resource-calculator).
//   - Preemption (ProportionalCapacityPreemptionPolicy.editSchedule), when
//     yarn.resourcemanager.scheduler.monitor.enable or preemption=true: every
//     monitoring_interval the leaf queues' ideal shares are computed by
//     water-filling (computeFixpointAllocation: the cluster is offered in
//     proportion to the guarantees, each queue taking at most its maximum
//     capacity and its usage plus pending requests); a queue using more than
//     its ideal × (1 + max_ignored_over_capacity) gives up (usage − ideal) ×
//     natural_termination_factor, all queues together at most
//     total_preemption_per_round of the cluster; its containers are chosen
//     from the newest application back and the newest container first, never
//     an AM (FifoCandidatesSelector), until that much is marked. A container
//     still chosen max_wait_before_kill after it was first marked is
//     preempted; one no longer chosen is forgotten.
//
// Jobs go to the queue their trace names, by leaf name or full path ("" is
// "default"). With a queue file (conf=), an application submitted to a queue
// that does not exist, is not a leaf, is STOPPED or is at its
// maximum-applications is rejected, as the CapacityScheduler rejects it: it
// never runs, and Err reports the first rejection and how many there were,
// so the run stops on it. Without one the scheduler is Hadoop's default, the
// single queue root.default, and every job goes there whatever queue its
// trace names: a trace of a real cluster names the queues of a
// configuration the replay does not have, and rejecting its jobs would
// replay nothing.
//
// Not modelled: reservations, asynchronous scheduling, node labels,
// priorities, the per-user AM limit, queue mappings.
type YARNCapacity struct {
	yarnBase
	confPath   string
	loaded     *yarnconf.CapacityConf // the queue file, or the defaults without conf=
	preemptSet bool
	preempt    bool
	conf       *yarnconf.CapacityConf
	calc       calc
	queues     []*capQ // every queue, depth-first from root
	leaves     map[string]*capQ
	byName     map[string][]*capQ // leaf name → leaves
	apps       map[int32]*capApp
	rejected   int
	reject     error // the first rejection
	nextRun    int64
	marked     map[capKey]int64 // preemption candidates → when first marked
	nodes      int
}

// capQ is a queue's run-time state.
type capQ struct {
	conf     *yarnconf.CapQueue
	parent   *capQ
	children []*capQ
	// Leaves: applications in submission order, active or not.
	apps      []*capApp
	used      replay.Resource // recomputed before each assignment
	pending   replay.Resource
	guarantee replay.Resource
	maximum   replay.Resource
}

// capApp is an application of a leaf queue.
type capApp struct {
	job    *replay.JobView
	q      *capQ
	active bool
	missed int64 // scheduling opportunities missed by its maps
}

// capKey names a container for the preemption marks.
type capKey struct {
	job  int32
	kind replay.ContainerKind
	task int32
}

func newYARNCapacity(r *ParamReader) (replay.Policy, error) {
	p := &YARNCapacity{yarnBase: yarnBase{name: r.spec(), kind: "yarn-capacity"}}
	p.confPath = r.String("conf", "")
	p.preemptSet = r.IsSet("preemption")
	p.preempt = r.String("preemption", "false", "true", "false") == "true"
	p.loaded = yarnconf.DefaultCapacity()
	if p.confPath != "" {
		cc, fc, err := yarnconf.Load(p.confPath)
		switch {
		case err != nil:
			r.Errorf("%v", err)
		case cc == nil:
			r.Errorf("%s is a Fair Scheduler allocation file (%d queues), not a capacity-scheduler configuration", p.confPath, len(fc.Root.Children))
		default:
			p.loaded = cc
		}
	}
	return p, nil
}

// Init takes the YARN view and the queue file read when the policy was
// built (a file that does not load is an error of policy.New); Err says why
// the policy cannot run.
func (p *YARNCapacity) Init(c replay.Cluster) {
	conf := p.loaded
	if p.preemptSet {
		conf.Preemption.Enabled = p.preempt
	}
	p.conf = conf
	if !p.initYARN(c) {
		return
	}
	p.calc = calc{dominant: conf.ResourceCalculator == yarnconf.DominantCalculator, cluster: p.yc.ClusterResource()}
	p.nodes = len(c.Topology().Nodes)
	p.leaves = map[string]*capQ{}
	p.byName = map[string][]*capQ{}
	p.apps = map[int32]*capApp{}
	p.marked = map[capKey]int64{}
	var build func(q *yarnconf.CapQueue, parent *capQ) *capQ
	build = func(q *yarnconf.CapQueue, parent *capQ) *capQ {
		cq := &capQ{conf: q, parent: parent, guarantee: scale(p.calc.cluster, q.AbsoluteCapacity),
			maximum: scale(p.calc.cluster, q.AbsoluteMaximumCapacity)}
		p.queues = append(p.queues, cq)
		for _, ch := range q.Children {
			cq.children = append(cq.children, build(ch, cq))
		}
		if len(cq.children) == 0 {
			p.leaves[q.Path] = cq
			p.byName[q.Name] = append(p.byName[q.Name], cq)
		}
		return cq
	}
	build(conf.Root, nil)
	p.nextRun = c.Now()
}

// leafFor finds the leaf queue a job names, or says why there is none.
func (p *YARNCapacity) leafFor(name string) (*capQ, error) {
	if name == "" {
		name = "default"
	}
	if q, ok := p.leaves[name]; ok {
		return q, nil
	}
	if q, ok := p.leaves["root."+name]; ok {
		return q, nil
	}
	if qs := p.byName[name]; len(qs) == 1 {
		return qs[0], nil
	} else if len(qs) > 1 {
		return nil, fmt.Errorf("queue %q is ambiguous (%s and %s)", name, qs[0].conf.Path, qs[1].conf.Path)
	}
	for _, q := range p.queues {
		if q.conf.Path == name || q.conf.Name == name || q.conf.Path == "root."+name {
			return nil, fmt.Errorf("queue %q is a parent queue", name)
		}
	}
	return nil, fmt.Errorf("queue %q does not exist", name)
}

// JobArrived submits the job to its leaf queue (CapacityScheduler.addApplication)
// or rejects it.
func (p *YARNCapacity) JobArrived(c replay.Cluster, j *replay.JobView) {
	if p.yc == nil {
		return
	}
	q, err := p.leafFor(j.Queue())
	if err != nil && p.confPath == "" {
		// Without conf= the cluster is one queue: the trace's queue names
		// come from a configuration we do not have (docs/yarn-schedulers.md).
		q, err = p.leafFor("default")
	}
	if err == nil && !q.conf.Running {
		err = fmt.Errorf("queue %s is STOPPED", q.conf.Path)
	}
	if err == nil && int64(len(q.apps)) >= q.conf.MaximumApplications {
		err = fmt.Errorf("queue %s already has %d applications (maximum-applications)", q.conf.Path, len(q.apps))
	}
	if err == nil && int64(len(p.apps)) >= p.conf.MaximumApplications {
		err = fmt.Errorf("the scheduler already has %d applications (yarn.scheduler.capacity.maximum-applications)", len(p.apps))
	}
	if err != nil {
		p.rejected++
		if p.reject == nil {
			p.reject = fmt.Errorf("yarn-capacity rejected job %s: %w", j.ID(), err)
		}
		return
	}
	a := &capApp{job: j, q: q}
	q.apps = append(q.apps, a)
	p.apps[j.Index()] = a
	p.activate(q)
	p.Tick(c)
}

// Err is why the policy schedules nothing (not a YARN cluster, a bad queue
// file), else the first application it rejected and how many it rejected;
// nil when every job was accepted.
func (p *YARNCapacity) Err() error {
	if p.err != nil {
		return p.err
	}
	if p.reject != nil {
		return fmt.Errorf("%w (%d rejected in all)", p.reject, p.rejected)
	}
	return nil
}

// amLimit is the queue's AM resource limit (LeafQueue.getAMResourceLimit):
// its guarantee × maximum-am-resource-percent, rounded up to the minimum
// allocation.
func (p *YARNCapacity) amLimit(q *capQ) replay.Resource {
	return roundUp(scale(q.guarantee, q.conf.MaximumAMResourcePercent), p.minAlloc)
}

// activate activates the queue's pending applications in submission order
// while their AMs fit in the AM limit (LeafQueue.activateApplications).
func (p *YARNCapacity) activate(q *capQ) {
	var amUsed replay.Resource
	nActive := 0
	for _, a := range q.apps {
		if a.active {
			amUsed = amUsed.Add(p.yc.Container(a.job, replay.AMContainer))
			nActive++
		}
	}
	limit := p.amLimit(q)
	for _, a := range q.apps {
		if a.active {
			continue
		}
		am := p.yc.Container(a.job, replay.AMContainer)
		if nActive > 0 && p.calc.greater(amUsed.Add(am), limit) {
			return
		}
		a.active = true
		nActive++
		amUsed = amUsed.Add(am)
	}
}

// JobFinished removes the application and activates waiting ones.
func (p *YARNCapacity) JobFinished(c replay.Cluster, j *replay.JobView) {
	if p.yc == nil {
		return
	}
	a, ok := p.apps[j.Index()]
	if !ok {
		return
	}
	delete(p.apps, j.Index())
	a.q.apps = slices.DeleteFunc(a.q.apps, func(x *capApp) bool { return x == a })
	for k := range p.marked {
		if k.job == j.Index() {
			delete(p.marked, k)
		}
	}
	p.activate(a.q)
	p.Tick(c)
}

// TaskFinished gives the preemption monitor its chance to run.
func (p *YARNCapacity) TaskFinished(c replay.Cluster, _ *replay.JobView, _ bool, _ int32) {
	if p.yc != nil {
		p.Tick(c)
	}
}

// account recomputes every queue's usage and the pending requests of its
// active applications.
func (p *YARNCapacity) account() {
	for _, q := range p.queues {
		q.used, q.pending = replay.Resource{}, replay.Resource{}
	}
	for _, q := range p.queues {
		if len(q.children) > 0 {
			continue
		}
		var used, pend replay.Resource
		for _, a := range q.apps {
			used = used.Add(p.yc.Usage(a.job))
			if a.active {
				pend = pend.Add(demand(p.yc, a.job))
			}
		}
		for x := q; x != nil; x = x.parent {
			x.used = x.used.Add(used)
			x.pending = x.pending.Add(pend)
		}
	}
}

// usedCapacity is a queue's usage relative to its guarantee.
func (p *YARNCapacity) usedCapacity(q *capQ) float64 {
	g := p.calc.share(q.guarantee)
	u := p.calc.share(q.used)
	if g == 0 {
		if u == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return u / g
}

// queueFits reports whether r fits under the maximum capacity of q and of
// every ancestor (canAssignToThisQueue).
func (p *YARNCapacity) queueFits(q *capQ, r replay.Resource) bool {
	for x := q; x != nil; x = x.parent {
		if p.calc.greater(x.used.Add(r), x.maximum) {
			return false
		}
	}
	return true
}

// Heartbeat assigns containers on node n (CapacityScheduler.allocateContainersToNode).
func (p *YARNCapacity) Heartbeat(c replay.Cluster, n int32) {
	if p.yc == nil {
		return
	}
	p.Tick(c)
	assigned, offswitch := int64(0), int64(0)
	for p.minAlloc.Fits(p.yc.NodeFree(n)) {
		p.account()
		ok, loc := p.assign(p.queues[0], n)
		if !ok {
			return
		}
		assigned++
		if loc == replay.OffRack {
			offswitch++
		}
		if !p.conf.MultipleAssignments || offswitch >= p.conf.MaxOffswitchAssignments ||
			p.conf.MaxContainerAssignments >= 0 && assigned >= p.conf.MaxContainerAssignments {
			return
		}
	}
}

// assign gives one container on node n to queue q's subtree; it returns
// whether it did and its locality: a map's, OffRack for an AM or a reduce
// (asked for on ANY host, they are OFF_SWITCH assignments).
func (p *YARNCapacity) assign(q *capQ, n int32) (bool, replay.Locality) {
	if len(q.children) == 0 {
		return p.assignLeaf(q, n)
	}
	order := slices.Clone(q.children)
	slices.SortStableFunc(order, func(a, b *capQ) int {
		if x := cmp.Compare(p.usedCapacity(a), p.usedCapacity(b)); x != 0 {
			return x
		}
		return cmp.Compare(a.conf.Path, b.conf.Path)
	})
	for _, ch := range order {
		if !p.queueFits(ch, p.minAlloc) {
			continue
		}
		if ok, loc := p.assign(ch, n); ok {
			return true, loc
		}
	}
	return false, 0
}

// userLimit is UsersManager.computeUserLimit for leaf q.
func (p *YARNCapacity) userLimit(q *capQ, activeUsers int) replay.Resource {
	current := q.guarantee
	if !p.calc.greater(q.guarantee, q.used) {
		current = q.used.Add(p.minAlloc)
	}
	au := int64(max(activeUsers, 1))
	perUser := replay.Resource{MemoryMB: (current.MemoryMB + au - 1) / au, VCores: (current.VCores + au - 1) / au}
	limit := p.calc.maxRes(perUser, scale(current, q.conf.MinimumUserLimit))
	maxLimit := q.maximum
	if q.conf.UserLimitFactor != -1 {
		maxLimit = scale(q.guarantee, q.conf.UserLimitFactor)
	}
	return roundUp(p.calc.minRes(limit, maxLimit), p.minAlloc)
}

// assignLeaf gives one container on node n to an active application of
// leaf q, in FIFO order.
func (p *YARNCapacity) assignLeaf(q *capQ, n int32) (bool, replay.Locality) {
	// Users and their usage; active users are those with pending requests.
	type user struct {
		used    replay.Resource
		pending bool
	}
	users := map[string]*user{}
	var names []string
	for _, a := range q.apps {
		u := users[a.job.User()]
		if u == nil {
			u = &user{}
			users[a.job.User()] = u
			names = append(names, a.job.User())
		}
		u.used = u.used.Add(p.yc.Usage(a.job))
		if a.active && !demand(p.yc, a.job).IsZero() {
			u.pending = true
		}
	}
	activeUsers := 0
	for _, name := range names {
		if users[name].pending {
			activeUsers++
		}
	}
	limit := p.userLimit(q, activeUsers)
	fits := func(r replay.Resource) bool { return p.queueFits(q, r) }
	for _, a := range q.apps {
		if !a.active {
			continue
		}
		j := a.job
		if p.calc.greater(users[j.User()].used, limit) {
			continue
		}
		if p.yc.AMPending(j) {
			am := p.yc.Container(j, replay.AMContainer)
			if am.Fits(p.yc.NodeFree(n)) && fits(am) {
				p.yc.LaunchAM(j, n)
				// The AM asks for ANY host: an OFF_SWITCH assignment, which
				// counts toward maximum-offswitch-assignments.
				return true, replay.OffRack
			}
			continue
		}
		// addSchedulingOpportunity: every offer of the node to maps that
		// would fit counts, before the locality check.
		if size := p.yc.Container(j, replay.MapContainer); j.PendingMaps() > 0 && size.Fits(p.yc.NodeFree(n)) && fits(size) {
			a.missed++
		}
		ok, kind, loc, _ := launchMapOrReduce(p.yc, j, n, p.allowed(a, n), fits)
		if ok {
			if kind == replay.MapContainer && loc != replay.OffRack {
				a.missed = 0
			}
			if kind != replay.MapContainer {
				// The MR AM asks for reduces on ANY host: off-switch.
				loc = replay.OffRack
			}
			return true, loc
		}
	}
	return false, 0
}

// allowed is which localities an application's maps may take now
// (RegularContainerAllocator.canAssign): rack-local once it has missed more
// than min(node-locality-delay, nodes) opportunities; off-switch once it has
// missed more than min(node delay + rack-locality-additional-delay, nodes)
// or, with the additional delay at -1, more than min(nodes, pending maps ×
// locality wait factor), the factor being min(locations asked / nodes, 1)
// (getLocalityWaitFactor: the request's resource names less ANY), the
// locations here being the nodes holding its pending maps (their racks are
// not counted).
func (p *YARNCapacity) allowed(a *capApp, n int32) levels {
	nodes := int64(p.nodes)
	delay := min(p.conf.NodeLocalityDelay, nodes)
	lv := levels{rack: a.missed > delay}
	if add := p.conf.RackLocalityAdditionalDelay; add >= 0 {
		lv.off = a.missed > min(p.conf.NodeLocalityDelay+add, nodes)
		return lv
	}
	j := a.job
	if a.missed == 0 || j.HasLocalMap(n) {
		// Off-switch needs a missed opportunity, and is not used when a
		// node-local map waits: skip counting the locations.
		return lv
	}
	factor := min(float64(j.CountLocalMapNodes(nil))/float64(max(nodes, 1)), 1)
	lv.off = min(float64(nodes), float64(j.PendingMaps())*factor) < float64(a.missed)
	return lv
}

// Tick runs the preemption monitor if it is on and its interval has passed
// (SchedulingMonitor calling ProportionalCapacityPreemptionPolicy.editSchedule
// every monitoring_interval). The policy calls it from its hooks; an engine
// may also call it on a timer, so that a full cluster where nothing ends
// still preempts.
func (p *YARNCapacity) Tick(c replay.Cluster) {
	if p.yc == nil || !p.conf.Preemption.Enabled || c.Now() < p.nextRun {
		return
	}
	now := c.Now()
	p.nextRun = now + p.conf.Preemption.MonitoringIntervalUs
	p.account()
	var leaves []*capQ
	for _, q := range p.queues {
		if len(q.children) == 0 {
			leaves = append(leaves, q)
		}
	}
	ideal := p.idealShares(leaves)
	pre := p.conf.Preemption
	toObtain := make([]float64, len(leaves))
	total := 0.0
	for i, q := range leaves {
		u := p.calc.share(q.used)
		if u > ideal[i]*(1+pre.MaxIgnoredOverCapacity)+1e-12 {
			toObtain[i] = (u - ideal[i]) * pre.NaturalTerminationFactor
			total += toObtain[i]
		}
	}
	if total > pre.TotalPreemptionPerRound {
		for i := range toObtain {
			toObtain[i] *= pre.TotalPreemptionPerRound / total
		}
	}
	chosen := map[capKey]bool{}
	var cs []container
	for i, q := range leaves {
		if toObtain[i] <= 0 {
			continue
		}
		cs = cs[:0]
		for _, a := range q.apps {
			cs = runningContainers(cs, a.job)
		}
		newestFirst(cs)
		left := toObtain[i]
		for _, ct := range cs {
			if left <= 1e-12 {
				break
			}
			left -= p.calc.share(p.yc.Container(ct.job, ct.kind))
			chosen[capKey{ct.job.Index(), ct.kind, ct.task}] = true
		}
	}
	// Forget marks no longer chosen; kill those chosen long enough.
	for k := range p.marked {
		if !chosen[k] {
			delete(p.marked, k)
		}
	}
	var kill []capKey
	for k := range chosen {
		first, ok := p.marked[k]
		if !ok {
			p.marked[k] = now
			continue
		}
		if now-first >= pre.MaxWaitBeforeKillUs {
			kill = append(kill, k)
		}
	}
	slices.SortFunc(kill, func(a, b capKey) int {
		if x := cmp.Compare(a.job, b.job); x != 0 {
			return x
		}
		if x := cmp.Compare(a.kind, b.kind); x != 0 {
			return x
		}
		return cmp.Compare(a.task, b.task)
	})
	for _, k := range kill {
		delete(p.marked, k)
		if a, ok := p.apps[k.job]; ok {
			p.yc.Preempt(a.job, k.kind, k.task)
		}
	}
}

// idealShares water-fills the cluster over the leaves, as shares of the
// cluster (ProportionalCapacityPreemptionPolicy.computeFixpointAllocation on
// the leaves, with absolute capacities): each round offers what is left in
// proportion to the guarantees of the queues still wanting more, each
// taking at most min(maximum, used + pending) − what it has.
func (p *YARNCapacity) idealShares(leaves []*capQ) []float64 {
	ideal := make([]float64, len(leaves))
	wanted := make([]float64, len(leaves))
	for i, q := range leaves {
		wanted[i] = min(p.calc.share(q.used.Add(q.pending)), q.conf.AbsoluteMaximumCapacity)
	}
	left := 1.0
	for round := 0; round < 100 && left > 1e-12; round++ {
		var active []int
		g := 0.0
		for i, q := range leaves {
			if ideal[i] < wanted[i]-1e-12 {
				active = append(active, i)
				g += q.conf.AbsoluteCapacity
			}
		}
		if len(active) == 0 {
			break
		}
		given := 0.0
		for _, i := range active {
			w := leaves[i].conf.AbsoluteCapacity / g
			if g == 0 {
				w = 1 / float64(len(active))
			}
			take := min(left*w, wanted[i]-ideal[i])
			ideal[i] += take
			given += take
		}
		left -= given
		if given <= 1e-12 {
			break
		}
	}
	return ideal
}
