package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/replay"
)

// TestAdaptiveLimitFor: the limit is the base while 5/4 of the live heap and
// the memory outside it fit under it, and 5/4 of the live heap plus that
// memory above.
func TestAdaptiveLimitFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ base, live, nonHeap, want int64 }{
		{256 * mib, 0, 0, 256 * mib},
		{256 * mib, 160 * mib, 10 * mib, 256 * mib},
		{256 * mib, 196 * mib, 11 * mib, 256 * mib},
		{256 * mib, 200 * mib, 10 * mib, 260 * mib},
		{256 * mib, 400 * mib, 12 * mib, 512 * mib},
		{16 * mib, 64 * mib, 0, 80 * mib},
		{16 * mib, 3, 0, 16 * mib},
		{0, 7, 1, 9},
	} {
		if got := adaptiveLimitFor(c.base, c.live, c.nonHeap); got != c.want {
			t.Errorf("adaptiveLimitFor(%d, %d, %d) = %d, want %d", c.base, c.live, c.nonHeap, got, c.want)
		}
	}
}

// TestWantAdaptiveLimit: only a run with a flow cell gets the adaptive
// limit, and --memory-limit (off included), GOMEMLIMIT or GOGC take it away.
func TestWantAdaptiveLimit(t *testing.T) {
	flow := replay.Cell{Hardware: replay.Hardware{Network: replay.NetworkFlow}}
	fixed := replay.Cell{Hardware: replay.Hardware{Network: replay.NetworkFixed}}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name    string
		cells   []replay.Cell
		flagSet bool
		getenv  func(string) string
		want    bool
	}{
		{"flow", []replay.Cell{flow}, false, env(), true},
		{"fixed then flow", []replay.Cell{fixed, flow}, false, env(), true},
		{"fixed", []replay.Cell{fixed, {}}, false, env(), false},
		{"none", nil, false, env(), false},
		{"flag", []replay.Cell{flow}, true, env(), false},
		{"GOMEMLIMIT", []replay.Cell{flow}, false, env("GOMEMLIMIT", "1GiB"), false},
		{"GOGC", []replay.Cell{flow}, false, env("GOGC", "100"), false},
		{"other env", []replay.Cell{flow}, false, env("GODEBUG", "gctrace=1"), true},
	} {
		if got := wantAdaptiveLimit(c.cells, c.flagSet, c.getenv); got != c.want {
			t.Errorf("%s: wantAdaptiveLimit = %v, want %v", c.name, got, c.want)
		}
	}
}

// gcCycles is the runtime's count of finished collections.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitCycles waits until a has seen more than n collections.
func waitCycles(t *testing.T, a *adaptiveLimit, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, c := a.state(); c > n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no collection seen after %d in 10 s", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// liveSink keeps the test's live heap reachable (a test's local variable
// might be found dead before its last use).
type liveSink struct{ chunks [][]byte }

// TestAdaptiveLimitFollowsLiveHeap: with a base far under the live heap
// (16 MiB against 64 MiB live), the limit rises after a collection to at
// least 5/4 of the live heap, so allocating 256 MiB of garbage takes about
// 16 collections or fewer, not the 27-36 a fixed 16 MiB limit gave (the
// runtime's collector CPU cap bounds those); it keeps adapting after the
// first; stop puts the runtime's limit back and adapts no more.
func TestAdaptiveLimitFollowsLiveHeap(t *testing.T) {
	if strings.Contains(strings.ReplaceAll(os.Getenv("GOGC"), " ", ""), "off") {
		t.Skip("GOGC=off")
	}
	restoreMemoryLimit(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	debug.SetMemoryLimit(math.MaxInt64)
	const mib = 1 << 20
	sink := &liveSink{}
	for range 64 {
		sink.chunks = append(sink.chunks, make([]byte, mib))
	}
	a := startAdaptiveLimit(16 * mib)
	// A failed wait below must not leave the limiter adapting the
	// runtime's limit under the package's later tests (stop twice is
	// harmless: it only puts the found limit back again).
	defer a.stop()
	if got := debug.SetMemoryLimit(-1); got != 16*mib {
		t.Fatalf("after start the runtime's limit is %d, want %d", got, 16*mib)
	}
	_, seen := a.state()
	runtime.GC()
	waitCycles(t, a, seen)
	limit, _ := a.state()
	if limit < 80*mib {
		t.Errorf("with 64 MiB live the limit is %d, want at least 80 MiB", limit)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("the runtime's limit is %d, the adaptive limit says %d", got, limit)
	}

	before := gcCycles()
	var garbage []byte
	for range 256 {
		garbage = make([]byte, mib)
	}
	_ = garbage
	n := gcCycles() - before
	// Re-armed: it sees a collection after the first. Under load the
	// first finalizer may run only after the allocations' collections, so
	// one more is forced for the re-armed sentinel.
	runtime.GC()
	waitCycles(t, a, seen+1)
	t.Logf("256 MiB allocated with 64 MiB live: %d collections, limit %d MiB", n, limit/mib)
	if n > 22 {
		t.Errorf("256 MiB allocated with 64 MiB live took %d collections, want at most 22 (16 with a quarter of the live heap, 16 MiB, between them; a fixed 16 MiB limit gave 27-36)", n)
	}

	a.stop()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after stop the runtime's limit is %d, want the %d found at start", got, int64(math.MaxInt64))
	}
	runtime.GC()
	time.Sleep(20 * time.Millisecond) // let a stray finalizer run
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("a collection after stop set the runtime's limit to %d", got)
	}
	runtime.KeepAlive(sink)
}

