package policy

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// What the three ResourceManager policies (yarn-fifo, yarn-capacity,
// yarn-fair) share: the YARN view check, resource arithmetic under a
// resource calculator, the order of a job's requests on a node and the
// choice of a preemption victim. docs/yarn-schedulers.md says what each
// follows in Hadoop.

// yarnBase is embedded by the YARN policies: the registry name, the kind
// (the policy's base name, for errors), the YARN view and the error that
// stopped the policy.
type yarnBase struct {
	replay.Base
	name, kind string
	yc         replay.YARNCluster
	err        error
	// minAlloc is yarn.scheduler.minimum-allocation-mb and -vcores of the
	// hardware model: the unit containers and limits are rounded up to.
	minAlloc replay.Resource
}

// Name is the registry name with parameters.
func (b *yarnBase) Name() string { return b.name }

// Err is why the policy schedules nothing (not a YARN cluster, a bad
// queue file), or the first application it rejected; nil when it runs.
func (b *yarnBase) Err() error { return b.err }

// fail records err unless an earlier error is recorded.
func (b *yarnBase) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// initYARN takes the YARN view of c; on a slot cluster it records the error
// and returns false: the policy then schedules nothing.
func (b *yarnBase) initYARN(c replay.Cluster) bool {
	yc, ok := c.(replay.YARNCluster)
	if !ok {
		b.fail(fmt.Errorf("%s needs a YARN cluster (cluster = \"yarn\" in the hardware model)", b.kind))
		return false
	}
	b.yc = yc
	hw := c.Hardware()
	b.minAlloc = replay.Resource{MemoryMB: hw.MinAllocationMB, VCores: hw.MinAllocationVCores}
	return true
}

// calc is a ResourceCalculator: DefaultResourceCalculator compares memory
// only, DominantResourceCalculator the dominant share of the cluster.
type calc struct {
	dominant bool
	cluster  replay.Resource
}

// share is r as a fraction of the cluster: memory's, or the larger of the
// two (the dominant share) under DRC.
func (c calc) share(r replay.Resource) float64 {
	m := frac(r.MemoryMB, c.cluster.MemoryMB)
	if !c.dominant {
		return m
	}
	return max(m, frac(r.VCores, c.cluster.VCores))
}

