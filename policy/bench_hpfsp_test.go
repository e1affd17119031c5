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
			hw := sampleHardware(b, "hpfsp-sim.toml")
			tr := generate(b, "synthetic", trace.GenParams{"jobs": int64(50), "interarrival_s": 300.0,
				"maps_mean": int64(200), "map_time": "normal", "map_time_mean_s": 600.0, "map_time_sd_s": 134.16}, 1)
			for b.Loop() {
				w, _ := newWorkload(b, hw, tr, 1)
				runPolicy(b, w, newPolicy(b, spec), replay.Options{Seed: 1})
			}
		})
	}
}