// limitWriter records the runtime's soft memory limit at each write (the
// summary table is written while the run's limit is in force).
type limitWriter struct {
	bytes.Buffer
	limits []int64
}

func (w *limitWriter) Write(p []byte) (int, error) {
	w.limits = append(w.limits, debug.SetMemoryLimit(-1))
	return w.Buffer.Write(p)
}

// WriteString is Write's (bytes.Buffer's own would not record).
func (w *limitWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// TestFlowRunAdaptiveLimit: a run under the flow model holds the adaptive
// limit (its base, on 50 jobs) while it runs and puts the limit back when it
// ends; its table is the one with the collector left alone (GOGC set); a
// fixed run, --memory-limit off and GOGC leave the limit alone.
func TestFlowRunAdaptiveLimit(t *testing.T) {
	restoreMemoryLimit(t)
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	runLimits := func(args ...string) (string, []int64) {
		t.Helper()
		var out limitWriter
		var errOut bytes.Buffer
		if code := run(context.Background(), append([]string{"--trace", first50, "--policy", "fifo,fair"}, args...), strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("%v: after the run the limit is %d, want it put back", args, got)
			debug.SetMemoryLimit(math.MaxInt64)
		}
		return out.String(), out.limits
	}
	table, limits := runLimits("--set", "network=flow")
	if len(limits) == 0 || limits[0] != flowLimitBase {
		t.Errorf("under flow the limit while the table is written is %v, want %d", limits, flowLimitBase)
	}
	for _, args := range [][]string{{"--set", "network=fixed"}, {"--set", "network=flow", "--memory-limit", "off"}} {
		if _, limits := runLimits(args...); len(limits) == 0 || limits[0] != math.MaxInt64 {
			t.Errorf("%v: the limit while the table is written is %v, want it left alone", args, limits)
		}
	}
	t.Setenv("GOGC", "100")
	plain, limits := runLimits("--set", "network=flow")
	if len(limits) == 0 || limits[0] != math.MaxInt64 {
		t.Errorf("with GOGC set the limit while the table is written is %v, want it left alone", limits)
	}
	if plain != table {
		t.Errorf("the table moved with the adaptive limit:\n%s\nwithout:\n%s", table, plain)
	}
}

// TestSweepAdaptiveLimit: replay sweep holds the adaptive limit while a
// shard with a flow cell runs, and --memory-limit off leaves the collector
// alone; the limit is put back either way.
func TestSweepAdaptiveLimit(t *testing.T) {
	restoreMemoryLimit(t)
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	dir := t.TempDir()
	hw, err := filepath.Abs("../../samples/hardware/fb-600.toml")
	if err != nil {
		t.Fatal(err)
	}
	spec := sweepSpecFile(t, dir, "1")
	body, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	body = append(body, []byte("[[hardware]]\nname = \"flow\"\npath = \""+hw+"\"\nset = { network = \"flow\" }\n")...)
	if err := os.WriteFile(spec, body, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		args []string
		want int64
	}{{nil, flowLimitBase}, {[]string{"--memory-limit", "off"}, math.MaxInt64}} {
		var out strings.Builder
		var errOut limitWriter
		args := append([]string{"sweep", "--experiment", spec, "--shard", "0/1", "--out", filepath.Join(dir, fmt.Sprint("out", i)), "--parallel", "1"}, c.args...)
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut.String())
		}
		if n := len(errOut.limits); n == 0 || errOut.limits[n-1] != c.want {
			t.Errorf("%v: the limit while the shard's last line is written is %v, want %d", c.args, errOut.limits, c.want)
		}
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("%v: after the sweep the limit is %d, want it put back", c.args, got)
			debug.SetMemoryLimit(math.MaxInt64)
		}
	}
}
