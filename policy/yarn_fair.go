package policy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tracereplay/tracereplay/internal/yarnconf"
	"github.com/tracereplay/tracereplay/replay"
)

// YARNFair is YARN's FairScheduler (scheduler/fair/), on the queues of a
// fair-scheduler.xml allocation file or its TOML form (conf=PATH; without
// it root with root.default and queues created as jobs name them).
//
//   - Placement (QueuePlacementPolicy): the file's rules, or by default
//     specified, then user (when user-as-default-queue, the default), then
//     default; "specified" passes over the queue name "default"; a rule
//     creates a missing leaf when its create attribute (by default
//     allow-undeclared-pools) says so; primaryGroup,
//     secondaryGroupExistingQueue and nestedUserQueue match nothing (traces
//     carry no groups); an application no rule places, or a reject rule,
//     is rejected: it never runs and Err reports it.
//   - Fair shares (ComputeFairShares.computeShares): each parent's share,
//     root's being the cluster, is split among its active children (with
//     runnable applications) by binary search on R, each child getting
//     weight × R clamped to [minResources, maxResources]; per resource
//     (memory and vcores). They are recomputed at every heartbeat (Hadoop's
//     update thread does it every 500 ms).
//   - Order (FSParentQueue.assignContainer, FSLeafQueue.assignContainer): a
//     heartbeat descends from root offering the node to the children in
//     the parent's policy order and, in a leaf, to its runnable applications
//     in the leaf's policy order. FairSharePolicy (FairShareComparator):
//     queues below min(minShare, demand) first, by usage over it, then usage
//     over weight, memory only; DominantResourceFairnessPolicy
//     (DominantResourceFairnessComparator): the same on dominant shares of
//     the cluster over the weight, then the other resource; FifoPolicy:
//     submission order. Ties by start time (submission; 0 for queues) then
//     name. A queue whose usage is over maxResources is passed
//     (assignContainerPreCheck; memory only unless the queue is drf).
//   - maxRunningApps (MaxRunningAppsEnforcer): an application is runnable
//     only while its queue, every ancestor and its user (<user>, else
//     userMaxAppsDefault) are under their maxRunningApps; the others wait,
//     not scheduled at all, and become runnable in submission order as
//     applications finish.
//   - maxAMShare (FSLeafQueue.canRunAppAM): an AM starts only while the
//     queue's running AMs and it fit in maxAMShare × the queue's fair share
//     (its maxResources, capped by the cluster, when the fair share is 0);
//     memory only unless the queue is drf; -1 disables it.
//   - Locality (FSAppAttempt.getAllowedLocalityLevel): an application that
//     has been offered nodes more than locality-threshold-node × cluster
//     nodes times may go rack-local, then after more than
//     locality-threshold-rack × nodes further offers off-switch (the
//     yarn.scheduler.fair.locality.threshold.node/rack keys; either at -1,
//     the default, means no wait); a node- or rack-local container raises
//     the level back (FSAppAttempt.allocate) without resetting the count.
//     AMs have no locality.
//   - One container per heartbeat unless assign-multiple=true
//     (yarn.scheduler.fair.assignmultiple, default false), then up to
//     max-assign (-1: no limit).
//   - Preemption (yarn.scheduler.fair.preemption, preemption=true; Hadoop
//     2's FairScheduler.preemptTasksIfNecessary): every preemption-interval
//     a leaf that has been below min(minResources, demand) for its
//     minSharePreemptionTimeout, or below fairSharePreemptionThreshold × its
//     fair share for its fairSharePreemptionTimeout, asks for the gap to
//     min(that share, demand); containers of queues over their fair share
//     are chosen maps first, then reduces (Hadoop's priority order; AMs are
//     spared), newest first, while their queue stays over its fair share
//     and until the ask is covered; a chosen container is preempted once it
//     has been chosen for longer than wait-before-kill
//     (yarn.scheduler.fair.waitTimeBeforeKill, 15 s).
//
// Not modelled: reservations, continuous scheduling, node labels, size-based
// weights, maxChildResources, maxContainerAllocation, allowPreemptionFrom.
type YARNFair struct {
	yarnBase
	confPath                     string
	loaded                       *yarnconf.FairConf // the allocation file, or the defaults without conf=
	preempt                      bool
	preemptEvery, waitBeforeKill int64
	assignMultiple               bool
	maxAssign                    int
	nodeThreshold, rackThreshold float64
	userAsDefault, allowCreate   bool

	conf        *yarnconf.FairConf
	root        *fairQ
	byPath      map[string]*fairQ
	apps        map[int32]*fairApp
	waiting     []*fairApp // not runnable, in submission order
	userRuns    map[string]int64
	nodes       int
	cluster     replay.Resource
	nextPreempt int64
	marked      map[capKey]int64
	rejected    int
	reject      error
}