func frac(a, b int64) float64 {
	if b <= 0 {
		if a > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return float64(a) / float64(b)
}

// greater is Resources.greaterThan(rc, cluster, a, b).
func (c calc) greater(a, b replay.Resource) bool {
	if !c.dominant {
		return a.MemoryMB > b.MemoryMB
	}
	return c.compare(a, b) > 0
}

// compare is ResourceCalculator.compare: memory, or the dominant shares then
// the other shares (DominantResourceCalculator.compare).
func (c calc) compare(a, b replay.Resource) int {
	if !c.dominant {
		return cmp.Compare(a.MemoryMB, b.MemoryMB)
	}
	am, ac := frac(a.MemoryMB, c.cluster.MemoryMB), frac(a.VCores, c.cluster.VCores)
	bm, bc := frac(b.MemoryMB, c.cluster.MemoryMB), frac(b.VCores, c.cluster.VCores)
	if x := cmp.Compare(max(am, ac), max(bm, bc)); x != 0 {
		return x
	}
	return cmp.Compare(min(am, ac), min(bm, bc))
}

// maxRes and minRes are Resources.max and min under the calculator.
func (c calc) maxRes(a, b replay.Resource) replay.Resource {
	if c.compare(a, b) >= 0 {
		return a
	}
	return b
}

func (c calc) minRes(a, b replay.Resource) replay.Resource {
	if c.compare(a, b) <= 0 {
		return a
	}
	return b
}

// scale is r × f in both dimensions, rounded down.
func scale(r replay.Resource, f float64) replay.Resource {
	return replay.Resource{MemoryMB: int64(float64(r.MemoryMB) * f), VCores: int64(float64(r.VCores) * f)}
}

// roundUp rounds r up to multiples of step (Resources.roundUp).
func roundUp(r, step replay.Resource) replay.Resource {
	up := func(a, s int64) int64 {
		if s <= 0 {
			return a
		}
		return (a + s - 1) / s * s
	}
	return replay.Resource{MemoryMB: up(r.MemoryMB, step.MemoryMB), VCores: up(r.VCores, step.VCores)}
}

// nonNeg clamps each dimension at 0.
func nonNeg(r replay.Resource) replay.Resource {
	return replay.Resource{MemoryMB: max(r.MemoryMB, 0), VCores: max(r.VCores, 0)}
}

// demand is what j still asks for: its AM while pending, else its pending
// maps and, once the slow-start is reached, its pending reduces (the MR AM
// asks for reduces only then).
func demand(yc replay.YARNCluster, j *replay.JobView) replay.Resource {
	if yc.AMPending(j) {
		return yc.Container(j, replay.AMContainer)
	}
	var d replay.Resource
	if n := int64(j.PendingMaps()); n > 0 {
		m := yc.Container(j, replay.MapContainer)
		d = d.Add(replay.Resource{MemoryMB: m.MemoryMB * n, VCores: m.VCores * n})
	}
	if j.ReducesReady() {
		if n := int64(j.PendingReduces()); n > 0 {
			r := yc.Container(j, replay.ReduceContainer)
			d = d.Add(replay.Resource{MemoryMB: r.MemoryMB * n, VCores: r.VCores * n})
		}
	}
	return d
}

// levels says which map localities a job may take on a node besides
// node-local: Hadoop's CapacityScheduler checks rack-local and off-switch
// separately (RegularContainerAllocator.canAssign), the FairScheduler has one
// allowed level.
type levels struct{ rack, off bool }

// upTo is the levels of a single allowed locality.
func upTo(l replay.Locality) levels {
	return levels{rack: l >= replay.RackLocal, off: l >= replay.OffRack}
}

// yarnMap is j's map to run on node n: node-local, then rack-local if
// allowed, then off-switch if allowed. A map preempted back to pending is no
// longer in the job's locality index, so when AnyMap finds nothing while maps
// are pending, the maps are scanned.
func yarnMap(c replay.Cluster, j *replay.JobView, n int32, lv levels) (int32, replay.Locality) {
	if j.PendingMaps() == 0 {
		return -1, 0
	}
	if t := j.LocalMap(n); t >= 0 {
		return t, replay.NodeLocal
	}
	if lv.rack {
		if t := j.RackMap(c.Topology().Nodes[n].Rack); t >= 0 {
			return t, replay.RackLocal
		}
	}
	if !lv.off {
		return -1, 0
	}
	if t := j.AnyMap(); t >= 0 {
		return t, c.Locality(j, t, n)
	}
	for i := range j.NumMaps() {
		if j.MapState(i) == replay.Pending {
			return i, c.Locality(j, i, n)
		}
	}
	return -1, 0
}

// container is a running map or reduce container of a job.
type container struct {
	job      *replay.JobView
	kind     replay.ContainerKind
	task     int32
	launchUs int64
}

// runningContainers appends j's running map and reduce containers (not its
// AM, which preemption spares) to out.
func runningContainers(out []container, j *replay.JobView) []container {
	for i := range j.NumMaps() {
		if j.MapState(i) == replay.Running {
			out = append(out, container{j, replay.MapContainer, i, j.MapLaunchUs(i)})
		}
	}
	for i := range j.NumReduces() {
		if j.ReduceState(i) == replay.Running {
			out = append(out, container{j, replay.ReduceContainer, i, j.ReduceLaunchUs(i)})
		}
	}
	return out
}

// newestFirst sorts containers newest first: launch time, then the later
// job, then reduces before maps (launched after them), then higher index,
// standing in for Hadoop's container ids.
func newestFirst(cs []container) {
	slices.SortFunc(cs, func(a, b container) int {
		if x := cmp.Compare(b.launchUs, a.launchUs); x != 0 {
			return x
		}
		if x := cmp.Compare(b.job.Index(), a.job.Index()); x != 0 {
			return x
		}
		if x := cmp.Compare(b.kind, a.kind); x != 0 {
			return x
		}
		return cmp.Compare(b.task, a.task)
	})
}

// launchMapOrReduce gives j a reduce, or else a map of an allowed locality,
// on node n, if its container fits in the node and ok(size) allows it; it
// returns what it launched (ok false: nothing) and whether a map was held
// back by locality alone. Reduces come first as the MapReduce AM asks for
// them (RMContainerAllocator: PRIORITY_REDUCE 10 before PRIORITY_MAP 20, a
// scheduler serving an application's requests by priority); how many it
// asks for is the engine's reduce ramp-up (replay's rampUpAllows), so
// LaunchReduce refuses one the AM has not asked for yet.
func launchMapOrReduce(yc replay.YARNCluster, j *replay.JobView, n int32, allowed levels,
	ok func(replay.Resource) bool) (launched bool, kind replay.ContainerKind, loc replay.Locality, heldBack bool) {
	if canReduce(j) {
		size := yc.Container(j, replay.ReduceContainer)
		if size.Fits(yc.NodeFree(n)) && ok(size) && yc.LaunchReduce(j, n) >= 0 {
			return true, replay.ReduceContainer, 0, false
		}
	}
	if j.PendingMaps() > 0 {
		size := yc.Container(j, replay.MapContainer)
		if size.Fits(yc.NodeFree(n)) && ok(size) {
			if t, _ := yarnMap(yc, j, n, allowed); t >= 0 {
				return true, replay.MapContainer, yc.LaunchMap(j, t, n), false
			}
			// Maps are pending elsewhere: the locality wait held them back.
			heldBack = true
		}
	}
	return false, 0, 0, heldBack
}
