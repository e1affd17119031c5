package replay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/tracereplay/tracereplay/trace"
)

// The YARN resource model (hardware key cluster = "yarn"), as Hadoop 2 and 3
// run MapReduce:
//
//   - Every node is a NodeManager offering node_memory_mb and node_vcores
//     (yarn.nodemanager.resource.*). There are no map or reduce slots: every
//     attempt runs in a container whose size the job's conf asks for
//     (mapreduce.{map,reduce}.memory.mb and .cpu.vcores, the trace's
//     map_memory_mb / reduce_memory_mb when it records them, else this
//     model's keys), normalised as the ResourceManager does
//     (SchedulerUtils.normalizeRequest with DefaultResourceCalculator's
//     rounding): rounded up to a multiple of the minimum allocation, at least
//     the minimum. A request above the maximum allocation is refused by the
//     RM (InvalidResourceRequestException); here it is a named error before
//     the run (exit 2), as is a container no node can hold.
//   - A submitted job first needs a container for its ApplicationMaster
//     (yarn.app.mapreduce.am.resource.mb / .cpu-vcores). The policy sees the
//     job at its submission with its AM pending and gives the AM a container
//     (YARNCluster.LaunchAM); the AM then starts and initialises the job for
//     am_startup (trace mode: am_launch plus the observed AM start →
//     JOB_INITED when the trace has both), and only then are the job's maps and
//     reduces requested. The AM holds its container until the job finishes.
//   - The MRAppMaster calls the RM's allocate every am_heartbeat: a container
//     allocated at a NodeManager's heartbeat reaches its job at the AM's next
//     call (amWaitUs); the reduces it asks for are ramped up against its
//     waiting maps (rampUp) at each round of calls and seen by the RM at the
//     next (amTick); reduces come before maps in its requests' priorities;
//     and it kills its own reduces when they hold what its maps need
//     (amPreemptReduces).
//   - Setup and cleanup run inside the AM (Hadoop 2's MRAppMaster commits
//     through its committer, not in task containers), so the lifecycle's init
//     workers and setup and cleanup tasks do not apply; the lifecycle's
//     reporting of finished tasks at the next heartbeat (report_at_heartbeat)
//     does: a container's resources are free when its NodeManager reports it.
//   - Preemption (YARNCluster.Preempt) kills a running container: its
//     resources are free at once, the attempt's work is lost and the task is
//     pending again, as the MRAppMaster re-requests a preempted attempt's task.
//
// The slot-based parts of the engine see each node as holding as many "slots"
// of each kind as containers of the minimum allocation fit on it
// (nodeContainers): the invariant checker's per-node counts use that, and it
// checks memory and vcores besides; the run's utilisations are memory shares
// (yarnUtilisation). network = "flow" runs on YARN as on slots, a killed
// container's transfers withdrawn (yarn_flow.go). Speculation and JVM reuse
// are not supported on YARN yet (refused when the model is validated).
// docs/yarn.md is the model's description with its measurements.

// ClusterKind is the cluster key: what a node offers its tasks.
type ClusterKind string

// The cluster kinds.
const (
	ClusterSlots ClusterKind = "slots" // Hadoop 1 TaskTrackers with map and reduce slots
	ClusterYARN  ClusterKind = "yarn"  // YARN NodeManagers with memory and vcores
)

// ClusterKindNames lists the cluster key's values.
func ClusterKindNames() []string { return []string{string(ClusterSlots), string(ClusterYARN)} }

// UnmarshalText reads a cluster key's value; an unknown name is an error
// listing the valid ones.
func (k *ClusterKind) UnmarshalText(b []byte) error {
	v, err := parseEnum("cluster", b, ClusterKindNames())
	*k = ClusterKind(v)
	return err
}

// MarshalText writes the kind's name.
func (k ClusterKind) MarshalText() ([]byte, error) { return []byte(k), nil }

// String is the kind's name as the cluster key spells it.
func (k ClusterKind) String() string { return string(k) }

// yarnKeys are the YARN model's hardware keys, in Hardware's field order
// (optionalKeyGroups).
type yarnKeys struct {
	Cluster                                 ClusterKind
	NodeMemoryMB, NodeVCores                int64
	MinAllocationMB, MaxAllocationMB        int64
	MinAllocationVCores                     int64
	MaxAllocationVCores                     int64
	MapMemoryMB, ReduceMemoryMB, AMMemoryMB int64
	MapVCores, ReduceVCores, AMVCores       int64
	AMStartup, AMLaunch, AMHeartbeat        Duration
	ReduceRampupLimit                       float64
}

func yarnKeysOf(h *Hardware) yarnKeys {
	return yarnKeys{h.Cluster, h.NodeMemoryMB, h.NodeVCores, h.MinAllocationMB, h.MaxAllocationMB,
		h.MinAllocationVCores, h.MaxAllocationVCores, h.MapMemoryMB, h.ReduceMemoryMB, h.AMMemoryMB,
		h.MapVCores, h.ReduceVCores, h.AMVCores, h.AMStartup, h.AMLaunch, h.AMHeartbeat, h.ReduceRampupLimit}
}

