//go:build unix

package replay_test

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"slices"
	"syscall"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// processCPU is the CPU time this process has used (user + system, all
// threads), in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// prefix is a trace's first n jobs (SWIM traces have no task records).
func prefix(tr *trace.Trace, n int) *trace.Trace {
	p := *tr
	p.Jobs = tr.Jobs[:min(n, len(tr.Jobs))]
	return &p
}

// costRun replays tr once under the hardware's network model and returns the
// CPU time it took, its tasks and its result. With -flow-events it logs the
// run's events by kind (replay.CountEvents), flow ends by transfer kind.
//
// With stream the run writes its results as cmd/replay does with --out: rows
// streamed to Parquet files (in a temporary directory), the Result holding
// no job or timeline rows. Without it every row is kept in the Result, for
// callers that compare runs job by job: a cost a command never pays, the
// timeline's rows (a links.parquet row per loaded link every 10 s under
// flow, a node_net.parquet row per node with traffic) growing slices the
// collector scans. On FB-2010's first 3,000 jobs that made the flow run's
// CPU 17.2 µs a task under fair instead of 9.5 without a timeline, and the
// fixed run's under fifo 4.0 instead of 0.55 (docs/network-model.md, "The
// flow prefix benchmark, streamed").
func costRun(b *testing.B, tr *trace.Trace, hw replay.Hardware, pol string, stream bool) (int64, int64, *replay.Result) {
	b.Helper()
	cpu0 := processCPU()
	topo := replay.NewTopology(&hw, 1)
	w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := policy.New(pol)
	if err != nil {
		b.Fatal(err)
	}
	opt := replay.Options{Seed: 1, Timeline: true}
	dir := ""
	if stream {
		dir = b.TempDir()
		if opt.Out, err = replay.NewRunWriter(dir); err != nil {
			b.Fatal(err)
		}
	}
	var st *replay.EventStats
	if *flowEvents {
		st = replay.CountEvents(&opt)
	}
	res, err := replay.Run(w, p, opt)
	if err != nil {
		b.Fatal(err)
	}
	if stream {
		if err := replay.WriteRun(dir, res, nil); err != nil {
			b.Fatal(err)
		}
	}
	cpu, tasks := processCPU()-cpu0, res.Summary.Maps+res.Summary.Reduces
	if st != nil {
		b.Logf("%s under %s: %.2f CPU s, %d tasks, events by kind:\n%s", pol, hw.Network, float64(cpu)/1e9, tasks, st.Report(tasks))
	}
	return cpu, tasks, res
}

// flowEvents makes costRun count and log each run's events by kind.
var flowEvents = flag.Bool("flow-events", false, "BenchmarkFlowModel and the other cost benchmarks: log each run's events by kind")

// BenchmarkFlowModel replays a prefix of FB-2010 on fb-3000 under the fixed
// and the flow network models, one after the other in each op, and reports
// each one's CPU µs per task and their ratio (flow-cpu/fixed-cpu): issue 13's
// cost bound is a ratio of at most 3 on the whole trace
// (docs/network-model.md, "Cost in the engine"). Both runs stream their
// results to Parquet files as cmd/replay --out does (costRun). With -v it logs what the
// flow run did: events, transfers by kind, and the solver's counters.
// -flow-jobs sets the prefix (100 jobs by default), -flow-shuffle the flow
// run's flow_shuffle, -flow-update its flow_update.
//
//	go test ./replay -run '^$' -bench FlowModel -benchtime 1x -v -args -flow-jobs 300 -flow-shuffle batch -flow-update 1s
func BenchmarkFlowModel(b *testing.B) {
	tr := prefix(sharedTrace(b, "FB-2010_samples_24_times_1hr_0.tsv"), *flowModelJobs)
	for _, pol := range []string{"fifo", "fair"} {
		b.Run(pol, func(b *testing.B) {
			var fixedCPU, flowCPU, tasks int64
			for range b.N {
				hw := loadHardware(b, "fb-3000.toml")
				c, n, res := costRun(b, tr, hw, pol, true)
				fixedCPU += c
				b.Logf("fixed: %d events, %d tasks", res.Summary.Events, n)
				tasks += n
				hw.Network = replay.NetworkFlow
				if *flowShuffle != "" {
					hw.FlowShuffle = replay.FlowShuffleMode(*flowShuffle)
				}
				if *flowUpdate != "" {
					if err := hw.FlowUpdate.UnmarshalText([]byte(*flowUpdate)); err != nil {
						b.Fatal(err)
					}
				}
				if err := hw.Validate(); err != nil {
					b.Fatal(err)
				}
				c, _, res = costRun(b, tr, hw, pol, true)
				flowCPU += c
				logFlowCost(b, res)
			}
			b.ReportMetric(float64(fixedCPU)/1e3/float64(tasks), "fixed-cpu-µs/task")
			b.ReportMetric(float64(flowCPU)/1e3/float64(tasks), "flow-cpu-µs/task")
			b.ReportMetric(float64(flowCPU)/float64(fixedCPU), "flow/fixed")
		})
	}
}

