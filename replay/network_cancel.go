package replay

import (
	"fmt"
	"slices"
)

// Withdrawn transfers under network = "flow". An attempt that ends before its
// transfers do ends them with it, without the events their ends would bring:
// the losing attempt of a speculative map (lifecycle_flowspec.go), a map's
// or a reduce's failed attempts (network_disk.go, lifecycle_flowreduce.go),
// a reduce whose last allowed attempt fails (it stops fetching), and every
// running task of a job that fails (jobfail.go). There is one path for all.
//
//   - The engine lists each attempt's transfers under way (xferIndex): a
//     doubly linked list through the transfer ids per attempt, its head in
//     the job's jobDisk.xhead, so an attempt's transfers are found in
//     O(its transfers), not by a scan of every transfer slot.
//   - withdraw hands them to Flows.Cancel in one batch: a transfer about to
//     start leaves the batch waiting to join the network, those under way
//     leave the network together (one re-solve of the flows they shared
//     resources with), and each is reported with the bytes it moved by now.
//   - Those bytes reach the observers as the transfer they were
//     (flowTransferred: a TransferEvent from its start to now), so node_net
//     and the nodes' totals count what a killed attempt actually moved, as
//     links.parquet (the links' loads while it ran) already did. The run's
//     network bytes (RunSummary.NetworkBytes) count every transfer in full at
//     its start, as before: a withdrawn transfer is not taken back out.
//
// A failed job's pending stage events (a map's next stage, a reduce's fetch
// start) are withdrawn with its done events (dropEvents), a failed reduce's
// with its transfers (cancelReduceFlows).

// xferIndex links the transfers under way of each attempt, by transfer id:
// next and prev hold 1 + the neighbour's id, 0 for none.
type xferIndex struct {
	next, prev []int32
}

// attempt is the index of transfer x's attempt in its job's jobDisk.xhead:
// map i's original attempt i, reduce r maps + r, map i's speculative copy
// maps + reduces + i.
func (d *jobDisk) attempt(x *Transfer) int {
	switch {
	case x.Kind == TransferFetch || x.Kind == TransferOutput:
		return int(d.maps) + int(x.Task)
	case x.Copy:
		return int(d.maps) + len(d.redOut) + int(x.Task)
	}
	return int(x.Task)
}

// xlink lists transfer id, just started, under its attempt.
func (s *Sim) xlink(x *Transfer, id int32) {
	d := s.jobs[x.Job].out.disk
	if d.xhead == nil {
		n := int(d.maps) + len(d.redOut)
		if s.specOn() {
			n += int(d.maps)
		}
		d.xhead = make([]int32, n)
	}
	xi := &s.xi
	for int(id) >= len(xi.next) {
		xi.next, xi.prev = append(xi.next, 0), append(xi.prev, 0)
	}
	k := d.attempt(x)
	h := d.xhead[k]
	xi.next[id], xi.prev[id] = h, 0
	if h > 0 {
		xi.prev[h-1] = id + 1
	}
	d.xhead[k] = id + 1
}

// xunlink takes transfer id, which ended or was withdrawn, off its attempt's
// list.
func (s *Sim) xunlink(x *Transfer, id int32) {
	d := s.jobs[x.Job].out.disk
	xi := &s.xi
	n, p := xi.next[id], xi.prev[id]
	if p > 0 {
		xi.next[p-1] = n
	} else {
		d.xhead[d.attempt(x)] = n
	}
	if n > 0 {
		xi.prev[n-1] = p
	}
	xi.next[id], xi.prev[id] = 0, 0
}

// attemptXfers appends to ids the transfers under way of attempt k of job j
// (jobDisk.attempt).
func (s *Sim) attemptXfers(ids []int32, j *Job, k int) []int32 {
	d := j.out.disk
	if d == nil || d.xhead == nil {
		return ids
	}
	for id := d.xhead[k]; id > 0; id = s.xi.next[id-1] {
		ids = append(ids, id-1)
	}
	return ids
}

// withdraw ends transfers ids (each under way or about to start) now, before
// their ends, in increasing id order: one Flows.Cancel batch, each reported
// to the observers with the bytes it moved.
func (s *Sim) withdraw(ids []int32) {
	if len(ids) == 0 {
		return
	}
	slices.Sort(ids)
	err := s.fn.Cancel(s.now, ids, func(id int32, x Transfer, moved int64) {
		s.xunlink(&x, id)
		if moved > 0 {
			x.Bytes = moved
			s.flowTransferred(x, s.now)
		}
		s.inflight.done(&x)
		s.flowCancels++
	})
	if err != nil {
		s.setFlowErr(fmt.Errorf("withdraw %d transfers at %d µs: %w", len(ids), s.now, err))
	}
}

// withdrawAttempt ends attempt k of job j's transfers under way now
// (jobDisk.attempt).
func (s *Sim) withdrawAttempt(j *Job, k int) {
	if s.fn == nil {
		return
	}
	s.xscratch = s.attemptXfers(s.xscratch[:0], j, k)
	s.withdraw(s.xscratch)
}

// cancelTransfers ends, now, job j's transfers under way: every one of its
// attempts', or with red >= 0 reduce red's fetches and output write only.
// It does nothing under a model without transfers.
func (s *Sim) cancelTransfers(j *Job, red int32) {
	if s.fn == nil {
		return
	}
	d := j.out.disk
	if red >= 0 {
		s.withdrawAttempt(j, int(d.maps)+int(red))
	} else if d != nil {
		ids := s.xscratch[:0]
		for k := range d.xhead {
			ids = s.attemptXfers(ids, j, k)
		}
		s.xscratch = ids
		s.withdraw(ids)
	}
	if red >= 0 && j.out.fs != nil {
		j.out.fs[red] = fetchState{} // its shuffle stops: no fetch starts again
		j.out.clearQuiet(red)
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
	switch e.kind() {
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