// maxYARNAmount bounds the memory (MB) and vcore keys: a petabyte of memory
// or a million cores per node is a typing error.
const maxYARNAmount = 1 << 30

// validateYARN checks the YARN keys (all of them, whatever the cluster kind,
// so a model stays valid when cluster is switched with --set).
func (h *Hardware) validateYARN(bad func(string, ...any)) {
	if !slices.Contains(ClusterKindNames(), string(h.Cluster)) {
		bad("%v", enumError("cluster", string(h.Cluster), ClusterKindNames()))
	}
	for _, k := range []struct {
		name string
		v    int64
	}{
		{"node_memory_mb", h.NodeMemoryMB}, {"node_vcores", h.NodeVCores},
		{"min_allocation_mb", h.MinAllocationMB}, {"max_allocation_mb", h.MaxAllocationMB},
		{"min_allocation_vcores", h.MinAllocationVCores}, {"max_allocation_vcores", h.MaxAllocationVCores},
		{"map_memory_mb", h.MapMemoryMB}, {"reduce_memory_mb", h.ReduceMemoryMB}, {"am_memory_mb", h.AMMemoryMB},
		{"map_vcores", h.MapVCores}, {"reduce_vcores", h.ReduceVCores}, {"am_vcores", h.AMVCores},
	} {
		if k.v < 1 || k.v > maxYARNAmount {
			bad("%s = %d: want 1..%d", k.name, k.v, maxYARNAmount)
		}
	}
	if h.MinAllocationMB > h.MaxAllocationMB || h.MinAllocationVCores > h.MaxAllocationVCores {
		bad("min_allocation_mb/vcores (%d, %d) must not exceed max_allocation_mb/vcores (%d, %d)",
			h.MinAllocationMB, h.MinAllocationVCores, h.MaxAllocationMB, h.MaxAllocationVCores)
	}
	if h.AMStartup > MaxHardwareDuration || h.AMLaunch > MaxHardwareDuration || h.AMHeartbeat > MaxHardwareDuration {
		bad("am_startup = %v, am_launch = %v, am_heartbeat = %v: want at most %v", h.AMStartup, h.AMLaunch, h.AMHeartbeat, MaxHardwareDuration)
	}
	if !(h.ReduceRampupLimit > 0 && h.ReduceRampupLimit <= 1) {
		bad("reduce_rampup_limit = %g: want a share in (0, 1]", h.ReduceRampupLimit)
	}
	if h.Cluster != ClusterYARN {
		return
	}
	if h.NodeMemoryMB < h.MinAllocationMB || h.NodeVCores < h.MinAllocationVCores {
		bad("cluster = \"yarn\": node_memory_mb/vcores (%d, %d) cannot hold one container of the minimum allocation (%d, %d)",
			h.NodeMemoryMB, h.NodeVCores, h.MinAllocationMB, h.MinAllocationVCores)
	}
	for _, k := range []struct {
		name string
		r    Resource
	}{{"am", Resource{h.AMMemoryMB, h.AMVCores}}, {"map", Resource{h.MapMemoryMB, h.MapVCores}},
		{"reduce", Resource{h.ReduceMemoryMB, h.ReduceVCores}}} {
		if err := h.checkContainer(k.r); err != nil {
			bad("cluster = \"yarn\": the default %s container: %v", k.name, err)
		}
	}
	if h.Speculation != "none" {
		bad("cluster = \"yarn\" does not support speculation %q yet: want speculation = \"none\"", h.Speculation)
	}
	if h.jvmReuses() {
		bad("cluster = \"yarn\" does not support jvm_reuse yet: want jvm_reuse = 1")
	}
	if h.MapNodes != 0 || h.ReduceNodes != 0 {
		bad("cluster = \"yarn\" has no map-only or reduce-only nodes: want map_nodes = reduce_nodes = 0")
	}
}

// yarnHeartbeat gives a model that a TOML text (a file or --set) makes a YARN
// cluster YARN's NodeManager heartbeat, 1 s
// (yarn.resourcemanager.nodemanagers.heartbeat-interval-ms = 1000), in place
// of Hadoop 1's TaskTracker heartbeat of 3 s (the default), unless the same
// text gives heartbeat or the model's heartbeat is not the default.
func (h *Hardware) yarnHeartbeat(md toml.MetaData) {
	if md.IsDefined("cluster") && h.Cluster == ClusterYARN && !md.IsDefined("heartbeat") &&
		h.Heartbeat == DefaultHardware().Heartbeat {
		h.Heartbeat = yarnNMHeartbeat
	}
}

// yarnNMHeartbeat is yarn.resourcemanager.nodemanagers.heartbeat-interval-ms's
// default.
const yarnNMHeartbeat = Duration(time.Second / time.Microsecond)

// nodeContainers is the number of containers of the minimum allocation a
// NodeManager holds: the slot count the slot-based parts of the engine see.
func (h *Hardware) nodeContainers() int {
	if h.MinAllocationMB < 1 || h.MinAllocationVCores < 1 {
		return 0
	}
	return int(min(h.NodeMemoryMB/h.MinAllocationMB, h.NodeVCores/h.MinAllocationVCores, 1<<20))
}

