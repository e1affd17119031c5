package replay

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Duration is a span of simulated time in microseconds. In TOML it is written as a
// Go duration string ("3s", "150ms", "2m").
type Duration int64

// UnmarshalText parses a Go duration string; negative durations are refused.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a number with a unit, like \"3s\" or \"150ms\"", string(b))
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", string(b))
	}
	*d = Duration(v / time.Microsecond)
	return nil
}

// MarshalText writes the duration in Go's notation.
func (d Duration) MarshalText() ([]byte, error) {
	return []byte((time.Duration(d) * time.Microsecond).String()), nil
}

// String returns the duration in Go's notation.
func (d Duration) String() string { return (time.Duration(d) * time.Microsecond).String() }

// Queue is a Capacity-scheduler queue with its guaranteed share of the slots.
type Queue struct {
	Name     string  `toml:"name"`
	Capacity float64 `toml:"capacity"` // fraction of the cluster's slots, 0 < c <= 1
	// MaxCapacity caps how far the queue may grow into idle capacity; 0 means 1.
	MaxCapacity float64 `toml:"max_capacity"`
}

// Hardware is the cluster model: topology, slots, rates, HDFS and heartbeat
// settings. It is read from TOML; see the README's hardware reference.
type Hardware struct {
	Name string `toml:"name"`

	Racks        int `toml:"racks"`
	NodesPerRack int `toml:"nodes_per_rack"`
	MapSlots     int `toml:"map_slots"`    // per node
	ReduceSlots  int `toml:"reduce_slots"` // per node
	// MapNodes and ReduceNodes, when either is non-zero, dedicate machines: the
	// first MapNodes nodes have only map slots, the next ReduceNodes only reduce
	// slots, and any further nodes have both (EAS §3.3).
	MapNodes    int `toml:"map_nodes"`
	ReduceNodes int `toml:"reduce_nodes"`

	DiskMBps          float64  `toml:"disk_mb_per_s"`           // local disk read/write rate
	NICMBps           float64  `toml:"nic_mb_per_s"`            // node network interface
	RackUplinkMBps    float64  `toml:"rack_uplink_mb_per_s"`    // rack switch to core
	MapComputeMBps    float64  `toml:"map_compute_mb_per_s"`    // map function rate; 0 = not a bottleneck
	ReduceComputeMBps float64  `toml:"reduce_compute_mb_per_s"` // reduce function rate; 0 = not a bottleneck
	TaskStartup       Duration `toml:"task_startup"`            // JVM start and task set-up

	Heartbeat          Duration `toml:"heartbeat"`
	OutOfBandHeartbeat bool     `toml:"out_of_band_heartbeat"`
	// HeartbeatJitter gives each node a seeded random phase within the interval;
	// false aligns every node's heartbeats at multiples of the interval.
	HeartbeatJitter bool `toml:"heartbeat_jitter"`

	BlockSizeMB int `toml:"block_size_mb"`
	Replication int `toml:"replication"`
	// Placement is "rack-aware" (HDFS default) or "random".
	Placement PlacementPolicy `toml:"placement"`
	// DataNodeFraction is the fraction of map-capable nodes that hold data
	// (placement skew); 1 spreads data over all of them.
	DataNodeFraction float64 `toml:"data_node_fraction"`

	SlowStart float64 `toml:"slow_start"` // fraction of a job's maps done before its reduces may launch
	// ReduceMBPerTask sets the number of reduces synthesized for jobs that give only
	// bytes: ceil((shuffle+output) / this), at least 1 (SWIM's rule).
	ReduceMBPerTask float64 `toml:"reduce_mb_per_task"`
	// MaxReducesPerJob caps synthesized reduces; 0 = the cluster's reduce slots.
	MaxReducesPerJob int `toml:"max_reduces_per_job"`

	// Network is the remote-transfer model: "fixed" (NIC within a rack, a share of
	// the rack uplink across racks), "bar" (C_rem = C_loc + q·r, BAR §III) or
	// "flow" (max-min fair sharing of NICs, uplinks and the core; network*.go).
	Network NetworkName `toml:"network"`
	// CoreOversubscription is the core's oversubscription ratio under network =
	// "flow": the core carries racks × rack uplink / this in all. Unset (0) or 1
	// is a non-blocking core; an explicit value must be positive.
	CoreOversubscription float64 `toml:"core_oversubscription"`
	// FlowUpdate is the flow model's rate-update quantum, 10ms by default:
	// "0s" re-solves the max-min rates after every transfer start and end
	// (exact); a positive duration re-solves them at most once per quantum,
	// transfers starting in between at a provisional rate (internal/flow's
	// quantum.go; docs/network-model.md, "Cost in the engine", gives its
	// error and cost).
	FlowUpdate Duration `toml:"flow_update"`
	// FlowShuffle is how the flow model moves a reduce's shuffle:
	// "fetch" makes every fetch of a host's map outputs a flow from that
	// host's disk over the network path (exact per fetch); "batch" moves a
	// reduce's waiting outputs in rounds, at most one flow per round and
	// class of source (its own node, its rack, other racks) over the reduce
	// side's resources only (network_retimed.go, docs/network-model.md).
	FlowShuffle FlowShuffleMode `toml:"flow_shuffle"`
	// FlowFetchOrder is the order in which a reduce's fetchers take the
	// hosts with outputs waiting under network = "flow" and flow_shuffle =
	// "fetch": "random" (the default since h-fetchrandom) a host drawn among
	// them from a stream of the reduce's own, as Hadoop does — Hadoop 2/3's
	// ShuffleSchedulerImpl.getHost (org.apache.hadoop.mapreduce.task.reduce)
	// takes the random.nextInt(pendingHosts.size())-th pending host, a Random
	// per reduce attempt; Hadoop 1's ReduceTask.ReduceCopier.fetchOutputs
	// (org.apache.hadoop.mapred) runs Collections.shuffle(hostList,
	// this.random) before each scheduling pass, "to prevent all reduce-tasks
	// swamping the same tasktracker"; "ready" (the default before) in the
	// order each host's first waiting output became ready, the same for
	// every reduce of a job. A model that leaves the key out of its JSON
	// (FieldJSON, MarshalJSON) reads back as "ready" where the key acts,
	// since every such run before the key existed fetched in that order
	// (fetchOrderKeys; network_retimed.go; docs/network-model.md, "Which host
	// a fetcher takes").
	FlowFetchOrder FlowFetchOrder `toml:"flow_fetch_order"`
	// BARq is q of the BAR model: extra time per concurrently running remote map.
	BARq Duration `toml:"bar_q"`
	// Shuffle is the reduce copy model: "uniform" copies a reduce's whole share at
	// the NIC rate wherever the map outputs lie; "topology" has each reduce fetch
	// every finished map's output from the node the map ran on: free on its own
	// node, at the NIC rate within a rack, at the rack uplink's per-node share
	// across racks (see shuffle.go).
	Shuffle ShuffleModel `toml:"shuffle"`
	// TaskTimes is where task durations come from: "model" computes them from
	// bytes and rates; "trace" takes each task's observed duration (finish - start
	// of its successful attempt), rescaled to where the replay runs it by
	// TraceLocality (tracemode.go); "auto" uses the trace's duration when the
	// task has one and the model otherwise.
	TaskTimes TaskTimeSource `toml:"task_times"`
	// TraceLocality is how an observed map duration is rescaled when the replay
	// runs the map at another distance from its input than the trace did:
	// "factors" (Mumak/Rumen constant factors RackLocalFactor and OffRackFactor)
	// or "bandwidth" (the observed transfer removed, the network model's added);
	// see tracemode.go.
	TraceLocality LocalityRescale `toml:"trace_locality"`
	// RackLocalFactor and OffRackFactor are a map's duration rack-local and
	// off-rack over its duration node-local, for trace_locality = "factors".
	RackLocalFactor float64 `toml:"rack_local_factor"`
	OffRackFactor   float64 `toml:"off_rack_factor"`
	// DurationCV is the coefficient of variation of the per-task log-normal noise
	// on modelled durations; 0 makes durations exact.
	DurationCV float64 `toml:"duration_cv"`

	TimelineSample Duration `toml:"timeline_sample"`
	Queues         []Queue  `toml:"queues"`

	// Layout, set only for a cluster derived from a trace (TraceHardware), names
	// each rack and its hosts; it replaces racks × nodes_per_rack. It has no TOML
	// key.
	Layout []RackLayout `toml:"-"`

	// Job and task lifecycle (lifecycle.go); all off by default.
	Lifecycle bool `toml:"lifecycle"` // submitted → initialising → setup → maps/reduces → cleanup → finished
	// JobInitThreads is the number of the JobTracker's job-initialisation
	// workers: Hadoop 1's mapred.jobinit.threads, default 4 (the thread pool of
	// EagerTaskInitializationListener, which JobQueueTaskScheduler and the
	// FairScheduler use; apache/hadoop branch-1). On a YARN cluster (cluster =
	// "yarn") each job's ApplicationMaster initialises it instead (yarn.go); in
	// the slot model a YARN history's jobs go through these workers too
	// (lifecycle.go).
	JobInitThreads int `toml:"job_init_threads"`
	// JobInitPoll is the init poller's interval: 0 hands a job to the workers on
	// submission (Hadoop 1's EagerTaskInitializationListener), > 0 only at the
	// poller's ticks (Capacity's JobInitializationPoller).
	JobInitPoll Duration `toml:"job_init_poll"`
	JobInitTime Duration `toml:"job_init_time"` // a worker's time per job
	SetupTask   Duration `toml:"setup_task"`    // a setup task's duration (trace mode: the observed one when known)
	CleanupTask Duration `toml:"cleanup_task"`  // a cleanup task's duration (same)
	// ShuffleFetchLatency is the fixed cost of one map-output fetch of a reduce;
	// ParallelCopies fetches run at once (mapred.reduce.parallel.copies).
	ShuffleFetchLatency Duration `toml:"shuffle_fetch_latency"`
	ParallelCopies      int      `toml:"parallel_copies"`
	// ReportAtHeartbeat makes a finished task free its slot (and count as done)
	// when its node next heartbeats, unless out_of_band_heartbeat is set.
	ReportAtHeartbeat bool `toml:"report_at_heartbeat"`

	// Attempt failures, stragglers and speculation (lifecycle_faults.go).
	AttemptFailureRate float64 `toml:"attempt_failure_rate"` // probability an attempt fails
	StragglerFraction  float64 `toml:"straggler_fraction"`   // probability a task straggles
	StragglerAlpha     float64 `toml:"straggler_alpha"`      // Pareto shape of a straggler's slowdown
	Speculation        string  `toml:"speculation"`          // "none", "hadoop" or "late"

	// Later lifecycle keys (lifecycle_ext.go); each default is the engine's
	// behaviour from before the key existed.
	//
	// RetryContainerDelay is, in trace mode for a YARN job, the time from a
	// failed or killed attempt's end to its task's next attempt's start (the
	// ApplicationMaster's container request round trip); 0: task_startup.
	RetryContainerDelay Duration `toml:"retry_container_delay"`
	// JobInitJobsPerUser and JobInitUsers limit, with job_init_poll > 0, the
	// jobs the Capacity scheduler's init poller selects per queue: at most
	// this many initialised, not yet scheduled jobs per user
	// (maximum-initialized-jobs-per-user) and jobs of at most this many users
	// (100 / minimum-user-limit-percent + 2); 0: no limit.
	JobInitJobsPerUser int `toml:"job_init_jobs_per_user"`
	JobInitUsers       int `toml:"job_init_users"`
	// JVMReuse is mapred.job.reuse.jvm.num.tasks: how many tasks of a job
	// one task JVM runs (-1: no limit; 1, the default, and 0, as a recorded
	// model that left the key out reads back: no reuse). A task that reuses
	// a JVM skips task_startup.
	JVMReuse int `toml:"jvm_reuse"`
	// SortMBps is the rate of a reduce's sort (merge) phase between its
	// shuffle and its reduce work, on its shuffle bytes; 0 (the default): free.
	SortMBps float64 `toml:"sort_mb_per_s"`
	// EventPoll (false by default; calibrate sets it) adds Hadoop 1's
	// reduce-side wait for a map's completion (shuffle.go, eventPollUs):
	// after the map's report reaches the JobTracker, the reduce's
	// TaskTracker asks for completed maps at most once a heartbeat, the
	// reduce's event thread asks its TaskTracker every 1 s, and the copier
	// sleeps 5 s whenever nothing can be fetched; every network model adds
	// the expected wait, heartbeat/2 + 3 s, before a reduce fetches a map
	// that ends after the reduce launched (not in a YARN job; under flow the
	// reduce queues the output then, shuffle.go's pollOutput). Its own key
	// group (eventPollKeys), added after the frozen JSON formats.
	EventPoll bool `toml:"event_poll"`
	// PassThroughMapMBps is the compute rate of a pass-through map
	// (passThroughMap, maprate.go: a map of a job without reduces whose
	// output bytes are its input bytes within 1%, an identity or copy map);
	// 0 (the default): no compute term, its read and write at the disk rate
	// alone. Its own key group (mapRateKeys), added after the frozen JSON
	// formats.
	PassThroughMapMBps float64 `toml:"passthrough_map_mb_per_s"`
	// FlowMerges (false by default) adds, under network = "flow", the
	// merges' disk traffic (lifecycle_flowmerge.go): a map whose output
	// overflows its sort buffer's spill threshold (Hadoop's io.sort.mb 100 ×
	// io.sort.spill.percent 0.8) merges its spills, reading and rewriting its
	// output on its disk, and a reduce's final merge reads its fetched
	// segments from its disk beside its work and output write. Ignored under
	// the other network models. Its own key group (flowMergeKeys).
	FlowMerges bool `toml:"flow_merges"`

	// The YARN resource model (yarn.go), used when cluster = "yarn": every
	// node is a NodeManager offering memory and vcores, and containers sized
	// from each job's conf replace map and reduce slots. The keys follow the
	// yarn-site.xml and mapred-site.xml keys named beside them.
	Cluster             ClusterKind `toml:"cluster"`               // "slots" (Hadoop 1 TaskTrackers) or "yarn"
	NodeMemoryMB        int64       `toml:"node_memory_mb"`        // yarn.nodemanager.resource.memory-mb
	NodeVCores          int64       `toml:"node_vcores"`           // yarn.nodemanager.resource.cpu-vcores
	MinAllocationMB     int64       `toml:"min_allocation_mb"`     // yarn.scheduler.minimum-allocation-mb (also the increment)
	MaxAllocationMB     int64       `toml:"max_allocation_mb"`     // yarn.scheduler.maximum-allocation-mb
	MinAllocationVCores int64       `toml:"min_allocation_vcores"` // yarn.scheduler.minimum-allocation-vcores
	MaxAllocationVCores int64       `toml:"max_allocation_vcores"` // yarn.scheduler.maximum-allocation-vcores
	MapMemoryMB         int64       `toml:"map_memory_mb"`         // mapreduce.map.memory.mb of a job whose trace has none
	ReduceMemoryMB      int64       `toml:"reduce_memory_mb"`      // mapreduce.reduce.memory.mb (same)
	AMMemoryMB          int64       `toml:"am_memory_mb"`          // yarn.app.mapreduce.am.resource.mb
	MapVCores           int64       `toml:"map_vcores"`            // mapreduce.map.cpu.vcores
	ReduceVCores        int64       `toml:"reduce_vcores"`         // mapreduce.reduce.cpu.vcores
	AMVCores            int64       `toml:"am_vcores"`             // yarn.app.mapreduce.am.resource.cpu-vcores
	// AMStartup is the time from the AM container's allocation to the job's
	// tasks being requested (container launch, MRAppMaster start, job init:
	// submit → JOB_INITED less the scheduling wait) when the trace does not
	// record it.
	AMStartup Duration `toml:"am_startup"`
	// AMLaunch is, in trace mode for a job whose trace records its AM's
	// start, the time from the AM container's allocation to that start
	// (container localisation and launch, the MRAppMaster's JVM); the AM's
	// recorded start → JOB_INITED follows it.
	AMLaunch Duration `toml:"am_launch"`
	// AMHeartbeat is yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms:
	// the MRAppMaster calls the ResourceManager's allocate this often, from
	// the moment its job is initialised, and takes the containers allocated
	// since its last call; a task starts task_startup (container_startup
	// under the container model, yarn_startup.go) after the call that
	// brought its container. 0: at once. On a slot cluster in trace mode it
	// times the AM's calls of a job that records its AM (yarn_slotam.go); 0
	// turns that off.
	AMHeartbeat Duration `toml:"am_heartbeat"`
	// ReduceRampupLimit is yarn.app.mapreduce.am.job.reduce.rampup.limit:
	// while maps are still to be assigned, the MRAppMaster asks for reduces
	// only up to this share (times the fraction of maps completed) of the
	// resources its job can use (RMContainerAllocator.scheduleReduces).
	ReduceRampupLimit float64 `toml:"reduce_rampup_limit"`
	// ContainerStartup is, on cluster = "yarn" with modelled task durations,
	// the start-up of a map or reduce container in place of task_startup:
	// from the MRAppMaster's allocate call that brought the container to the
	// task's work (the container's launch, the NodeManager's localisation,
	// the YarnChild JVM's start). 0: task_startup. Its own key group
	// (containerKeys, yarn_startup.go).
	ContainerStartup Duration `toml:"container_startup"`

	// MapsPerHeartbeat and ReducesPerHeartbeat cap the maps and the reduces
	// launched at one heartbeat of one node, under every policy; 0 (the
	// default): none, every free slot may be filled. A cluster derived from
	// a trace whose job confs name Hadoop 0.21's or 0.22's
	// CapacityTaskScheduler gets 1 and 1 (TraceHardware; heartbeat_cap.go
	// gives the sources and why the caps are the cluster's). Their own key
	// group (heartbeatCapKeys).
	MapsPerHeartbeat    int `toml:"maps_per_heartbeat"`
	ReducesPerHeartbeat int `toml:"reduces_per_heartbeat"`
}

