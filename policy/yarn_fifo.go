package policy

import (
	"github.com/tracereplay/tracereplay/replay"
)

// YARNFIFO is YARN's FifoScheduler (scheduler/fifo/FifoScheduler): one queue,
// applications in submission order (the order of their ApplicationIds). On a
// heartbeat of node n, assignContainers offers the node to each application
// in turn and assignContainersOnNode gives it every container that fits:
// its AM first (priority 0), then maps node-local, rack-local and
// off-switch without any locality wait (FifoScheduler has no delay
// scheduling), then reduces; an application whose next container does not
// fit passes the node on to the next one. There is no AM limit, user limit
// or preemption.
//
// Choices: within an application the MR AM asks reduces at priority 10,
// before maps at 20 (RMContainerAllocator), but only after slow-start and
// ramping them against waiting maps; like the slot schedulers, maps go
// before reduces here (docs/yarn-schedulers.md).
type YARNFIFO struct {
	yarnBase
}

func newYARNFIFO(r *ParamReader) (replay.Policy, error) {
	return &YARNFIFO{yarnBase{name: r.spec(), kind: "yarn-fifo"}}, nil
}

// Init takes the YARN view; on a slot cluster Err says why nothing runs.
func (p *YARNFIFO) Init(c replay.Cluster) { p.initYARN(c) }

// Heartbeat fills node n with the containers of the applications in
// submission order (FifoScheduler.assignContainers).
func (p *YARNFIFO) Heartbeat(c replay.Cluster, n int32) {
	if p.yc == nil {
		return
	}
	yc := p.yc
	always := func(replay.Resource) bool { return true }
	for _, j := range c.Active() {
		if !p.minAlloc.Fits(yc.NodeFree(n)) {
			return
		}
		for {
			if yc.AMPending(j) {
				if !yc.Container(j, replay.AMContainer).Fits(yc.NodeFree(n)) {
					break
				}
				yc.LaunchAM(j, n)
				continue
			}
			if ok, _, _, _ := launchMapOrReduce(yc, j, n, levels{rack: true, off: true}, always); !ok {
				break
			}
		}
	}
}