// normalise rounds a container request up to a multiple of the minimum
// allocation, at least the minimum (SchedulerUtils.normalizeRequest).
func (h *Hardware) normalise(r Resource) Resource {
	up := func(v, step int64) int64 {
		if v <= step {
			return step
		}
		return (v + step - 1) / step * step
	}
	return Resource{MemoryMB: up(r.MemoryMB, h.MinAllocationMB), VCores: up(r.VCores, h.MinAllocationVCores)}
}

// checkContainer says why a normalised request cannot run: above the maximum
// allocation, or larger than a node.
func (h *Hardware) checkContainer(r Resource) error {
	n := h.normalise(r)
	if n.MemoryMB > h.MaxAllocationMB || n.VCores > h.MaxAllocationVCores {
		return fmt.Errorf("%d MB, %d vcores exceeds the maximum allocation (%d MB, %d vcores)",
			n.MemoryMB, n.VCores, h.MaxAllocationMB, h.MaxAllocationVCores)
	}
	if !n.Fits(Resource{h.NodeMemoryMB, h.NodeVCores}) {
		return fmt.Errorf("%d MB, %d vcores is larger than any node (%d MB, %d vcores)",
			n.MemoryMB, n.VCores, h.NodeMemoryMB, h.NodeVCores)
	}
	return nil
}

// jobContainers sizes job j's AM, map and reduce containers, or says which
// one cannot run on this cluster.
func (h *Hardware) jobContainers(j *Job) ([3]Resource, error) {
	mapMB, redMB := h.MapMemoryMB, h.ReduceMemoryMB
	if j.Trace.MapMemoryMB > 0 {
		mapMB = int64(j.Trace.MapMemoryMB)
	}
	if j.Trace.ReduceMemoryMB > 0 {
		redMB = int64(j.Trace.ReduceMemoryMB)
	}
	asks := [3]Resource{
		AMContainer:     {h.AMMemoryMB, h.AMVCores},
		MapContainer:    {mapMB, h.MapVCores},
		ReduceContainer: {redMB, h.ReduceVCores},
	}
	var out [3]Resource
	for k, r := range asks {
		if err := h.checkContainer(r); err != nil {
			return out, fmt.Errorf("job %s: its %s container: %w", j.Trace.ID, ContainerKind(k), err)
		}
		out[k] = h.normalise(r)
	}
	return out, nil
}

// jobYARN is a job's state on a YARN cluster.
type jobYARN struct {
	size      [3]Resource // normalised container sizes, by ContainerKind
	amPending bool        // submitted, AM not yet allocated
	amNode    int32       // node of the AM's container, -1 before
	amLaunch  int64
	readyUs   int64 // when its AM was ready: the phase of the AM's heartbeats
	// redAsked and redVisible are the reduces (launched or not) its AM asked
	// for at its last allocate round and at the one before, which the RM
	// sees (amTick, rampUpAllows).
	redAsked, redVisible int32
	firstWait            int64 // the AM heartbeat wait of its first task's container
	// slotAM: a YARN job replayed on a slot cluster in trace mode, its AM's
	// allocate calls modelled (yarn_slotam.go); redAsk: its reduce asks are
	// on their way; launchUs: its containers' launch time.
	slotAM, redAsk bool
	launchUs       int64
	usage          Resource // what its running containers hold, the AM's included
	// redWait[i] is reduce i's amWaitUs at its launch; nil while every one
	// has been 0 (always on a slot cluster but for a slotAM job), so that
	// ReduceTask stays small.
	redWait []int64
}

// redAMWaitUs is reduce i's wait, at its launch, for its AM's next allocate
// call (amWaitUs); 0 on a slot cluster.
func (j *Job) redAMWaitUs(i int32) int64 {
	if j.yarn.redWait == nil {
		return 0
	}
	return j.yarn.redWait[i]
}

// setRedAMWaitUs records reduce i's AM wait at its launch (redAMWaitUs).
func (j *Job) setRedAMWaitUs(i int32, w int64) {
	if w != 0 && j.yarn.redWait == nil {
		j.yarn.redWait = make([]int64, len(j.Reduces))
	}
	if j.yarn.redWait != nil {
		j.yarn.redWait[i] = w
	}
}

// yarnSim is the simulator's YARN state.
type yarnSim struct {
	on       bool
	free     []Resource // per node
	capacity Resource   // per node (every NodeManager alike)
	minAlloc Resource
	total    Resource
	used     Resource // what every container holds
	// amTicking says an evAMTick is queued; amPreempted counts the reduces
	// the MRAppMasters preempted (amPreemptReduces).
	amTicking   bool
	amPreempted int64
	memMBs      [3]float64 // MB·s held by the containers released so far, by kind
}

// initYARN sets up the NodeManagers' resources.
func (s *Sim) initYARN() {
	if s.hw.Cluster != ClusterYARN {
		return
	}
	s.ticker, _ = s.pol.(Ticker)
	y := &s.yarn
	y.on = true
	y.capacity = Resource{s.hw.NodeMemoryMB, s.hw.NodeVCores}
	y.minAlloc = Resource{s.hw.MinAllocationMB, s.hw.MinAllocationVCores}
	y.free = make([]Resource, len(s.nodes))
	for i := range y.free {
		y.free[i] = y.capacity
		y.total = y.total.Add(y.capacity)
		s.nodes[i].freeMap, s.nodes[i].freeReduce = 0, 0 // no slots: containers (YARNCluster)
	}
}