// DefaultHardware returns the model used when a file leaves a key out: a Hadoop 1
// cluster of commodity nodes of about 2010.
func DefaultHardware() Hardware {
	return Hardware{
		Name: "default", Racks: 4, NodesPerRack: 20, MapSlots: 2, ReduceSlots: 1,
		DiskMBps: 100, NICMBps: 125, RackUplinkMBps: 1250, MapComputeMBps: 0, ReduceComputeMBps: 0,
		TaskStartup: Duration(time.Second / time.Microsecond), Heartbeat: Duration(3 * time.Second / time.Microsecond),
		OutOfBandHeartbeat: false, HeartbeatJitter: true, BlockSizeMB: 128, Replication: 3, Placement: PlacementRackAware,
		DataNodeFraction: 1, SlowStart: 0.05, ReduceMBPerTask: 1024, Network: NetworkFixed, Shuffle: ShuffleUniform, TaskTimes: TaskTimesAuto,
		BARq: Duration(time.Second / time.Microsecond), FlowUpdate: Duration(10 * time.Millisecond / time.Microsecond), FlowShuffle: FlowShuffleFetch, FlowFetchOrder: FlowFetchRandom, DurationCV: 0.1,
		TraceLocality: TraceLocalityFactors, RackLocalFactor: mumakRackLocal, OffRackFactor: mumakOffRack,
		TimelineSample: Duration(time.Minute / time.Microsecond),
		JobInitThreads: 4, ParallelCopies: 5, StragglerAlpha: 1.5, Speculation: "none", JVMReuse: 1,
		// Medians of the setup and cleanup attempts of the 59 jobs of Rumen's
		// folder-input-trace (apache/hadoop branch-1 test data): 2.8 s each.
		SetupTask: Duration(2800 * time.Millisecond / time.Microsecond), CleanupTask: Duration(2800 * time.Millisecond / time.Microsecond),
		Cluster: ClusterSlots,
		// Hadoop 2/3's defaults (yarn-default.xml, mapred-default.xml).
		NodeMemoryMB: 8192, NodeVCores: 8, MinAllocationMB: 1024, MaxAllocationMB: 8192,
		MinAllocationVCores: 1, MaxAllocationVCores: 4,
		MapMemoryMB: 1024, ReduceMemoryMB: 1024, AMMemoryMB: 1536, MapVCores: 1, ReduceVCores: 1, AMVCores: 1,
		AMStartup: Duration(3 * time.Second / time.Microsecond), AMLaunch: Duration(time.Second / time.Microsecond), AMHeartbeat: Duration(time.Second / time.Microsecond), ReduceRampupLimit: 0.5,
	}
}

