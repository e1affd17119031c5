package replay

import (
	"fmt"

	"github.com/tracereplay/tracereplay/internal/flow"
)

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

// FlowCost is what a run's flow network did (network = "flow"): the
// transfers started, by kind, and the solver's counters. It is for measuring
// the model's cost (docs/network-model.md, "Cost in the engine"); no output
// depends on it.
type FlowCost struct {
	// MapReads, Fetches, Spills and Outputs count the transfers started of
	// each kind (TransferMapRead, TransferFetch, TransferSpill,
	// TransferOutput); under flow_shuffle = "batch" Fetches counts the
	// reduces' rounds.
	MapReads, Fetches, Spills, Outputs int64
	// Solver holds the flow network's counters: flows added and removed,
	// solves by solver, flows re-solved and re-timed.
	Solver flow.Stats
}

// FlowCost is what the run's flow network did; ok is false when the run was
// not under network = "flow".
func (r *Result) FlowCost() (c FlowCost, ok bool) {
	if r.flowCost == nil {
		return FlowCost{}, false
	}
	return *r.flowCost, true
}

// cost is the run's FlowCost.
func (fn *flowNet) cost() *FlowCost {
	return &FlowCost{MapReads: fn.started[TransferMapRead], Fetches: fn.started[TransferFetch],
		Spills: fn.started[TransferSpill], Outputs: fn.started[TransferOutput], Solver: fn.n.Stats()}
}
