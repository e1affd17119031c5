package policy

import (
	"os"
	"strconv"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testtraces"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// fb2010Prefix reads the first n jobs of the shared FB-2010 SWIM trace (from
// $TRACEREPLAY_TRACES/swim, else shared/traces/swim beside the repository or
// a worktree's parent), or skips.
func fb2010Prefix(tb testing.TB, n int) *trace.Trace {
	tb.Helper()
	tr := testtraces.SWIM(tb, "FB-2010_samples_24_times_1hr_0.tsv")
	if n < len(tr.Jobs) {
		tr.Jobs = tr.Jobs[:n]
	}
	return tr
}

// BenchmarkPolicyFB2010Prefix replays the first jobs of FB-2010 (1,500, or
// $TRACEREPLAY_BENCH_JOBS) on fb-3000 through Coupling and H-PFSP, without
// writing results: the policies' share of a run, for profiles, e.g.
//
//	go test ./policy -run '^$' -bench 'PolicyFB2010Prefix/coupling$' -benchtime 1x -cpuprofile /tmp/cpu.out
func BenchmarkPolicyFB2010Prefix(b *testing.B) {
	n := 1500
	if s := os.Getenv("TRACEREPLAY_BENCH_JOBS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	tr := fb2010Prefix(b, n)
	hw := sampleHardware(b, "fb-3000.toml")
	for _, spec := range []string{"coupling", "hpfsp"} {
		b.Run(spec, func(b *testing.B) {
			var events, tasks int64
			for b.Loop() {
				w, _ := newWorkload(b, hw, tr, 1)
				res := runPolicy(b, w, newPolicy(b, spec), replay.Options{Seed: 1})
				events += res.Summary.Events
				tasks += res.Summary.Maps + res.Summary.Reduces
			}
			b.ReportMetric(float64(events)/float64(tasks), "events/task")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}
