package policy

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
)

// The reproduction of the Coupling paper's experiments: each test runs one of
// samples/experiments/coupling-*.toml cell by cell (every run with invariants
// checked), logs the numbers docs/repro/coupling.md quotes (go test -run Repro
// -v ./policy), and checks the paper's qualitative claims where our model
// reproduces them. The whole set takes about ten CPU seconds; -short skips it.

const cpFair = "fair:node-delay=15s,rack-delay=15s" // the paper's Fair: T1 = T2 = 15 s

// cpKey is one (policy, trace, hardware) of an experiment.
type cpKey struct{ policy, trace, hw string }

func (k cpKey) String() string { return k.policy + " " + k.trace + " " + k.hw }

// cpRunExperiment runs every cell of a coupling experiment spec, in parallel, and
// groups the results by key, seeds in spec order.
func cpRunExperiment(t *testing.T, name string) ([]cpKey, map[cpKey][]*replay.Result) {
	t.Helper()
	testgate.Require(t, testgate.Full, "reproduction runs take seconds")
	e := loadExperiment(t, filepath.Join("..", "samples", "experiments", name+".toml"))
	cells := experimentCells(t, e)
	res := replayCells(t, cells, func(c replay.Cell) replay.Options {
		return replay.Options{CheckInvariants: true, Timeline: e.TimelineOn(), RecordTasks: e.Tasks,
			TraceName: c.Trace.Name, HardwareName: c.HWName}
	})
	var keys []cpKey
	by := map[cpKey][]*replay.Result{}
	for i, c := range cells {
		k := cpKey{c.Policy, c.Trace.Name, c.HWName}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], res[i])
	}
	return keys, by
}

// cpStat is a mean over seeds with its 95% confidence half-width.
type cpStat struct{ mean, half float64 }

func (s cpStat) String() string { return fmt.Sprintf("%.2f ± %.2f", s.mean, s.half) }

// cpOver computes f for each run and returns the mean with a t-interval.
func cpOver(runs []*replay.Result, f func(*replay.Result) float64) cpStat {
	var sum, sq float64
	for _, r := range runs {
		v := f(r)
		sum += v
		sq += v * v
	}
	n := float64(len(runs))
	m := sum / n
	if n < 2 {
		return cpStat{m, 0}
	}
	sd := math.Sqrt(max(0, (sq-n*m*m)/(n-1)))
	return cpStat{m, t975(len(runs)-1) * sd / math.Sqrt(n)}
}

// cpMeanFlowMin is a run's mean job processing time in minutes.
func cpMeanFlowMin(r *replay.Result) float64 {
	var s float64
	for _, j := range r.Jobs {
		s += float64(j.FlowtimeUs)
	}
	return s / float64(len(r.Jobs)) / 60e6
}

// cpJobMin is job k's f, in minutes.
func cpJobMin(k int, f func(replay.JobResult) int64) func(*replay.Result) float64 {
	return func(r *replay.Result) float64 { return float64(f(r.Jobs[k])) / 60e6 }
}

func cpFlow(j replay.JobResult) int64   { return j.FlowtimeUs }
func cpStarve(j replay.JobResult) int64 { return j.StarvationUs }

func cpChange(base, v float64) string { return fmt.Sprintf("%+.1f%%", 100*(v-base)/base) }

// cpPerJob lists f's mean over runs for every job.
func cpPerJob(runs []*replay.Result, f func(replay.JobResult) int64) []float64 {
	v := make([]float64, len(runs[0].Jobs))
	for k := range v {
		v[k] = cpOver(runs, cpJobMin(k, f)).mean
	}
	return v
}

func cpOneDecimal(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.1f", x)
	}
	return strings.Join(s, " ")
}

// TestReproTwoJobs (Figs. 1-2): job 2's reduces starve behind job 1's under
// Fair and not under Coupling, and both jobs end sooner under Coupling.
func TestReproTwoJobs(t *testing.T) {
	keys, by := cpRunExperiment(t, "coupling-twojobs")
	for _, k := range keys {
		runs := by[k]
		t.Logf("%-36s job 1 %v min, job 2 %v min; job 1 first reduce %v, job 2 maps end %v, first reduce %v, starvation %v",
			k.policy, cpOver(runs, cpJobMin(0, cpFlow)), cpOver(runs, cpJobMin(1, cpFlow)),
			cpOver(runs, cpJobMin(0, func(j replay.JobResult) int64 { return j.FirstReduceLaunchUs })),
			cpOver(runs, cpJobMin(1, func(j replay.JobResult) int64 { return j.LastMapEndUs })),
			cpOver(runs, cpJobMin(1, func(j replay.JobResult) int64 { return j.FirstReduceLaunchUs })),
			cpOver(runs, cpJobMin(1, cpStarve)))
	}
	f, c := by[cpKey{cpFair, "twojobs", "coupling-set-a"}], by[cpKey{"coupling", "twojobs", "coupling-set-a"}]
	for i := range f {
		if c[i].Jobs[1].StarvationUs >= f[i].Jobs[1].StarvationUs {
			t.Errorf("seed %d: job 2 starves %d µs under Coupling, %d under Fair", i+1, c[i].Jobs[1].StarvationUs, f[i].Jobs[1].StarvationUs)
		}
	}
	for k := range 2 {
		if cpOver(c, cpJobMin(k, cpFlow)).mean >= cpOver(f, cpJobMin(k, cpFlow)).mean {
			t.Errorf("job %d is not faster under Coupling", k+1)
		}
	}
}