// hasRoom reports whether node n could take a task: a free slot, or on YARN
// room for a container of the minimum allocation.
func (s *Sim) hasRoom(n int32) bool {
	if s.yarn.on {
		return s.yarn.minAlloc.Fits(s.yarn.free[n])
	}
	ns := &s.nodes[n]
	return ns.freeMap+ns.freeReduce > 0
}

// takeMapSlot gives a map of j node n's map slot or a map container; it
// reports false, taking nothing, when there is none free.
func (s *Sim) takeMapSlot(j *Job, n int32) bool {
	if s.yarn.on {
		return s.takeContainer(j, n, MapContainer)
	}
	if s.nodes[n].freeMap <= 0 {
		return false
	}
	s.nodes[n].freeMap--
	return true
}

// freeMapSlot returns the slot or container on node n of a map of j
// launched at launchUs.
func (s *Sim) freeMapSlot(j *Job, n int32, launchUs int64) {
	if s.yarn.on {
		s.releaseContainer(j, n, MapContainer, launchUs)
		return
	}
	s.nodes[n].freeMap++
}

// takeReduceSlot is takeMapSlot for a reduce.
func (s *Sim) takeReduceSlot(j *Job, n int32) bool {
	if s.yarn.on {
		return s.takeContainer(j, n, ReduceContainer)
	}
	if s.nodes[n].freeReduce <= 0 {
		return false
	}
	s.nodes[n].freeReduce--
	return true
}

// freeReduceSlot returns the slot or container on node n of a reduce of j
// launched at launchUs.
func (s *Sim) freeReduceSlot(j *Job, n int32, launchUs int64) {
	if s.yarn.on {
		s.releaseContainer(j, n, ReduceContainer, launchUs)
		return
	}
	s.nodes[n].freeReduce++
}

func (s *Sim) takeContainer(j *Job, n int32, k ContainerKind) bool {
	c := j.yarn.size[k]
	if !c.Fits(s.yarn.free[n]) {
		return false
	}
	s.yarn.free[n] = s.yarn.free[n].Sub(c)
	s.yarn.used = s.yarn.used.Add(c)
	j.yarn.usage = j.yarn.usage.Add(c)
	return true
}

// releaseContainer frees j's container of kind k on node n, held since
// launchUs.
func (s *Sim) releaseContainer(j *Job, n int32, k ContainerKind, launchUs int64) {
	c := j.yarn.size[k]
	s.yarn.free[n] = s.yarn.free[n].Add(c)
	s.yarn.used = s.yarn.used.Sub(c)
	j.yarn.usage = j.yarn.usage.Sub(c)
	s.yarn.memMBs[k] += float64(c.MemoryMB) * float64(s.now-launchUs) / 1e6
}

// yarnSubmit starts job j on a YARN cluster: its AM waits for a container,
// and the policy sees the job now.
func (s *Sim) yarnSubmit(j *Job) {
	size, err := s.hw.jobContainers(j)
	if err != nil {
		// NewWorkload refused the trace: every job's containers fit.
		panic(fmt.Sprintf("job %s reached the run with a container that cannot run: %v", j.Trace.ID, err))
	}
	j.yarn = jobYARN{size: size, amPending: true, amNode: -1}
	j.life.setup.present, j.life.cleanup.present = false, false // they run in the AM
	j.index(s.topo)
	j.ownTaken = true
	s.addActive(j)
	s.lastChange = s.now
	s.pending++ // the AM's container
	s.pol.JobArrived(s, j.View())
	s.startTicks()
	s.startAMTicks()
	s.wake()
}

// Ticker is implemented by policies that need a timer besides heartbeats:
// a ResourceManager's scheduling monitor (the Capacity Scheduler's
// preemption policy, the Fair Scheduler's preemption thread) runs every
// interval whether or not a NodeManager heartbeats, and a full cluster where
// nothing ends sends no heartbeat. The engine calls Tick every TickInterval
// µs, at multiples of it, while some job is active on a YARN cluster.
type Ticker interface {
	// TickInterval is the timer's period in µs; 0 turns it off.
	TickInterval() int64
	// Tick runs the policy's timed work at c.Now().
	Tick(c Cluster)
}

// startTicks queues the policy's next tick, if it has a timer and none is
// queued.
func (s *Sim) startTicks() {
	if s.ticker == nil || s.ticking {
		return
	}
	iv := s.ticker.TickInterval()
	if iv <= 0 {
		return
	}
	s.ticking = true
	s.schedule((s.now/iv+1)*iv, evTick, 0, 0)
}

// tick calls the policy's timer, and queues the next tick while some job is
// active.
func (s *Sim) tick() {
	s.ticking = false
	if len(s.active) == 0 {
		return // restarted at the next submission
	}
	s.ticker.Tick(s)
	s.startTicks()
}

