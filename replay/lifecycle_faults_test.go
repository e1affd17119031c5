package replay

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPickSpeculative: four maps of one job, each running for 100 s, of
// durations 600, 1000, 110 and 120 s. Their progress is 0.17, 0.10, 0.91 and
// 0.83, the job's average 0.50. Hadoop 1 speculates the first map more than
// 0.2 behind the average after 60 s: map 0. LATE's slow tasks are those whose
// progress rate is at most the 25th percentile (the 2nd smallest of 4,
// 1/600 per s: maps 0 and 1), and it picks the one with the longest time left,
// map 1 (900 s against 500 s) — the case LATE was made for.
func TestPickSpeculative(t *testing.T) {
	const s = 1_000_000
	mk := func() []specCand {
		c := []specCand{
			{task: 0, elapsedUs: 100 * s, durationUs: 600 * s},
			{task: 1, elapsedUs: 100 * s, durationUs: 1000 * s},
			{task: 2, elapsedUs: 100 * s, durationUs: 110 * s},
			{task: 3, elapsedUs: 100 * s, durationUs: 120 * s},
		}
		var sum float64
		for i := range c {
			sum += c[i].progress()
		}
		for i := range c {
			c[i].jobAvg = sum / 4
		}
		return c
	}
	if got := pickSpeculative("hadoop", mk()); got != 0 {
		t.Errorf("hadoop picks %d, want 0", got)
	}
	if got := pickSpeculative("late", mk()); got != 1 {
		t.Errorf("late picks %d, want 1", got)
	}
	if got := pickSpeculative("none", mk()); got != -1 {
		t.Errorf("none picks %d", got)
	}
	// Before 60 s Hadoop speculates nothing; LATE has no such lag.
	young := mk()
	for i := range young {
		young[i].elapsedUs = 50 * s
	}
	if got := pickSpeculative("hadoop", young); got != -1 {
		t.Errorf("hadoop picks %d after 50 s, want none", got)
	}
}

// TestKthSmallest: the selection LATE's threshold uses gives what a sorted
// copy holds at index k, ties and repeated values included.
func TestKthSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 60; n++ {
		for range 20 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(rng.IntN(max(n/3, 1)))
			}
			sorted := slices.Clone(a)
			slices.Sort(sorted)
			for k := range n {
				if got := kthSmallest(slices.Clone(a), k); got != sorted[k] {
					t.Fatalf("kthSmallest(%v, %d) = %v, want %v", a, k, got, sorted[k])
				}
			}
		}
	}
}

// TestFaultsUs: no faults leave the duration; failures only add (at most three
// retries of at most the full duration); straggler factors are at least 1 and
// at most 100; the draws are reproducible.
func TestFaultsUs(t *testing.T) {
	h := DefaultHardware()
	if got, _ := h.faultsUs(rand.New(rand.NewPCG(1, 1)), 1000, defaultMaxAttempts, false); got != 1000 {
		t.Errorf("no faults: %d", got)
	}
	h.AttemptFailureRate, h.StragglerFraction = 0.5, 0.5
	r1, r2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	var stretched, failed int
	for range 2000 {
		a, _ := h.faultsUs(r1, 1000, defaultMaxAttempts, false)
		b, _ := h.faultsUs(r2, 1000, defaultMaxAttempts, false)
		if a != b {
			t.Fatal("draws differ for the same seed")
		}
		if a < 1000 || a > 100*1000*defaultMaxAttempts {
			t.Fatalf("duration %d out of range", a)
		}
		if a > 1000 {
			stretched++
		}
		if a > 1000 && a <= 4000 {
			failed++
		}
	}
	if stretched < 1000 || failed == 0 {
		t.Errorf("%d of 2000 stretched, %d failed-only looking", stretched, failed)
	}
}

// TestHardwareJSONWithoutLifecycle: a model with the lifecycle keys at their
// defaults encodes (FieldJSON, the frozen format) without them (results of runs that do not use them keep
// their bytes); changing any of them writes them all.
func TestHardwareJSONWithoutLifecycle(t *testing.T) {
	h := DefaultHardware()
	b, err := h.FieldJSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Lifecycle") || strings.Contains(string(b), "Speculation") || !strings.HasSuffix(string(b), `"Layout":null}`) {
		t.Errorf("default model JSON has lifecycle keys or lost its end: %s", b)
	}
	h.ParallelCopies = 7
	b, _ = h.FieldJSON()
	if !strings.Contains(string(b), `"Lifecycle":false,"JobInitThreads":4`) || !strings.Contains(string(b), `"ParallelCopies":7`) {
		t.Errorf("changed model JSON: %s", b)
	}
	var back Hardware
	if err := json.Unmarshal(b, &back); err != nil || back.ParallelCopies != 7 || back.SetupTask != h.SetupTask {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

// faultsUs (a test helper) returns a task of duration d's straggler-stretched duration plus the
// time of its failed attempts, drawn from rng, for a task of maxA attempts.
// When canFail is set and its every attempt fails, it returns the time of
// those failed attempts and failed (the task fails, jobfail.go); otherwise
// its last attempt succeeds. The draws are those of a task whose last
// attempt always succeeds, plus one for the last attempt when every earlier
// one failed.
func (h *Hardware) faultsUs(rng *rand.Rand, d int64, maxA int32, canFail bool) (total int64, failed bool) {
	f := h.drawFaults(rng, d, maxA, canFail)
	if f.failed {
		return f.failedUs, true
	}
	return f.stretchedUs + f.failedUs, false
}
