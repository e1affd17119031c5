package validation_test

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
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

// busyEvent is a map the JobTracker assigned to a tracker that was already
// running one of the trace's maps (busyTrackers).
type busyEvent struct {
	job       string // the second map's
	atMs      int64  // the second map's assignment
	remaining int    // the trace's maps left (desiredMaps − finishedMaps) then
}

// busyTrackers finds, in a JobTracker history, the maps assigned to a
// tracker already running another of the trace's maps: over the maps with a
// known launch lag (their assignment is the attempt's start less the lag),
// each assigned while another such map ran on its host (from that map's
// assignment to its attempt's end, which is before the JobTracker learns of
// it, so that the count is a lower bound). Hadoop 0.20/1's
// JobQueueTaskScheduler gives a tracker running a map another only when
// ceil(loadFactor × its map slots) >= 2, that is when the running jobs'
// remainingMapLoad exceeds the cluster's trackers (for any number of map
// slots a tracker). Each event carries the trace's own remainingMapLoad at
// that moment; hosts is the number of hosts that ran the trace's tasks, a
// lower bound on the trackers.
func busyTrackers(tr *trace.Trace) (events []busyEvent, hosts int) {
	type span struct {
		from, to int64
		job      string
	}
	byHost := map[string][]span{}
	all := map[string]bool{}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if t.Host != "" {
			all[t.Host] = true
		}
		if t.Type == trace.Map && t.Host != "" && t.StartMs >= 0 && t.LaunchLagMs >= 0 && t.FinishMs >= t.StartMs {
			byHost[t.Host] = append(byHost[t.Host], span{t.StartMs - t.LaunchLagMs, t.FinishMs, t.JobID})
		}
	}
	remaining := func(at int64) int {
		n := 0
		for k := range tr.Jobs {
			j := &tr.Jobs[k]
			if j.LaunchMs < 0 || at < j.LaunchMs || (j.FinishMs >= 0 && at >= j.FinishMs) {
				continue
			}
			n += int(j.NumMaps)
		}
		for i := range tr.Tasks {
			t := &tr.Tasks[i]
			if t.Type == trace.Map && t.FinishMs >= 0 && t.FinishMs <= at {
				if j := jobOf(tr, t.JobID); j != nil && j.LaunchMs >= 0 && at >= j.LaunchMs && (j.FinishMs < 0 || at < j.FinishMs) {
					n--
				}
			}
		}
		return n
	}
	for _, ss := range byHost {
		for b := range ss {
			for a := range ss {
				if a != b && ss[a].from <= ss[b].from && ss[b].from < ss[a].to && (ss[a].from < ss[b].from || a < b) {
					events = append(events, busyEvent{ss[b].job, ss[b].from, remaining(ss[b].from)})
					break
				}
			}
		}
	}
	slices.SortFunc(events, func(x, y busyEvent) int { return int(x.atMs - y.atMs) })
	return events, len(all)
}

// jobOf is tr's job id, nil if none.
func jobOf(tr *trace.Trace, id string) *trace.Job {
	for k := range tr.Jobs {
		if tr.Jobs[k].ID == id {
			return &tr.Jobs[k]
		}
	}
	return nil
}

// TestBusyTrackers prints, for each JobTracker history of the harness, the
// maps its JobTracker assigned to a tracker already running one of the
// trace's maps, and what that says of the work the trace does not hold
// (docs/validation.md, "Why a third"):
//
//	go test ./internal/validation -run TestBusyTrackers -v
func TestBusyTrackers(t *testing.T) {
	testgate.Require(t, testgate.Full, "reads the shared traces")
	dir := sharedTraces(t)
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil || !jobTrackerHistory(tr) {
			continue
		}
		ev, hosts := busyTrackers(tr)
		fmt.Printf("%s (fold %s): %d hosts ran its tasks; %d maps assigned to a tracker already running one of its maps", shortName(h.path), h.fold, hosts, len(ev))
		if len(ev) == 0 {
			fmt.Println()
			continue
		}
		lo, hi := ev[0].remaining, ev[0].remaining
		perJob := map[string]int{}
		for _, e := range ev {
			lo, hi = min(lo, e.remaining), max(hi, e.remaining)
			perJob[strings.TrimPrefix(e.job, "job_")]++
		}
		jobs := slices.Sorted(maps.Keys(perJob))
		var b strings.Builder
		for _, j := range jobs {
			fmt.Fprintf(&b, " %s:%d", j, perJob[j])
		}

		fmt.Printf(", when its own jobs had %d-%d maps left", lo, hi)
		if hosts-hi <= 0 {
			fmt.Printf(" (not fewer than its %d hosts: nothing else is needed)\n", hosts)
		} else {
			fmt.Printf(": remainingMapLoad > trackers >= %d hosts needs more than %d-%d maps left of jobs it does not hold\n", hosts, hosts-hi, hosts-lo)
		}
		fmt.Printf("    per job (the second map's):%s\n", b.String())
	}
}

// TestBusyTrackersByHand: two maps of one job on one host, the second
// assigned while the first runs, and a third on another host: one event,
// with the job's three maps left (none finished yet).
func TestBusyTrackersByHand(t *testing.T) {
	tr := &trace.Trace{Jobs: []trace.Job{{ID: "job_200910281128_0001", LaunchMs: 0, FinishMs: 100, NumMaps: 3}}}
	for i, c := range []struct {
		host          string
		start, finish int64
	}{{"h1", 10, 50}, {"h1", 20, 60}, {"h2", 30, 40}} {
		tr.Tasks = append(tr.Tasks, trace.Task{JobID: "job_200910281128_0001", Type: trace.Map, Index: int32(i), Host: c.host,
			StartMs: c.start + 1, LaunchLagMs: 1, FinishMs: c.finish})
	}
	ev, hosts := busyTrackers(tr)
	if hosts != 2 || len(ev) != 1 || ev[0].atMs != 20 || ev[0].remaining != 3 || ev[0].job != "job_200910281128_0001" {
		t.Errorf("busyTrackers = %v, %d hosts; want one event at 20 ms with 3 maps left, 2 hosts", ev, hosts)
	}
}
