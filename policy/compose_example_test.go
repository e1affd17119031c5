package policy_test

import (
	"fmt"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/policy/policytest"
	"github.com/tracereplay/tracereplay/replay"
)

// fairStrict is a policy composed of building blocks: the Fair Scheduler's
// order, maps only where their input lies, reduces greedily in fair order.
// (It is what fair-strict is; a new policy is such a file and a registry line.)
type fairStrict struct {
	replay.Base
	order   *policy.FairOrder
	maps    policy.MapFiller
	reduces policy.GreedyReduces
}

func newFairStrict() *fairStrict {
	o := policy.NewFairOrder("user")
	return &fairStrict{order: o, reduces: policy.GreedyReduces{Order: o}}
}

func (p *fairStrict) Name() string                                    { return "fair-strict-composed" }
func (p *fairStrict) Init(replay.Cluster)                             { p.order.Init() }
func (p *fairStrict) JobArrived(_ replay.Cluster, j *replay.JobView)  { p.order.JobArrived(j) }
func (p *fairStrict) JobFinished(_ replay.Cluster, j *replay.JobView) { p.order.JobFinished(j) }
func (p *fairStrict) Heartbeat(c replay.Cluster, n int32) {
	p.maps.Fill(c, n, p.order, policy.StrictPicker{})
	p.reduces.FillReduces(c, n)
}

// Example_compose runs a policy made of building blocks on the fake cluster:
// user a's job has input on node 1 only, so node 0's map slot goes to user
// b's job, and the reduce slot to a's (the pools tie at no running reduces;
// a sorts first).
func Example_compose() {
	hw, err := policytest.Hardware(1, 2, 1, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := policytest.New(hw, 1)
	p := newFairStrict()
	p.Init(c)
	for _, j := range []policytest.Job{
		{ID: "A", User: "a", Maps: [][]int32{{1}}, Reduces: 1},
		{ID: "B", User: "b", Maps: [][]int32{{0}}, Reduces: 1},
	} {
		if _, err := c.Arrive(p, j); err != nil {
			fmt.Println(err)
			return
		}
	}
	for _, l := range c.Heartbeat(p, 0) {
		fmt.Println(l)
	}
	// Output:
	// 0s B map 0 on node 0 (NODE_LOCAL)
	// 0s A reduce 0 on node 0
}
