package replay

import (
	"fmt"
	"strings"
)

// eventStats counts a run's events by kind and what its heartbeats did: a
// debugging aid for the engine's event count (docs/performance.md), reachable
// only from tests (export_test.go), never written to the results.
type eventStats struct {
	// ByKind counts the events popped from the queue, by kind.
	ByKind [evSpecKill + 1]int64
	// FlowEnds counts the transfer ends the flow network's event source
	// handled (network_retimed.go), by transfer kind; under flow_shuffle =
	// "batch" a fetch is a reduce's round. Each is one of Summary.Events.
	FlowEnds [numTransferKinds]int64
	// Settles counts the flow network's deferred re-solves (flow_update),
	// steps of the loop that are not events.
	Settles int64
	// Cancelled counts heartbeats that fell due while nothing waited, taken
	// off the heartbeat queue without being handled (heartbeats.go).
	Cancelled int64
	// Stale counts heartbeat events superseded by an out-of-band heartbeat.
	Stale int64
	// Dormant counts heartbeats at which the node went dormant without asking
	// the policy (no free slot, or nothing waits).
	Dormant int64
	// Offered counts heartbeats the policy was asked to fill; Idle those of
	// them that launched nothing.
	Offered, Idle int64
	// IdleNothingFits counts the idle heartbeats where no waiting task fits a
	// free slot of the node (its free slots are map slots and only reduces
	// wait, or the other way round); IdleMapsDeclined those where maps wait
	// and the node has a free map slot (and no reduce fits); IdleOther the
	// rest (a ready reduce and a free reduce slot, left unlaunched).
	IdleNothingFits, IdleMapsDeclined, IdleOther int64
	// Launches counts tasks launched from heartbeats.
	Launches int64
	// Wakeups counts parked nodes' wake-ups at the time the policy gave
	// (not counting wakes it asked for), WakeFirsts WakeFirst's events
	// handled (park.go); neither is an event.
	Wakeups, WakeFirsts int64
	// LogCaps counts capLog's calls (the parking log at its bound) and
	// LogCapWakes the parked nodes they woke (park.go).
	LogCaps, LogCapWakes int64
}

// heartbeat counts a heartbeat of node n offered to the policy that launched
// k tasks, and sorts the idle ones by what could have launched there.
func (st *eventStats) heartbeat(s *Sim, n int32, k int64) {
	st.Offered++
	st.Launches += k
	if k > 0 {
		return
	}
	st.Idle++
	var maps, reduces int64
	for _, j := range s.active {
		maps += int64(j.PendingMaps)
		if j.ready {
			reduces += int64(j.PendingReduces)
		}
	}
	ns := &s.nodes[n]
	switch {
	case (ns.freeMap == 0 || maps == 0) && (ns.freeReduce == 0 || reduces == 0):
		st.IdleNothingFits++
	case ns.freeMap > 0 && maps > 0 && (ns.freeReduce == 0 || reduces == 0):
		st.IdleMapsDeclined++
	default:
		st.IdleOther++
	}
}

// Report is the counts, one per line, per task of the run (tasks).
func (st *eventStats) Report(tasks int64) string {
	var b strings.Builder
	per := func(name string, v int64) {
		fmt.Fprintf(&b, "%-16s %12d  %6.3f/task\n", name, v, float64(v)/float64(tasks))
	}
	var total int64
	for k, v := range st.ByKind {
		total += v
		if v > 0 {
			per(eventKind(k).String(), v)
		}
	}
	for k, v := range st.FlowEnds {
		total += v
		if v > 0 {
			per("flow end: "+TransferKind(k).String(), v)
		}
	}
	per("events", total)
	per("settles", st.Settles)
	per("cancelled hb", st.Cancelled)
	per("stale heartbeat", st.Stale)
	per("dormant", st.Dormant)
	per("offered", st.Offered)
	per("idle", st.Idle)
	per("idle, no fit", st.IdleNothingFits)
	per("idle, declined", st.IdleMapsDeclined)
	per("idle, other", st.IdleOther)
	per("launches", st.Launches)
	per("wake-ups", st.Wakeups)
	per("wake-firsts", st.WakeFirsts)
	per("log caps", st.LogCaps)
	per("log-cap wakes", st.LogCapWakes)
	return b.String()
}

// String names the transfer kind.
func (k TransferKind) String() string {
	switch k {
	case TransferMapRead:
		return "map read"
	case TransferFetch:
		return "fetch"
	case TransferSpill:
		return "spill"
	case TransferOutput:
		return "output write"
	}
	return fmt.Sprintf("TransferKind(%d)", uint8(k))
}

// String names the kind.
func (k eventKind) String() string {
	switch k {
	case evArrival:
		return "arrival"
	case evHeartbeat:
		return "heartbeat"
	case evMapDone:
		return "map done"
	case evReduceDone:
		return "reduce done"
	case evSample:
		return "sample"
	case evSweep:
		return "sweep"
	case evInitPoll:
		return "init poll"
	case evInitDone:
		return "init done"
	case evLifecycleDone:
		return "lifecycle done"
	case evFetchStart:
		return "fetch start"
	case evTaskFlow:
		return "task flow"
	case evSpecKill:
		return "speculative kill"
	}
	return fmt.Sprintf("kind %d", k)
}