// LoadHardware reads a hardware model from a TOML file, starting from
// DefaultHardware. Unknown keys are an error that lists the valid ones.
func LoadHardware(path string) (Hardware, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Hardware{}, fmt.Errorf("hardware model: %w", err)
	}
	h, err := ParseHardware(b)
	if err != nil {
		return Hardware{}, fmt.Errorf("hardware model %s: %w", path, err)
	}
	return h, nil
}

// ParseHardware reads a hardware model from TOML text; see LoadHardware.
func ParseHardware(b []byte) (Hardware, error) {
	h := DefaultHardware()
	h.Queues = nil
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&h)
	if err != nil {
		return Hardware{}, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return Hardware{}, fmt.Errorf("unknown key %s; valid keys: %s", strings.Join(keys, ", "), strings.Join(HardwareKeys(), ", "))
	}
	if err := h.afterDecode(md); err != nil {
		return Hardware{}, err
	}
	return h, h.Validate()
}

// HardwareKeys lists the TOML keys of a hardware model, read from Hardware's
// struct tags: plain keys in field order, then each array of tables with its
// keys in parentheses, e.g. "queues (name, capacity, max_capacity)".
func HardwareKeys() []string {
	var keys, tables []string
	t := reflect.TypeFor[Hardware]()
	for i := range t.NumField() {
		f := t.Field(i)
		k := tomlKey(f)
		if k == "" {
			continue
		}
		if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
			var sub []string
			for j := range f.Type.Elem().NumField() {
				if sk := tomlKey(f.Type.Elem().Field(j)); sk != "" {
					sub = append(sub, sk)
				}
			}
			tables = append(tables, k+" ("+strings.Join(sub, ", ")+")")
			continue
		}
		keys = append(keys, k)
	}
	return append(keys, tables...)
}

