package trace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// TestGeneratedAtLimitMemory (issue 10, item 6c): a trace generated at
// MaxGenTasks and written as ingest --generate writes it stays under 1 GB of
// Go memory (heap, stacks and runtime, less what was returned to the system,
// sampled every 5 ms) under GenerateMemoryLimit, as ingest runs it, and that
// its live heap stays under 3/4 of that limit. At the former limit of
// 2,000,000 tasks ingest peaked at 1.7-2.05 GB.
func TestGeneratedAtLimitMemory(t *testing.T) {
	testgate.Require(t, testgate.Full, "generates and writes 800,000 tasks (about 5 s and 800 MB)")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(GenerateMemoryLimit))
	runtime.GC()
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var peak, live uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			peak = max(peak, samples[0].Value.Uint64()-samples[1].Value.Uint64())
			live = max(live, samples[2].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	tr, err := Synthetic().Generate(GenParams{"jobs": int64(MaxGenTasks / 100), "maps_mean": 90.0, "reduces_mean": 10.0}, 1)
	if err == nil {
		if len(tr.Tasks) != MaxGenTasks {
			t.Errorf("%d tasks, want %d", len(tr.Tasks), MaxGenTasks)
		}
		err = WriteFiles(t.TempDir(), tr)
	}
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tasks: peak %.0f MB, live heap %.0f MB", MaxGenTasks, float64(peak)/1e6, float64(live)/1e6)
	if live > GenerateMemoryLimit*3/4 {
		t.Errorf("generating and writing %d tasks holds %.0f MB live, more than 3/4 of GenerateMemoryLimit (%d MiB): the collector would run almost back to back", MaxGenTasks, float64(live)/1e6, GenerateMemoryLimit>>20)
	}
	if peak > 1e9 {
		t.Errorf("generating and writing %d tasks peaks at %.0f MB, more than 1 GB", MaxGenTasks, float64(peak)/1e6)
	}
}
