// The H-PFSP reproduction: runs samples/experiments/hpfsp*.toml through
// replay.Run (cmd/replay --experiment does the same once it exists) and prints
// the tables of docs/repro/hpfsp.md. It takes a few minutes on 2 cores:
//
//	TRACEREPLAY_TESTS=repro go test -run TestHPFSPReproduction -v -timeout 30m ./policy
//
// HPFSP_SPECS=fig4,fig5 limits it to some specs; HPFSP_OUT=DIR also writes every
// run's results to DIR/<experiment>/<cell>, for cmd/report --preset hpfsp.
package policy

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
)

// hpfspCell is one cell of an experiment and what it produced.
type hpfspCell struct {
	cell replay.Cell
	res  *replay.Result
}

// group is the cell's coordinates without policy and seed.
func (c *hpfspCell) group() string {
	var parts []string
	for _, l := range c.cell.Labels {
		if l[0] != "policy" && l[0] != "seed" && l[0] != "hw" {
			parts = append(parts, l[0]+"="+l[1])
		}
	}
	return strings.Join(parts, " ")
}

func hpfspRunExperiment(t *testing.T, path string) []hpfspCell {
	t.Helper()
	e := loadExperiment(t, path)
	cells := experimentCells(t, e)
	res := replayCells(t, cells, func(c replay.Cell) replay.Options {
		opt := replay.Options{CheckInvariants: true, RecordTasks: true}
		if e.Alone {
			opt.Alone = func() (replay.Policy, error) { return New(c.Policy) }
		}
		return opt
	})
	out := make([]hpfspCell, len(cells))
	for i := range cells {
		out[i] = hpfspCell{cell: cells[i], res: res[i]}
	}
	if dir := os.Getenv("HPFSP_OUT"); dir != "" {
		for _, c := range out {
			meta := map[string]string{"experiment": e.Name, "seed": fmt.Sprint(c.cell.Seed)}
			if err := replay.WriteRun(filepath.Join(dir, e.Name, c.cell.Dir), c.res, meta); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// hpfspMeanCI returns the mean of x and the half-width of its 95% confidence
// interval (Student's t over the seeds).
func hpfspMeanCI(x []float64) (float64, float64) {
	var m, ss float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	if len(x) < 2 {
		return m, math.NaN()
	}
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, t975(len(x)-1) * math.Sqrt(ss/float64(len(x)-1)) / math.Sqrt(float64(len(x)))
}

func hpfspFmtCI(x []float64, scale float64, prec int) string {
	m, h := hpfspMeanCI(x)
	return fmt.Sprintf("%.*f ± %.*f", prec, m/scale, prec, h/scale)
}

// hpfspJobMean is the mean of f over the jobs of one run.
func hpfspJobMean(r *replay.Result, f func(*replay.JobResult) float64) float64 {
	var s float64
	for i := range r.Jobs {
		s += f(&r.Jobs[i])
	}
	return s / float64(len(r.Jobs))
}

func hpfspFlowSec(j *replay.JobResult) float64  { return float64(j.FlowtimeUs) / 1e6 }
func hpfspSlowdown(j *replay.JobResult) float64 { return j.Slowdown }
func hpfspSlowIdeal(j *replay.JobResult) float64 {
	return float64(j.FlowtimeUs) / float64(j.IdealUs)
}

// hpfspSummaryTable prints, per group and policy, the mean flowtime and slowdown with
// 95% CIs over seeds, and how H-PFSP's jobs fared against the same jobs under
// Fair (same group and seed).
func hpfspSummaryTable(t *testing.T, name string, rs []hpfspCell) {
	fair := map[string]*replay.Result{}
	for i := range rs {
		if rs[i].cell.Policy == "fair" {
			fair[rs[i].group()+fmt.Sprint(rs[i].cell.Seed)] = rs[i].res
		}
	}
	type key struct{ group, policy string }
	var keys []key
	per := map[key][]*hpfspCell{}
	for i := range rs {
		k := key{rs[i].group(), rs[i].cell.Policy}
		if per[k] == nil {
			keys = append(keys, k)
		}
		per[k] = append(per[k], &rs[i])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %s\n\n| group | policy | mean flowtime (s) | mean slowdown | slowdown vs ideal | jobs later than Fair | worst lateness vs Fair (s) | worst lateness vs fluid PS (min) |\n|---|---|---|---|---|---|---|---|\n", name)
	for _, k := range keys {
		var flow, slow, ideal []float64
		var later, jobs int
		worst, worstPS := math.Inf(-1), math.Inf(-1)
		for _, c := range per[k] {
			worstPS = max(worstPS, hpfspLatenessVsPS(c))
			flow = append(flow, hpfspJobMean(c.res, hpfspFlowSec))
			slow = append(slow, hpfspJobMean(c.res, hpfspSlowdown))
			ideal = append(ideal, hpfspJobMean(c.res, hpfspSlowIdeal))
			f := fair[k.group+fmt.Sprint(c.cell.Seed)]
			for i, j := range c.res.Jobs {
				d := float64(j.FinishUs-f.Jobs[i].FinishUs) / 1e6
				worst = max(worst, d)
				if d > 0 {
					later++
				}
				jobs++
			}
		}
		ps := "–"
		if !math.IsNaN(worstPS) {
			ps = fmt.Sprintf("%.0f", worstPS/60)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.1f%% | %.0f | %s |\n", k.group, k.policy, hpfspFmtCI(flow, 1, 0),
			hpfspFmtCI(slow, 1, 2), hpfspFmtCI(ideal, 1, 2), 100*float64(later)/float64(jobs), worst, ps)
	}
	t.Log(b.String())
}

// hpfspLatenessVsPS is the largest time (s) by which a job of the run ends after its
// completion under processor sharing of the map slots as one processor, with
// the true work of each job; NaN when jobs have reduces (no single processor).
func hpfspLatenessVsPS(c *hpfspCell) float64 {
	work := make([]float64, len(c.res.Jobs))
	slots := float64(c.cell.Hardware.TotalMapSlots())
	for _, tk := range c.res.Tasks {
		if tk.Type != "MAP" {
			return math.NaN()
		}
		work[tk.JobIndex] += float64(tk.FinishUs-tk.LaunchUs) / slots
	}
	arr := make([]float64, len(c.res.Jobs))
	for i, j := range c.res.Jobs {
		arr[i] = float64(j.SubmitUs)
	}
	ps := hpfspFluidPS(arr, work)
	worst := math.Inf(-1)
	for i, j := range c.res.Jobs {
		worst = max(worst, (float64(j.FinishUs)-ps[i])/1e6)
	}
	return worst
}

// hpfspPerJobTable prints the flowtime (and slowdown) of jobs grouped by a job key
// (its number of maps, or its arrival quintile), per policy, with 95% CIs over
// seeds.
func hpfspPerJobTable(t *testing.T, name, keyName string, rs []hpfspCell, jobKey func(r *replay.Result, i int) int) {
	type key struct {
		policy string
		job    int
	}
	seedVals := map[key]map[uint64][]float64{} // per policy/key: per seed the jobs' slowdowns
	seedFlow := map[key]map[uint64][]float64{}
	var policies []string
	var jobKeys []int
	for _, c := range rs {
		if !slices.Contains(policies, c.cell.Policy) {
			policies = append(policies, c.cell.Policy)
		}
		for i, j := range c.res.Jobs {
			k := key{c.cell.Policy, jobKey(c.res, i)}
			if !slices.Contains(jobKeys, k.job) {
				jobKeys = append(jobKeys, k.job)
			}
			if seedVals[k] == nil {
				seedVals[k], seedFlow[k] = map[uint64][]float64{}, map[uint64][]float64{}
			}
			seedVals[k][c.cell.Seed] = append(seedVals[k][c.cell.Seed], j.Slowdown)
			seedFlow[k][c.cell.Seed] = append(seedFlow[k][c.cell.Seed], hpfspFlowSec(&j))
		}
	}
	slices.Sort(jobKeys)
	avg := func(m map[uint64][]float64) []float64 {
		var out []float64
		for _, s := range slices.Sorted(maps.Keys(m)) {
			var x float64
			for _, v := range m[s] {
				x += v
			}
			out = append(out, x/float64(len(m[s])))
		}
		return out
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %s\n\n| %s | %s |\n|---|%s\n", name, keyName, strings.Join(policies, " | "), strings.Repeat("---|", len(policies)))
	for _, jk := range jobKeys {
		fmt.Fprintf(&b, "| %d |", jk)
		for _, p := range policies {
			k := key{p, jk}
			fmt.Fprintf(&b, " %s s (%s) |", hpfspFmtCI(avg(seedFlow[k]), 1, 0), hpfspFmtCI(avg(seedVals[k]), 1, 2))
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
}

func TestHPFSPReproduction(t *testing.T) {
	testgate.Require(t, testgate.Repro, "a few minutes on 2 cores")
	specs, err := filepath.Glob("../samples/experiments/hpfsp*.toml")
	if err != nil {
		t.Fatal(err)
	}
	only := os.Getenv("HPFSP_SPECS")
	for _, path := range specs {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "hpfsp-"), ".toml")
		if only != "" && !slices.Contains(strings.Split(only, ","), name) {
			continue
		}
		rs := hpfspRunExperiment(t, path)
		hpfspSummaryTable(t, filepath.Base(path), rs)
		switch name {
		case "fig3b", "expsizes":
			hpfspPerJobTable(t, filepath.Base(path)+" by job size", "maps", rs, func(r *replay.Result, i int) int {
				m := int(r.Jobs[i].Maps)
				if name == "expsizes" { // size quintile of the run's jobs
					sizes := make([]int32, len(r.Jobs))
					for k := range r.Jobs {
						sizes[k] = r.Jobs[k].Maps
					}
					slices.Sort(sizes)
					q, _ := slices.BinarySearch(sizes, r.Jobs[i].Maps)
					return 1 + 5*q/len(sizes)
				}
				return m
			})
		case "fig4", "fig5":
			hpfspPerJobTable(t, filepath.Base(path)+" by arrival quintile", "quintile", rs, func(r *replay.Result, i int) int {
				return 1 + 5*int(r.Jobs[i].JobIndex)/len(r.Jobs)
			})
		}
	}
}