// tomlKey is the TOML key of a struct field, "" for a field without one.
func tomlKey(f reflect.StructField) string {
	k, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if k == "-" || !f.IsExported() {
		return ""
	}
	return k
}

// Limits of a hardware model, checked by Validate before any work that grows
// with them: more nodes than MaxNodes would make the topology alone take
// gigabytes; rates above MaxRateMBps (a petabyte per second) and durations above
// MaxHardwareDuration (a simulated day) are typing errors, and infinite or NaN
// values would make the simulation never end or produce NaN results.
const (
	MaxNodes            = 1 << 20
	MaxRateMBps         = 1e9
	MaxHardwareDuration = Duration(24 * time.Hour / time.Microsecond)
)

// Validate checks that the model describes a cluster that can run a job. It
// never does work that grows with the values it checks before bounding them.
func (h *Hardware) Validate() error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	nodesOK := true
	if h.Racks < 1 || h.NodesPerRack < 1 {
		bad("racks and nodes_per_rack must be at least 1 (got %d, %d)", h.Racks, h.NodesPerRack)
		nodesOK = false
	} else if h.Racks > MaxNodes || h.NodesPerRack > MaxNodes || h.Racks > MaxNodes/h.NodesPerRack {
		// checked factor by factor first: the product of two large ints overflows
		bad("racks × nodes_per_rack (%d × %d) exceeds the limit of %d nodes", h.Racks, h.NodesPerRack, MaxNodes)
		nodesOK = false
	}
	if h.MapSlots < 0 || h.ReduceSlots < 0 || h.MapSlots > 1024 || h.ReduceSlots > 1024 {
		bad("map_slots and reduce_slots must be in 0..1024")
	}
	if h.MapNodes < 0 || h.ReduceNodes < 0 || h.MapNodes > MaxNodes || h.ReduceNodes > MaxNodes ||
		nodesOK && h.MapNodes+h.ReduceNodes > h.Racks*h.NodesPerRack {
		bad("map_nodes + reduce_nodes (%d + %d) exceeds the %d nodes", h.MapNodes, h.ReduceNodes, h.Racks*h.NodesPerRack)
	}
	if nodesOK || h.Layout != nil {
		// counting slots walks the nodes: only once their number is known to be sane
		if h.TotalMapSlots() == 0 {
			bad("the cluster has no map slot")
		}
		if h.TotalReduceSlots() == 0 {
			bad("the cluster has no reduce slot")
		}
	}
	for _, r := range []struct {
		name string
		v    float64
		zero bool // 0 allowed (not a bottleneck)
	}{
		{"disk_mb_per_s", h.DiskMBps, false}, {"nic_mb_per_s", h.NICMBps, false},
		{"rack_uplink_mb_per_s", h.RackUplinkMBps, false},
		{"map_compute_mb_per_s", h.MapComputeMBps, true}, {"reduce_compute_mb_per_s", h.ReduceComputeMBps, true},
		{"passthrough_map_mb_per_s", h.PassThroughMapMBps, true},
	} {
		if !(r.v > 0 && r.v <= MaxRateMBps) && !(r.zero && r.v == 0) {
			bad("%s = %g: want a finite rate in (0, %g]", r.name, r.v, float64(MaxRateMBps))
		}
	}
	for _, d := range []struct {
		name string
		v    Duration
	}{{"task_startup", h.TaskStartup}, {"container_startup", h.ContainerStartup}, {"heartbeat", h.Heartbeat}, {"bar_q", h.BARq}, {"timeline_sample", h.TimelineSample}} {
		if d.v > MaxHardwareDuration {
			bad("%s = %v: want at most %v", d.name, d.v, MaxHardwareDuration)
		}
	}
	if !(h.ReduceMBPerTask <= MaxRateMBps) {
		bad("reduce_mb_per_task = %g: want at most %g", h.ReduceMBPerTask, float64(MaxRateMBps))
	}
	if h.BlockSizeMB > 1<<20 {
		bad("block_size_mb = %d: want at most %d", h.BlockSizeMB, 1<<20)
	}
	if h.Heartbeat <= 0 {
		bad("heartbeat must be positive")
	}
	if h.BlockSizeMB < 1 {
		bad("block_size_mb must be at least 1")
	}
	if h.Replication < 1 || h.Replication > 64 {
		bad("replication must be in 1..64")
	}
	if !slices.Contains(FlowShuffleModeNames(), string(h.FlowShuffle)) {
		bad("%v", enumError("flow_shuffle", string(h.FlowShuffle), FlowShuffleModeNames()))
	}
	if !slices.Contains(FlowFetchOrderNames(), string(h.FlowFetchOrder)) {
		bad("%v", enumError("flow_fetch_order", string(h.FlowFetchOrder), FlowFetchOrderNames()))
	}
	if !slices.Contains(PlacementPolicyNames(), string(h.Placement)) {
		bad("%v", enumError("placement", string(h.Placement), PlacementPolicyNames()))
	}
	if !(h.DataNodeFraction > 0 && h.DataNodeFraction <= 1) {
		bad("data_node_fraction must be in (0, 1]")
	}
	if !(h.SlowStart >= 0 && h.SlowStart <= 1) {
		bad("slow_start must be in [0, 1]")
	}
	if !(h.ReduceMBPerTask > 0) {
		bad("reduce_mb_per_task must be positive")
	}
	if h.MaxReducesPerJob < 0 {
		bad("max_reduces_per_job must not be negative")
	}
	h.validateNetwork(bad)
	if !slices.Contains(ShuffleModelNames(), string(h.Shuffle)) {
		bad("%v", enumError("shuffle", string(h.Shuffle), ShuffleModelNames()))
	}
	if !slices.Contains(TaskTimeSourceNames(), string(h.TaskTimes)) {
		bad("%v", enumError("task_times", string(h.TaskTimes), TaskTimeSourceNames()))
	}
	h.validateTraceMode(bad)
	if !(h.DurationCV >= 0 && h.DurationCV <= 10) {
		bad("duration_cv must be in [0, 10]")
	}
	if h.TimelineSample <= 0 {
		bad("timeline_sample must be positive")
	}
	seen := map[string]bool{}
	for i, q := range h.Queues {
		if q.Name == "" || seen[q.Name] {
			bad("queue %d: name empty or repeated", i+1)
		}
		seen[q.Name] = true
		if !(q.Capacity > 0 && q.Capacity <= 1) || q.MaxCapacity < 0 || q.MaxCapacity > 1 {
			bad("queue %q: capacity must be in (0, 1] and max_capacity in [0, 1]", q.Name)
		}
	}
	h.validateLifecycle(bad)
	h.validateYARN(bad)
	h.validateHeartbeatCaps(bad)
	if len(errs) > 0 {
		slices.Sort(errs)
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// Nodes is the number of nodes in the cluster.
func (h *Hardware) Nodes() int {
	if h.Layout != nil {
		return h.layoutNodes()
	}
	return h.Racks * h.NodesPerRack
}

// nodeSlots returns the map and reduce slots of node i under dedication.
func (h *Hardware) nodeSlots(i int) (maps, reduces int) {
	if h.Cluster == ClusterYARN {
		c := h.nodeContainers()
		return c, c
	}
	if h.MapNodes == 0 && h.ReduceNodes == 0 {
		return h.MapSlots, h.ReduceSlots
	}
	switch {
	case i < h.MapNodes:
		return h.MapSlots, 0
	case i < h.MapNodes+h.ReduceNodes:
		return 0, h.ReduceSlots
	}
	return h.MapSlots, h.ReduceSlots
}

// TotalMapSlots is the number of map slots in the cluster.
func (h *Hardware) TotalMapSlots() int {
	m, _ := h.totalSlots()
	return m
}

// TotalReduceSlots is the number of reduce slots in the cluster.
func (h *Hardware) TotalReduceSlots() int {
	_, r := h.totalSlots()
	return r
}

// totalSlots is the sum of nodeSlots over the nodes, counted without visiting
// them (the workload asks for it for every job it builds): nodes below
// MapNodes have map slots only, the next ReduceNodes reduce slots only, the
// rest both.
func (h *Hardware) totalSlots() (maps, reduces int) {
	n := h.Nodes()
	if h.Cluster == ClusterYARN {
		c := h.nodeContainers()
		return c * n, c * n
	}
	mapOnly := min(max(h.MapNodes, 0), n)
	redOnly := max(min(max(h.MapNodes+h.ReduceNodes, 0), n)-mapOnly, 0)
	both := n - mapOnly - redOnly
	return h.MapSlots * (mapOnly + both), h.ReduceSlots * (redOnly + both)
}

// afterDecode applies what depends on which keys a TOML text (a file or
// --set) gave, before the model is validated: a network key set to an
// invalid value (checkSetNetwork), YARN's heartbeat default (yarnHeartbeat).
func (h *Hardware) afterDecode(md toml.MetaData) error {
	h.yarnHeartbeat(md)
	return h.checkSetNetwork(md)
}
