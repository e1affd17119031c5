package replay

import (
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// Trace mode: task times from the observed durations (task_times = "trace" or
// "auto"), rescaled when the replay runs a map at another distance from its
// input than the trace recorded.
//
// A map's observed duration D is its successful attempt's finish − start. What
// the replay makes of it depends on what the trace says about where it ran:
//
//   - No host recorded (synthetic traces, whose generators define D as the
//     node-local time, and attempts a history lost): D is the node-local time
//     and a remote run adds the network model's transfer, as in model mode.
//   - A host but no preferred hosts (no split locations: Sleep, TeraGen, SLS,
//     Rumen tasks without preferredLocations): the map has no input placement
//     to be near, and it runs for D wherever the replay puts it. This is what
//     Mumak does: SimulatorJobInProgress.getClosestLocality scores a split
//     without locations off-rack, and Rumen's ZombieJob.getLocality scores the
//     logged attempt off-rack too, so the rescaling factor is 1.
//   - A host and preferred hosts: the trace's locality o (recorded, else
//     derived at ingest; off-rack when the racks known cannot decide it, as
//     ZombieJob.getLocality takes the maximum distance) and the replay's s
//     give, with trace_locality =
//     "factors" (default): D · f(s) / f(o), f(node) = 1, f(rack) =
//     rack_local_factor, f(off) = off_rack_factor — Rumen's
//     ZombieJob.scaleInfo, which Mumak calls through
//     getMapTaskAttemptInfoAdjusted, with its constants
//     rackLocalOverNodeLocal = 1.5 and rackRemoteOverNodeLocal = 3.0 as the
//     defaults (apache/hadoop, hadoop-tools/hadoop-rumen/.../ZombieJob.java);
//     "bandwidth": the node-local time is D minus the transfer of the map's
//     input at distance o (at the fixed rates, or bar_q under network =
//     "bar"), at least 0, and the replay adds the network model's transfer at
//     distance s, as for model times.
//
// A reduce's work after its shuffle is its observed finish − shuffle finish
// when the trace records the shuffle's end (the merge and reduce phases Mumak
// replays after the last map, ZombieJob's ReduceTaskAttemptInfo), else its
// observed duration minus the modelled copy; the shuffle itself is always
// modelled, since it waits for the replay's maps.

// Rumen's ZombieJob constants: a map's runtime rack-local and off-rack over its
// runtime node-local.
const (
	mumakRackLocal = 1.5
	mumakOffRack   = 3.0
)

// obsRule is how a map's observed duration becomes its replayed duration.
type obsRule uint8

const (
	obsNone     obsRule = iota // node-local time; remote runs add the network model (model times too)
	obsNode                    // observed node-local, rescaled by factors
	obsRack                    // observed rack-local, rescaled by factors
	obsOff                     // observed off-rack, rescaled by factors
	obsAnywhere                // no input location in the trace: the observed duration wherever it runs
)

// validateTraceMode checks the trace-mode keys and a derived cluster's layout.
func (h *Hardware) validateTraceMode(bad func(string, ...any)) {
	if !slices.Contains(LocalityRescaleNames(), string(h.TraceLocality)) {
		bad("%v", enumError("trace_locality", string(h.TraceLocality), LocalityRescaleNames()))
	}
	if !(h.RackLocalFactor >= 1 && h.OffRackFactor >= h.RackLocalFactor && h.OffRackFactor <= 100) {
		bad("want 1 <= rack_local_factor <= off_rack_factor <= 100 (got %g, %g)", h.RackLocalFactor, h.OffRackFactor)
	}
	if h.Layout != nil {
		h.validateLayout(bad)
	}
}

// factor is f(l): a map's duration at locality l over its duration node-local.
func (h *Hardware) factor(l Locality) float64 {
	switch l {
	case RackLocal:
		return h.RackLocalFactor
	case OffRack:
		return h.OffRackFactor
	}
	return 1
}

// linkRate is the transfer rate in MB/s between two nodes at the given
// distance: the NIC within a rack, the rack uplink's per-node share across racks.
func (h *Hardware) linkRate(loc Locality) float64 {
	rate := h.NICMBps
	if loc == OffRack {
		rate = min(rate, h.RackUplinkMBps/float64(h.NodesPerRack))
	}
	return rate
}

// observedMap sets map m's node-local time from its trace task tt, whose
// observed duration is obs µs, and returns its rescaling rule and observed
// time (mapExtra.obs, obsUs; obsNone and 0 for none); m.InputBytes is set.
// net is the run's network model, whose read time trace_locality =
// "bandwidth" removes.
func (h *Hardware) observedMap(m *MapTask, tt *trace.Task, obs int64, net NetworkModel) (rule obsRule, obsUs int64) {
	m.localUs = obs
	switch {
	case tt.Host == "":
		return obsNone, 0
	case len(tt.PreferredHosts) == 0:
		return obsAnywhere, obs
	}
	o := OffRack
	switch tt.Locality {
	case trace.NodeLocal:
		o = NodeLocal
	case trace.RackLocal:
		o = RackLocal
	}
	if h.TraceLocality == TraceLocalityBandwidth {
		if o != NodeLocal {
			m.localUs = max(0, obs-int64(math.Ceil(net.ReadUs(m.InputBytes, o, 1))))
		}
		return obsNone, 0
	}
	rule = obsNode + obsRule(o)
	m.localUs = h.observedUs(rule, obs, NodeLocal)
	return rule, obs
}

// observedUs is the duration of a map with observed rule rule (not obsNone)
// and observed time obsUs run at locality s.
func (h *Hardware) observedUs(rule obsRule, obsUs int64, s Locality) int64 {
	if rule == obsAnywhere {
		return obsUs
	}
	o := Locality(rule - obsNode)
	if s == o {
		return obsUs
	}
	return int64(math.Round(float64(obsUs) * h.factor(s) / h.factor(o)))
}

// With the lifecycle (trace times, uniform shuffle), a reduce whose trace
// records its shuffle's end, in a job whose maps' ends are all recorded, copies
// for its observed copy tail: shuffle end − the later of its attempt's start and
// the job's last map attempt's end, after the later of its own attempt's start
// (task_startup after its launch) and the replay's last map attempt's end, and
// never before the last map's completion is reported. The tail is what the
// reduce's copy loop spends after the last output appears, which the modelled
// copy (share / NIC rate plus a fetch latency) leaves out: Hadoop 1's
// ReduceTask.ReduceCopier.fetchOutputs sleeps 5 s whenever it has no copy in
// flight and none to schedule, and learns of new outputs through the
// TaskTracker's map-completion events, fetched from the JobTracker; in Rumen's
// folder-input-trace the reduces' shuffles end a median 10.6 s (p10 5.1 s,
// p90 19.1 s) after their job's last map for 2.8 KB of shuffle, and a reduce of
// a one-map job launched after its map copies 0 bytes in 7.6–9.9 s.

// The launch lag (trace schema 2.2, trace.Task.LaunchLagMs). Hadoop 1's
// JobTracker logs a task's start when it assigns the task's first attempt
// to a TaskTracker at a heartbeat; the TaskTracker sets the attempt's start
// in TaskTracker.TaskInProgress.launchTask after localising the task and
// starting its TaskRunner thread, which then starts the child JVM
// (apache/hadoop branch-1). So an attempt's recorded duration already holds
// its JVM's start, and what the replay's task_startup stands for in trace
// mode is the time from the assignment to the recorded start: the launch
// lag, during which the attempt holds its slot. A map or reduce whose trace
// records the lag (Hadoop 1 histories, Rumen traces of them) holds its slot
// for it before its observed time instead of task_startup, as a failed
// attempt's time is held (MapTask.retryUs, the reduce's copyUs); the lag is
// not rescaled by the locality factors. In folder-input-trace the lag is a
// median 1.16 s, but nine maps waited 76-403 s, each its job's last map.
// Model times never read it (they read no observed time).

// launchLagUs is trace task tt's launch lag in µs when the replay holds the
// slot for it (trace times, whose caller has the task's observed duration,
// and the lifecycle), else -1.
func launchLagUs(hw *Hardware, tt *trace.Task) int64 {
	if !hw.Lifecycle || tt.LaunchLagMs < 0 {
		return -1
	}
	return tt.LaunchLagMs * 1000
}

// observedLastMapEnd is the end of the job's last map attempt in the trace (ms),
// or -1 when some map's end is not recorded, there are no maps, or the replay
// does not use it (model times, no lifecycle, the topology shuffle).
func observedLastMapEnd(hw *Hardware, times TaskTimeModel, maps []*trace.Task) int64 {
	if !times.UsesTrace() || !hw.Lifecycle || hw.Shuffle == ShuffleTopology || len(maps) == 0 {
		return -1
	}
	last := int64(-1)
	for _, tt := range maps {
		if tt.StartMs < 0 || tt.FinishMs < tt.StartMs {
			return -1
		}
		last = max(last, tt.FinishMs)
	}
	return last
}

// observedCopyTail is reduce tt's observed copy tail in µs (see above): its
// shuffle's end − the later of its start and the job's last map end lastMapMs.
func observedCopyTail(tt *trace.Task, lastMapMs int64) (int64, bool) {
	if lastMapMs < 0 || tt.StartMs < 0 || tt.ShuffleFinishMs < tt.StartMs || tt.ShuffleFinishMs > tt.FinishMs {
		return 0, false
	}
	return max(0, tt.ShuffleFinishMs-max(tt.StartMs, lastMapMs)) * 1000, true
}

// observedReduceWork is the reduce work (after the shuffle) of a reduce whose
// trace task tt lasted obs µs: finish − shuffle finish when the trace records
// the shuffle's end, else obs minus copyUs, its modelled copy without the
// fetch rounds' latency (task_startup and its share at the NIC rate).
//
// The fetch latency (shuffle_fetch_latency × ⌈maps / parallel_copies⌉) is a
// cost the model adds, not a part of the given duration: subtracting it too
// moved that much of the duration into the copy, which overlaps the map phase
// when the reduce starts early, so a larger latency made jobs finish sooner
// (samples/experiments/fetch-latency-trace-mode.toml: 175.8 s with no latency,
// 111.9 s with 4.267 s before this rule).
func observedReduceWork(tt *trace.Task, obs, copyUs int64) int64 {
	if tt.ShuffleFinishMs >= tt.StartMs && tt.ShuffleFinishMs <= tt.FinishMs {
		return (tt.FinishMs - tt.ShuffleFinishMs) * 1000
	}
	return max(0, obs-copyUs)
}

// histLags are a job's observed launch lags (µs, -1 where a task has none)
// and the history times they give: a task's recorded start in a Hadoop 1
// history is its attempt's, the launch lag after its assignment, so a task
// starts, as recorded, at its assignment plus its own lag where the trace
// records it and plus task_startup where it does not; the job's recorded
// first launch is the earliest of its tasks' starts, its first and last
// reduce launch the earliest and latest of its reduces' (lcHistoryTimes),
// -1 until one launches.
//
// mapReports and reduceReports are, in trace mode, its maps' and reduces'
// recorded report lags (µs, -1 where the replay does not replay one:
// taskReportUs), nil until one is known.
type histLags struct {
	maps, reduces             []int64
	mapReports, reduceReports []int64
	first, firstRed, lastRed  int64
}

// setReport records map (reduce) i's report lag rep, of maps and reduces
// tasks in all.
func (h *histLags) setReport(reduce bool, i int, rep int64) {
	l, n := &h.mapReports, len(h.maps)
	if reduce {
		l, n = &h.reduceReports, len(h.reduces)
	}
	if *l == nil {
		*l = make([]int64, n)
		for k := range *l {
			(*l)[k] = -1
		}
	}
	(*l)[i] = rep
}

// reportUs is map (reduce) i of j's recorded report lag in µs, or -1 when
// the replay does not replay one (taskReportUs).
func (j *Job) reportUs(reduce bool, i int32) int64 {
	if j.hist == nil {
		return -1
	}
	l := j.hist.mapReports
	if reduce {
		l = j.hist.reduceReports
	}
	if l == nil {
		return -1
	}
	return l[i]
}

// reportedTask is when map (reduce) i of j, on node n, whose attempt ends at
// t, is reported done: at its recorded report, t plus its report lag, where
// the replay has one (taskReportUs), else as reported has it.
func (s *Sim) reportedTask(j *Job, reduce bool, i int32, n int32, t int64) int64 {
	if rep := j.reportUs(reduce, i); rep >= 0 {
		return t + rep
	}
	return s.reported(n, t)
}

// started records a map's (reduce's) launch at t with launch lag lag (-1:
// none recorded, su = task_startup stands for it).
func (h *histLags) started(t, lag, su int64, reduce bool) {
	if lag < 0 {
		lag = su
	}
	at := t + lag
	if h.first < 0 || at < h.first {
		h.first = at
	}
	if !reduce {
		return
	}
	if h.firstRed < 0 || at < h.firstRed {
		h.firstRed = at
	}
	h.lastRed = max(h.lastRed, at)
}

// histLags returns j's lags, made with every lag unknown on first use.
func (j *Job) histLags(maps, reduces int) *histLags {
	if j.hist == nil {
		h := &histLags{maps: make([]int64, maps), reduces: make([]int64, reduces), first: -1, firstRed: -1, lastRed: -1}
		for _, l := range [][]int64{h.maps, h.reduces} {
			for i := range l {
				l[i] = -1
			}
		}
		j.hist = h
	}
	return j.hist
}

// failsLast reports whether trace task tt of job tj fails as recorded (its
// last attempt fails, jobfail.go): it is never reported done, so it has no
// report to replay.
func (w *Workload) failsLast(tj *trace.Job, tt *trace.Task) bool {
	return w.fails != nil && w.fails[retryKey(tj.ID, tt.TaskID)].fate == fateFail
}
