package trace

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// moments returns the sample mean and standard deviation.
func moments(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

// within checks a sample mean against its expectation, allowing four standard
// errors (a fixed seed makes the test deterministic; four standard errors make
// it robust to a change of random stream).
func within(t *testing.T, what string, got, want, sd float64, n int) {
	t.Helper()
	if tol := 4 * sd / math.Sqrt(float64(n)); math.Abs(got-want) > tol {
		t.Errorf("%s = %.4g, want %.4g ± %.3g", what, got, want, tol)
	}
}

func gen(t *testing.T, p GenParams, seed uint64) *Trace {
	t.Helper()
	tr, err := Synthetic().Generate(p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// taskSeconds returns the durations in seconds of the trace's tasks of one type.
func taskSeconds(tr *Trace, typ TaskType) []float64 {
	var d []float64
	for _, k := range tr.Tasks {
		if k.Type == typ {
			d = append(d, float64(k.FinishMs-k.StartMs)/1000)
		}
	}
	return d
}

func TestSyntheticPoissonArrivals(t *testing.T) {
	const n = 20000
	tr := gen(t, GenParams{"jobs": int64(n), "interarrival_s": 300.0, "maps_mean": int64(1)}, 7)
	if len(tr.Jobs) != n || tr.Jobs[0].SubmitMs != 0 {
		t.Fatalf("%d jobs, first at %d ms; want %d jobs, first at 0", len(tr.Jobs), tr.Jobs[0].SubmitMs, n)
	}
	gaps := make([]float64, 0, n-1)
	for i := 1; i < n; i++ {
		g := float64(tr.Jobs[i].SubmitMs-tr.Jobs[i-1].SubmitMs) / 1000
		if g < 0 {
			t.Fatalf("job %d arrives before job %d", i+1, i)
		}
		gaps = append(gaps, g)
	}
	mean, sd := moments(gaps)
	within(t, "mean inter-arrival", mean, 300, 300, n-1)
	// An exponential has sd = mean; the sample sd's standard error is about
	// sd·sqrt(2)/sqrt(n) for this tail (kurtosis 9: sqrt((9-1)/4) = sqrt 2).
	within(t, "sd of inter-arrivals", sd, 300, 300*math.Sqrt(2), n-1)
}

func TestSyntheticUniformAndFixedArrivals(t *testing.T) {
	const n = 10000
	tr := gen(t, GenParams{"jobs": int64(n), "arrival": "uniform", "window_s": 120.0, "maps_mean": 1.0}, 3)
	var at []float64
	for i, j := range tr.Jobs {
		if j.SubmitMs < 0 || j.SubmitMs > 120000 || i > 0 && j.SubmitMs < tr.Jobs[i-1].SubmitMs {
			t.Fatalf("job %s at %d ms: want sorted times in [0, 120000]", j.ID, j.SubmitMs)
		}
		at = append(at, float64(j.SubmitMs)/1000)
	}
	mean, _ := moments(at)
	within(t, "mean uniform arrival", mean, 60, 120/math.Sqrt(12), n)

	tr = gen(t, GenParams{"jobs": int64(4), "arrival": "fixed", "interarrival_s": 2.5, "maps_mean": 1.0}, 3)
	for i, want := range []int64{0, 2500, 5000, 7500} {
		if tr.Jobs[i].SubmitMs != want {
			t.Errorf("fixed arrival of job %d at %d ms, want %d", i+1, tr.Jobs[i].SubmitMs, want)
		}
	}
}

func TestSyntheticCounts(t *testing.T) {
	t.Parallel()
	const n = 2000
	cases := []struct {
		name     string
		p        GenParams
		mean, sd float64 // of the map count
	}{
		{"fixed", GenParams{"maps": "fixed", "maps_mean": int64(20)}, 20, 0},
		{"exponential", GenParams{"maps": "exponential", "maps_mean": int64(100)}, 100, 100},
		{"normal", GenParams{"maps": "normal", "maps_mean": int64(100), "maps_sd": 10.0}, 100, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.p["jobs"] = int64(n)
			c.p["map_time_mean_s"] = 1.0
			tr := gen(t, c.p, 11)
			counts := make([]float64, n)
			perJob := map[string]int32{}
			for _, k := range tr.Tasks {
				perJob[k.JobID]++
			}
			for i, j := range tr.Jobs {
				if j.NumMaps < 1 || perJob[j.ID] != j.NumMaps || j.NumReduces != 0 {
					t.Fatalf("job %s: NumMaps %d, %d map tasks, NumReduces %d", j.ID, j.NumMaps, perJob[j.ID], j.NumReduces)
				}
				counts[i] = float64(j.NumMaps)
			}
			mean, sd := moments(counts)
			if c.sd == 0 {
				if mean != c.mean || sd != 0 {
					t.Errorf("fixed count: mean %g sd %g, want %g and 0", mean, sd, c.mean)
				}
				return
			}
			within(t, "mean map count", mean, c.mean, c.sd, n)
			within(t, "sd of map count", sd, c.sd, c.sd*1.5, n)
		})
	}
}

func TestSyntheticListCountsCycle(t *testing.T) {
	tr := gen(t, GenParams{"jobs": int64(7), "maps": "list", "maps_values": []any{int64(16), int64(32), int64(48)},
		"reduces": "list", "reduces_values": "1, 2", "map_time_mean_s": 1.0}, 1)
	wantM := []int32{16, 32, 48, 16, 32, 48, 16}
	wantR := []int32{1, 2, 1, 2, 1, 2, 1}
	for i, j := range tr.Jobs {
		if j.NumMaps != wantM[i] || j.NumReduces != wantR[i] {
			t.Errorf("job %d: %d maps %d reduces, want %d and %d", i+1, j.NumMaps, j.NumReduces, wantM[i], wantR[i])
		}
	}
}

func TestSyntheticTaskTimes(t *testing.T) {
	cases := []struct {
		name     string
		p        GenParams
		mean, sd float64 // seconds, of map times
	}{
		// H-PFSP Fig. 5: N(10, 2.236) minutes.
		{"normal", GenParams{"map_time": "normal", "map_time_mean_s": 600.0, "map_time_sd_s": 134.16}, 600, 134.16},
		{"exponential", GenParams{"map_time": "exponential", "map_time_mean_s": 30.0}, 30, 30},
		{"fixed", GenParams{"map_time_mean_s": "600"}, 600, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.p["jobs"] = int64(50)
			c.p["maps_mean"] = int64(200)
			c.p["reduces_mean"] = int64(4)
			c.p["reduce_time_mean_s"] = 7.5
			tr := gen(t, c.p, 5)
			d := taskSeconds(tr, Map)
			if len(d) != 50*200 {
				t.Fatalf("%d maps, want 10000", len(d))
			}
			mean, sd := moments(d)
			if c.sd == 0 {
				if mean != c.mean || sd != 0 {
					t.Errorf("fixed time: mean %g sd %g", mean, sd)
				}
			} else {
				within(t, "mean map time", mean, c.mean, c.sd, len(d))
				within(t, "sd of map time", sd, c.sd, c.sd*1.5, len(d))
			}
			for _, r := range taskSeconds(tr, Reduce) {
				if r != 7.5 {
					t.Fatalf("reduce time %g s, want the fixed 7.5 s", r)
				}
			}
			for _, k := range tr.Tasks {
				if k.FinishMs <= k.StartMs {
					t.Fatalf("task %s lasts %d ms", k.TaskID, k.FinishMs-k.StartMs)
				}
			}
		})
	}
}

func TestSyntheticDeterministicAndPrefixStable(t *testing.T) {
	p := GenParams{"jobs": int64(30), "maps": "exponential", "maps_mean": int64(20), "map_time": "normal",
		"map_time_mean_s": 60.0, "map_time_sd_s": 10.0, "reduces_mean": int64(2), "map_input_mb": 64.0}
	a, b := gen(t, p, 42), gen(t, p, 42)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same parameters and seed gave different traces")
	}
	if c := gen(t, p, 43); reflect.DeepEqual(a.Jobs, c.Jobs) {
		t.Fatal("seeds 42 and 43 gave the same jobs")
	}
	if a.Jobs[0].InputBytes != int64(a.Jobs[0].NumMaps)*64<<20 || a.Tasks[0].InputBytes != 64<<20 {
		t.Errorf("input bytes: job %d, task %d; want 64 MiB per map", a.Jobs[0].InputBytes, a.Tasks[0].InputBytes)
	}
	// Job k does not depend on how many jobs follow it.
	p["jobs"] = int64(10)
	short := gen(t, p, 42)
	if !reflect.DeepEqual(short.Jobs, a.Jobs[:10]) || !reflect.DeepEqual(short.Tasks, a.Tasks[:len(short.Tasks)]) {
		t.Error("the first 10 jobs changed when 20 more were generated")
	}
	if short.Meta.Options["generator"] != "synthetic" || short.Meta.Options["seed"] != "42" || short.Meta.Options["jobs"] != "10" {
		t.Errorf("meta options %v", short.Meta.Options)
	}
}