// TestReproGrep (Figs. 5-6): ten identical Grep jobs.
func TestReproGrep(t *testing.T) {
	keys, by := cpRunExperiment(t, "coupling-grep")
	base := cpOver(by[cpKey{cpFair, "grep10", "coupling-8node"}], cpMeanFlowMin).mean
	for _, k := range keys {
		runs := by[k]
		m := cpOver(runs, cpMeanFlowMin)
		t.Logf("%-36s mean %v min (%s); per job %s; job 3's first reduce %v min after its submission", k.policy, m,
			cpChange(base, m.mean), cpOneDecimal(cpPerJob(runs, cpFlow)),
			cpOver(runs, cpJobMin(2, func(j replay.JobResult) int64 { return j.FirstReduceLaunchUs - j.SubmitUs })))
		if k.policy == "coupling" && m.mean > base {
			t.Errorf("Coupling's mean %.2f min above Fair's %.2f", m.mean, base)
		}
	}
}

// TestReproSingle (Fig. 12): "no harm to a single job".
func TestReproSingle(t *testing.T) {
	keys, by := cpRunExperiment(t, "coupling-single")
	for _, k := range keys {
		runs := by[k]
		lo, hi := math.Inf(1), 0.0
		for _, r := range runs {
			lo, hi = min(lo, cpMeanFlowMin(r)), max(hi, cpMeanFlowMin(r))
		}
		base := cpOver(by[cpKey{cpFair, k.trace, k.hw}], cpMeanFlowMin).mean
		m := cpOver(runs, cpMeanFlowMin)
		t.Logf("%-36s %-12s %v min, range [%.2f, %.2f] (%s)", k.policy, k.trace, m, lo, hi, cpChange(base, m.mean))
		if m.mean > 1.05*base {
			t.Errorf("%s: Coupling %.2f min against Fair's %.2f: more than 5%% slower", k.trace, m.mean, base)
		}
	}
}

// cpMeanRunningMaps is the cluster's mean number of running maps over the samples
// until the last map of the run ends.
func cpMeanRunningMaps(r *replay.Result) float64 {
	var s, n float64
	for _, x := range r.Timeline {
		if x.JobIndex == -1 && x.RunningMaps > 0 {
			s += float64(x.RunningMaps)
			n++
		}
	}
	return s / max(n, 1)
}

// TestReproWordCount (Figs. 10-11): one WordCount on set B.
func TestReproWordCount(t *testing.T) {
	keys, by := cpRunExperiment(t, "coupling-wordcount")
	base := cpOver(by[cpKey{cpFair, "wordcount", "coupling-set-b"}], cpMeanFlowMin).mean
	means := map[string]float64{}
	for _, k := range keys {
		runs := by[k]
		m := cpOver(runs, cpMeanFlowMin)
		means[k.policy] = m.mean
		t.Logf("%-36s %v min (%s), node-local maps %v, mean running maps %v", k.policy, m, cpChange(base, m.mean),
			cpOver(runs, func(r *replay.Result) float64 { return float64(r.Jobs[0].MapsNodeLocal) }), cpOver(runs, cpMeanRunningMaps))
	}
	if !(means[cpFair] > means["coupling:beta=0.1"] && means["coupling:beta=0.1"] > means["coupling:beta=0.5"]) {
		t.Errorf("want Fair slower than beta 0.1, slower than beta 0.5: %v", means)
	}
}

// cpMaxNodeSeries is Fig. 14's curve: per timeline interval, the largest bytes
// any node sent or received, zero where no node moved data; its mean is taken
// over the run's makespan.
func cpMaxNodeSeries(r *replay.Result) float64 {
	peak := map[int64]int64{}
	for _, x := range r.NodeNet {
		peak[x.TimeUs] = max(peak[x.TimeUs], x.InBytes, x.OutBytes)
	}
	var s float64
	for _, v := range peak {
		s += float64(v)
	}
	intervals := math.Ceil(float64(r.Summary.MakespanUs) / 10e6) // the set B model samples every 10 s
	return s / intervals
}