// launchAM gives job j's AM a container on node n.
func (s *Sim) launchAM(j *Job, n int32) {
	if !j.yarn.amPending || j.finished {
		panic(fmt.Sprintf("policy %s launched the AM of job %s, which is not pending", s.pol.Name(), j.Trace.ID))
	}
	if !s.takeContainer(j, n, AMContainer) {
		panic(fmt.Sprintf("policy %s launched the AM of job %s on node %d: %d MB, %d vcores free, the AM needs %d MB, %d vcores",
			s.pol.Name(), j.Trace.ID, n, s.yarn.free[n].MemoryMB, s.yarn.free[n].VCores,
			j.yarn.size[AMContainer].MemoryMB, j.yarn.size[AMContainer].VCores))
	}
	j.yarn.amPending, j.yarn.amNode, j.yarn.amLaunch = false, n, s.now
	s.pending--
	s.lastChange = s.now
	if s.chk != nil {
		s.chk.yarnUse(n, j.yarn.size[AMContainer], 1)
	}
	s.schedule(s.now+s.amStartupUs(j)+s.firstAskUs(), evAMReady, j.Index, 0)
}

// amStartupUs is the time from j's AM container to its tasks being
// requested: in trace mode am_launch plus the observed AM start →
// JOB_INITED when the trace records both, else am_startup.
func (s *Sim) amStartupUs(j *Job) int64 {
	tj := j.Trace
	if s.w.times.UsesTrace() && tj.AMStartMs >= 0 && tj.LaunchMs >= tj.AMStartMs {
		return int64(s.hw.AMLaunch) + (tj.LaunchMs-tj.AMStartMs)*int64(time.Millisecond/time.Microsecond)
	}
	return int64(s.hw.AMStartup)
}

// amReady requests job j's maps and reduces: its AM has started and
// initialised the job (and, under the container model, made its first
// allocate call: firstAskUs).
func (s *Sim) amReady(j *Job) {
	j.yarn.readyUs = s.now
	s.bus.jobArrived(JobEvent{Time: s.now, Job: j})
	j.PendingMaps = int32(len(j.Maps))
	j.PendingReduces = int32(len(j.Reduces))
	s.noteCands(j)
	s.lastChange = s.now
	s.pending += int64(j.PendingMaps)
	s.checkReady(j)
	if !s.sampling && s.opt.Timeline {
		s.sampling = true
		step := int64(s.hw.TimelineSample)
		s.schedule((s.now+step-1)/step*step, evSample, 0, 0)
	}
	if len(j.Maps) == 0 && len(j.Reduces) == 0 {
		s.finishJob(j)
		return
	}
	s.wake()
}

// amWaitUs is, on a YARN cluster, the time from now, when a container of j
// is allocated, to its AM's next allocate call (am_heartbeat, the AM's calls
// at readyUs + k·am_heartbeat), which hands the container to the AM; 0 at a
// call, on a slot cluster or with am_heartbeat = 0. It records the first
// task's wait for the job's history times (yarnHistoryTimes).
func (s *Sim) amWaitUs(j *Job) int64 {
	iv := int64(s.hw.AMHeartbeat)
	if !s.yarn.on && j.yarn.slotAM {
		return s.slotAMWaitUs(j) // a YARN job on a slot cluster (yarn_slotam.go)
	}
	if !s.yarn.on || iv <= 0 {
		return 0
	}
	w := (iv - (s.now-j.yarn.readyUs)%iv) % iv
	if j.FirstLaunchUs < 0 {
		j.yarn.firstWait = w
	}
	return w
}

// rampUpAllows reports whether j's MRAppMaster has asked for one more reduce
// than it has launched: with am_heartbeat > 0, the reduces its last allocate
// round asked for (amTick: the AM decides at one call, the RM sees the asks
// at the next); with am_heartbeat = 0, rampUp now.
func (s *Sim) rampUpAllows(j *Job) bool {
	if !s.yarn.on {
		return true
	}
	launched := j.RunningReduces + j.FinishedReduces
	if s.hw.AMHeartbeat <= 0 {
		return s.rampUp(j) >= 1
	}
	return launched < j.yarn.redVisible
}

// rampUp is how many more reduces j's MRAppMaster asks for now, as
// RMContainerAllocator.scheduleReduces (Hadoop 2) ramps them up: every
// reduce not yet launched once every map is assigned; before that, of the
// resources the job can use — the cluster's free resources (standing for the
// RM's headroom, which the scheduler computes from its queue and user limits)
// plus what its maps and reduces hold — the share min(completed maps / maps,
// reduce_rampup_limit), plus whatever the maps still to run would leave of
// the rest, less what its reduces hold. Counted in containers per resource,
// the fewer of memory and vcores (ResourceCalculatorUtils with the
// scheduler's resource types: this engine places containers by both). 0
// before slow-start (Job.ready).
func (s *Sim) rampUp(j *Job) int32 {
	if !j.ready || j.PendingReduces == 0 {
		return 0
	}
	if j.PendingMaps == 0 {
		return j.PendingReduces
	}
	mapR, redR := j.yarn.size[MapContainer], j.yarn.size[ReduceContainer]
	headroom := s.yarn.total.Sub(s.yarn.used)
	done := float64(j.FinishedMaps) / float64(len(j.Maps))
	share := min(done, s.hw.ReduceRampupLimit)
	need := float64(j.PendingMaps + j.RunningMaps)
	dim := func(head, mapSize, redSize int64) (idealMap, finalRed float64) {
		total := float64(head + int64(j.RunningMaps)*mapSize + int64(j.RunningReduces)*redSize)
		idealRed := total * share
		return total - idealRed, idealRed
	}
	mMapM, mRedM := dim(headroom.MemoryMB, mapR.MemoryMB, redR.MemoryMB)
	vMapV, vRedV := dim(headroom.VCores, mapR.VCores, redR.VCores)
	mapContainers := min(math.Floor(mMapM/float64(mapR.MemoryMB)), math.Floor(vMapV/float64(mapR.VCores)))
	if mapContainers >= need { // the maps' unused share goes to reduces
		mRedM += mMapM - need*float64(mapR.MemoryMB)
		vRedV += vMapV - need*float64(mapR.VCores)
	}
	ramp := min(math.Floor((mRedM-float64(int64(j.RunningReduces)*redR.MemoryMB))/float64(redR.MemoryMB)),
		math.Floor((vRedV-float64(int64(j.RunningReduces)*redR.VCores))/float64(redR.VCores)))
	return int32(max(0, min(ramp, float64(j.PendingReduces))))
}

