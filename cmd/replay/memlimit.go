package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// minMemoryLimit is the smallest --memory-limit accepted: below it the
// runtime's own memory is most of the limit and the collector would run
// back to back for nothing (a limit is soft: it never stops a run).
const minMemoryLimit = 16 << 20

// memoryLimit is --memory-limit: a soft limit on the Go runtime's memory
// (runtime/debug.SetMemoryLimit), written as GOMEMLIMIT is: a number of
// bytes with an optional unit B, KiB, MiB, GiB or TiB, or off. Zero is off.
type memoryLimit struct{ bytes int64 }

// String returns the limit as Set reads it back: off, or bytes with the
// largest unit that divides them.
func (m *memoryLimit) String() string {
	if m.bytes == 0 {
		return "off"
	}
	for _, u := range memoryUnits {
		if u.n > 1 && m.bytes%u.n == 0 {
			return strconv.FormatInt(m.bytes/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(m.bytes, 10)
}

// Type names the value in --help.
func (m *memoryLimit) Type() string { return "SIZE" }

// memoryUnits are GOMEMLIMIT's suffixes, largest first (the runtime's
// parseByteCount, which takes no decimal units such as MB).
var memoryUnits = []struct {
	suffix string
	n      int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// Set parses a limit: off, or an integer number of bytes with an optional
// unit suffix, at least minMemoryLimit.
func (m *memoryLimit) Set(s string) error {
	if s == "off" {
		m.bytes = 0
		return nil
	}
	num, mult := s, int64(1)
	for _, u := range memoryUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = rest, u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("want off or a whole number of bytes with an optional unit B, KiB, MiB, GiB or TiB, as GOMEMLIMIT takes (e.g. 280MiB)")
	}
	if n > (1<<63-1)/mult {
		return errors.New("too large")
	}
	if n*mult < minMemoryLimit {
		return fmt.Errorf("below the least accepted, 16MiB (a limit under the heap a run needs makes the collector run back to back; use off for none)")
	}
	m.bytes = n * mult
	return nil
}

// applyMemoryLimit sets the runtime's soft memory limit to m unless the
// environment's GOMEMLIMIT (which the runtime has already applied) is set,
// or m is off.
func applyMemoryLimit(m memoryLimit) {
	if m.bytes == 0 || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(m.bytes)
}