func TestSyntheticBadParams(t *testing.T) {
	cases := []struct {
		p    GenParams
		want string
	}{
		{GenParams{"jobs": int64(0)}, "jobs = 0: want an integer in [1,"},
		{GenParams{"jobs": 2.5}, "jobs = 2.5: want an integer"},
		{GenParams{"jobs": "many"}, "jobs = many: want an integer"},
		{GenParams{"arrival": "bursty"}, "arrival = bursty: want one of poisson, uniform, fixed"},
		{GenParams{"interarrival_s": 0.0}, "interarrival_s must be positive for Poisson"},
		{GenParams{"interarrival_s": -1.0}, "interarrival_s = -1: want a number in [0,"},
		{GenParams{"arrival": "uniform"}, "window_s must be positive for uniform arrivals"},
		{GenParams{"arrival": "uniform", "window_s": 10.0, "interarrival_s": 3.0}, "interarrival_s applies to"},
		{GenParams{"window_s": 10.0}, "window_s applies to arrival = \"uniform\" only"},
		{GenParams{"maps": "gamma"}, "maps = gamma: want one of fixed, exponential, normal, list"},
		{GenParams{"maps_mean": 0.0}, "maps_mean = 0: want at least 1"},
		{GenParams{"maps_sd": 3.0}, "maps_sd applies to maps = \"normal\" only"},
		{GenParams{"maps": "list"}, "maps_values: required"},
		{GenParams{"maps": "list", "maps_values": []any{}}, "maps_values: want at least one value"},
		{GenParams{"maps": "list", "maps_values": []any{int64(3), "x"}}, "maps_values: value x: want an integer"},
		{GenParams{"maps": "list", "maps_values": "0"}, "maps_values: value 0: want an integer in [1,"},
		{GenParams{"maps_values": "3"}, "maps_values applies to maps = \"list\" only"},
		{GenParams{"map_time": "list"}, "map_time = list: want one of fixed, exponential, normal"},
		{GenParams{"map_time_mean_s": 0.0}, "map_time_mean_s = 0: want a positive number of seconds"},
		{GenParams{"reduce_time": "normal", "reduce_time_sd_s": "-2"}, "reduce_time_sd_s = -2: want a number in [0,"},
		{GenParams{"map_input_mb": "NaN"}, "map_input_mb = NaN: want a number"},
		{GenParams{"mpas": int64(3), "jobz": int64(1)}, "unknown parameter jobz, mpas; valid parameters: jobs, arrival"},
	}
	for _, c := range cases {
		_, err := Synthetic().Generate(c.p, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("params %v: error %v, want it to contain %q", c.p, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "generator synthetic: ") {
			t.Errorf("error %q does not name the generator", err)
		}
	}
}

// FuzzSyntheticParams feeds arbitrary command-line style parameters: the
// generator must either refuse them with an error or produce a valid trace.
func FuzzSyntheticParams(f *testing.F) {
	f.Add("maps", "normal", "maps_sd", "3")
	f.Add("arrival", "uniform", "window_s", "1e3")
	f.Add("reduces", "list", "reduces_values", "1,2,,3")
	f.Add("map_time", "exponential", "map_time_mean_s", "-0")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		p := GenParams{"jobs": "3", "maps_mean": "2", k1: v1, k2: v2}
		s, err := parseSynth(p)
		if err != nil {
			return
		}
		if int64(s.jobs)*(max(int64(s.maps.mean), 1)+max(int64(s.reduces.mean), 1)) > 1e5 {
			return // valid but too big to build in a fuzz iteration
		}
		for _, v := range s.maps.values {
			if v > 1e4 {
				return
			}
		}
		tr, err := makeSynthetic(p, 1)
		if err != nil {
			t.Fatalf("parsed parameters %v failed to generate: %v", p, err)
		}
		for i, j := range tr.Jobs {
			if j.NumMaps < 1 || j.NumReduces < 0 || i > 0 && j.SubmitMs < tr.Jobs[i-1].SubmitMs {
				t.Fatalf("params %v: job %s has %d maps %d reduces at %d ms", p, j.ID, j.NumMaps, j.NumReduces, j.SubmitMs)
			}
		}
		for _, k := range tr.Tasks {
			if k.FinishMs <= k.StartMs {
				t.Fatalf("params %v: task %s of %d ms", p, k.TaskID, k.FinishMs-k.StartMs)
			}
		}
	})
}
