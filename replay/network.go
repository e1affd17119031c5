package replay

import (
	"fmt"

	"github.com/BurntSushi/toml"
)

// NetworkModelNames lists the valid values of the network key, in order.
func NetworkModelNames() []string {
	return []string{string(NetworkFixed), string(NetworkBAR), string(NetworkFlow)}
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
	if h.Network == NetworkFlow && h.Speculation != "none" {
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