// startAMTicks queues the MRAppMasters' next allocate round
// (amPreemptReduces), if none is queued.
func (s *Sim) startAMTicks() {
	if !s.yarn.on || s.yarn.amTicking {
		return
	}
	iv := int64(s.hw.AMHeartbeat)
	if iv <= 0 {
		iv = int64(yarnNMHeartbeat)
	}
	s.yarn.amTicking = true
	s.schedule((s.now/iv+1)*iv, evAMTick, 0, 0)
}

// amTick runs the MRAppMasters' reduce preemption for every active job, and
// queues the next round while some job is active.
func (s *Sim) amTick() {
	s.yarn.amTicking = false
	if len(s.active) == 0 {
		return // restarted at the next submission
	}
	for _, j := range s.active { // preempting changes no job's place in it
		s.amPreemptReduces(j)
		if j.finished || j.yarn.amPending {
			continue
		}
		// The reduces asked for at the last round reach the RM now; this
		// round's ramp-up reaches it at the next.
		j.yarn.redVisible = j.yarn.redAsked
		j.yarn.redAsked = j.RunningReduces + j.FinishedReduces + s.rampUp(j)
		if j.yarn.redVisible > j.RunningReduces+j.FinishedReduces && j.PendingReduces > 0 {
			s.wake() // a node with room may now take a reduce
		}
	}
	s.startAMTicks()
}

// amPreemptReduces is RMContainerAllocator.preemptReducesIfNeeded (Hadoop
// 2): when a job's maps wait and what the job can use besides its reduces —
// the cluster's free resources (standing for its headroom) plus what its
// maps hold — cannot hold one map, its reduces have taken what it has: it
// kills enough of them for min(waiting maps, max(one map, half of what it
// can use)) of map memory (mapreduce.job.reduce.preemption.limit = 0.5), the
// most recently launched first (the least progress). Without it, reduces
// waiting for maps that cannot start would hold their containers for ever.
// Checked at every round of the AMs' allocate calls (am_heartbeat, 1 s
// when 0).
func (s *Sim) amPreemptReduces(j *Job) {
	if j.finished || j.PendingMaps == 0 || j.RunningReduces == 0 {
		return
	}
	mapR, redR := j.yarn.size[MapContainer], j.yarn.size[ReduceContainer]
	head := s.yarn.total.Sub(s.yarn.used)
	forMaps := head.Add(Resource{int64(j.RunningMaps) * mapR.MemoryMB, int64(j.RunningMaps) * mapR.VCores})
	if mapR.Fits(forMaps) {
		return
	}
	limit := forMaps.MemoryMB + int64(j.RunningReduces)*redR.MemoryMB
	mem := min(int64(j.PendingMaps)*mapR.MemoryMB, max(mapR.MemoryMB, limit/2))
	k := min(int((mem+redR.MemoryMB-1)/redR.MemoryMB), int(j.RunningReduces))
	var running []int32
	for i := range j.Reduces {
		if j.Reduces[i].State == Running {
			running = append(running, int32(i))
		}
	}
	slices.SortFunc(running, func(a, b int32) int {
		return cmp.Or(cmp.Compare(j.Reduces[b].LaunchUs, j.Reduces[a].LaunchUs), cmp.Compare(b, a))
	})
	for _, i := range running[:k] {
		s.preemptReduce(j, i)
		s.yarn.amPreempted++
	}
}

// yarnJobDone releases job j's AM container when it finishes.
func (s *Sim) yarnJobDone(j *Job) {
	if j.yarn.amNode < 0 {
		return
	}
	s.releaseContainer(j, j.yarn.amNode, AMContainer, j.yarn.amLaunch)
	n := j.yarn.amNode
	if s.chk != nil {
		s.chk.yarnUse(n, j.yarn.size[AMContainer], -1)
	}
	j.yarn.amNode = -1
	s.slotFreed(n)
}