// TestReproTable3 (Table III, Figs. 13-15): map-only jobs on set B.
func TestReproTable3(t *testing.T) {
	keys, by := cpRunExperiment(t, "coupling-table3")
	base := cpOver(by[cpKey{cpFair, "table3", "coupling-set-b"}], cpMeanFlowMin).mean
	local := map[string]float64{}
	net := map[string]float64{}
	for _, k := range keys {
		runs := by[k]
		m := cpOver(runs, cpMeanFlowMin)
		loc := cpPerJob(runs, func(j replay.JobResult) int64 { return int64(j.MapsNodeLocal) * 60e6 })
		for _, x := range loc {
			local[k.policy] += x
		}
		netGB := cpOver(runs, func(r *replay.Result) float64 { return float64(r.Summary.NetworkBytes) / 1e9 })
		net[k.policy] = netGB.mean
		t.Logf("%-36s mean %v min (%s); per job %s; running maps %v; network %v GB, per-node max %v MB per 10 s; node-local maps per job %s",
			k.policy, m, cpChange(base, m.mean), cpOneDecimal(cpPerJob(runs, cpFlow)), cpOver(runs, cpMeanRunningMaps), netGB,
			cpOver(runs, func(r *replay.Result) float64 { return cpMaxNodeSeries(r) / 1e6 }), cpOneDecimal(loc))
		if k.policy != cpFair && m.mean >= base {
			t.Errorf("%s: mean %.2f min not below Fair's %.2f", k.policy, m.mean, base)
		}
	}
	if net["coupling"] <= net[cpFair] {
		t.Errorf("Coupling moves %.1f GB, Fair %.1f GB: want more under Coupling (Fig. 14)", net["coupling"], net[cpFair])
	}
	if local["coupling:beta=0.1"] <= local["coupling:beta=0.5"] {
		t.Errorf("node-local maps: beta 0.1 %.0f, beta 0.5 %.0f; want more with beta 0.1 (Fig. 15)", local["coupling:beta=0.1"], local["coupling:beta=0.5"])
	}
}

// TestReproTable4 (Table IV, Fig. 3): the 22-job sequence.
func TestReproTable4(t *testing.T) {
	keys, by := cpRunExperiment(t, "coupling-table4")
	for _, k := range keys {
		runs := by[k]
		base := cpOver(by[cpKey{cpFair, k.trace, k.hw}], cpMeanFlowMin).mean
		m := cpOver(runs, cpMeanFlowMin)
		t.Logf("%-36s %s: mean %v min (%s)\n  starvation %s\n  processing %s", k.policy, k.hw, m, cpChange(base, m.mean),
			cpOneDecimal(cpPerJob(runs, cpStarve)), cpOneDecimal(cpPerJob(runs, cpFlow)))
		if k.policy != "coupling" {
			continue
		}
		if m.mean >= base {
			t.Errorf("%s: Coupling mean %.2f min not below Fair's %.2f", k.hw, m.mean, base)
		}
		sc, sf := cpPerJob(runs, cpStarve), cpPerJob(by[cpKey{cpFair, k.trace, k.hw}], cpStarve)
		var tc, tf float64
		for i := range sc {
			tc, tf = tc+sc[i], tf+sf[i]
		}
		if tc >= tf {
			t.Errorf("%s: total starvation %.1f min under Coupling, %.1f under Fair", k.hw, tc, tf)
		}
		for _, j := range []int{3, 4, 5, 6, 7, 11, 12, 13} { // the small jobs the paper names
			if sc[j-1] > sf[j-1] {
				t.Errorf("%s: job %d starves %.1f min under Coupling, %.1f under Fair", k.hw, j, sc[j-1], sf[j-1])
			}
		}
	}
}

// TestReproBatches (Fig. 16): 200 jobs on 62 nodes.
func TestReproBatches(t *testing.T) {
	keys, by := cpRunExperiment(t, "coupling-batches")
	base := cpOver(by[cpKey{cpFair, "batches", "coupling-set-c"}], cpMeanFlowMin).mean
	for _, k := range keys {
		runs := by[k]
		var all []float64
		for _, r := range runs {
			for _, j := range r.Jobs {
				all = append(all, float64(j.FlowtimeUs)/60e6)
			}
		}
		slices.Sort(all)
		q := func(p float64) float64 { return all[int(p*float64(len(all)-1))] }
		m := cpOver(runs, cpMeanFlowMin)
		t.Logf("%-36s mean %v min (%s); P[T < t] = 0.25, 0.5, 0.75, 0.9 at t = %.2f, %.2f, %.2f, %.2f; max %.1f", k.policy,
			m, cpChange(base, m.mean), q(0.25), q(0.5), q(0.75), q(0.9), all[len(all)-1])
		if k.policy == "coupling" && m.mean >= base {
			t.Errorf("Coupling mean %.2f min not below Fair's %.2f", m.mean, base)
		}
	}
}
