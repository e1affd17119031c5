package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Synthetic returns the general synthetic workload generator: jobs arriving by a
// Poisson process, uniformly in a window or at a fixed interval, each with map
// and reduce counts and task times drawn from fixed, exponential or normal
// distributions (H-PFSP §IV-B simulates 50 such jobs). Task times go into the
// trace as each task's observed duration (StartMs = the job's submit, FinishMs =
// StartMs + duration), which replay uses as the node-local task time when the
// hardware's task_times is "trace" or "auto".
func Synthetic() Generator {
	return Generator{
		Name: "synthetic",
		Doc: "jobs with Poisson, uniform or fixed arrivals; map/reduce counts and task times " +
			"fixed, exponential or normal. Params: " + strings.Join(synthKeys(), ", "),
		Make: makeSynthetic,
	}
}

// synthKeys lists the synthetic generator's parameters.
func synthKeys() []string {
	return []string{
		"jobs", "arrival", "interarrival_s", "window_s",
		"maps", "maps_mean", "maps_sd", "maps_values",
		"reduces", "reduces_mean", "reduces_sd", "reduces_values",
		"map_time", "map_time_mean_s", "map_time_sd_s",
		"reduce_time", "reduce_time_mean_s", "reduce_time_sd_s",
		"map_input_mb",
	}
}

// Distribution names of the synthetic generator.
const (
	distFixed = "fixed"
	distExp   = "exponential"
	distNorm  = "normal"
	distList  = "list" // counts only: job k takes values[k mod len]
)

// dist is one parsed distribution: of a task count or of a task time in seconds.
type dist struct {
	kind     string
	mean, sd float64
	values   []int64
}

// synthSpec is the validated parameter set of the synthetic generator.
type synthSpec struct {
	jobs         int
	arrival      string
	interarrival float64 // seconds
	window       float64 // seconds
	maps         dist
	reduces      dist
	mapTime      dist
	reduceTime   dist
	mapInput     int64 // bytes per map
}

// Random streams of the generator, one per concern; per-job streams are keyed by
// the job's position, so that job k is the same whatever the number of jobs.
const (
	synthStreamArrivals = 1
	synthStreamJob      = 2
)

