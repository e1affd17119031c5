package replay

// The observer bus. The engine (Sim) and the observed schedule (Observed)
// emit the same events as a run goes: a job's tasks become schedulable
// (JobArrived), a task starts (TaskLaunched) or ends (TaskEnded), a job
// finishes (JobFinished), and the timeline's sample instants (Sample); the
// simulator also emits each network transfer it times (Transfer). What a run
// measures listens to them: the per-job results (metrics_job.go), the EAS
// machine metrics (machine_metrics.go), the per-node network accounting
// (netstats.go), the invariant checker (invariants.go) and the task and
// timeline recorders (recorders.go). A new
// per-job metric is computed once, in its observer, for simulated and
// observed runs alike.
//
// Events are passed by value and the bus holds its observers in a slice
// built when the run starts: emitting an event allocates nothing.

// TaskKind is what a task event is about.
type TaskKind uint8

const (
	// TaskMap is a map task (Index: its index in Job.Maps).
	TaskMap TaskKind = iota
	// TaskReduce is a reduce task (Index: its index in Job.Reduces).
	TaskReduce
	// TaskSetup is a job's setup task (lifecycle.go).
	TaskSetup
	// TaskCleanup is a job's cleanup task (lifecycle.go).
	TaskCleanup
	// TaskSpeculative is a speculative copy of map Index (lifecycle_faults.go).
	TaskSpeculative
)

// LocalityUnknown is the locality of a map task event whose locality is not
// known: an observed map whose trace records none.
const LocalityUnknown Locality = 255

// JobEvent is a job's arrival or finish.
type JobEvent struct {
	// Time is when it happened, in µs from the first arrival; a finish the
	// observed schedule does not know is Unset.
	Time int64
	Job  *Job
}

// TaskEvent is a task's launch or end.
type TaskEvent struct {
	Time  int64
	Job   *Job
	Kind  TaskKind
	Index int32
	// Node is the node the task runs on; -1 when not known (an observed task
	// on a host outside the replay's cluster).
	Node int32
	// Locality is a map's distance from its input (TaskMap launches).
	Locality Locality
	// MapSlot is, for setup and cleanup tasks, whether the task holds a map
	// slot (else a reduce slot).
	MapSlot bool
	// Killed marks the end of a map or reduce attempt that was preempted
	// (yarn.go): the task is pending again and will be launched anew.
	Killed bool
}

// SampleEvent is a timeline sample instant: Active are the jobs arrived and
// not finished, in submission order (the simulator's own slice: do not keep or
// modify it).
type SampleEvent struct {
	Time   int64
	Active []*Job
}

// TransferEvent is a network transfer of Bytes from node Src to node Dst
// over [Start, End): a remote map's input read, a shuffle fetch under the
// topology shuffle or a re-timing network model. It is emitted once its end
// is known: at its start when the network model fixes it, at its end when the
// model re-times it, so Start may lie before the current time. The uniform
// shuffle's copies have no per-node source and are not transfers.
//
// Ends says at which nodes the bytes count. Under network = "flow" with
// flow_shuffle = "batch" a reduce's fetch round carries outputs of many
// hosts: each output's bytes count out of its host when it joins the
// reduces' waiting outputs (EndsOut, Src = Dst, Start = End, summed over the
// reduces and outputs joining at that time), and the round's bytes into the
// reduce's node over the round (EndsIn, Src = Dst).
type TransferEvent struct {
	Src, Dst   int32
	Bytes      int64
	Start, End int64
	Ends       TransferEnds
}

// TransferEnds is which ends of a TransferEvent its bytes count at.
type TransferEnds uint8

// The ends a TransferEvent counts at.
const (
	EndsBoth TransferEnds = iota // out of Src and into Dst
	EndsOut                      // out of Src only
	EndsIn                       // into Dst only
)

// Observer listens to a run's events. Embed NopObserver to implement only
// the events of interest.
type Observer interface {
	JobArrived(JobEvent)
	TaskLaunched(TaskEvent)
	TaskEnded(TaskEvent)
	JobFinished(JobEvent)
	Sample(SampleEvent)
	Transfer(TransferEvent)
}

// NopObserver ignores every event; embed it in an observer.
type NopObserver struct{}

// JobArrived does nothing.
func (NopObserver) JobArrived(JobEvent) {}

// TaskLaunched does nothing.
func (NopObserver) TaskLaunched(TaskEvent) {}

// TaskEnded does nothing.
func (NopObserver) TaskEnded(TaskEvent) {}

// JobFinished does nothing.
func (NopObserver) JobFinished(JobEvent) {}

// Sample does nothing.
func (NopObserver) Sample(SampleEvent) {}

// Transfer does nothing.
func (NopObserver) Transfer(TransferEvent) {}

// eventMask says which events an observer is given.
type eventMask uint8

const (
	onJobArrived eventMask = 1 << iota
	onTaskLaunched
	onTaskEnded
	onJobFinished
	onSample
	onTransfer
	onAll = onJobArrived | onTaskLaunched | onTaskEnded | onJobFinished | onSample | onTransfer
)

// bus delivers each event to the observers registered for it, in the order
// they registered. An observer is called only for the events of its mask, so
// the events nobody but a NopObserver method would take cost nothing.
type bus struct {
	arrived, launched, ended, finished, samples, transfers []Observer
}

// register adds o for the events of m; an Options.Observers observer is
// given them all.
func (b *bus) register(o Observer, m eventMask) {
	for _, x := range []struct {
		bit  eventMask
		list *[]Observer
	}{{onJobArrived, &b.arrived}, {onTaskLaunched, &b.launched}, {onTaskEnded, &b.ended},
		{onJobFinished, &b.finished}, {onSample, &b.samples}, {onTransfer, &b.transfers}} {
		if m&x.bit != 0 {
			*x.list = append(*x.list, o)
		}
	}
}

func (b *bus) jobArrived(e JobEvent) {
	for _, o := range b.arrived {
		o.JobArrived(e)
	}
}

func (b *bus) taskLaunched(e TaskEvent) {
	for _, o := range b.launched {
		o.TaskLaunched(e)
	}
}

func (b *bus) taskEnded(e TaskEvent) {
	for _, o := range b.ended {
		o.TaskEnded(e)
	}
}

func (b *bus) jobFinished(e JobEvent) {
	for _, o := range b.finished {
		o.JobFinished(e)
	}
}

func (b *bus) sample(e SampleEvent) {
	for _, o := range b.samples {
		o.Sample(e)
	}
}

func (b *bus) transfer(e TransferEvent) {
	for _, o := range b.transfers {
		o.Transfer(e)
	}
}