// preempt kills running task i of kind k of job j (yarn.go's Preempt).
func (s *Sim) preempt(j *Job, k ContainerKind, i int32) bool {
	if j.finished || i < 0 {
		return false
	}
	switch k {
	case MapContainer:
		if int(i) >= len(j.Maps) || j.Maps[i].State != Running {
			return false
		}
		s.preemptMap(j, i)
	case ReduceContainer:
		if int(i) >= len(j.Reduces) || j.Reduces[i].State != Running {
			return false
		}
		s.preemptReduce(j, i)
	default:
		return false
	}
	return true
}

func (s *Sim) preemptMap(j *Job, i int32) {
	m := &j.Maps[i]
	n := m.Node
	s.dropTaskEvent(j.Index, evMapDone, i)
	s.withdrawMapFlows(j, i) // network = "flow" (yarn_flow.go)
	s.freeMapSlot(j, n, m.LaunchUs)
	if m.Locality != NodeLocal {
		s.runningRemote--
	}
	s.busyMapUs += s.now - m.LaunchUs
	m.FinishUs, m.endUs = s.now, s.now
	s.bus.taskEnded(TaskEvent{Time: s.now, Job: j, Kind: TaskMap, Index: i, Node: n, Locality: m.Locality, Killed: true})
	m.State, m.Node, m.LaunchUs, m.FinishUs, m.endUs = Pending, -1, Unset, Unset, Unset
	j.RunningMaps--
	j.PendingMaps++
	s.noteCands(j)
	j.requeueMap(i, s.topo)
	s.running--
	s.pending++
	s.lastChange = s.now
	s.preempted++
	s.slotFreed(n)
}

func (s *Sim) preemptReduce(j *Job, i int32) {
	r := &j.Reduces[i]
	n := r.Node
	s.dropTaskEvent(j.Index, evReduceDone, i)
	s.withdrawReduceFlows(j, i) // network = "flow" (yarn_flow.go)
	if idx := slices.Index(j.waiting, i); idx >= 0 {
		j.waiting = slices.Delete(j.waiting, idx, idx+1)
	}
	s.freeReduceSlot(j, n, r.LaunchUs)
	s.busyReduceUs += s.now - r.LaunchUs
	r.FinishUs = s.now
	if r.ShuffleEndUs > s.now {
		r.ShuffleEndUs = Unset
	}
	s.bus.taskEnded(TaskEvent{Time: s.now, Job: j, Kind: TaskReduce, Index: i, Node: n, Killed: true})
	r.State, r.Node, r.LaunchUs, r.FinishUs, r.ShuffleEndUs = Pending, -1, Unset, Unset, Unset
	j.RunningReduces--
	j.PendingReduces++
	s.noteCands(j)
	j.requeueReduce(i)
	s.running--
	if j.ready {
		s.pending++
	}
	s.lastChange = s.now
	s.preempted++
	s.slotFreed(n)
}

// dropTaskEvent withdraws the done event of one task (a preempted one),
// keeping the others' order.
func (s *Sim) dropTaskEvent(k int32, kind eventKind, i int32) {
	s.dropEventsWhere(func(e event) bool { return e.a == k && e.b == i && e.kind() == kind })
}

// requeueMap puts preempted map i back in j's pending-map indexes: each
// per-node and per-rack segment is sorted by map index and read from a head
// that skips maps no longer pending, so moving the head back to i's place
// makes i findable again (the maps between that are not pending are skipped
// again).
func (j *Job) requeueMap(i int32, topo *Topology) {
	j.taken[i>>6] &^= 1 << (i & 63)
	back := func(maps []int32, head *int32, from, end int32) {
		if at, found := slices.BinarySearch(maps[from:end], i); found {
			*head = min(*head, from+int32(at))
		}
	}
	for _, n := range j.Replicas(i) {
		if k, found := slices.BinarySearch(j.nodeKeys, n); found {
			back(j.nodeMaps, &j.nodeHead[k], j.nodeOff[k], j.nodeOff[k+1])
			j.onNode[n>>6] |= 1 << (n & 63)
		}
	}
	j.eachRack(topo, i, func(r int32) { back(j.rackMaps, &j.rackHead[r], j.rackOff[r], j.rackOff[r+1]) })
	back(j.noInMaps, &j.noInHead, 0, int32(len(j.noInMaps))) // a map without input (job.go)
	j.nextAny = min(j.nextAny, i)
}

// requeueReduce makes preempted reduce i the next one launchReduce starts
// (after the others preempted before it).
func (j *Job) requeueReduce(i int32) { j.redAgain = append(j.redAgain, i) }

// The YARNCluster methods of the simulator.

var _ YARNCluster = (*Sim)(nil)

// ClusterResource is the sum of every NodeManager's resources.
func (s *Sim) ClusterResource() Resource { return s.yarn.total }

// NodeResource is node n's NodeManager resources.
func (s *Sim) NodeResource(int32) Resource { return s.yarn.capacity }

// NodeFree is what node n has not given to containers.
func (s *Sim) NodeFree(n int32) Resource {
	if !s.yarn.on {
		return Resource{}
	}
	return s.yarn.free[n]
}

// Container is the normalised size of j's containers of kind k.
func (s *Sim) Container(j *JobView, k ContainerKind) Resource {
	if int(k) >= len(j.j.yarn.size) {
		return Resource{}
	}
	return j.j.yarn.size[k]
}

