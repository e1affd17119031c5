package policy

import (
	"os"
	"strconv"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// BenchmarkHPFSPDecisions replays the first jobs of FB-2010 (all, or
// $TRACEREPLAY_BENCH_JOBS) through hpfsp on fb-3000 and on a loaded cluster,
// fb-600 cut to 4 racks (160 nodes, 640 map slots, where hundreds of jobs
// wait), without writing results, and reports the slot decisions (calls of
// the comparator) per run: with a CPU profile, the comparator's cumulative
// time over them is the cost per decision, e.g.
//
//	go test ./policy -run '^$' -bench 'HPFSPDecisions/fb-160$' -benchtime 1x -cpuprofile /tmp/cpu.out
//	go tool pprof -top -cum /tmp/cpu.out | grep -E 'choose|rebuild|settle'
func BenchmarkHPFSPDecisions(b *testing.B) {
	n := 1 << 30
	if s := os.Getenv("TRACEREPLAY_BENCH_JOBS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	tr := fb2010Prefix(b, n)
	loaded := sampleHardware(b, "fb-600.toml")
	loaded.Name, loaded.Racks = "fb-160", 4
	for _, hw := range []replay.Hardware{sampleHardware(b, "fb-3000.toml"), loaded} {
		b.Run(hw.Name, func(b *testing.B) {
			var decisions, events int64
			for b.Loop() {
				w, _ := newWorkload(b, hw, tr, 1)
				h := newPolicy(b, "hpfsp").(*HPFSP)
				hpfspCountDecisions(h, &decisions)
				res := runPolicy(b, w, h, replay.Options{Seed: 1})
				events += res.Summary.Events
			}
			b.ReportMetric(float64(decisions)/float64(b.N), "decisions/op")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}