// fairQ is a queue's run-time state.
type fairQ struct {
	conf     *yarnconf.FairQueue
	parent   *fairQ
	children []*fairQ
	apps     []*fairApp // runnable, in submission order (leaves)
	runnable int64      // runnable applications in the subtree

	usage, demand, amUsage      replay.Resource
	fairShare, minShare, maxRes replay.Resource
	lastAtMin, lastAtFair       int64
}

// fairApp is an application of a leaf queue.
type fairApp struct {
	job      *replay.JobView
	q        *fairQ
	runnable bool
	missed   int64           // scheduling opportunities since the level last relaxed
	level    replay.Locality // allowed locality level of its maps
	seen     bool            // the level has been set
}

func newYARNFair(r *ParamReader) (replay.Policy, error) {
	p := &YARNFair{yarnBase: yarnBase{name: r.spec(), kind: "yarn-fair"}}
	p.confPath = r.String("conf", "")
	b := func(key, def string) bool { return r.String(key, def, "true", "false") == "true" }
	p.preempt = b("preemption", "false")
	p.preemptEvery = r.Duration("preemption-interval", 5*time.Second)
	p.waitBeforeKill = r.Duration("wait-before-kill", 15*time.Second)
	p.assignMultiple = b("assign-multiple", "false")
	p.maxAssign = r.Int("max-assign", -1)
	p.nodeThreshold = r.Float("locality-threshold-node", -1)
	p.rackThreshold = r.Float("locality-threshold-rack", -1)
	p.userAsDefault = b("user-as-default-queue", "true")
	p.allowCreate = b("allow-undeclared-pools", "true")
	if p.preemptEvery <= 0 {
		r.Errorf("preemption-interval=%s: want a positive duration", time.Duration(p.preemptEvery)*time.Microsecond)
	}
	p.loaded = yarnconf.DefaultFair()
	if p.confPath != "" {
		cc, fc, err := yarnconf.Load(p.confPath)
		switch {
		case err != nil:
			r.Errorf("%v", err)
		case fc == nil:
			r.Errorf("%s is a capacity-scheduler configuration (%d leaf queues), not an allocation file", p.confPath, len(cc.Leaves()))
		default:
			p.loaded = fc
		}
	}
	return p, nil
}

// Err is why the policy schedules nothing, else the first application it
// rejected and how many; nil when every job was placed.
func (p *YARNFair) Err() error {
	if p.err != nil {
		return p.err
	}
	if p.reject != nil {
		return fmt.Errorf("%w (%d rejected in all)", p.reject, p.rejected)
	}
	return nil
}

// Init takes the YARN view and the allocation file read when the policy was
// built (a file that does not load is an error of policy.New).
func (p *YARNFair) Init(c replay.Cluster) {
	p.conf = p.loaded
	if !p.initYARN(c) {
		return
	}
	p.cluster = p.yc.ClusterResource()
	p.nodes = len(c.Topology().Nodes)
	p.byPath = map[string]*fairQ{}
	p.apps = map[int32]*fairApp{}
	p.userRuns = map[string]int64{}
	p.marked = map[capKey]int64{}
	p.root = p.build(p.conf.Root, nil, c.Now())
	p.nextPreempt = c.Now() + p.preemptEvery
}

func (p *YARNFair) build(q *yarnconf.FairQueue, parent *fairQ, now int64) *fairQ {
	fq := &fairQ{conf: q, parent: parent, lastAtMin: now, lastAtFair: now}
	p.byPath[q.Path] = fq
	if parent != nil {
		parent.children = append(parent.children, fq)
	}
	for _, ch := range q.Children {
		p.build(ch, fq, now)
	}
	return fq
}