// AMPending reports whether j's ApplicationMaster waits for its container.
func (s *Sim) AMPending(j *JobView) bool { return j.j.yarn.amPending }

// LaunchAM gives j's AM its container on node n.
func (s *Sim) LaunchAM(j *JobView, n int32) { s.launchAM(j.j, n) }

// Usage is what j's running containers hold, its AM's included.
func (s *Sim) Usage(j *JobView) Resource { return j.j.yarn.usage }

// Preempt kills running container task of kind k of j; see YARNCluster.
func (s *Sim) Preempt(j *JobView, k ContainerKind, task int32) bool { return s.preempt(j.j, k, task) }

// yarnRoom describes node n's free resources against j's container of kind
// k, for a policy-bug panic; "" on a slot cluster.
func (s *Sim) yarnRoom(j *Job, n int32, k ContainerKind) string {
	if !s.yarn.on {
		return ""
	}
	f, c := s.yarn.free[n], j.yarn.size[k]
	return fmt.Sprintf("%d MB, %d vcores free for a %d MB, %d vcores container", f.MemoryMB, f.VCores, c.MemoryMB, c.VCores)
}

// ContainerPolicy is implemented by the policies that schedule a YARN
// cluster's containers (yarn-fifo, yarn-capacity, yarn-fair). They run only
// on cluster = "yarn", and the slot policies only on cluster = "slots".
type ContainerPolicy interface {
	Policy
	// SchedulesContainers marks the policy; it does nothing.
	SchedulesContainers()
}

// CheckPolicyKind refuses a slot policy on a YARN cluster and a container
// policy on a slot cluster; Run checks it too.
func CheckPolicyKind(hw *Hardware, p Policy) error {
	_, containers := p.(ContainerPolicy)
	switch {
	case hw.Cluster == ClusterYARN && !containers:
		return fmt.Errorf("policy %s schedules Hadoop 1 slots: a cluster = \"yarn\" model needs a YARN policy (yarn-fifo, yarn-capacity or yarn-fair)", p.Name())
	case hw.Cluster != ClusterYARN && containers:
		return fmt.Errorf("policy %s schedules YARN containers: it needs cluster = \"yarn\" in the hardware model", p.Name())
	}
	return nil
}

// yarnTraceNode sizes the NodeManagers of a YARN cluster derived from a
// trace (TraceHardware): the most memory and vcores that the attempts'
// containers (each job's map and reduce containers, normalised) held at once
// on any one host, plus one AM container, since the trace does not say where
// the AMs ran and the replay must be able to put one beside the busiest
// host's tasks. NodeManagers are configured alike, and a trace shows the
// configured size only on hosts that were ever full, as with slots
// (peakConcurrency). The model's sizes are kept when they are larger;
// peakUse reads chunk attempts between two drains.
func yarnTraceNode(tr *trace.Trace, hw *Hardware, chunk int) (memMB, vcores int64, err error) {
	size := map[string][3]Resource{}
	err = eachJob(tr, func(_ int, j *trace.Job) error {
		if c, err := hw.jobContainers(&Job{Trace: j}); err == nil {
			size[j.ID] = c
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	peaks, err := peakUse(tr, chunk, func(jobID, _, host string, typ trace.TaskType) (string, Resource, bool) {
		c, ok := size[jobID]
		switch {
		case !ok:
			return "", Resource{}, false
		case typ == trace.Map:
			return host, c[MapContainer], true
		case typ == trace.Reduce:
			return host, c[ReduceContainer], true
		}
		return "", Resource{}, false
	})
	if err != nil {
		return 0, 0, err
	}
	var peak Resource
	for _, p := range peaks {
		peak = Resource{max(peak.MemoryMB, p.MemoryMB), max(peak.VCores, p.VCores)}
	}
	am := hw.normalise(Resource{hw.AMMemoryMB, hw.AMVCores})
	return max(hw.NodeMemoryMB, peak.MemoryMB+am.MemoryMB), max(hw.NodeVCores, peak.VCores+am.VCores), nil
}

// yarnUtilisation sets the run summary's utilisations on a YARN cluster: the
// share of the cluster's memory that map, reduce and AM containers held over
// the makespan.
func (s *Sim) yarnUtilisation(sum *RunSummary) {
	if !s.yarn.on || sum.MakespanUs <= 0 {
		return
	}
	d := float64(s.yarn.total.MemoryMB) * float64(sum.MakespanUs) / 1e6
	sum.MapUtilisation = s.yarn.memMBs[MapContainer] / d
	sum.ReduceUtilisation = s.yarn.memMBs[ReduceContainer] / d
	sum.AMUtilisation = s.yarn.memMBs[AMContainer] / d
	sum.Preemptions = s.preempted - s.yarn.amPreempted
	sum.ReducesPreemptedByAM = s.yarn.amPreempted
}

// NodeResources is a YARN cluster's NodeManager memory and vcores (every node
// alike); ok is false on a slot cluster. The setting line shows them.
func (h *Hardware) NodeResources() (memoryMB, vcores int64, ok bool) {
	return h.NodeMemoryMB, h.NodeVCores, h.Cluster == ClusterYARN
}
