package replay_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// steadyAttemptTrace is steadyTaskTrace(n) with attempts: each task's
// successful attempt, and for every tenth task a failed attempt before it.
func steadyAttemptTrace(n int) *trace.Trace {
	tr := steadyTaskTrace(n)
	submit := map[string]int64{}
	for i := range tr.Jobs {
		submit[tr.Jobs[i].ID] = tr.Jobs[i].SubmitMs
	}
	for i := range tr.Tasks {
		k := &tr.Tasks[i]
		s := submit[k.JobID] + 1000
		if i%10 == 0 {
			a := trace.NewAttempt(k.JobID, k.TaskID, k.TaskID+"_0", k.Type)
			a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusFailed, s, s+2000, "h1"
			tr.Attempts = append(tr.Attempts, a)
			s += 3000
		}
		a := trace.NewAttempt(k.JobID, k.TaskID, k.TaskID+"_1", k.Type)
		a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusSucceeded, s, s+10_000, "h2"
		tr.Attempts = append(tr.Attempts, a)
	}
	return tr
}

// TestStreamedAttemptsPeakHeapFlat: a trace directory with tasks and
// attempts, opened as replay opens it with --hardware (trace.OpenTaskStream
// with StreamOptions.Attempts) and replayed with the lifecycle (model mode:
// the recorded failures, read job by job) at a constant load with its
// results streamed, peaks at about the same live heap whether it holds
// 48,400 or 96,800 attempts (1,000 or 2,000 jobs of 44 tasks): the peak
// above the heap before the trace was opened, sampled at every 16th
// finished job and when the run returns, may grow by at most 20%. What does
// grow is the recorded failures, one entry per task with a failed attempt
// (4,400 more here). In its own process, each size twice with the smaller
// peak kept, as TestStreamedTasksPeakHeapFlat.
func TestStreamedAttemptsPeakHeapFlat(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays 6,000 jobs of 44 tasks and their attempts")
	if !inOwnProcess(t, "TRACEREPLAY_ATTEMPTHEAP_CHILD") {
		return
	}

	hw, err := replay.ParseHardware([]byte(`
racks = 2
nodes_per_rack = 10
map_slots = 4
reduce_slots = 2
timeline_sample = "10s"
lifecycle = true
task_times = "model"
`))
	if err != nil {
		t.Fatal(err)
	}
	peak := func(dir string, jobs int) uint64 {
		runtime.GC() // the previous run's pooled buffers survive one collection
		base := liveHeap()
		tr, ok, err := trace.OpenTaskStream(dir, trace.StreamOptions{Attempts: true})
		if err != nil || !ok || tr.Stream.NumAttempts() != 44*jobs+44*jobs/10 {
			t.Fatal(ok, err)
		}
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := policy.New("fair")
		if err != nil {
			t.Fatal(err)
		}
		out, err := replay.NewRunWriter(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		replay.SetRowGroup(out, 1024)
		probe := &heapProbe{Policy: p, every: 16}
		res, err := replay.Run(w, probe, replay.Options{Seed: 1, Timeline: true, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		probe.peak = max(probe.peak, liveHeap())

		if res.Summary.Jobs != jobs || res.Summary.Maps != int64(40*jobs) {
			t.Fatalf("%d jobs and %d maps done, want %d and %d", res.Summary.Jobs, res.Summary.Maps, jobs, 40*jobs)
		}
		out.Abort()
		runtime.KeepAlive(w)
		return probe.peak - min(base, probe.peak)
	}
	smaller := func(n int) uint64 {
		dir := filepath.Join(t.TempDir(), "trace")
		if err := trace.Write(dir, steadyAttemptTrace(n)); err != nil {
			t.Fatal(err)
		}
		return min(peak(dir, n), peak(dir, n))
	}
	p1, p2 := smaller(1000), smaller(2000)
	t.Logf("peak live heap above the start: %d attempts %.2f MB, %d attempts %.2f MB", 48_400, float64(p1)/1e6, 96_800, float64(p2)/1e6)
	if float64(p2) > 1.2*float64(p1) {
		t.Errorf("peak heap grew from %d to %d bytes (%.0f%%) when the trace's attempts doubled at constant load",
			p1, p2, 100*(float64(p2)/float64(p1)-1))
	}
}
