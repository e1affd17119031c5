package replay

import (
	"fmt"

	"github.com/BurntSushi/toml"
)

// Network models. The hardware model's network key names one of the models
// networkModels registers; the name is checked when the TOML is parsed
// (NetworkName.UnmarshalText) and the model is built from it when a workload
// or a run needs it (Hardware.NetworkModel). Adding a model is one file with
// its type and a line in networkModels.
//
// The contract of a model's transfer times: a transfer's end is either fixed
// when it starts, or re-timed.
//
//   - A model that fixes it (NewFlows returns nil) is asked ReadUs when a
//     remote map launches: the map's end is its node-local time plus that, and
//     its finish event is scheduled at once. Shuffle copies then follow the
//     shuffle key (shuffle.go) at the links' rates.
//   - A model that re-times (NewFlows returns a Flows) takes every map read
//     and spill, shuffle fetch and reduce output write as a transfer whose end
//     it alone knows (network_disk.go): the engine asks Flows.Next for the
//     earliest end, which may move each time another transfer starts or ends,
//     and schedules the task's finish event only when its transfers have ended
//     (network_retimed.go). ReadUs is then
//     the model's nominal time, which trace mode removes from an observed
//     duration (trace_locality = "bandwidth"); EstimateUs is what policies are
//     told a read would take.

// NetworkModel is how a run times transfers between nodes; see above.
type NetworkModel interface {
	// ReadUs is the time a map adds to read b bytes of input at distance loc
	// (not node-local), with remote maps reading remotely, itself included.
	ReadUs(b int64, loc Locality, remote int32) float64
	// Retimes reports whether NewFlows returns a transfer network.
	Retimes() bool
	// NewFlows builds a run's transfer network on topology t, or returns nil
	// (an untyped nil) when the model fixes each transfer's end at its start.
	NewFlows(t *Topology) (Flows, error)
}

// Flows is a run's network of re-timed transfers.
type Flows interface {
	// Start begins transfer x at now and returns its id; the transfers
	// started at one time join the network together, at the next call of
	// Next.
	Start(now int64, x Transfer) (int, error)
	// Cancel ends transfers ids, each under way or about to start, at now,
	// before their ends (their attempt was killed or failed, or their job
	// failed), in one batch, then calls visit for each, in the order of ids,
	// with what it carried and the bytes it moved by now.
	Cancel(now int64, ids []int32, visit func(id int32, x Transfer, moved int64)) error
	// Next adds the transfers started at now and returns the earliest end of
	// those under way: its id and time; ok is false when none is under way.
	Next(now int64) (id int, at int64, ok bool, err error)
	// End removes transfer id, which Next returned, at its end at.
	End(id int, at int64) (Transfer, error)
	// Active reports whether a transfer is under way or about to start.
	Active() bool
	// EstimateUs is what policies are told a transfer of b bytes from node
	// src to node dst started now would take.
	EstimateUs(b int64, src, dst int32) int64
	// Links visits every network link that carries a transfer now (disks are
	// left out), in a fixed order: its name (a host's "HOST/nic-out", "HOST/nic-in", a rack's
	// "RACK/uplink", "RACK/downlink", "core"), its capacity and its load in
	// bytes per second, and the transfers crossing it.
	Links(visit func(link string, capacity, load float64, flows int))
}

