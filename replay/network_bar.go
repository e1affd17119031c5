package replay

// The BAR network model (network = "bar", BAR §III): a remote map costs
// C_rem = C_loc + q·r, q the hardware model's bar_q and r the maps reading
// remotely when it launches, itself included.

// NetworkBAR times a remote map read at launch as BAR §III does:
// C_rem = C_loc + q·r, r the remote maps running.
const NetworkBAR NetworkName = "bar"

// barNetwork is the BAR model.
type barNetwork struct{ h *Hardware }

func newBARNetwork(h *Hardware) NetworkModel { return barNetwork{h} }

// ReadUs is q·r.
func (n barNetwork) ReadUs(_ int64, _ Locality, remote int32) float64 {
	return float64(n.h.BARq) * float64(remote)
}

// Retimes is false: a read's end is fixed at its start.
func (barNetwork) Retimes() bool { return false }

// NewFlows returns nil: the model has no transfer network.
func (barNetwork) NewFlows(*Topology) (Flows, error) { return nil, nil }
