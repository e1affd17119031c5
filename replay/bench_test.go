package replay_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/internal/testtraces"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// sharedTrace reads a SWIM trace of ../shared/traces (internal/testtraces), or
// skips.
func sharedTrace(b testing.TB, name string) *trace.Trace {
	b.Helper()
	return testtraces.SWIM(b, name)
}

func loadHardware(b testing.TB, name string) replay.Hardware {
	b.Helper()
	hw, err := replay.LoadHardware(filepath.Join("..", "samples", "hardware", name))
	if err != nil {
		b.Fatal(err)
	}
	return hw
}

// heapPeak samples the Go heap in use every few milliseconds while a benchmark
// runs and keeps the largest value: the heap's high-water mark including garbage
// not yet collected, which is what the process's resident memory follows.
type heapPeak struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			h.peak = max(h.peak, ms.HeapInuse)
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// end stops the sampling and returns the peak in bytes.
func (h *heapPeak) end() uint64 {
	close(h.stop)
	h.done.Wait()
	return h.peak
}

// benchReplay replays tr through each policy b.N times as replay --out does by
// default (timeline sampled, results streamed to Parquet files in a temporary
// directory and completed by WriteRun) and reports simulator events per task,
// ns per event, heap allocations per task and the peak heap in use (MB) during
// the replays. Workload construction and writing are inside the timed loop:
// they are part of a run.
func benchReplay(b *testing.B, tr *trace.Trace, hw replay.Hardware, policies []string) {
	for _, name := range policies {
		b.Run(name, func(b *testing.B) {
			var tasks, events int64
			var before, after runtime.MemStats
			b.ReportAllocs()
			runtime.GC()
			runtime.ReadMemStats(&before)
			peak := startHeapPeak()
			for i := range b.N {
				topo := replay.NewTopology(&hw, 1)
				w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				p, err := policy.New(name)
				if err != nil {
					b.Fatal(err)
				}
				dir := filepath.Join(b.TempDir(), strconv.Itoa(i))
				out, err := replay.NewRunWriter(dir)
				if err != nil {
					b.Fatal(err)
				}
				res, err := replay.Run(w, p, replay.Options{Seed: 1, Timeline: true, Out: out})
				if err != nil {
					b.Fatal(err)
				}
				if err := replay.WriteRun(dir, res, nil); err != nil {
					b.Fatal(err)
				}
				tasks += res.Summary.Maps + res.Summary.Reduces
				events += res.Summary.Events
			}
			sec := b.Elapsed().Seconds()
			peakMB := float64(peak.end()) / 1e6
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(tasks), "allocs/task")
			b.ReportMetric(sec*1e9/float64(events), "ns/event")
			b.ReportMetric(float64(events)/float64(tasks), "events/task")
			b.ReportMetric(float64(tasks)/float64(b.N), "tasks/op")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
			b.ReportMetric(peakMB, "peak-heap-MB")
		})
	}
}

// BenchmarkReplay replays the two SWIM Facebook traces through every policy of
// "--policy all": FB-2009 (5,894 jobs) on the 600-node model and FB-2010 (24,442
// jobs, 8.5 M tasks) on the 3,000-node model. An FB-2010 row takes tens of CPU
// seconds: run those one at a time with -benchtime=1x, e.g.
//
//	go test ./replay -run '^$' -bench 'Replay/FB-2010/fair$' -benchtime 1x
func BenchmarkReplay(b *testing.B) {
	b.Run("FB-2009", func(b *testing.B) {
		tr := sharedTrace(b, "FB-2009_samples_24_times_1hr_0.tsv")
		benchReplay(b, tr, loadHardware(b, "fb-600.toml"), policy.All())
	})
	b.Run("FB-2010", func(b *testing.B) {
		tr := sharedTrace(b, "FB-2010_samples_24_times_1hr_0.tsv")
		benchReplay(b, tr, loadHardware(b, "fb-3000.toml"), policy.All())
	})
}

// BenchmarkReplayLifecycle replays the two SWIM Facebook traces (FB-2009 on
// fb-600, FB-2010 on fb-3000) through fifo with the job lifecycle off
// (the models as bundled), on (lifecycle = true: init workers, setup and
// cleanup tasks, completions reported at the next heartbeat), and on with
// Hadoop's and LATE's speculative execution (speculation = "hadoop", "late").
// FB-2010 rows take tens of CPU seconds each: run them one at a time, e.g.
//
//	go test ./replay -run '^$' -bench 'ReplayLifecycle/FB-2010/on$' -benchtime 1x
func BenchmarkReplayLifecycle(b *testing.B) {
	for _, c := range []struct{ name, file, hw string }{
		{"FB-2009", "FB-2009_samples_24_times_1hr_0.tsv", "fb-600.toml"},
		{"FB-2010", "FB-2010_samples_24_times_1hr_0.tsv", "fb-3000.toml"},
	} {
		b.Run(c.name, func(b *testing.B) {
			tr := sharedTrace(b, c.file)
			for _, v := range []struct {
				name      string
				lifecycle bool
				spec      string
			}{{"off", false, "none"}, {"on", true, "none"}, {"on-hadoop", true, "hadoop"}, {"on-late", true, "late"}} {
				hw := loadHardware(b, c.hw)
				hw.Lifecycle, hw.Speculation = v.lifecycle, v.spec
				b.Run(v.name, func(b *testing.B) { benchReplay(b, tr, hw, []string{"fifo"}) })
			}
		})
	}
}

// BenchmarkEventKinds replays FB-2010 on fb-3000 (FB-2009 on fb-600 with
// -short) through fair and fifo once each, counting the simulator's events by
// kind and what its heartbeats did, and logs the counts (go test -v): where
// the events go (docs/performance.md, "Heartbeats"). The every-heartbeat rows
// handle every heartbeat, cancelling none, as the engine did before
// (heartbeats.go): the same results with more events. With
// TRACEREPLAY_LIFECYCLE=1 the hardware has the job lifecycle on.
//
//	go test ./replay -run '^$' -bench 'EventKinds/fair' -benchtime 1x -v
//	TRACEREPLAY_LIFECYCLE=1 go test ./replay -run '^$' -bench 'EventKinds/fair$' -benchtime 1x -v
func BenchmarkEventKinds(b *testing.B) {
	file, hwName := "FB-2010_samples_24_times_1hr_0.tsv", "fb-3000.toml"
	if testgate.IsFast() {
		file, hwName = "FB-2009_samples_24_times_1hr_0.tsv", "fb-600.toml"
	}
	tr := sharedTrace(b, file)
	hw := loadHardware(b, hwName)
	hw.Lifecycle = os.Getenv("TRACEREPLAY_LIFECYCLE") == "1"
	for _, name := range []string{"fair", "fifo"} {
		for _, all := range []bool{false, true} {
			row := name
			if all {
				row += "/every-heartbeat"
			}
			b.Run(row, func(b *testing.B) {
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
					opt := replay.Options{Seed: 1, Timeline: true}
					st := replay.CountEvents(&opt)
					if all {
						replay.QueueAllHeartbeats(&opt)
					}
					res, err := replay.Run(w, p, opt)
					if err != nil {
						b.Fatal(err)
					}
					tasks := res.Summary.Maps + res.Summary.Reduces
					b.Logf("%s, %d tasks, %d events:\n%s", row, tasks, res.Summary.Events, st.Report(tasks))
					b.ReportMetric(float64(res.Summary.Events)/float64(tasks), "events/task")
				}
			})
		}
	}
}
