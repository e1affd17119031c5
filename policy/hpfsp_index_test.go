package policy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// fairPhaseScan is Alg. 3 as the plain scan decides it: the job has scheduled
// fewer than FAIR_LIMIT tasks of its current stage.
func (h *HPFSP) fairPhaseScan(x *hpfspJob, now int64) bool {
	inM, inR := x.launchedM < h.fairLimit, x.launchedR < h.fairLimit
	if x.j.NumReduces() == 0 || inM == inR {
		return inM // the stage does not matter
	}
	if x.m.progressAtLeast(now, h.reduceStage) {
		return inR
	}
	return inM
}

// chooseScan is the comparator of Alg. 2 as an O(J) scan of the active jobs
// (H-PFSP's choose before its index): the reference the index must match.
func (h *HPFSP) chooseScan(s replay.Cluster, reduce bool) *hpfspJob {
	now := s.Now()
	var fair, best, fallback *hpfspJob
	var fairCount int32
	if h.frontVer != h.sys.ver+1 {
		h.front = h.sys.frontMin(h.front)
		h.frontVer = h.sys.ver + 1
	}
	for _, j := range s.Active() {
		if reduce && !canReduce(j) || !reduce && j.PendingMaps() == 0 {
			continue
		}
		x := h.jobs[j.Index()]
		count := x.launchedM
		if reduce {
			count = x.launchedR
		}
		if h.fairPhaseScan(x, now) && (fair == nil || count < fairCount) {
			fair, fairCount = x, count
		}
		if fair != nil {
			continue
		}
		if completable(&x.sl, h.front) && (best == nil || x.sl.w < best.sl.w ||
			x.sl.w == best.sl.w && psBefore(&x.sl, &best.sl)) {
			best = x
		}
		if fallback == nil || psBefore(&x.sl, &fallback.sl) {
			fallback = x
		}
	}
	switch {
	case fair != nil:
		return fair
	case best != nil:
		return best
	}
	return fallback
}

// hpfspTally counts the decisions a differential run compared.
type hpfspTally struct {
	decisions, fair, comp, fallback, none, stageDecided int
}

// hpfspDiff replays w under spec with every slot decision of the index
// compared with the plain scan's; it reports the first mismatches.
func hpfspDiff(t *testing.T, name string, w *replay.Workload, spec string, seed uint64, tally *hpfspTally) {
	t.Helper()
	h := newPolicy(t, spec).(*HPFSP)
	bad := 0
	h.verify = func(s replay.Cluster, reduce bool, got *hpfspJob) {
		want := h.chooseScan(s, reduce)
		tally.decisions++
		switch {
		case want == nil:
			tally.none++
		case h.fairPhaseScan(want, s.Now()):
			tally.fair++
			if inM, inR := want.launchedM < h.fairLimit, want.launchedR < h.fairLimit; want.j.NumReduces() > 0 && inM != inR {
				tally.stageDecided++
			}
		case completable(&want.sl, h.front):
			tally.comp++
		default:
			tally.fallback++
		}
		if got != want && bad < 5 {
			bad++
			id := func(x *hpfspJob) string {
				if x == nil {
					return "none"
				}
				return x.j.ID()
			}
			t.Errorf("%s: at %d µs, reduce=%v: index chose %s, scan %s", name, s.Now(), reduce, id(got), id(want))
		}
	}
	runPolicy(t, w, h, replay.Options{Seed: seed, CheckInvariants: true})
}

