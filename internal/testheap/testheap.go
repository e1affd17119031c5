// Package testheap measures the live heap for the tests that bound memory
// (peak heap flat as a trace or a run grows).
package testheap

import "runtime"

// Live is the heap in use (HeapAlloc) after two collections: the first moves
// what sync.Pools hold (the Parquet writers' buffers) to their victim caches,
// the second frees it, so that a pooled buffer idle at the probe is not
// counted as live state.
func Live() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
