package main

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

// restoreMemoryLimit puts the test process's soft memory limit back as it
// was when the test ends (the limit is the process's, not the run's).
func restoreMemoryLimit(t *testing.T) {
	t.Helper()
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
}

// TestMemoryLimitParse: --memory-limit reads what GOMEMLIMIT does (bytes with
// an optional B, KiB, MiB, GiB or TiB, or off) and refuses anything else, or a
// limit under 16MiB, with exit status 2 and a message naming the flag.
func TestMemoryLimitParse(t *testing.T) {
	good := map[string]int64{
		"off": 0, "280MiB": 280 << 20, "1GiB": 1 << 30, "2TiB": 2 << 40,
		"16777216": 16 << 20, "16777216B": 16 << 20, "20000KiB": 20000 << 10,
	}
	for s, want := range good {
		var m memoryLimit
		if err := m.Set(s); err != nil || m.bytes != want {
			t.Errorf("Set(%q): %d, %v; want %d", s, m.bytes, err, want)
		}
		if back := new(memoryLimit); back.Set(m.String()) != nil || back.bytes != want {
			t.Errorf("Set(%q).String() = %q reads back as %d, want %d", s, m.String(), back.bytes, want)
		}
	}
	restoreMemoryLimit(t)
	for _, s := range []string{"256MB", "256M", "1.5GiB", "-1GiB", "", "MiB", "1KiB", "16777215", "9999999TiB", "OFF"} {
		code, _, errOut := runCmd("--memory-limit", s, "--trace", first50, "--policy", "fifo", "--quiet")
		if code != 2 || !strings.Contains(errOut, `"--memory-limit"`) {
			t.Errorf("--memory-limit %q: exit %d, stderr %q; want exit 2 naming the flag", s, code, errOut)
		}
	}
}

// TestMemoryLimitApplied: a run with --memory-limit leaves the runtime's soft
// limit at that value, the same output as without it, and GOMEMLIMIT in the
// environment wins over the flag.
func TestMemoryLimitApplied(t *testing.T) {
	restoreMemoryLimit(t)
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	args := []string{"--trace", first50, "--policy", "fifo,fair"}
	code, plain, errOut := runCmd(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, limited, errOut := runCmd(append(args, "--memory-limit", "300MiB")...)
	if code != 0 {
		t.Fatalf("--memory-limit 300MiB: exit %d: %s", code, errOut)
	}
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("after --memory-limit 300MiB the runtime's limit is %d, want %d", got, 300<<20)
	}
	if limited != plain {
		t.Errorf("the table moved with --memory-limit:\n%s\nwithout:\n%s", limited, plain)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB") // read by applyMemoryLimit; the runtime read its own at start
	if code, _, errOut := runCmd(append(args, "--memory-limit", "300MiB")...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set, --memory-limit still set the limit to %d", got)
	}
}