// leaf returns the leaf queue of path, creating it (and missing parents)
// when create says so; nil when it cannot.
func (p *YARNFair) leaf(path string, create bool, now int64) *fairQ {
	if !strings.HasPrefix(path, "root.") {
		path = "root." + path
	}
	if q, ok := p.byPath[path]; ok {
		if len(q.children) > 0 || q.conf.Parent {
			return nil
		}
		return q
	}
	if !create {
		return nil
	}
	parts := strings.Split(path, ".")
	q := p.root
	for i, name := range parts[1:] {
		next, ok := p.byPath[strings.Join(parts[:i+2], ".")]
		if !ok {
			if name == "" || !q.conf.Parent {
				return nil // a leaf cannot become a parent
			}
			conf := p.conf.NewLeaf(q.conf, name)
			conf.Parent = i+2 < len(parts)
			next = p.build(conf, q, now)
		}
		q = next
	}
	if len(q.children) > 0 || q.conf.Parent {
		return nil
	}
	return q
}

// place runs the placement rules (QueuePlacementPolicy.assignAppToQueue).
func (p *YARNFair) place(j *replay.JobView, now int64) (*fairQ, error) {
	rules := p.conf.Placement
	if rules == nil {
		rules = []yarnconf.PlacementRule{{Name: "specified", Create: p.allowCreate}}
		if p.userAsDefault {
			rules = append(rules, yarnconf.PlacementRule{Name: "user", Create: p.allowCreate})
		}
		rules = append(rules, yarnconf.PlacementRule{Name: "default", Create: true})
	}
	for _, r := range rules {
		var q *fairQ
		switch r.Name {
		case "specified":
			if name := j.Queue(); name != "" && name != "default" {
				q = p.leaf(name, r.Create, now)
			}
		case "user":
			if u := j.User(); u != "" {
				q = p.leaf(strings.ReplaceAll(u, ".", "_dot_"), r.Create, now)
			}
		case "default":
			name := r.Queue
			if name == "" {
				name = "default"
			}
			q = p.leaf(name, true, now)
		case "reject":
			return nil, fmt.Errorf("the reject rule of the queuePlacementPolicy")
		}
		if q != nil {
			return q, nil
		}
	}
	return nil, fmt.Errorf("no placement rule places queue %q, user %q", j.Queue(), j.User())
}

// JobArrived places the application and makes it runnable if the
// maxRunningApps limits allow.
func (p *YARNFair) JobArrived(c replay.Cluster, j *replay.JobView) {
	if p.yc == nil {
		return
	}
	q, err := p.place(j, c.Now())
	if err != nil {
		p.rejected++
		if p.reject == nil {
			p.reject = fmt.Errorf("yarn-fair rejected job %s: %w", j.ID(), err)
		}
		return
	}
	a := &fairApp{job: j, q: q}
	p.apps[j.Index()] = a
	if p.canRun(a) {
		p.makeRunnable(a)
	} else {
		p.waiting = append(p.waiting, a)
	}
	p.Tick(c)
}

// canRun is MaxRunningAppsEnforcer.canAppBeRunnable.
func (p *YARNFair) canRun(a *fairApp) bool {
	if p.userRuns[a.job.User()] >= p.conf.UserMaxApps(a.job.User()) {
		return false
	}
	for x := a.q; x != nil; x = x.parent {
		if x.runnable >= x.conf.MaxRunningApps {
			return false
		}
	}
	return true
}

func (p *YARNFair) makeRunnable(a *fairApp) {
	a.runnable = true
	a.q.apps = append(a.q.apps, a)
	slices.SortFunc(a.q.apps, func(x, y *fairApp) int { return cmp.Compare(x.job.Index(), y.job.Index()) })
	for x := a.q; x != nil; x = x.parent {
		x.runnable++
	}
	p.userRuns[a.job.User()]++
}

