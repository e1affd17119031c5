//go:build !amd64

package replay

// prefetch does nothing on this architecture (prefetch_amd64.s).
func prefetch(addr uintptr) {}

// prefetchBlock does nothing on this architecture (prefetch_amd64.s).
func prefetchBlock(addr uintptr) {}
