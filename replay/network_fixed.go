package replay

// The fixed network model (network = "fixed", the default): a remote map read
// takes its bytes at the link rate between the two nodes, the NIC within a
// rack and the rack uplink's per-node share across racks, whatever else runs.

// NetworkFixed times a remote map read at launch: its bytes at the NIC rate
// within a rack, at the rack uplink's per-node share across racks.
const NetworkFixed NetworkName = "fixed"

// fixedNetwork is the fixed model.
type fixedNetwork struct{ h *Hardware }

func newFixedNetwork(h *Hardware) NetworkModel { return fixedNetwork{h} }

// ReadUs is b over the link rate at distance loc.
func (n fixedNetwork) ReadUs(b int64, loc Locality, _ int32) float64 {
	return bytesUs(b, n.h.linkRate(loc))
}

// Retimes is false: a read's end is fixed at its start.
func (fixedNetwork) Retimes() bool { return false }

// NewFlows returns nil: the model has no transfer network.
func (fixedNetwork) NewFlows(*Topology) (Flows, error) { return nil, nil }