// JobFinished removes the application and makes waiting ones runnable in
// submission order (MaxRunningAppsEnforcer.updateRunnabilityOnAppRemoval).
func (p *YARNFair) JobFinished(c replay.Cluster, j *replay.JobView) {
	if p.yc == nil {
		return
	}
	a, ok := p.apps[j.Index()]
	if !ok {
		return
	}
	delete(p.apps, j.Index())
	for k := range p.marked {
		if k.job == j.Index() {
			delete(p.marked, k)
		}
	}
	if !a.runnable {
		p.waiting = slices.DeleteFunc(p.waiting, func(x *fairApp) bool { return x == a })
		return
	}
	a.q.apps = slices.DeleteFunc(a.q.apps, func(x *fairApp) bool { return x == a })
	for x := a.q; x != nil; x = x.parent {
		x.runnable--
	}
	p.userRuns[j.User()]--
	still := p.waiting[:0]
	for _, w := range p.waiting {
		if p.canRun(w) {
			p.makeRunnable(w)
		} else {
			still = append(still, w)
		}
	}
	p.waiting = still
	p.Tick(c)
}

// TaskFinished gives preemption its chance to run.
func (p *YARNFair) TaskFinished(c replay.Cluster, _ *replay.JobView, _ bool, _ int32) {
	if p.yc != nil {
		p.Tick(c)
	}
}

// resolve turns a minResources or maxResources value into resources; an
// unset maximum is unlimited.
func (p *YARNFair) resolve(r yarnconf.ResourceSpec, unset int64) replay.Resource {
	switch {
	case !r.Set:
		return replay.Resource{MemoryMB: unset, VCores: unset}
	case r.Percent:
		return replay.Resource{MemoryMB: int64(float64(p.cluster.MemoryMB) * r.MemoryPct), VCores: int64(float64(p.cluster.VCores) * r.VCoresPct)}
	}
	return replay.Resource{MemoryMB: r.MemoryMB, VCores: r.VCores}
}

// unlimited stands for an unset maxResources.
const unlimited = math.MaxInt64 / 4

// update recomputes usage, demand and fair shares down the tree
// (FairScheduler.update).
func (p *YARNFair) update() {
	var walk func(q *fairQ)
	walk = func(q *fairQ) {
		q.usage, q.demand, q.amUsage = replay.Resource{}, replay.Resource{}, replay.Resource{}
		q.minShare = p.resolve(q.conf.MinResources, 0)
		q.maxRes = p.resolve(q.conf.MaxResources, unlimited)
		for _, a := range q.apps {
			u := p.yc.Usage(a.job)
			q.usage = q.usage.Add(u)
			q.demand = q.demand.Add(u).Add(demand(p.yc, a.job))
			if !p.yc.AMPending(a.job) {
				q.amUsage = q.amUsage.Add(p.yc.Container(a.job, replay.AMContainer))
			}
		}
		for _, ch := range q.children {
			walk(ch)
			q.usage = q.usage.Add(ch.usage)
			q.demand = q.demand.Add(ch.demand)
		}
		q.demand = replay.Resource{MemoryMB: min(q.demand.MemoryMB, q.maxRes.MemoryMB), VCores: min(q.demand.VCores, q.maxRes.VCores)}
	}
	walk(p.root)
	p.root.fairShare = p.cluster
	var share func(q *fairQ)
	share = func(q *fairQ) {
		var active []*fairQ
		for _, ch := range q.children {
			ch.fairShare = replay.Resource{}
			if ch.runnable > 0 {
				active = append(active, ch)
			}
		}
		mem := computeShares(active, q.fairShare.MemoryMB, func(x *fairQ) (int64, int64) { return x.minShare.MemoryMB, x.maxRes.MemoryMB })
		cpu := computeShares(active, q.fairShare.VCores, func(x *fairQ) (int64, int64) { return x.minShare.VCores, x.maxRes.VCores })
		for i, ch := range active {
			ch.fairShare = replay.Resource{MemoryMB: mem[i], VCores: cpu[i]}
		}
		for _, ch := range q.children {
			share(ch)
		}
	}
	share(p.root)
}