// TestHPFSPIndexMatchesScan replays random workloads (jobs with and without
// reduces, noisy task times, overload, a wrong default estimate; a quarter
// with the lifecycle, setups ending out of submission order) and FB-2009's
// first 50 jobs on a small cluster and on fb-600, under random parameters
// (fair-limit, update-interval, reduce-stage, slow start), and checks every
// slot decision of the index against the plain O(J) scan. It fails when an
// entry of the index is stale (a job not touched at a launch, a task end or
// a re-estimate; a stage answer kept past its time).
func TestHPFSPIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	var tally hpfspTally
	small := func(slowStart float64, extra string) replay.Hardware {
		return parseHardware(t, fmt.Sprintf(`
name = "small"
racks = 2
nodes_per_rack = 3
map_slots = 3
reduce_slots = 2
heartbeat = "3s"
heartbeat_jitter = true
replication = 2
slow_start = %g
`, slowStart)+extra)
	}
	// With the lifecycle in trace mode (withSetups: observed init times and
	// setup tasks of random lengths) setups end out of submission order, so
	// the jobs arrive (JobArrived) in another order than Active's (submission
	// order); the index's arrival ties must follow Active's.
	const life = `
lifecycle = true
task_times = "trace"
`
	spec := func() string {
		return fmt.Sprintf("hpfsp:fair-limit=%d,update-interval=%dms,reduce-stage=%g,default-task=%ds,min-progress=%g",
			rng.IntN(5), []int{0, 500, 3000, 10000, 60000}[rng.IntN(5)], []float64{0.95, 0.3, 0.5, 0.8, 1}[rng.IntN(5)],
			[]int{1, 20, 60, 600}[rng.IntN(4)], []float64{0.02, 0, 0.1}[rng.IntN(3)])
	}
	for i := range 40 {
		seed := uint64(i + 1)
		p := trace.GenParams{"jobs": int64(20 + rng.IntN(40)), "interarrival_s": float64(5 + rng.IntN(120)),
			"maps": "exponential", "maps_mean": int64(5 + rng.IntN(60)),
			"map_time": "normal", "map_time_mean_s": float64(10 + rng.IntN(200)), "map_time_sd_s": 20.0,
			"reduces": "exponential", "reduces_mean": int64(rng.IntN(6)),
			"reduce_time": "exponential", "reduce_time_mean_s": float64(5 + rng.IntN(100))}
		extra := ""
		if i%4 == 3 {
			extra = life
		}
		hw := small([]float64{0.05, 0.5, 1}[rng.IntN(3)], extra)
		tr := generate(t, "synthetic", p, seed)
		if extra != "" {
			tr = withSetups(tr, seed)
		}
		w, _ := newWorkload(t, hw, tr, seed)
		s := spec()
		hpfspDiff(t, fmt.Sprintf("synthetic %d %s", i, s), w, s, seed, &tally)
	}
	tr := readFB50(t)
	for i, hw := range []replay.Hardware{small(0.05, ""), small(1, ""), sampleHardware(t, "fb-600.toml")} {
		for _, s := range []string{"hpfsp", spec()} {
			w, _ := newWorkload(t, hw, tr, uint64(i+1))
			hpfspDiff(t, fmt.Sprintf("fb2009-first50 %s %s", hw.Name, s), w, s, uint64(i+1), &tally)
		}
	}
	t.Logf("%+v", tally)
	// Every tier of the comparator, and the stage, decided some of them.
	if tally.fair < 100 || tally.comp < 100 || tally.fallback < 10 || tally.none < 100 || tally.stageDecided < 10 {
		t.Errorf("too few decisions of some kind: %+v", tally)
	}
}

// withSetups returns a copy of tr as a history with a recorded schedule: every
// task on host h0, each job launched (initialised) 0–5 s after its submit and
// with a setup task of 0.2–8.2 s from then, drawn from seed. Replayed in trace
// mode with the lifecycle, jobs finish their setups out of submission order.
func withSetups(tr *trace.Trace, seed uint64) *trace.Trace {
	rng := rand.New(rand.NewPCG(seed, 99))
	c := *tr
	c.Jobs = slices.Clone(tr.Jobs)
	c.Tasks = slices.Clone(tr.Tasks)
	for k := range c.Tasks {
		c.Tasks[k].Host = "h0"
	}
	for k := range c.Jobs {
		j := &c.Jobs[k]
		j.LaunchMs = j.SubmitMs + rng.Int64N(5000)
		st := trace.NewTask(j.ID, j.ID+"_s_0", trace.Setup, 0)
		st.Host, st.StartMs, st.FinishMs, st.Status = "h0", j.LaunchMs, j.LaunchMs+200+rng.Int64N(8000), trace.StatusSucceeded
		c.Tasks = append(c.Tasks, st)
	}
	c.Sort()
	return &c
}

// hpfspCountDecisions makes h count its slot decisions into n.
func hpfspCountDecisions(h *HPFSP, n *int64) {
	h.verify = func(replay.Cluster, bool, *hpfspJob) { *n++ }
}