// flowModelJobs is BenchmarkFlowModel's prefix of FB-2010.
var flowModelJobs = flag.Int("flow-jobs", 100, "BenchmarkFlowModel: the prefix of FB-2010 replayed, in jobs")

// flowShuffle is BenchmarkFlowModel's flow_shuffle (the hardware file's when empty).
var flowShuffle = flag.String("flow-shuffle", "", "BenchmarkFlowModel: flow_shuffle of the flow run (fetch or batch; empty: the hardware model's)")

// flowUpdate is BenchmarkFlowModel's flow_update (the hardware file's when empty).
var flowUpdate = flag.String("flow-update", "", "BenchmarkFlowModel: flow_update of the flow run (a duration such as 1s; empty: the hardware model's)")

// logFlowCost logs what a flow run did (replay.FlowCost).
func logFlowCost(b *testing.B, res *replay.Result) {
	b.Helper()
	c, ok := res.FlowCost()
	if !ok {
		b.Fatal("a flow run without FlowCost")
	}
	st := c.Solver
	b.Logf("flow: %d events; transfers: %d map reads, %d fetches, %d spills, %d output writes; "+
		"%d solves (%d with the rate-update quantum), incremental %d (%d gave up) re-solving %d flows, full %d re-solving %d flows (%.0f a solve); %d flows re-timed; "+
		"%d flows added while a solve was deferred, %d of them at rate 0 until it",
		res.Summary.Events, c.MapReads, c.Fetches, c.Spills, c.Outputs,
		st.LocalSolves+st.FullSolves, st.QuantumSolves, st.LocalSolves, st.LocalFailures, st.LocalFlows,
		st.FullSolves, st.FullFlows, float64(st.FullFlows)/float64(max(st.FullSolves, 1)), st.Retimed,
		st.Provisional, st.ProvisionalZero)
}

// BenchmarkFlowUpdate measures the rate-update quantum (flow_update) against
// exact max-min (flow_update = 0) on the first 300 jobs of FB-2009 on fb-600
// and the first 100 of FB-2010 on fb-3000, policy fair: for each quantum, the
// CPU time of the run and its difference from the exact run, in total
// flowtime and job by job (median, 90th percentile and largest relative
// difference of a job's flowtime), logged with -v. A quantum of 1µs defers
// only the changes of one instant after the first: its difference is the
// schedule's sensitivity to moving transfer ends by a microsecond, the floor
// against which the larger quanta are read.
//
//	go test ./replay -run '^$' -bench FlowUpdate -benchtime 1x -v
func BenchmarkFlowUpdate(b *testing.B) {
	for _, c := range []struct {
		name, trace, hw string
		jobs            int
	}{
		{"FB-2009-300", "FB-2009_samples_24_times_1hr_0.tsv", "fb-600.toml", 300},
		{"FB-2010-100", "FB-2010_samples_24_times_1hr_0.tsv", "fb-3000.toml", 100},
	} {
		b.Run(c.name, func(b *testing.B) {
			tr := prefix(sharedTrace(b, c.trace), c.jobs)
			run := func(q replay.Duration) (int64, *replay.Result) {
				hw := loadHardware(b, c.hw)
				hw.Network, hw.FlowUpdate = replay.NetworkFlow, q
				if err := hw.Validate(); err != nil {
					b.Fatal(err)
				}
				cpu, _, res := costRun(b, tr, hw, "fair", false)
				return cpu, res
			}
			for range b.N {
				exactCPU, exact := run(0)
				b.Logf("flow_update = 0s: %.2f CPU s, total flowtime %d µs, %d events", float64(exactCPU)/1e9, exact.Summary.TotalFlowtimeUs, exact.Summary.Events)
				exactFlow := map[int32]int64{}
				for _, j := range exact.Jobs {
					exactFlow[j.JobIndex] = j.FlowtimeUs
				}
				for _, q := range []replay.Duration{1, 10_000, 100_000, 1_000_000} {
					cpu, res := run(q)
					var errs []float64
					for _, j := range res.Jobs {
						e := float64(exactFlow[j.JobIndex])
						errs = append(errs, math.Abs(float64(j.FlowtimeUs)-e)/e)
					}
					slices.Sort(errs)
					total := float64(res.Summary.TotalFlowtimeUs-exact.Summary.TotalFlowtimeUs) / float64(exact.Summary.TotalFlowtimeUs)
					b.Logf("flow_update = %s: %.2f CPU s (%.1f%% of exact), total flowtime %+.2f%%, job flowtime |difference| median %.2f%%, p90 %.2f%%, max %.2f%%",
						q, float64(cpu)/1e9, 100*float64(cpu)/float64(exactCPU), 100*total,
						100*errs[len(errs)/2], 100*errs[len(errs)*9/10], 100*errs[len(errs)-1])
				}
			}
		})
	}
}