// computeShares is ComputeFairShares.computeSharesInternal for one
// resource: the R for which Σ clamp(weight × R, min, max) = total, found by
// doubling then 25 bisections, each queue getting its clamp at R.
func computeShares(qs []*fairQ, total int64, bounds func(*fairQ) (int64, int64)) []int64 {
	out := make([]int64, len(qs))
	if len(qs) == 0 || total <= 0 {
		return out
	}
	at := func(i int, r float64) int64 {
		lo, hi := bounds(qs[i])
		s := qs[i].conf.Weight * r
		s = max(s, float64(lo))
		s = min(s, float64(hi))
		return int64(s)
	}
	used := func(r float64) int64 {
		var t int64
		for i := range qs {
			t += at(i, r)
			if t >= unlimited {
				return unlimited
			}
		}
		return t
	}
	var maxSum int64
	for _, q := range qs {
		_, hi := bounds(q)
		maxSum = min(maxSum+hi, unlimited)
	}
	if maxSum < total {
		for i, q := range qs {
			_, out[i] = bounds(q)
		}
		return out
	}
	rMax := 1.0
	for k := 0; k < 128 && used(rMax) < total; k++ {
		rMax *= 2
	}
	left, right := 0.0, rMax
	for range 25 {
		mid := (left + right) / 2
		if used(mid) < total {
			left = mid
		} else {
			right = mid
		}
	}
	for i := range qs {
		out[i] = at(i, right)
	}
	return out
}

// queuePolicy is the scheduling policy of q's children or applications.
func queuePolicy(q *fairQ) string { return q.conf.SchedulingPolicy }

// schedulable is what the comparators read of a queue or an application.
type schedulable struct {
	usage, minShare, demand replay.Resource
	weight                  float64
	start                   int64
	name                    string
	index                   int32
}

// less orders two schedulables under policy pol (FairShareComparator,
// DominantResourceFairnessComparator, FifoComparator).
func (p *YARNFair) less(pol string, a, b schedulable) int {
	switch pol {
	case yarnconf.PolicyFIFO:
		if x := cmp.Compare(a.start, b.start); x != 0 {
			return x
		}
	case yarnconf.PolicyDRF:
		domA, secA := p.shares(a.usage, p.cluster, a.weight)
		domB, secB := p.shares(b.usage, p.cluster, b.weight)
		mdA, msA := p.shares(a.usage, a.minShare, 1)
		mdB, msB := p.shares(b.usage, b.minShare, 1)
		needyA, needyB := mdA < 1, mdB < 1
		if needyA != needyB {
			if needyA {
				return -1
			}
			return 1
		}
		if needyA {
			domA, secA, domB, secB = mdA, msA, mdB, msB
		}
		if x := cmp.Compare(domA, domB); x != 0 {
			return x
		}
		if x := cmp.Compare(secA, secB); x != 0 {
			return x
		}
	default:
		minA := min(a.minShare.MemoryMB, a.demand.MemoryMB)
		minB := min(b.minShare.MemoryMB, b.demand.MemoryMB)
		needyA, needyB := a.usage.MemoryMB < minA, b.usage.MemoryMB < minB
		if needyA != needyB {
			if needyA {
				return -1
			}
			return 1
		}
		if needyA {
			ra := float64(a.usage.MemoryMB) / float64(max(minA, 1))
			rb := float64(b.usage.MemoryMB) / float64(max(minB, 1))
			if x := cmp.Compare(ra, rb); x != 0 {
				return x
			}
		} else {
			ra, rb := weighted(a.usage.MemoryMB, a.weight), weighted(b.usage.MemoryMB, b.weight)
			if x := cmp.Compare(ra, rb); x != 0 {
				return x
			}
		}
	}
	if x := cmp.Compare(a.start, b.start); x != 0 {
		return x
	}
	if x := cmp.Compare(a.name, b.name); x != 0 {
		return x
	}
	return cmp.Compare(a.index, b.index)
}

func weighted(u int64, w float64) float64 {
	if w <= 0 {
		return math.Inf(1)
	}
	return float64(u) / w
}

// shares is usage over of per resource, divided by weight: the dominant
// (larger) share and the other.
func (p *YARNFair) shares(u, of replay.Resource, w float64) (float64, float64) {
	m, c := frac(u.MemoryMB, of.MemoryMB), frac(u.VCores, of.VCores)
	if of.MemoryMB == 0 && u.MemoryMB == 0 {
		m = math.Inf(1)
	}
	if of.VCores == 0 && u.VCores == 0 {
		c = math.Inf(1)
	}
	if w <= 0 {
		return math.Inf(1), math.Inf(1)
	}
	return max(m, c) / w, min(m, c) / w
}

func (q *fairQ) sched() schedulable {
	return schedulable{usage: q.usage, minShare: q.minShare, demand: q.demand, weight: q.conf.Weight, name: q.conf.Path}
}

