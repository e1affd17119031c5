// Package workload generates HybSMRP's workload (Gandomi et al., J. Big Data
// 2019, §Results): a submission schedule of 100 jobs with exponential
// inter-arrival times of mean 14 s, made of Wordcount and Terasort jobs whose
// sizes follow the paper's Table 1 (65, 130, …, 650 map tasks of one 64 MB
// block each).
//
// Each job gives only bytes; the replay cuts its input into splits with getSplits
// (trace.Splits, the paper's Alg. 1) and takes its task times from the hardware model's
// byte rates. The two applications differ in their byte ratios:
//
//   - wordcount: map output (after the combiner) 20% of the input, job output 5%:
//     little shuffle, so its time is dominated by the map function (CPU-heavy once
//     the hardware's map compute rate is the slowest rate, as in
//     samples/hardware/hybsmrp.toml);
//   - terasort: map output = job output = input (an identity map and reduce that
//     sort): every byte is read, spilled, shuffled and written, so it is I/O-heavy.
//
// Parameters: jobs (100), mean_interarrival (seconds, 14), app (wordcount,
// terasort or mix: each job drawn with probability 1/2; default mix), maps (map
// tasks per job; 0, the default, draws each job's size uniformly from Table 1's
// ten classes 65·k, k = 1..10), block_mb (the HDFS block the sizes are counted in,
// 64), reduces (reduce tasks per job; -1, the default, lets the replay derive them
// from the bytes with its reduce_mb_per_task rule).
//
// Arrivals, sizes and applications come from separate seeded streams, so sweeping
// maps or switching app keeps the arrival schedule of a seed.
//
// Every job reads one dataset, TeraGen's output. The paper generates one input
// for all its experiments: "In this study, 6400 MB input data was generated.
// The block size corresponding to HDFS was considered to be 64 MB and the
// replication level was set as 3. TeraGen benchmark was used to generate
// random data." (§Results, before Table 3); it names no other input, and
// Terasort by definition sorts TeraGen's output. So each job's input path is
// TeraInput ("teragen"), and the replay places the dataset's blocks once and
// lets every job read them (replay/datasets.go): a job of m maps reads its
// first m blocks, so the 10-100 map jobs of Tables 4 and 5 read a prefix of
// the 100 blocks of 6,400 MB, and a Table 1 job of more than 100 maps extends
// the dataset past 6,400 MB (Table 1's sizes are larger than the text's input;
// see docs/repro/hybsmrp.md). Parameter input: "teragen" (the default) or
// "own", each job its own input with no path, placed job by job as before
// datasets were shared.
//
// It imports only trace, so that ingest can list and run its generator without
// linking the presets or the simulator.
package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

const (
	hybStreamArrivals = 1
	hybStreamSizes    = 2
	hybStreamApps     = 3
)

// hybApp is one application profile: map output and job output as fractions of
// the input.
type hybApp struct {
	name          string
	shuffle, outp float64
}

var hybApps = []hybApp{{"wordcount", 0.2, 0.05}, {"terasort", 1, 1}}

// TeraInput is the input path of every generated job (parameter input =
// "teragen"): the one TeraGen output the paper's jobs read.
const TeraInput = "teragen"

// Table1Maps returns the job sizes (map tasks) of the paper's Table 1,
// which are also the rows of its Tables 6 and 7.
func Table1Maps() []int { return []int{65, 130, 195, 260, 325, 390, 455, 520, 585, 650} }

// Generators returns the HybSMRP paper's workload generator.
func Generators() []trace.Generator {
	return []trace.Generator{
		{Name: "hybsmrp", Doc: "HybSMRP (Gandomi et al. 2019): 100 Wordcount/Terasort jobs, exponential inter-arrival (mean 14 s), Table 1 sizes", Make: genHybSMRP},
	}
}

func genHybSMRP(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	r := trace.NewParamReader(p)
	jobs := int(r.Int("jobs", 100, 1, 1_000_000))
	mean := r.Float("mean_interarrival", 14, 0, 1e6)
	app := r.Choice("app", "mix", "wordcount", "terasort", "mix")
	maps := int(r.Int("maps", 0, 0, 1_000_000))
	block := r.Int("block_mb", 64, 1, 1<<20)
	reduces := r.Int("reduces", -1, -1, 1_000_000)
	input := r.Choice("input", "teragen", "teragen", "own")
	perJob := float64(maps)
	if maps == 0 {
		perJob = float64(slices.Max(Table1Maps()))
	}
	// the trace lists no tasks (replay synthesizes them job by job from the
	// input bytes, one map per block): bound the bytes
	if perJob*float64(block) > trace.MaxJobBytes>>20 {
		r.Bad("maps × block_mb = %.4g MB: want at most %d MB of input per job", perJob*float64(block), trace.MaxJobBytes>>20)
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	arrivals := rand.New(rand.NewPCG(seed, hybStreamArrivals))
	sizes := rand.New(rand.NewPCG(seed, hybStreamSizes))
	apps := rand.New(rand.NewPCG(seed, hybStreamApps))
	tr := &trace.Trace{}
	width := len(fmt.Sprint(jobs))
	classes := Table1Maps()
	var t float64 // seconds
	for i := range jobs {
		if i > 0 {
			t += arrivals.ExpFloat64() * mean
		}
		m := maps
		if k := sizes.IntN(len(classes)); m == 0 {
			m = classes[k]
		}
		a := hybApps[apps.IntN(len(hybApps))]
		if app != "mix" {
			a = hybApps[slices.IndexFunc(hybApps, func(x hybApp) bool { return x.name == app })]
		}
		in := int64(m) * int64(block) << 20
		j := trace.NewJob(fmt.Sprintf("job_%0*d", width, i+1))
		j.Name, j.User, j.Queue, j.Status = a.name, "hybsmrp", "default", trace.StatusSucceeded
		j.SubmitMs = int64(math.Round(t * 1000))
		j.InputBytes = in
		j.ShuffleBytes = int64(a.shuffle * float64(in))
		j.OutputBytes = int64(a.outp * float64(in))
		if reduces >= 0 {
			j.NumReduces = int32(reduces)
		}
		if input == "teragen" {
			j.InputPath = TeraInput
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	return tr, nil
}