func makeSynthetic(p GenParams, seed uint64) (*Trace, error) {
	s, err := parseSynth(p)
	if err != nil {
		return nil, err
	}
	arrivals := s.arrivalsMs(rand.New(rand.NewPCG(seed, synthStreamArrivals<<40)))
	jobs, tasks := s.sizes(seed)
	tr := &Trace{Jobs: make([]Job, 0, jobs), Tasks: make([]Task, 0, tasks)}
	for k := range s.jobs {
		rng := rand.New(rand.NewPCG(seed, synthStreamJob<<40|uint64(k)))
		id := "job" + strconv.Itoa(k+1)
		j := NewJob(id)
		j.Name = "synthetic"
		j.Status = StatusSucceeded
		j.SubmitMs = arrivals[k]
		nm, nr := s.counts(rng, k)
		if int64(len(tr.Tasks))+nm+nr > MaxGenTasks {
			return nil, fmt.Errorf("job %d of %d: the draws exceed the limit of %d tasks per generated trace", k+1, s.jobs, MaxGenTasks)
		}
		j.NumMaps, j.NumReduces = int32(nm), int32(nr)
		j.InputBytes = nm * s.mapInput
		j.ShuffleBytes, j.OutputBytes = 0, 0
		end := j.SubmitMs
		for i := range nm {
			t := NewTask(id, id+"_m_"+strconv.FormatInt(i, 10), Map, int32(i))
			t.InputBytes, t.OutputBytes = s.mapInput, 0
			t.Status = StatusSucceeded
			t.StartMs = j.SubmitMs
			t.FinishMs = t.StartMs + s.mapTime.millis(rng)
			end = max(end, t.FinishMs)
			tr.Tasks = append(tr.Tasks, t)
		}
		for i := range nr {
			t := NewTask(id, id+"_r_"+strconv.FormatInt(i, 10), Reduce, int32(i))
			t.ShuffleBytes, t.OutputBytes = 0, 0
			t.Status = StatusSucceeded
			t.StartMs = j.SubmitMs
			t.FinishMs = t.StartMs + s.reduceTime.millis(rng)
			tr.Tasks = append(tr.Tasks, t)
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	return tr, nil
}

// counts draws job k's map and reduce counts, the first draws of its random
// stream.
func (s *synthSpec) counts(rng *rand.Rand, k int) (maps, reduces int64) {
	maps = min(s.maps.count(rng, k, 1), maxSynthTasks)
	reduces = min(s.reduces.count(rng, k, 0), maxSynthTasks)
	return maps, reduces
}

// sizes returns the numbers of jobs and tasks makeSynthetic makes with seed,
// from the counts its per-job streams draw first (counts), so that it can
// allocate them once instead of growing them task by task: a trace of
// hundreds of thousands of tasks would otherwise copy them about twice and
// touch twice the memory. Past MaxGenTasks it stops (makeSynthetic refuses
// the trace).
func (s *synthSpec) sizes(seed uint64) (jobs, tasks int) {
	var total int64
	for k := range s.jobs {
		nm, nr := s.counts(rand.New(rand.NewPCG(seed, synthStreamJob<<40|uint64(k))), k)
		if total += nm + nr; total > MaxGenTasks {
			return k, 0
		}
	}
	return s.jobs, int(total)
}

// arrivalsMs draws the submit times in milliseconds, non-decreasing, the first
// at 0 for Poisson and fixed arrivals.
func (s *synthSpec) arrivalsMs(rng *rand.Rand) []int64 {
	at := make([]int64, s.jobs)
	switch s.arrival {
	case "poisson":
		t := 0.0
		for k := range at {
			if k > 0 {
				t += rng.ExpFloat64() * s.interarrival
			}
			at[k] = int64(math.Round(t * 1000))
		}
	case "uniform":
		for k := range at {
			at[k] = int64(math.Round(rng.Float64() * s.window * 1000))
		}
		slices.Sort(at)
	default: // fixed
		for k := range at {
			at[k] = int64(math.Round(float64(k) * s.interarrival * 1000))
		}
	}
	return at
}

// expected returns the mean task count of a count distribution (at least lo),
// the largest value for a list.
func (d *dist) expected(lo int64) float64 {
	switch d.kind {
	case distList:
		return float64(max(lo, slices.Max(append([]int64{0}, d.values...))))
	case distNorm:
		return max(float64(lo), d.mean+d.sd) // draws below lo are redrawn
	}
	return max(float64(lo), d.mean)
}

// redraws bounds the rejection sampling of truncated normals.
const redraws = 64

// count draws a task count of at least lo for job k: rounded to the nearest
// integer; a normal draw below lo is redrawn (a truncated normal), an
// exponential one is raised to lo.
func (d *dist) count(rng *rand.Rand, k int, lo int64) int64 {
	switch d.kind {
	case distList:
		return max(lo, d.values[k%len(d.values)])
	case distExp:
		return max(lo, int64(math.Round(rng.ExpFloat64()*d.mean)))
	case distNorm:
		for range redraws {
			if n := int64(math.Round(d.mean + d.sd*rng.NormFloat64())); n >= lo {
				return n
			}
		}
		return lo
	}
	return max(lo, int64(math.Round(d.mean)))
}

// millis draws a task time in milliseconds, at least 1: a normal draw that
// rounds below 1 ms is redrawn (a truncated normal).
func (d *dist) millis(rng *rand.Rand) int64 {
	switch d.kind {
	case distExp:
		return max(1, int64(math.Round(rng.ExpFloat64()*d.mean*1000)))
	case distNorm:
		for range redraws {
			if ms := int64(math.Round((d.mean + d.sd*rng.NormFloat64()) * 1000)); ms >= 1 {
				return ms
			}
		}
		return 1
	}
	return max(1, int64(math.Round(d.mean*1000)))
}

// Limits that keep a generated trace of a sensible size.
const (
	maxSynthJobs  = 1_000_000
	maxSynthTasks = 1_000_000 // per job and kind
	// maxSynthSeconds bounds times and gaps (about 31 years): larger ones
	// overflow the trace's milliseconds.
	maxSynthSeconds = 1e9
)

// parseSynth reads and validates the parameters; every problem is reported.
func parseSynth(p GenParams) (*synthSpec, error) {
	r := NewParamReader(p)
	s := &synthSpec{}
	s.jobs = int(r.Int("jobs", 50, 1, maxSynthJobs))
	s.arrival = r.Choice("arrival", "poisson", "poisson", "uniform", "fixed")
	s.interarrival = r.Float("interarrival_s", 300, 0, maxSynthSeconds)
	s.window = r.Float("window_s", 0, 0, maxSynthSeconds)
	switch {
	case s.arrival == "poisson" && !(s.interarrival > 0):
		r.Bad("interarrival_s must be positive for Poisson arrivals")
	case s.arrival == "uniform" && !(s.window > 0):
		r.Bad("window_s must be positive for uniform arrivals")
	}
	if s.arrival != "uniform" && r.has("window_s") {
		r.Bad("window_s applies to arrival = \"uniform\" only")
	}
	if s.arrival == "uniform" && r.has("interarrival_s") {
		r.Bad("interarrival_s applies to arrival = \"poisson\" or \"fixed\" only")
	}
	s.maps = r.dist("maps", 200, true, 1)
	s.reduces = r.dist("reduces", 0, true, 0)
	s.mapTime = r.dist("map_time", 600, false, 0)
	s.reduceTime = r.dist("reduce_time", s.mapTime.mean, false, 0)
	mb := r.Float("map_input_mb", 0, 0, 1<<30)
	s.mapInput = int64(math.Round(mb * (1 << 20)))
	r.Budget(float64(s.jobs), s.maps.expected(1)+s.reduces.expected(0), "jobs × (maps + reduces)")
	r.unknown(synthKeys())
	if err := r.err(); err != nil {
		return nil, err
	}
	return s, nil
}

// dist reads the distribution named key with its key_mean[_s], key_sd[_s] and,
// for counts, key_values parameters. Counts must have a mean of at least lo
// (and at most maxSynthTasks); times (seconds) a positive mean.
func (r *ParamReader) dist(key string, defMean float64, isCount bool, lo int64) dist {
	kinds := []string{distFixed, distExp, distNorm}
	suffix := "_s"
	if isCount {
		kinds = append(kinds, distList)
		suffix = ""
	}
	meanKey, sdKey, valKey := key+"_mean"+suffix, key+"_sd"+suffix, key+"_values"
	d := dist{kind: r.Choice(key, distFixed, kinds...)}
	hi := float64(maxSynthSeconds)
	if isCount {
		hi = maxSynthTasks
	}
	d.mean = r.Float(meanKey, defMean, 0, hi)
	switch {
	case isCount && d.kind != distList && d.mean < float64(lo):
		r.Bad("%s = %v: want at least %d", meanKey, d.mean, lo)
	case !isCount && !(d.mean > 0):
		r.Bad("%s = %v: want a positive number of seconds", meanKey, d.mean)
	}
	if d.kind == distNorm {
		d.sd = r.Float(sdKey, 0, 0, hi)
	} else if r.has(sdKey) {
		r.Bad("%s applies to %s = %q only", sdKey, key, distNorm)
	}
	if d.kind == distList {
		if r.has(valKey) {
			d.values = r.List(valKey, lo, maxSynthTasks)
		} else {
			r.Bad("%s: required when the distribution is %q", valKey, distList)
		}
		if r.has(meanKey) {
			r.Bad("%s does not apply to %s = %q (give %s)", meanKey, key, distList, valKey)
		}
	} else if isCount && r.has(valKey) {
		r.Bad("%s applies to %s = %q only", valKey, key, distList)
	}
	return d
}
