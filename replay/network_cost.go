package replay

import "fmt"

// The flow model's cost levers on the engine's side (docs/network-model.md,
// "Cost in the engine"): the rate-update quantum's deferred re-solve
// (flow_update) is a step of the network event source of its own.

// due is the time of the flow network's deferred re-solve; ok is false when
// none is deferred.
func (fn *flowNet) due() (int64, bool) { return fn.n.Due() }

// settle re-solves the flow network's deferred changes at at.
func (fn *flowNet) settle(at int64) error {
	if _, err := fn.n.Settle(at); err != nil {
		return fmt.Errorf("flow network: re-solve at %d µs: %w", at, err)
	}
	return nil
}
