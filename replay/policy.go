package replay

// Policy is a scheduling policy. The simulator calls it on a single goroutine; a
// policy keeps its own state, reads the run through the Cluster it is given
// (view.go) and read-only JobViews, and launches tasks only through the
// Cluster's LaunchMap and LaunchReduce. Plan-based policies keep per-node queues
// of their own and serve them from Heartbeat.
type Policy interface {
	// Name is the policy's registry name, with parameters if any.
	Name() string
	// Init is called once before the first event.
	Init(c Cluster)
	// JobArrived is called when a job is submitted, before any heartbeat at that
	// instant.
	JobArrived(c Cluster, j *JobView)
	// Heartbeat is called when node n reports free slots and some task is waiting;
	// the policy launches what it wants there with c.LaunchMap and c.LaunchReduce.
	Heartbeat(c Cluster, n int32)
	// TaskFinished is called when a task of j ends; reduce tells which kind.
	TaskFinished(c Cluster, j *JobView, reduce bool, task int32)
	// JobFinished is called when the last task of j ends.
	JobFinished(c Cluster, j *JobView)
}

// PolicyError is implemented by policies that can fail during a run (a YARN
// policy given a slot cluster or a bad queue file, an application its
// scheduler rejects): the run stops with the error, checked after Init and
// after every event.
type PolicyError interface {
	Err() error
}

// QueuedLoader is implemented by plan-based policies that hold maps in per-node
// queues before launching them; the load-balance metric (EAS §5.4) then counts the
// queued input bytes on each node too.
type QueuedLoader interface {
	QueuedInputBytes(n int32) int64
}

// Base gives a policy no-op hooks to embed.
type Base struct{}

// Init does nothing.
func (Base) Init(Cluster) {}

// JobArrived does nothing.
func (Base) JobArrived(Cluster, *JobView) {}

// TaskFinished does nothing.
func (Base) TaskFinished(Cluster, *JobView, bool, int32) {}

// JobFinished does nothing.
func (Base) JobFinished(Cluster, *JobView) {}
