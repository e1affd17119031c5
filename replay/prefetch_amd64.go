package replay

// prefetch asks the processor to bring the cache line at addr in, without
// waiting for it: a hint that changes no result.
//
//go:noescape
func prefetch(addr uintptr)

// prefetchBlock is prefetch for the 384 bytes from addr: sixteen events.
//
//go:noescape
func prefetchBlock(addr uintptr)
