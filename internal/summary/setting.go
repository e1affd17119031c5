package summary

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tracereplay/tracereplay/internal/results"
)

// IdleUtilisation is the map-slot utilisation below which Warnings calls a
// cluster idle: with almost every slot free, every policy launches every task at
// once and the policies cannot differ.
const IdleUtilisation = 0.01

// Setting describes what runs replayed, one line: the traces with their job
// counts, the hardware models, the seeds and the map- and reduce-slot
// utilisation (busy slot time over available slot time during the makespan;
// the range over the runs when they differ), e.g.
//
//	trace sample (50 jobs) · hardware fb-600 · seed 1 · slot utilisation: map 0.34%, reduce 0.10%
//
// Parts the runs do not record (no trace name, utilisation zero everywhere)
// are left out. It returns "" for no runs.
func Setting(runs []Run) string {
	if len(runs) == 0 {
		return ""
	}
	traces := map[string]int{}
	hws, seeds := map[string]string{}, map[uint64]bool{}
	var mapU, redU []float64
	kind := utilisationKind(runs)
	for _, r := range runs {
		traces[r.Summary.Trace] = max(traces[r.Summary.Trace], r.Summary.Jobs)
		if _, ok := hws[r.Summary.Hardware]; !ok || r.Cluster != "" {
			hws[r.Summary.Hardware] = r.Cluster
		}
		seeds[r.Summary.Seed] = true
		if kind == "memory" && r.Policy == results.ObservedPolicy {
			continue // an observed schedule's utilisation counts slots
		}
		mapU = append(mapU, r.Summary.MapUtilisation)
		redU = append(redU, r.Summary.ReduceUtilisation)
	}
	var parts []string
	var tr []string
	for _, t := range slices.Sorted(maps.Keys(traces)) {
		if t != "" {
			tr = append(tr, fmt.Sprintf("%s (%d job%s)", display(t), traces[t], plural(traces[t])))
		}
	}
	if len(tr) > 0 {
		parts = append(parts, plural2(len(tr), "trace", "traces")+" "+listShort(tr))
	}
	var hw []string
	for _, h := range slices.Sorted(maps.Keys(hws)) {
		if h != "" {
			if c := hws[h]; c != "" {
				hw = append(hw, display(h)+" ("+c+")")
			} else {
				hw = append(hw, display(h))
			}
		}
	}
	if len(hw) > 0 {
		parts = append(parts, "hardware "+listShort(hw))
	}
	var sd []string
	for _, s := range slices.Sorted(maps.Keys(seeds)) {
		sd = append(sd, strconv.FormatUint(s, 10))
	}
	parts = append(parts, plural2(len(sd), "seed", "seeds")+" "+listShort(sd))
	// Results written before utilisation was recorded hold zeros: say nothing.
	if slices.Max(mapU) > 0 || slices.Max(redU) > 0 {
		parts = append(parts, kind+" utilisation: map "+pctRange(mapU)+", reduce "+pctRange(redU))
	}
	return strings.Join(parts, " · ")
}