func (p *YARNFair) appSched(a *fairApp) schedulable {
	u := p.yc.Usage(a.job)
	return schedulable{usage: u, demand: u.Add(demand(p.yc, a.job)), weight: 1, start: a.job.SubmitUs(),
		name: a.job.ID(), index: a.job.Index()}
}

// Heartbeat assigns one container on node n, or several with
// assign-multiple (FairScheduler.attemptScheduling).
func (p *YARNFair) Heartbeat(c replay.Cluster, n int32) {
	if p.yc == nil {
		return
	}
	p.Tick(c)
	for k := 0; p.minAlloc.Fits(p.yc.NodeFree(n)); k++ {
		p.update()
		if !p.assign(p.root, n) {
			return
		}
		if !p.assignMultiple || p.maxAssign >= 0 && k+1 >= p.maxAssign {
			return
		}
	}
}

// overMax reports whether q's usage is over its maxResources
// (FSQueue.assignContainerPreCheck): both resources for a drf queue, memory
// only otherwise, as FairSharePolicy counts memory alone (FairScheduler.md's
// own example gives a fair queue "90000 mb,0vcores", which would block it
// if vcores counted).
func (p *YARNFair) overMax(q *fairQ) bool {
	if queuePolicy(q) != yarnconf.PolicyDRF {
		return q.usage.MemoryMB > q.maxRes.MemoryMB
	}
	return q.usage.MemoryMB > q.maxRes.MemoryMB || q.usage.VCores > q.maxRes.VCores
}

func (p *YARNFair) assign(q *fairQ, n int32) bool {
	if q.runnable == 0 || p.overMax(q) {
		return false
	}
	pol := queuePolicy(q)
	if len(q.children) > 0 {
		order := slices.Clone(q.children)
		slices.SortStableFunc(order, func(a, b *fairQ) int { return p.less(pol, a.sched(), b.sched()) })
		for _, ch := range order {
			if p.assign(ch, n) {
				return true
			}
		}
		return false
	}
	apps := slices.Clone(q.apps)
	keys := make(map[*fairApp]schedulable, len(apps))
	for _, a := range apps {
		keys[a] = p.appSched(a)
	}
	slices.SortStableFunc(apps, func(a, b *fairApp) int { return p.less(pol, keys[a], keys[b]) })
	for _, a := range apps {
		if p.assignApp(q, a, n) {
			return true
		}
	}
	return false
}

// canRunAM is FSLeafQueue.canRunAppAM.
func (p *YARNFair) canRunAM(q *fairQ, am replay.Resource) bool {
	share := q.conf.MaxAMShare
	if share < 0 {
		return true
	}
	fair := q.fairShare
	if fair.MemoryMB == 0 {
		fair = replay.Resource{MemoryMB: min(q.maxRes.MemoryMB, p.cluster.MemoryMB), VCores: min(q.maxRes.VCores, p.cluster.VCores)}
	}
	limit := scale(fair, share)
	ifRun := q.amUsage.Add(am)
	if queuePolicy(q) == yarnconf.PolicyDRF {
		return ifRun.Fits(limit)
	}
	return ifRun.MemoryMB <= limit.MemoryMB
}

// allowed is FSAppAttempt.getAllowedLocalityLevel for the app's maps: no
// wait when either threshold is negative; NODE_LOCAL at first; relaxed one
// level, and the opportunities reset, once they pass threshold × nodes.
func (p *YARNFair) allowed(a *fairApp) replay.Locality {
	if p.nodeThreshold < 0 || p.rackThreshold < 0 {
		return replay.OffRack
	}
	if !a.seen {
		a.seen, a.level = true, replay.NodeLocal
		return a.level
	}
	switch a.level {
	case replay.NodeLocal:
		if float64(a.missed) > p.nodeThreshold*float64(p.nodes) {
			a.level, a.missed = replay.RackLocal, 0
		}
	case replay.RackLocal:
		if float64(a.missed) > p.rackThreshold*float64(p.nodes) {
			a.level, a.missed = replay.OffRack, 0
		}
	}
	return a.level
}

