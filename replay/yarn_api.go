package replay

// Resource is an amount of YARN resources: memory in MB and virtual cores,
// as a NodeManager offers them and a container asks for them.
type Resource struct {
	MemoryMB int64
	VCores   int64
}

// Add returns r + o.
func (r Resource) Add(o Resource) Resource {
	return Resource{MemoryMB: r.MemoryMB + o.MemoryMB, VCores: r.VCores + o.VCores}
}

// Sub returns r − o.
func (r Resource) Sub(o Resource) Resource {
	return Resource{MemoryMB: r.MemoryMB - o.MemoryMB, VCores: r.VCores - o.VCores}
}

// Fits reports whether r fits in free: neither dimension is larger.
func (r Resource) Fits(free Resource) bool {
	return r.MemoryMB <= free.MemoryMB && r.VCores <= free.VCores
}

// IsZero reports whether both dimensions are zero.
func (r Resource) IsZero() bool { return r.MemoryMB == 0 && r.VCores == 0 }

// ContainerKind is what a YARN container runs for its job.
type ContainerKind uint8

// The kinds of container of a MapReduce job on YARN.
const (
	AMContainer     ContainerKind = iota // the job's MRAppMaster
	MapContainer                         // one map attempt
	ReduceContainer                      // one reduce attempt
)

// String names the kind as YARN's MapReduce client does.
func (k ContainerKind) String() string {
	switch k {
	case AMContainer:
		return "am"
	case MapContainer:
		return "map"
	case ReduceContainer:
		return "reduce"
	}
	return "unknown"
}

// YARNCluster is the view a ResourceManager policy (yarn-fifo, yarn-capacity,
// yarn-fair) gets on a cluster of kind "yarn": nodes offer memory and vcores
// instead of map and reduce slots, and every job first needs a container for
// its ApplicationMaster. A policy reaches it with c.(replay.YARNCluster); on a
// slot cluster the assertion fails and the policy must refuse to run.
//
// On a YARN cluster the policy sees a job at its submission (JobArrived), while
// its AM container is pending; the job's maps and reduces become pending once
// the AM has been allocated and has started (AMPending false, PendingMaps > 0).
// Heartbeat(n) is called when node n has free resources and some container is
// waiting. FreeMapSlots and FreeReduceSlots are 0 on a YARN cluster; LaunchMap
// and LaunchReduce take the job's map or reduce container from node n, which
// must have room for it (Container(j, kind).Fits(NodeFree(n))).
type YARNCluster interface {
	Cluster
	// ClusterResource is the sum of every NodeManager's resources.
	ClusterResource() Resource
	// NodeResource is node n's NodeManager resources.
	NodeResource(n int32) Resource
	// NodeFree is what node n has not given to containers.
	NodeFree(n int32) Resource
	// Container is the size of j's containers of kind k: the job conf's
	// request (mapreduce.{map,reduce}.memory.mb, yarn.app.mapreduce.am.resource.mb
	// and the vcores keys, or the model's defaults), normalised by the
	// scheduler's minimum allocation as the ResourceManager does.
	Container(j *JobView, k ContainerKind) Resource
	// AMPending reports whether j's ApplicationMaster still waits for its
	// container.
	AMPending(j *JobView) bool
	// LaunchAM gives j's AM its container on node n, which must have room;
	// launching an AM that is not pending is a policy bug and panics.
	LaunchAM(j *JobView, n int32)
	// Usage is what j's running containers hold, its AM's included.
	Usage(j *JobView) Resource
	// Preempt kills running container task of kind k (MapContainer or
	// ReduceContainer) of j: its resources are free at once, its work is
	// lost and the task is pending again. It returns false, and does
	// nothing, when that task is not running.
	Preempt(j *JobView, k ContainerKind, task int32) bool
}
