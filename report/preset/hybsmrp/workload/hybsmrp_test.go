package workload

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// generate runs this package's generator name as the registry
// (report/preset/workloads) runs it.
func generate(name string, p trace.GenParams, seed uint64) (*trace.Trace, error) {
	for _, g := range Generators() {
		if g.Name == name {
			return g.Generate(p, seed)
		}
	}
	return nil, fmt.Errorf("no generator %q", name)
}

// getSplitsAlg1 is the paper's Alg. 1 as printed (split_slope = 1.1, split_size =
// dfs.blocksize): for each input file, count a split while remaining/split_size >
// split_slope, then one more for the remainder.
func getSplitsAlg1(files []int64, splitSize int64) int64 {
	n := int64(0)
	for _, f := range files {
		rem := f
		for float64(rem)/float64(splitSize) > 1.1 {
			n++
			rem -= splitSize
		}
		if rem > 0 {
			n++
		}
	}
	return n
}

// TestHybSMRPSplitsAlg1: the job sizes of Table 1 (k·65 maps of one 64 MB block)
// give exactly their map counts under Alg. 1 and under Splits, which the replay
// uses; a few inputs around the 1.1 slope agree too.
func TestHybSMRPSplitsAlg1(t *testing.T) {
	const block = 64 << 20
	for _, m := range Table1Maps() {
		in := int64(m) * block
		n, last := trace.Splits(in, block)
		if n != int64(m) || last != block || getSplitsAlg1([]int64{in}, block) != int64(m) {
			t.Errorf("%d maps: Splits gives %d (last %d), Alg. 1 %d", m, n, last, getSplitsAlg1([]int64{in}, block))
		}
	}
	for _, in := range []int64{1, block, block * 11 / 10, block*11/10 + 1, 2*block + block/10, 2*block + block/10 + 1, 5*block + 3} {
		if n, _ := trace.Splits(in, block); n != getSplitsAlg1([]int64{in}, block) {
			t.Errorf("input %d: Splits %d, Alg. 1 %d", in, n, getSplitsAlg1([]int64{in}, block))
		}
	}
}

