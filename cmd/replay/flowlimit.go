package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/tracereplay/tracereplay/replay"
)

// flowLimitBase is the soft memory limit a run under network = "flow" gets
// by default (no --memory-limit, GOMEMLIMIT or GOGC): FB-2010's flow day on
// fb-3000 peaks at 159–182 MB marked live, and the collector's default
// pacing (a heap goal twice the live heap) takes it to 353,000–374,000 KiB
// of RSS; under 256 MiB it peaks under 300 MB (docs/performance.md, "The
// flow day under a memory limit" and "The flow day's memory by default").
const flowLimitBase = 256 << 20

// A fixed limit under a run's live heap makes the collector run back to
// back; the adaptive limit is never under flowLimitGrowth/flowLimitDiv
// (5/4) times the live heap plus the runtime's memory outside the heap, so
// the heap may grow between collections by a quarter of its live size less
// its free fragments (which the limit counts too).
const (
	flowLimitGrowth = 5
	flowLimitDiv    = 4
)

// adaptiveLimitFor is the soft memory limit for a live heap of live bytes
// and nonHeap bytes of runtime memory outside the heap (stacks, the
// collector's metadata and the like): base, or 5/4 of the live heap plus
// nonHeap where that is more.
func adaptiveLimitFor(base, live, nonHeap int64) int64 {
	return max(base, live+live*(flowLimitGrowth-flowLimitDiv)/flowLimitDiv+nonHeap)
}

// wantAdaptiveLimit says whether a run gets the adaptive limit: some cell
// runs under the flow model, and neither --memory-limit (explicit, off
// included) nor the environment's GOMEMLIMIT or GOGC chose the collector's
// settings.
func wantAdaptiveLimit(cells []replay.Cell, flagSet bool, getenv func(string) string) bool {
	if flagSet || getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "" {
		return false
	}
	for _, cl := range cells {
		if cl.Hardware.Network == replay.NetworkFlow {
			return true
		}
	}
	return false
}

// adaptiveLimit keeps the runtime's soft memory limit at
// adaptiveLimitFor(base, live heap, memory outside the heap), re-read after
// every collection (a finalizer on an unreachable object, re-armed each
// cycle), from start until stop, which puts back the limit it found.
// Only the collector's pacing depends on it, never a simulated result.
type adaptiveLimit struct {
	mu      sync.Mutex
	base    int64
	prev    int64 // the limit before start, restored by stop
	limit   int64 // the limit last set
	stopped bool
	cycles  int // collections seen (tests wait on it)
	samples []metrics.Sample
}

// adaptiveSamples are the runtime metrics the limit is computed from: the
// heap marked live by the last collection, and the runtime's mapped memory
// by class (total less the heap's classes is the memory outside the heap).
var adaptiveSamples = [...]string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
}

// limitSentinel is the object whose finalizer runs once a collection; it
// holds a pointer, so it is never batched with other tiny objects (whose
// finalizers may never run).
type limitSentinel struct{ a *adaptiveLimit }

// startAdaptiveLimit sets the limit to base and keeps it adapted after
// every collection until stop.
func startAdaptiveLimit(base int64) *adaptiveLimit {
	a := &adaptiveLimit{base: base, limit: base}
	for _, name := range adaptiveSamples {
		a.samples = append(a.samples, metrics.Sample{Name: name})
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prev = debug.SetMemoryLimit(base)
	a.arm()
	return a
}

// arm allocates the next sentinel, unreachable at once: the next collection
// finds it and queues its finalizer.
func (a *adaptiveLimit) arm() {
	runtime.SetFinalizer(&limitSentinel{a}, func(s *limitSentinel) { s.a.collected() })
}

// collected runs after each collection: it sets the limit from the live
// heap that collection marked, and re-arms, unless stopped.
func (a *adaptiveLimit) collected() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return
	}
	a.cycles++
	metrics.Read(a.samples)
	v := make([]int64, len(a.samples))
	for i, s := range a.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s.Value.Uint64())
		}
	}
	nonHeap := max(v[1]-v[2]-v[3]-v[4]-v[5], 0)
	if want := adaptiveLimitFor(a.base, v[0], nonHeap); want != a.limit {
		debug.SetMemoryLimit(want)
		a.limit = want
	}
	a.arm()
}

// stop ends the adaptation and puts back the limit start found.
func (a *adaptiveLimit) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
	debug.SetMemoryLimit(a.prev)
}

// state returns the limit last set and the collections seen.
func (a *adaptiveLimit) state() (limit int64, cycles int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit, a.cycles
}