// display shortens a trace or hardware name to its base name without extension
// (samples/hardware/fb-600.toml → fb-600); "" becomes "-". With a cluster
// size known (Run.Cluster), the hardware shows it, so that a cluster derived
// from a trace is seen without writing results.
func display(s string) string {
	if s == "" {
		return "-"
	}
	if i := strings.LastIndexAny(s, `/\`); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	for _, ext := range []string{".toml", ".tsv.gz", ".tsv", ".csv", ".jhist", ".json", ".gz"} {
		if strings.HasSuffix(s, ext) && len(s) > len(ext) {
			return strings.TrimSuffix(s, ext)
		}
	}
	return s
}

func plural2(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// listShort joins up to four names, else the first three and a count.
func listShort(xs []string) string {
	if len(xs) <= 4 {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:3], ", "), len(xs)-3)
}

// pctRange formats utilisations (fractions) in percent: one value, or the range.
func pctRange(xs []float64) string {
	lo, hi := slices.Min(xs), slices.Max(xs)
	if pct(lo) == pct(hi) {
		return pct(lo)
	}
	return pct(lo) + "–" + pct(hi)
}

// pct formats a fraction in percent with two significant decimals below 10%.
func pct(f float64) string {
	p := 100 * f
	switch {
	case p < 10:
		return strconv.FormatFloat(p, 'f', 2, 64) + "%"
	default:
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
}

// utilisationKind names what the runs' utilisation measures: slot time, or
// on a YARN cluster (a run whose AMs held memory) memory·time.
// Observed schedules do not count: theirs is a slot count either way.
func utilisationKind(runs []Run) string {
	yarn, sims := 0, 0
	for _, r := range runs {
		if r.Policy == results.ObservedPolicy {
			continue
		}
		sims++
		if r.Summary.AMUtilisation > 0 {
			yarn++
		}
	}
	switch {
	case yarn == 0:
		return "slot"
	case yarn == sims:
		return "memory"
	}
	return "slot or (YARN) memory"
}

// Warnings returns the warnings a reader of the summary must see: for each
// trace and hardware model whose runs all kept map-slot utilisation below
// IdleUtilisation, that the policies cannot differ there.
func Warnings(runs []Run) []string {
	type key struct{ trace, hw string }
	most := map[key]float64{}
	yarn := map[key]bool{}
	var order []key
	for _, r := range runs {
		if r.Policy == results.ObservedPolicy {
			continue
		}
		k := key{r.Summary.Trace, r.Summary.Hardware}
		if _, ok := most[k]; !ok {
			order = append(order, k)
		}
		most[k] = max(most[k], r.Summary.MapUtilisation)
		yarn[k] = yarn[k] || r.Summary.AMUtilisation > 0
	}
	var out []string
	for _, k := range order {
		// Zero is no measurement (results written before utilisation was
		// recorded, or a run without jobs), not an idle cluster.
		if u := most[k]; u > 0 && u < IdleUtilisation {
			what := "map-slot"
			if yarn[k] {
				what = "map-container memory"
			}
			out = append(out, fmt.Sprintf("warning: %s utilisation is %s at most (trace %s, hardware %s), below 1%%: policies cannot differ on an idle cluster",
				what, pct(u), display(k.trace), display(k.hw)))
		}
	}
	return out
}

// Identical returns, for each set of two or more runs that differ only in their
// policy and produced the same result for every job, their policies joined by
// " = " ("fifo = capacity = hpfsp" in label order). Such runs show the same
// row, and figures draw them as one series.
func Identical(runs []Run) []string {
	var out []string
	for _, g := range IdenticalSets(runs) {
		names := make([]string, len(g))
		for i, r := range g {
			names[i], _ = r.Label(PolicyLabel)
		}
		out = append(out, strings.Join(names, " = "))
	}
	return out
}

// IdenticalSets returns the sets of two or more runs (in label order) that
// differ only in their policy and have equal results for every job.
func IdenticalSets(runs []Run) [][]Run {
	sorted := slices.Concat(GroupBySeed(runs)...)
	keys := slices.DeleteFunc(LabelKeys(sorted), func(k string) bool { return k == PolicyLabel })
	var sets [][]Run
	used := make([]bool, len(sorted))
	for i, a := range sorted {
		if used[i] {
			continue
		}
		set := []Run{a}
		for j := i + 1; j < len(sorted); j++ {
			b := sorted[j]
			if !used[j] && SameLabels(a, b, keys) && sameRunJobs(a, b) {
				set = append(set, b)
				used[j] = true
			}
		}
		if len(set) > 1 {
			sets = append(sets, set)
		}
	}
	return sets
}

// sameRunJobs is sameJobs on two runs, by their digests when both dropped
// their job rows (Run.Stats).
func sameRunJobs(a, b Run) bool {
	if a.Stats != nil && b.Stats != nil {
		return a.JobsDigest != "" && a.JobsDigest == b.JobsDigest
	}
	return sameJobs(a.Jobs, b.Jobs)
}

// Digest identifies a run's job rows apart from the policy name: two runs
// have the same digest when sameJobs holds for them (up to SHA-256
// collisions; floats are compared by their shortest decimal form). It is ""
// for no jobs, which sameJobs never matches.
func Digest(jobs []results.Job) string {
	var a Acc
	for i := range jobs {
		a.Add(&jobs[i])
	}
	return a.Digest()
}

// sameJobs reports whether two runs' jobs are equal except for the policy name.
func sameJobs(a, b []results.Job) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Policy, y.Policy = "", ""
		if x != y {
			return false
		}
	}
	return true
}
