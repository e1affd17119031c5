package replay_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// sharedTrace reads a SWIM trace from ../shared/traces/swim, or skips.
func sharedTrace(b testing.TB, name string) *trace.Trace {
	b.Helper()
	path := filepath.Join("..", "..", "shared", "traces", "swim", name)
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("shared trace not available: %v", err)
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(path, f, "auto", trace.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

func loadHardware(b testing.TB, name string) replay.Hardware {
	b.Helper()
	hw, err := replay.LoadHardware(filepath.Join("..", "samples", "hardware", name))
	if err != nil {
		b.Fatal(err)
	}
	return hw
}

// benchReplay replays tr through each policy b.N times and reports simulated task
// events (launches and finishes) per second, simulator events per task and heap
// allocations per task.
func benchReplay(b *testing.B, tr *trace.Trace, hw replay.Hardware, policies ...string) {
	for _, name := range policies {
		b.Run(name, func(b *testing.B) {
			var tasks, events int64
			var before, after runtime.MemStats
			b.ReportAllocs()
			runtime.ReadMemStats(&before)
			for range b.N {
				topo := replay.NewTopology(&hw, 1)
				w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				p, err := policy.New(name)
				if err != nil {
					b.Fatal(err)
				}
				res, err := replay.Run(w, p, replay.Options{Seed: 1, Timeline: true})
				if err != nil {
					b.Fatal(err)
				}
				tasks += res.Summary.Maps + res.Summary.Reduces
				events += res.Summary.Events
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(tasks), "allocs/task")
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(2*tasks)/sec, "task-events/s")
			b.ReportMetric(sec*1e9/float64(events), "ns/event")
			b.ReportMetric(float64(events)/float64(tasks), "events/task")
			b.ReportMetric(float64(tasks)/float64(b.N), "tasks/op")
		})
	}
}

// BenchmarkReplay is FB-2009 (5,894 jobs) on the 600-node model.
func BenchmarkReplay(b *testing.B) {
	tr := sharedTrace(b, "FB-2009_samples_24_times_1hr_0.tsv")
	benchReplay(b, tr, loadHardware(b, "fb-600.toml"), "fifo", "fair", "capacity")
}

// BenchmarkReplayFB2010 is the whole FB-2010 trace (24,442 jobs) through fair on
// the 3,000-node model: the 60 s / 2 GB budget.
func BenchmarkReplayFB2010(b *testing.B) {
	tr := sharedTrace(b, "FB-2010_samples_24_times_1hr_0.tsv")
	benchReplay(b, tr, loadHardware(b, "fb-3000.toml"), "fair")
}
