package validation_test

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// handoutStats is how a run handed out its jobs' maps (section "How the
// JobTracker hands out tasks" of docs/validation.md): over the maps of the
// jobs with at least two, the time of each map's assignment less its job's
// first (its spread), and per job of at least minBurst maps the span from its
// first map's assignment to its last.
type handoutStats struct {
	spread []float64          // s, every job's maps but its first
	span   map[string]float64 // s, job id -> last − first assignment (jobs of >= minBurst maps)
	maps   map[string]int     // maps counted per job
}

// minBurst is the smallest job whose hand-out span handoutStats keeps.
const minBurst = 30

// handoutKey is a map of a job: its index among the job's maps (trace order).
type handoutKey struct {
	job   string
	index int32
}

// observedAssignments is, per map of tr whose history says when the
// JobTracker assigned it (Hadoop 1: the task's start, its kept attempt's
// start less the launch lag; LaunchLagMs known), that assignment in µs on
// the trace's clock (handout uses only differences within a job).
func observedAssignments(tr *trace.Trace) map[handoutKey]int64 {
	out := map[handoutKey]int64{}
	mi := map[string]int32{}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if t.Type != trace.Map {
			continue
		}
		if t.StartMs >= 0 && t.LaunchLagMs >= 0 && t.Host != "" {
			out[handoutKey{t.JobID, mi[t.JobID]}] = (t.StartMs - t.LaunchLagMs) * 1000
		}
		mi[t.JobID]++
	}
	return out
}

// handout computes handoutStats over the maps in keep: at[k] is map k's
// assignment.
func handout(at map[handoutKey]int64, keep map[handoutKey]bool) handoutStats {
	per := map[string][]int64{}
	for k, t := range at {
		if keep[k] {
			per[k.job] = append(per[k.job], t)
		}
	}
	h := handoutStats{span: map[string]float64{}, maps: map[string]int{}}
	for job, ts := range per {
		slices.Sort(ts)
		h.maps[job] = len(ts)
		for _, t := range ts[1:] {
			h.spread = append(h.spread, float64(t-ts[0])/1e6)
		}
		if len(ts) >= minBurst {
			h.span[job] = float64(ts[len(ts)-1]-ts[0]) / 1e6
		}
	}
	slices.Sort(h.spread)
	return h
}

// quantile is the nearest-rank q-quantile of sorted s (NaN-free), 0 if empty.
func quantile(s []float64, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// printHandout prints, for the scored JobTracker histories, how the
// simulated and the observed JobTracker handed out each job's maps
// (VALIDATION_HANDOUT=1): the maps whose assignment the history records
// (observedAssignments) and their simulated launches.
func printHandout(w io.Writer, tasks []taskPair) {
	fmt.Fprintf(w, "\nMap hand-out, simulated | observed (VALIDATION_HANDOUT): a job's maps after its first, s; jobs of >= %d maps: first to last assignment, s\n", minBurst)
	for _, p := range tasks {
		if p.tr == nil || !jobTrackerHistory(p.tr) {
			continue
		}
		obs := observedAssignments(p.tr)
		keep := map[handoutKey]bool{}
		for k := range obs {
			keep[k] = true
		}
		sim := map[handoutKey]int64{}
		for _, t := range p.sim {
			k := handoutKey{t.JobID, t.Index}
			if t.Type == "MAP" && keep[k] && t.LaunchUs >= 0 {
				sim[k] = t.LaunchUs
			}
		}
		for k := range keep {
			if _, ok := sim[k]; !ok {
				delete(keep, k) // not launched in the replay (a failed job's)
			}
		}
		hs, ho := handout(sim, keep), handout(obs, keep)
		if len(ho.spread) == 0 {
			continue
		}
		fmt.Fprintf(w, "%-28s %4d maps: median %.2f | %.2f (p10 %.2f | %.2f, p90 %.2f | %.2f); hosts that ran maps %d | %d\n", p.name, len(ho.spread),
			quantile(hs.spread, 0.5), quantile(ho.spread, 0.5), quantile(hs.spread, 0.1), quantile(ho.spread, 0.1),
			quantile(hs.spread, 0.9), quantile(ho.spread, 0.9), mapHosts(p.sim), mapHosts(p.obs))
		jobs := make([]string, 0, len(ho.span))
		for j := range ho.span {
			jobs = append(jobs, j)
		}
		slices.Sort(jobs)
		for _, j := range jobs {
			fmt.Fprintf(w, "    %-26s %3d maps: %6.2f | %6.2f s\n", strings.TrimPrefix(j, "job_"), ho.maps[j], hs.span[j], ho.span[j])
		}
	}
}

// TestHandoutStats works handout by hand: a job's three maps assigned at 1,
// 2 and 4 s spread 1 and 3 s; a one-map job adds nothing.
func TestHandoutStats(t *testing.T) {
	at := map[handoutKey]int64{{"a", 0}: 1e6, {"a", 1}: 2e6, {"a", 2}: 4e6, {"b", 0}: 7e6}
	keep := map[handoutKey]bool{{"a", 0}: true, {"a", 1}: true, {"a", 2}: true, {"b", 0}: true}
	h := handout(at, keep)
	if !slices.Equal(h.spread, []float64{1, 3}) {
		t.Errorf("spread = %v, want [1 3]", h.spread)
	}
	if len(h.span) != 0 {
		t.Errorf("span = %v, want none under %d maps", h.span, minBurst)
	}
}

// mapHosts is the number of distinct hosts that ran a map in tasks.
func mapHosts(tasks []replay.TaskResult) int {
	h := map[string]bool{}
	for _, t := range tasks {
		if t.Type == "MAP" && t.Host != "" {
			h[t.Host] = true
		}
	}
	return len(h)
}