// Transfer is what a re-timed transfer carries, by its Kind: the input of
// map Task (FetchOf < 0) from node Src's disk to node Dst, reduce Task's fetch
// of map FetchOf's output from Src's disk to Dst's, map Task's output spilled
// to its node's disk (Src = Dst), or reduce Task's output (or, Kind
// TransferSpill, map Task's in a job without reduces) written from node
// Src through the HDFS pipeline Pipeline (the replicas' nodes in order); all
// of job Job (its workload index), Bytes in all, started at Start (set by
// Flows.Start). Src = Dst is a transfer within a node: its disk only. Copy
// marks a map's read or spill by its speculative copy (lifecycle_flowspec.go).
// Round, for a fetch under flow_shuffle = "batch", is its class of sources
// plus one (roundOwn, roundRack, roundFar; network_retimed.go): the fetch
// carries outputs of many hosts, Src = Dst is the reduce's node and FetchOf
// is -1; it is 0 for every other transfer. Merge marks, with flow_merges,
// a map's merge of its spills (Kind TransferSpill: its output read and
// written again, Bytes twice the output) or a reduce's final merge read of
// its fetched segments (Kind TransferOutput, Pipeline its own node only:
// its disk; lifecycle_flowmerge.go).
type Transfer struct {
	Kind               TransferKind
	Copy               bool
	Merge              bool
	Round              uint8
	Job, Task, FetchOf int32
	Src, Dst           int32
	Bytes, Start       int64
	Pipeline           []int32
	// srcs, for a batch round from other nodes, are its sources' hosts and
	// the bytes it carries from each, which the flow model loads by
	// fraction (network_retimed.go). Only Flows.Start reads it; it is not
	// kept.
	srcs []roundSource
	// srcTotal is the bytes of all the round's sources when srcs lists only
	// those with the most (roundSourceCap), else 0.
	srcTotal int64
}

// TransferKind is what a re-timed transfer is for (network_disk.go).
type TransferKind uint8

// Transfer kinds.
const (
	// TransferMapRead is a map's input read: the source replica's disk, then
	// the network path to the map's node.
	TransferMapRead TransferKind = iota
	// TransferFetch is a reduce's fetch of a map's output: the map node's
	// disk, the network path, the reduce node's disk.
	TransferFetch
	// TransferSpill is a map's output written to its own node's disk, or in
	// a job without reduces through the HDFS replication pipeline in
	// Transfer.Pipeline (mapWrite).
	TransferSpill
	// TransferOutput is a reduce's output written through the HDFS
	// replication pipeline: each replica's disk and the network hops between.
	TransferOutput
	numTransferKinds
)

// networkModel is one entry of the registry: a network key's name and the
// model it builds from a hardware model.
type networkModel struct {
	name NetworkName
	new  func(h *Hardware) NetworkModel
}

// networkModels is the registry of network models, in the order the network
// key's valid values are listed.
func networkModels() []networkModel {
	return []networkModel{
		{NetworkFixed, newFixedNetwork},
		{NetworkBAR, newBARNetwork},
		{NetworkFlow, newFlowNetwork},
	}
}

// NetworkModelNames lists the valid values of the network key, in order.
func NetworkModelNames() []string {
	var names []string
	for _, m := range networkModels() {
		names = append(names, string(m.name))
	}
	return names
}

// NetworkModel builds the model the network key names; the fixed model when
// the key is invalid, which Validate reports.
func (h *Hardware) NetworkModel() NetworkModel {
	for _, m := range networkModels() {
		if m.name == h.Network {
			return m.new(h)
		}
	}
	return newFixedNetwork(h)
}

// coreRatio is the core's oversubscription ratio for the flow model: 1 (a
// non-blocking core) when core_oversubscription is unset.
func (h *Hardware) coreRatio() float64 {
	if h.CoreOversubscription == 0 {
		return 1
	}
	return h.CoreOversubscription
}

// validateNetwork checks the network keys.
func (h *Hardware) validateNetwork(bad func(string, ...any)) {
	if _, err := ParseNetworkName(string(h.Network)); err != nil {
		bad("%v", err)
	}
	if c := h.CoreOversubscription; !(c >= 0 && c <= 1e6) {
		bad("core_oversubscription = %g: want a positive ratio of at most 1e6", c)
	}
}

// checkSetNetwork checks the network keys a TOML document set: an explicit
// core_oversubscription must be positive (unset, 0 stands for 1).
func (h *Hardware) checkSetNetwork(md toml.MetaData) error {
	if md.IsDefined("core_oversubscription") && !(h.CoreOversubscription > 0) {
		return fmt.Errorf("core_oversubscription = %g: want a positive ratio (1 is a non-blocking core)", h.CoreOversubscription)
	}
	return nil
}
