package flow

// Stats counts what a Network did: the work its re-solves cost and what
// they moved. It is for measuring the solver (docs/network-model.md, "Cost
// in the engine"); nothing depends on it.
type Stats struct {
	// Added and Removed count flows; AddBatches and RemoveBatches the calls
	// (Add and Remove are batches of one).
	Added, Removed, AddBatches, RemoveBatches int64
	// LocalSolves and FullSolves count the changes each solver settled;
	// LocalFailures the incremental solver's attempts that gave up.
	LocalSolves, FullSolves, LocalFailures int64
	// LocalFlows and FullFlows sum the flows each solver re-solved (a failed
	// incremental attempt's flows included in LocalFlows).
	LocalFlows, FullFlows int64
	// Retimed sums the flows whose finish time moved, flows just added not
	// counted, at every solve, Settle's included.
	Retimed int64
	// QuantumSolves counts the solves under a rate-update quantum (changes
	// solved at once and deferred ones settled).
	QuantumSolves int64
	// Provisional counts the flows added while a solve was deferred, and
	// ProvisionalZero those of them whose provisional rate was 0, which wait
	// for the solve (quantum.go). Under the equal share (capacities and
	// weights positive) it stays 0; it counted 40% of the flows on
	// FB-2010's first 3,000 jobs at a 1 s quantum under the spare rule
	// before it, and guards against that coming back (TestUpdateQuantum,
	// BenchmarkFlowModel's log).
	Provisional, ProvisionalZero int64
}

// Stats returns the network's counters.
func (n *Network) Stats() Stats { return n.stats }