func TestHybSMRPGenerator(t *testing.T) {
	tr, err := generate("hybsmrp", trace.GenParams{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 100 {
		t.Fatalf("%d jobs, want 100", len(tr.Jobs))
	}
	apps := map[string]int{}
	for i, j := range tr.Jobs {
		if i > 0 && (j.SubmitMs < tr.Jobs[i-1].SubmitMs || j.ID <= tr.Jobs[i-1].ID) {
			t.Fatalf("job %d (%s at %d ms) is out of order", i, j.ID, j.SubmitMs)
		}
		m := j.InputBytes / (64 << 20)
		if j.InputBytes%(64<<20) != 0 || !slices.Contains(Table1Maps(), int(m)) {
			t.Errorf("job %s: input %d bytes is not a Table 1 size", j.ID, j.InputBytes)
		}
		apps[j.Name]++
		want := map[string][2]int64{"wordcount": {j.InputBytes / 5, j.InputBytes / 20}, "terasort": {j.InputBytes, j.InputBytes}}[j.Name]
		if [2]int64{j.ShuffleBytes, j.OutputBytes} != want || j.NumReduces != trace.Unknown {
			t.Errorf("job %s (%s): shuffle %d, output %d, reduces %d", j.ID, j.Name, j.ShuffleBytes, j.OutputBytes, j.NumReduces)
		}
		if j.InputPath != TeraInput {
			t.Errorf("job %s reads %q, want the one TeraGen output %q", j.ID, j.InputPath, TeraInput)
		}
	}
	if apps["wordcount"] == 0 || apps["terasort"] == 0 || apps["wordcount"]+apps["terasort"] != 100 {
		t.Errorf("application mix %v", apps)
	}
	if tr.Jobs[0].SubmitMs != 0 {
		t.Errorf("first job at %d ms, want 0", tr.Jobs[0].SubmitMs)
	}
	again, _ := generate("hybsmrp", trace.GenParams{}, 7)
	if !reflect.DeepEqual(tr, again) {
		t.Error("same seed, different traces")
	}
	other, _ := generate("hybsmrp", trace.GenParams{}, 8)
	if reflect.DeepEqual(tr.Jobs, other.Jobs) {
		t.Error("seeds 7 and 8 give the same trace")
	}
	// input = "own": the same jobs, each with its own input (no path).
	own, _ := generate("hybsmrp", trace.GenParams{"input": "own"}, 7)
	for i := range own.Jobs {
		if own.Jobs[i].InputPath != "" {
			t.Fatalf("input = own: job %s reads %q, want no path", own.Jobs[i].ID, own.Jobs[i].InputPath)
		}
		own.Jobs[i].InputPath = TeraInput
	}
	if !reflect.DeepEqual(own.Jobs, tr.Jobs) {
		t.Error("input = own changed more than the input paths")
	}
	// Sweeping the size or the application keeps the arrival schedule.
	fixed, _ := generate("hybsmrp", trace.GenParams{"maps": int64(10), "app": "terasort", "reduces": int64(3)}, 7)
	for i, j := range fixed.Jobs {
		if j.SubmitMs != tr.Jobs[i].SubmitMs || j.InputBytes != 10<<26 || j.Name != "terasort" || j.NumReduces != 3 {
			t.Fatalf("fixed-size job %s: submit %d (want %d), input %d, %s, %d reduces", j.ID, j.SubmitMs, tr.Jobs[i].SubmitMs, j.InputBytes, j.Name, j.NumReduces)
		}
	}
}

// TestHybSMRPInterArrival: over many jobs the gaps average the mean and their
// coefficient of variation is that of an exponential law, 1.
func TestHybSMRPInterArrival(t *testing.T) {
	const n = 20000
	tr, err := generate("hybsmrp", trace.GenParams{"jobs": int64(n), "mean_interarrival": 14.0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var sum, sq float64
	for i := 1; i < n; i++ {
		g := float64(tr.Jobs[i].SubmitMs-tr.Jobs[i-1].SubmitMs) / 1000
		sum += g
		sq += g * g
	}
	mean := sum / (n - 1)
	cv := math.Sqrt(sq/(n-1)-mean*mean) / mean
	if math.Abs(mean-14) > 0.5 || math.Abs(cv-1) > 0.05 {
		t.Errorf("inter-arrival mean %.2f s, CV %.3f; want 14 s, 1", mean, cv)
	}
}

func TestHybSMRPGeneratorErrors(t *testing.T) {
	cases := []struct {
		p    trace.GenParams
		want string
	}{
		{trace.GenParams{"jobs": int64(0)}, "jobs = 0: want an integer in [1, 1000000]"},
		{trace.GenParams{"jobs": 2.5}, "jobs = 2.5: want an integer"},
		{trace.GenParams{"jobs": "many"}, "jobs = many: want an integer"},
		{trace.GenParams{"app": "grep"}, "app = grep: want one of wordcount, terasort, mix"},
		{trace.GenParams{"mean_interarrival": -1.0}, "mean_interarrival = -1: want a number in [0, 1e+06]"},
		{trace.GenParams{"maps": int64(-5)}, "maps = -5"},
		{trace.GenParams{"reduces": int64(-2)}, "reduces = -2"},
		{trace.GenParams{"input": "hdfs"}, "input = hdfs: want one of teragen, own"},
		{trace.GenParams{"size": int64(1)}, "unknown parameter size; valid parameters: jobs, mean_interarrival, app, maps, block_mb, reduces, input"},
	}
	for _, c := range cases {
		_, err := generate("hybsmrp", c.p, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "generator hybsmrp: ") {
			t.Errorf("params %v: error %v, want one containing %q", c.p, err, c.want)
		}
	}
}

// FuzzHybSMRPParams: any parameter values give a trace or an error, never a panic,
// and a trace always has the asked number of jobs in submit order.
func FuzzHybSMRPParams(f *testing.F) {
	f.Add(int64(100), 14.0, "mix", int64(0), int64(64), int64(-1))
	f.Add(int64(1), 0.0, "terasort", int64(650), int64(128), int64(160))
	f.Fuzz(func(t *testing.T, jobs int64, mean float64, app string, maps, block, reduces int64) {
		if jobs > 2000 {
			jobs %= 2000
		}
		p := trace.GenParams{"jobs": jobs, "mean_interarrival": mean, "app": app, "maps": maps, "block_mb": block, "reduces": reduces}
		tr, err := generate("hybsmrp", p, 1)
		if err != nil {
			return
		}
		if int64(len(tr.Jobs)) != jobs {
			t.Fatalf("%d jobs, want %d", len(tr.Jobs), jobs)
		}
		for i := 1; i < len(tr.Jobs); i++ {
			if tr.Jobs[i].SubmitMs < tr.Jobs[i-1].SubmitMs || tr.Jobs[i].InputBytes < 0 {
				t.Fatalf("job %d: submit %d after %d, input %d", i, tr.Jobs[i].SubmitMs, tr.Jobs[i-1].SubmitMs, tr.Jobs[i].InputBytes)
			}
		}
	})
}
