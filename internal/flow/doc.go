// Package flow is a flow-level model of a cluster's shared hardware: every
// transfer (a network copy, a disk read or write) is a flow of a number of bytes
// across a set of resources (NICs, rack uplinks, the core, disks), each with a
// capacity in bytes per second, and the flows crossing a resource share it by
// max-min fairness, computed by progressive filling. This is the sharing model of
// SimGrid's flow-level network models (CM02 without latency or TCP corrections),
// and a test checks the two agree (simgrid_test.go).
//
// A Network is driven by an event engine: it adds a flow at an integer time in
// microseconds, removes it when it finishes (or is cancelled), asks for the next
// flow to finish, and advances the clock. After every change only the flows
// near the changed one are re-solved (a region grown until the result is
// provably max-min fair, else the connected component of flows sharing
// resources with it), and the flows whose finish times moved are reported so
// the engine can re-time their events. Cluster builds the resources of a Hadoop cluster (racks × nodes,
// NICs, rack uplinks, an oversubscribed core, disks) from plain numbers.
//
// The package has no dependency on package replay; docs/network-model.md gives
// the model, the SimGrid comparison and the plan for the engine's integration.
package flow
