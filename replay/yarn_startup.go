package replay

// A YARN container's start-up in model mode (docs/yarn.md, docs/validation.md
// "YARN container start-up"). On a slot cluster a modelled task starts up for
// task_startup, which replay calibrate fits as the intercept of the Hadoop 1
// maps' durations (a TaskTracker's child JVM). On cluster = "yarn" a map or
// reduce runs in a container that the MRAppMaster launches on a NodeManager:
// its start-up is the container's launch, localisation and YarnChild JVM,
// container_startup, which replay calibrate fits from the histories that
// record a YARN ApplicationMaster (calibrate_yarn.go).

// containerKeys is container_startup's key group, added after the frozen JSON
// formats (optionalKeyGroups): left out of the run identity and the manifest
// while 0, so that a model without it keeps the identity it had before.
type containerKeys struct {
	ContainerStartup Duration
}

func containerKeysOf(h *Hardware) containerKeys { return containerKeys{h.ContainerStartup} }

// runHardware is the model a run uses for hw: on cluster = "yarn" with
// modelled task durations and container_startup set, every map and reduce
// starts up for container_startup instead of task_startup (each place the
// engine adds a task's start-up reads task_startup); otherwise hw itself.
func runHardware(hw *Hardware, times TaskTimeModel) *Hardware {
	if hw.Cluster != ClusterYARN || hw.ContainerStartup <= 0 || times.UsesTrace() {
		return hw
	}
	c := *hw
	c.TaskStartup = c.ContainerStartup
	return &c
}

// yarnContainerModel reports whether the run models its YARN containers'
// start-up: cluster = "yarn", task durations modelled and container_startup
// set (runHardware has then made task_startup the container's start-up).
func (s *Sim) yarnContainerModel() bool { return s.yarn.on && s.w.yarnContainers() }

// yarnContainers reports whether w's containers start up for
// container_startup (runHardware).
func (w *Workload) yarnContainers() bool {
	return w.hw.Cluster == ClusterYARN && w.hw.ContainerStartup > 0 && !w.times.UsesTrace()
}

// firstAskUs is, under the container model, the time from the job's
// initialisation (JOB_INITED) to its MRAppMaster's first allocate call, which
// carries the asks for its maps: the allocator thread (RMCommunicator's,
// started when the AM registers, before the job starts) sleeps
// am_heartbeat before each call, so the asks reach the ResourceManager one
// interval after the job is initialised, and the containers allocated for
// them reach the AM at the call after (amWaitUs). The five .jhist histories
// of the validation set start their first attempt 2.12–2.21 s after
// JOB_INITED: two 1 s calls and the container's launch. 0 otherwise: the
// asks are seen at once, as before.
func (s *Sim) firstAskUs() int64 {
	if !s.yarnContainerModel() {
		return 0
	}
	return int64(s.hw.AMHeartbeat)
}