// assignApp is FSAppAttempt.assignContainer: the AM, else a map at the
// allowed locality, else a reduce. Every offer of the node to maps that
// would fit counts as a scheduling opportunity, before the level is
// computed; a node- or rack-local map raises the level back (allocate); the
// count is reset only when the level relaxes.
func (p *YARNFair) assignApp(q *fairQ, a *fairApp, n int32) bool {
	j := a.job
	if p.yc.AMPending(j) {
		am := p.yc.Container(j, replay.AMContainer)
		if !am.Fits(p.yc.NodeFree(n)) || !p.canRunAM(q, am) {
			return false
		}
		p.yc.LaunchAM(j, n)
		return true
	}
	if j.PendingMaps() > 0 && p.yc.Container(j, replay.MapContainer).Fits(p.yc.NodeFree(n)) {
		a.missed++
	}
	always := func(replay.Resource) bool { return true }
	ok, kind, loc, _ := launchMapOrReduce(p.yc, j, n, upTo(p.allowed(a)), always)
	if ok && kind == replay.MapContainer && loc < a.level {
		a.level = loc
	}
	return ok
}

// Tick updates the starvation times and runs preemption when it is on and
// its interval has passed (FairScheduler.update, preemptTasksIfNecessary).
// The policy calls it from its hooks; an engine may also call it on a
// timer.
func (p *YARNFair) Tick(c replay.Cluster) {
	if p.yc == nil || !p.preempt {
		return
	}
	now := c.Now()
	p.update()
	// updateStarvationStats.
	var leaves []*fairQ
	var walk func(q *fairQ)
	walk = func(q *fairQ) {
		if len(q.children) == 0 {
			leaves = append(leaves, q)
		}
		for _, ch := range q.children {
			walk(ch)
		}
	}
	walk(p.root)
	cl := calc{dominant: false, cluster: p.cluster}
	calcOf := func(q *fairQ) calc {
		return calc{dominant: queuePolicy(q) == yarnconf.PolicyDRF, cluster: cl.cluster}
	}
	for _, q := range leaves {
		qc := calcOf(q)
		if !qc.greater(qc.minRes(q.minShare, q.demand), q.usage) {
			q.lastAtMin = now
		}
		if !qc.greater(qc.minRes(scale(q.fairShare, q.conf.FairSharePreemptionThreshold), q.demand), q.usage) {
			q.lastAtFair = now
		}
	}
	if now < p.nextPreempt {
		return
	}
	p.nextPreempt = now + p.preemptEvery
	// resourceDeficit of every starved leaf.
	var want replay.Resource
	for _, q := range leaves {
		qc := calcOf(q)
		var res replay.Resource
		if t := q.conf.MinSharePreemptionTimeoutUs; t != yarnconf.Never && now-q.lastAtMin > t {
			res = nonNeg(qc.minRes(q.minShare, q.demand).Sub(q.usage))
		}
		if t := q.conf.FairSharePreemptionTimeoutUs; t != yarnconf.Never && now-q.lastAtFair > t {
			res = qc.maxRes(res, nonNeg(qc.minRes(q.fairShare, q.demand).Sub(q.usage)))
		}
		want = want.Add(res)
	}
	if want.IsZero() {
		clear(p.marked)
		return
	}
	// Containers of queues over their fair share: maps, then reduces, newest first.
	var cs []container
	for _, q := range leaves {
		if calcOf(q).greater(q.usage, q.fairShare) {
			for _, a := range q.apps {
				cs = runningContainers(cs, a.job)
			}
		}
	}
	newestFirst(cs)
	slices.SortStableFunc(cs, func(a, b container) int { return cmp.Compare(a.kind, b.kind) })
	taken := map[*fairQ]replay.Resource{}
	var kill []container
	for _, ct := range cs {
		if want.MemoryMB <= 0 && want.VCores <= 0 {
			break
		}
		q := p.apps[ct.job.Index()].q
		qc := calcOf(q)
		if !qc.greater(q.usage.Sub(taken[q]), q.fairShare) {
			continue
		}
		size := p.yc.Container(ct.job, ct.kind)
		taken[q] = taken[q].Add(size)
		want = want.Sub(size)
		k := capKey{ct.job.Index(), ct.kind, ct.task}
		first, ok := p.marked[k]
		if !ok {
			p.marked[k] = now
			first = now
		}
		if first+p.waitBeforeKill <= now {
			kill = append(kill, ct)
		}
	}
	for _, ct := range kill {
		delete(p.marked, capKey{ct.job.Index(), ct.kind, ct.task})
		p.yc.Preempt(ct.job, ct.kind, ct.task)
	}
}
