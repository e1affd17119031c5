package replay

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// NetworkModel is how the simulator times transfers between nodes. It is
// chosen from the hardware model's network key when the model is parsed and
// validated (ParseNetworkModel, Hardware.NetworkModel).
type NetworkModel uint8

const (
	// NetworkFixed times a remote map read at launch: its bytes at the NIC rate
	// within a rack, at the rack uplink's per-node share across racks.
	NetworkFixed NetworkModel = iota
	// NetworkBAR times a remote map read at launch as BAR §III does:
	// C_rem = C_loc + q·r, r the remote maps running.
	NetworkBAR
	// NetworkFlow makes remote map reads and shuffle fetches flows that share
	// NICs, rack uplinks and an optional oversubscribed core max-min fairly
	// (internal/flow); a task's end moves as other transfers start and end.
	NetworkFlow
)

// NetworkModelNames lists the valid values of the network key, in order.
func NetworkModelNames() []string { return []string{"fixed", "bar", "flow"} }

// String is the model's name as the network key spells it.
func (m NetworkModel) String() string {
	if names := NetworkModelNames(); int(m) < len(names) {
		return names[m]
	}
	return fmt.Sprintf("NetworkModel(%d)", uint8(m))
}

// ParseNetworkModel reads a network key's value; an unknown name is an error
// listing the valid ones.
func ParseNetworkModel(name string) (NetworkModel, error) {
	for i, n := range NetworkModelNames() {
		if n == name {
			return NetworkModel(i), nil
		}
	}
	return 0, fmt.Errorf("network %q: want one of %s", name, strings.Join(NetworkModelNames(), ", "))
}

// NetworkModel is the model the network key names; NetworkFixed when the key
// is invalid, which Validate reports.
func (h *Hardware) NetworkModel() NetworkModel {
	m, _ := ParseNetworkModel(h.Network)
	return m
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
	m, err := ParseNetworkModel(h.Network)
	if err != nil {
		bad("%v", err)
	}
	if c := h.CoreOversubscription; !(c >= 0 && c <= 1e6) {
		bad("core_oversubscription = %g: want a positive ratio of at most 1e6", c)
	}
	if m == NetworkFlow && h.Speculation != "none" {
		bad("network = \"flow\" does not support speculation %q yet: want speculation = \"none\"", h.Speculation)
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
