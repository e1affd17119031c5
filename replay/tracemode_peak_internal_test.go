package replay

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/trace"
)

// sortedPeakUse is peakUse as it was before it swept chunks through a heap
// (h-tracestream): every key's edges held, sorted, then summed.
func sortedPeakUse[K comparable](tr *trace.Trace, use func(jobID, taskID, host string, typ trace.TaskType) (K, Resource, bool)) map[K]Resource {
	type edge struct {
		t   int64
		end bool
		w   Resource
	}
	per := map[K][]edge{}
	eachUse(tr, func(u *slotUse) {
		if !u.held() {
			return
		}
		if k, w, ok := use(u.jobID, u.taskID, u.host, u.typ); ok {
			per[k] = append(per[k], edge{u.start, false, w}, edge{u.finish, true, w})
		}
	})
	out := make(map[K]Resource, len(per))
	for k, e := range per {
		slices.SortFunc(e, func(a, b edge) int {
			if c := cmp.Compare(a.t, b.t); c != 0 || a.end == b.end {
				return c
			}
			if a.end {
				return -1
			}
			return 1
		})
		var run, peak Resource
		for _, x := range e {
			if x.end {
				run = run.Sub(x.w)
			} else {
				run = run.Add(x.w)
			}
			peak = Resource{max(peak.MemoryMB, run.MemoryMB), max(peak.VCores, run.VCores)}
		}
		out[k] = peak
	}
	return out
}

// TestPeakUseAsSorted: peakUse's sweep gives the peaks of the sort of every
// edge on random attempts in any order (not by time: starts far before the
// chunks before them, negative and empty intervals, hostless attempts, many
// ties at one instant, weights of 0 and more in two dimensions), drained
// after every 1, 2, 5, 64 and useChunk attempts, with and without attempts
// (the tasks' then).
func TestPeakUseAsSorted(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 2026))
	slotKey := func(_, taskID, host string, typ trace.TaskType) ([2]string, Resource, bool) {
		if typ == trace.Map {
			return [2]string{host, "m"}, Resource{MemoryMB: 1}, true
		}
		return [2]string{host, "r"}, Resource{MemoryMB: 1}, true
	}
	weights := map[string]Resource{}
	sized := func(jobID, _, host string, typ trace.TaskType) (string, Resource, bool) {
		w, ok := weights[jobID]
		if typ == trace.Reduce {
			w.MemoryMB *= 2
		}
		return host, w, ok && typ != trace.Cleanup
	}
	for trial := range 300 {
		tr := &trace.Trace{}
		n := 1 + rng.IntN(400)
		span := int64(1 + rng.IntN(300))
		for i := range n {
			job := fmt.Sprintf("j%d", i/(1+rng.IntN(9)))
			if _, ok := weights[job]; !ok && rng.IntN(8) > 0 {
				weights[job] = Resource{int64(rng.IntN(4)), int64(rng.IntN(3))}
			}
			typ := []trace.TaskType{trace.Map, trace.Reduce, trace.Cleanup}[rng.IntN(3)]
			start := int64(i)*span/int64(n) + int64(rng.IntN(20)) - 5
			if rng.IntN(50) == 0 {
				start = int64(rng.IntN(int(span))) // far out of order
			}
			finish := start + int64(rng.IntN(40)) - 2
			host := fmt.Sprintf("h%d", rng.IntN(5))
			if rng.IntN(30) == 0 {
				host = ""
			}
			a := trace.NewAttempt(job, fmt.Sprintf("t%d", i), fmt.Sprintf("a%d", i), typ)
			a.Host, a.StartMs, a.FinishMs = host, start, finish
			tr.Attempts = append(tr.Attempts, a)
			k := trace.NewTask(job, fmt.Sprintf("t%d", i), typ, int32(i))
			k.Host, k.StartMs, k.FinishMs = host, start, finish+int64(rng.IntN(3))
			tr.Tasks = append(tr.Tasks, k)
		}
		for _, attempts := range []bool{true, false} {
			if !attempts {
				tr.Attempts = nil
			}
			wantSlots, wantSized := sortedPeakUse(tr, slotKey), sortedPeakUse(tr, sized)
			for _, chunk := range []int{1, 2, 5, 64, useChunk} {
				gotSlots, err := peakUse(tr, chunk, slotKey)
				if err != nil || !reflect.DeepEqual(gotSlots, wantSlots) {
					t.Fatalf("trial %d (attempts %v), chunk %d: slot peaks %v %v, want %v", trial, attempts, chunk, gotSlots, err, wantSlots)
				}
				gotSized, err := peakUse(tr, chunk, sized)
				if err != nil || !reflect.DeepEqual(gotSized, wantSized) {
					t.Fatalf("trial %d (attempts %v), chunk %d: sized peaks %v %v, want %v", trial, attempts, chunk, gotSized, err, wantSized)
				}
			}
		}
	}
}

// TestPeakUseHoldsTheActive: the sweep of a trace in submit order holds the
// edges of the attempts under way, not the trace's: on n jobs of 100
// attempts, one job every 10 s, each attempt 0 to 30 s from its job's
// submit (a job's attempts overlap its next two jobs'), the most edges its
// heap holds is the same for 1,000 and 4,000 jobs (the fast lane: 250 and
// 1,000), and at most a chunk's
// edges and three jobs' (those under way). Draining only at the end (the
// sort's memory) holds every edge.
func TestPeakUseHoldsTheActive(t *testing.T) {
	t.Parallel()
	steady := func(n int) *trace.Trace {
		tr := &trace.Trace{Attempts: make([]trace.Attempt, 0, 100*n)}
		for k := range n {
			job := fmt.Sprintf("job%05d", k)
			for i := range 100 {
				a := trace.NewAttempt(job, fmt.Sprintf("%s_t%d", job, i), fmt.Sprintf("%s_a%d", job, i), trace.Map)
				a.Host = fmt.Sprintf("h%d", (k+i)%20)
				a.StartMs = int64(k)*10_000 + int64(i%10)*2000
				a.FinishMs = a.StartMs + 10_000
				tr.Attempts = append(tr.Attempts, a)
			}
		}
		return tr
	}
	key := func(_, _, host string, _ trace.TaskType) (string, Resource, bool) {
		return host, Resource{MemoryMB: 1}, true
	}
	sizes := []int{1000, 4000}
	if testgate.IsFast() {
		sizes = []int{250, 1000} // still 25 and 98 chunks of useChunk attempts
	}
	var held []int
	for _, n := range sizes {
		peaks, most, err := sweepPeaks(steady(n), useChunk, key)
		if err != nil || len(peaks) != 20 {
			t.Fatal(len(peaks), err)
		}
		held = append(held, most)
	}
	bound := 2*useChunk + 3*2*100
	t.Logf("most edges held: %d for %d jobs, %d for %d (%d and %d attempts)", held[0], sizes[0], held[1], sizes[1], 100*sizes[0], 100*sizes[1])
	if held[0] != held[1] || held[1] > bound {
		t.Errorf("most edges held %v: want the same, at most %d, for %d and %d jobs", held, bound, sizes[0], sizes[1])
	}
}
