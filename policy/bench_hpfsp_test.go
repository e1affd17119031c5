package policy

import (
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// BenchmarkHPFSPFig4 replays the workload of H-PFSP Fig. 4 (50 jobs × 200 maps
// of 10 minutes, Poisson arrivals every 5 minutes, 30 slots).
func BenchmarkHPFSPFig4(b *testing.B) {
	for _, spec := range []string{"fair", "hpfsp:fair-limit=2"} {
		b.Run(spec, func(b *testing.B) {
			hw, err := replay.LoadHardware("../samples/hardware/hpfsp-sim.toml")
			if err != nil {
				b.Fatal(err)
			}
			tr, err := trace.Generate("synthetic", trace.GenParams{"jobs": int64(50), "interarrival_s": 300.0,
				"maps_mean": int64(200), "map_time": "normal", "map_time_mean_s": 600.0, "map_time_sd_s": 134.16}, 1)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				p, _ := New(spec)
				if _, err := replay.Run(w, p, replay.Options{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
