package replay

import (
	"fmt"
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/internal/flow"
)

// Killed and failed tasks under network = "flow". A job that fails
// (jobfail.go) kills its running tasks: their transfers under way end with
// them, without the events their ends would bring, and the network
// re-solves the rates of the flows they shared resources with. A reduce whose
// last allowed attempt fails stops fetching, and a failed job's pending
// stage events (a map's next stage, a reduce's fetch start) are withdrawn
// with its done events (dropEvents).

// cancelTransfers ends, now, job j's transfers under way: every one of its
// tasks', or with red >= 0 reduce red's fetches and output write only. Each
// is reported to the observers with the bytes it moved. It does nothing
// under a model without transfers.
func (s *Sim) cancelTransfers(j *Job, red int32) {
	fn, ok := s.fn.(*flowNet)
	if !ok {
		return
	}
	if err := fn.flush(s.now); err != nil {
		s.setFlowErr(err)
		return
	}
	if err := fn.n.Advance(s.now); err != nil {
		s.setFlowErr(fmt.Errorf("flow network: cancel the transfers of job %s at %d µs: %w", j.Trace.ID, s.now, err))
		return
	}
	free := make([]bool, len(fn.xfers))
	for _, id := range fn.free {
		free[id] = true
	}
	var ids []flow.FlowID
	var moved []int64
	for k := range fn.xfers {
		x := &fn.xfers[k]
		if free[k] || x.Job != j.Index || red >= 0 && (x.Task != red || x.Kind != TransferFetch && x.Kind != TransferOutput) {
			continue
		}
		left, _ := fn.n.Remaining(flow.FlowID(k))
		ids = append(ids, flow.FlowID(k))
		moved = append(moved, max(0, x.Bytes-int64(math.Ceil(left))))
	}
	if len(ids) == 0 {
		return
	}
	if _, err := fn.n.RemoveBatch(s.now, ids); err != nil {
		s.setFlowErr(fmt.Errorf("flow network: cancel %d transfers of job %s at %d µs: %w", len(ids), j.Trace.ID, s.now, err))
		return
	}
	for k, id := range ids {
		x := fn.xfers[id]
		x.Bytes = moved[k]
		s.flowTransferred(x, s.now)
		s.inflight.done(x.Start)
	}
	fn.free = append(fn.free, ids...)
	if red >= 0 && j.out.fs != nil {
		j.out.fs[red] = fetchState{} // its shuffle stops: no fetch starts again
	}
}

// setFlowErr keeps the first error of the flow network, which stops the run
// at its next step.
func (s *Sim) setFlowErr(err error) {
	if s.flowErr == nil {
		s.flowErr = err
	}
}

// flowEventOf reports whether e is a stage event of job k's tasks under
// network = "flow" (a map's next stage, a reduce's fetch start), or with
// red >= 0 of reduce red only.
func flowEventOf(e event, k, red int32) bool {
	if e.a != k {
		return false
	}
	switch e.kind {
	case evTaskFlow:
		return red < 0 || e.b == -1-red
	case evFetchStart:
		return red < 0 || e.b == red
	}
	return false
}

// cancelReduceFlows stops failed reduce i of job j's shuffle under network =
// "flow": its transfers under way end and its pending stage events are
// withdrawn.
func (s *Sim) cancelReduceFlows(j *Job, i int32) {
	if s.fn == nil {
		return
	}
	s.cancelTransfers(j, i)
	if slices.ContainsFunc(s.q, func(e event) bool { return flowEventOf(e, j.Index, i) }) {
		s.dropEventsWhere(func(e event) bool { return flowEventOf(e, j.Index, i) })
	}
}
