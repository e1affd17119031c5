// Package testgate is the one way the tests decide how much of the suite to
// run. There are three levels:
//
//	Fast   go test -short ./...                       the fast lane: unit tests, goldens, scenarios
//	Full   go test ./...                              everything CI runs: experiments, sweeps, figures
//	Repro  TRACEREPLAY_TESTS=repro go test ./...      the paper reproductions too, with their tables
//
// -short always selects Fast. Without it, the environment variable
// TRACEREPLAY_TESTS selects the level by name (fast, full or repro; unset is
// full). A slow test calls Require at its top, or asks Fast to shrink its work;
// no test reads -short, a build tag or its own environment variable to gate
// itself. Only test files import this package.
package testgate

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"testing"
)

// Level is how much of the suite runs.
type Level int

// The levels, each including the ones before it.
const (
	Fast  Level = iota // go test -short
	Full               // go test (the default)
	Repro              // TRACEREPLAY_TESTS=repro
)

// EnvVar is the environment variable that selects the level when -short is
// not given.
const EnvVar = "TRACEREPLAY_TESTS"

// String is the level's name, as EnvVar spells it.
func (l Level) String() string {
	switch l {
	case Fast:
		return "fast"
	case Full:
		return "full"
	case Repro:
		return "repro"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// parse reads EnvVar's value; "" is Full.
func parse(v string) (Level, error) {
	switch v {
	case "", "full":
		return Full, nil
	case "fast":
		return Fast, nil
	case "repro":
		return Repro, nil
	}
	return Full, fmt.Errorf("%s=%q: want fast, full or repro", EnvVar, v)
}

// Current returns the level this test binary runs at. An unknown value of
// EnvVar panics, so that a typing error does not silently run less.
func Current() Level {
	if testing.Short() {
		return Fast
	}
	l, err := parse(os.Getenv(EnvVar))
	if err != nil {
		panic(err)
	}
	return l
}

// Enabled reports whether tests of level l run.
func Enabled(l Level) bool { return Current() >= l }

// IsFast reports whether this is the fast lane, for tests that shrink their
// work (fewer seeds, a smaller input) rather than skip.
func IsFast() bool { return Current() == Fast }

// Require skips t unless tests of level l run; why says what the test costs
// ("replays 6,000 jobs").
func Require(t testing.TB, l Level, why string) {
	t.Helper()
	if !Enabled(l) {
		t.Skipf("%s level test (%s); runs at level %s, this is %s (%s)", l, why, l, Current(), hint(l))
	}
}

// hint says how to run a level.
func hint(l Level) string {
	if l == Repro {
		return EnvVar + "=repro go test"
	}
	return "go test without -short"
}

// Unavailable skips t because something it needs is missing (msg says what and
// how to install it), unless the environment has CI=true, where every optional
// tool must be installed and the test fails instead.
func Unavailable(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true requires every optional tool: " + msg)
	}
	t.Skip(msg)
}

// FastGCPercent is the collector's target (as GOGC gives it) that Main sets
// in the fast lane.
const FastGCPercent = 400

// Main runs a package's tests (call it from TestMain: os.Exit(testgate.Main(m))).
// In the fast lane, and unless $GOGC is set, the collector runs at
// GOGC=FastGCPercent instead of 100: the heap may grow to five times the live
// heap between collections, so a test binary that allocates much (replay's
// equivalence runs, trace's readers) collects a quarter as often. This moves
// no result a test checks: the tests that bound memory measure the live heap
// after runtime.GC (testheap.Live) or set their own percentage, and
// debug.SetGCPercent does not set $GOGC, which cmd/replay reads. The full
// suite keeps the runtime's default.
func Main(m *testing.M) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	if IsFast() && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(FastGCPercent)
	}
	return m.Run()
}