// BenchmarkFlowShuffle compares the flow model's two shuffles
// (flow_shuffle = "fetch", every fetch a flow, and "batch", a reduce's
// outputs in rounds) on a prefix of FB-2010 on fb-3000 (-flow-jobs, 100 by
// default), policies fifo and fair: each run's CPU time, its ratio to the
// fixed model's, and batch's difference from fetch job by job, in flowtime
// and in reduce phase (finish − last map end, jobs with reduces): median,
// 90th percentile and largest relative difference, and in total flowtime;
// logged with -v. -flow-fetch-order sets flow_fetch_order (the per-fetch
// run's order of hosts; the hardware file's, "random" by default, when
// empty; "ready" for the order before h-fetchrandom).
//
//	go test ./replay -run '^$' -bench FlowShuffle -benchtime 1x -v -args -flow-jobs 300 [-flow-fetch-order ready]
func BenchmarkFlowShuffle(b *testing.B) {
	tr := prefix(sharedTrace(b, "FB-2010_samples_24_times_1hr_0.tsv"), *flowModelJobs)
	for _, pol := range []string{"fifo", "fair"} {
		b.Run(pol, func(b *testing.B) {
			for range b.N {
				hw := loadHardware(b, "fb-3000.toml")
				fixedCPU, _, _ := costRun(b, tr, hw, pol, false)
				run := func(mode replay.FlowShuffleMode) (int64, *replay.Result) {
					hw := loadHardware(b, "fb-3000.toml")
					hw.Network, hw.FlowShuffle = replay.NetworkFlow, mode
					if *fetchOrder != "" {
						hw.FlowFetchOrder = replay.FlowFetchOrder(*fetchOrder)
					}
					if err := hw.Validate(); err != nil {
						b.Fatal(err)
					}
					cpu, _, res := costRun(b, tr, hw, pol, false)
					b.Logf("flow_shuffle = %s, flow_fetch_order = %s: %.2f CPU s (%.1f × fixed's %.2f s)", mode, hw.FlowFetchOrder, float64(cpu)/1e9, float64(cpu)/float64(fixedCPU), float64(fixedCPU)/1e9)
					logFlowCost(b, res)
					return cpu, res
				}
				_, fetch := run(replay.FlowShuffleFetch)
				_, batch := run(replay.FlowShuffleBatch)
				logShuffleDiff(b, fetch, batch)
			}
		})
	}
}

// fetchOrder is BenchmarkFlowShuffle's flow_fetch_order (the hardware file's when empty).
var fetchOrder = flag.String("flow-fetch-order", "", "BenchmarkFlowShuffle: flow_fetch_order of the flow runs (ready or random; empty: the hardware model's)")

// logShuffleDiff logs res's difference from ref job by job (flowtime, reduce
// phase) and in total flowtime.
func logShuffleDiff(b *testing.B, ref, res *replay.Result) {
	b.Helper()
	type times struct{ flow, phase int64 }
	want := map[int32]times{}
	for _, j := range ref.Jobs {
		want[j.JobIndex] = times{j.FlowtimeUs, j.FinishUs - j.LastMapEndUs}
	}
	var flowErr, phaseErr []float64
	rel := func(got, want int64) float64 {
		return math.Abs(float64(got-want)) / math.Max(float64(want), 1)
	}
	for _, j := range res.Jobs {
		w := want[j.JobIndex]
		flowErr = append(flowErr, rel(j.FlowtimeUs, w.flow))
		if j.Reduces > 0 {
			phaseErr = append(phaseErr, rel(j.FinishUs-j.LastMapEndUs, w.phase))
		}
	}
	q := func(e []float64) string {
		if len(e) == 0 {
			return "none"
		}
		slices.Sort(e)
		return fmt.Sprintf("median %.2f%%, p90 %.2f%%, max %.2f%% (%d jobs)", 100*e[len(e)/2], 100*e[len(e)*9/10], 100*e[len(e)-1], len(e))
	}
	worst := slices.Clone(res.Jobs)
	slices.SortStableFunc(worst, func(x, y replay.JobResult) int {
		return cmp.Compare(math.Abs(float64(y.FlowtimeUs-want[y.JobIndex].flow)), math.Abs(float64(x.FlowtimeUs-want[x.JobIndex].flow)))
	})
	for _, j := range worst[:min(5, len(worst))] {
		b.Logf("job %d (%d maps, %d reduces, %d MB shuffled): flowtime %.1f s, %+.1f s (%+.2f%%)", j.JobIndex, j.Maps, j.Reduces, j.ShuffleBytes/1e6,
			float64(want[j.JobIndex].flow)/1e6, float64(j.FlowtimeUs-want[j.JobIndex].flow)/1e6, 100*float64(j.FlowtimeUs-want[j.JobIndex].flow)/float64(want[j.JobIndex].flow))
	}
	total := float64(res.Summary.TotalFlowtimeUs-ref.Summary.TotalFlowtimeUs) / float64(ref.Summary.TotalFlowtimeUs)
	b.Logf("batch vs fetch: total flowtime %+.3f%%; job flowtime |difference| %s; reduce phase |difference| %s", 100*total, q(flowErr), q(phaseErr))
}
