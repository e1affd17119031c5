// Package workload generates the workloads of the Coupling Scheduler paper
// (Tan, Meng, Zhang, INFOCOM 2013): Grep, WordCount, Sort, QuasiMonteCarlo and
// RandomWriter jobs on the paper's input files, with the map and reduce counts
// of its Tables II-IV. It imports only trace, so that ingest can list and run
// its generators without linking the presets or the simulator.
//
// The paper gives job kinds, inputs, task counts and submit times but not task
// times or data sizes beyond the files' sizes, so these are the generator's
// calibration, chosen to match the paper's own time marks:
//   - Each map reads an equal part of its input file (wikiInput 28 GB in 427
//     maps is 65.6 MB a map). Its node-local duration is written as the task's
//     observed time (StartMs..FinishMs), which the replay takes as the local time
//     and to which it adds the network cost when the map runs elsewhere; the
//     reduces carry bytes only, so the hardware model times them.
//   - Map seconds per MB of input: Grep 0.58 (38 s a wikiInput map: 10 jobs of
//     427 maps take about 80 minutes on 32 slots, Fig. 5), WordCount 0.74 (48.5
//     s, the µ = 1/48.5 of Fig. 10), Sort 0.6 (40 s); QuasiMonteCarlo maps take
//     30 s (job 3 of Table IV, 5 maps, ends within 0.8 minutes when it is not
//     starved), RandomWriter maps 80 s. Durations are log-normal around these
//     means with a coefficient of variation of 0.25 (the spread of Fig. 8).
//   - Map output over map input: Grep 0.02, WordCount on a random-number file
//     1.0 (every number is its own word, the combiner saves nothing), WordCount
//     on wikiInput 0.005 (the combiner folds repeated words; keeps Fig. 10's job
//     map-bound), Sort 1.0, QuasiMonteCarlo and RandomWriter nothing (RandomWriter
//     writes straight to HDFS). Each reduce of a job fetches an equal share of
//     the job's map output; reduce output over reduce input: Grep 0.1,
//     WordCount 0.5, Sort 1, QuasiMonteCarlo 0.
//
// All jobs belong to one user, "coupling", as in a single-tenant testbed.
package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// cpInput is one of the paper's input files (§III, sets A-C): its size and the
// number of maps the paper reports for it.
type cpInput struct {
	gb   float64
	maps int32
}

var cpInputs = map[string]cpInput{
	"wikiInput": {28, 427}, "randomInput": {10, 148}, "randomInput05": {0.5, 8}, "randomInput10": {1, 15},
	"randomInput15": {1.5, 23}, "randomInput20": {2, 30}, "randomInput30": {3, 45},
	"randomPair1": {15, 224}, "randomPair2": {29, 352}, "randomPair3": {4.3, 64},
}

// cpJob is one job of a paper workload: kind, regular expression (Grep), input,
// submit second, maps and reduces.
type cpJob struct {
	kind, pattern, input string
	at                   float64
	maps, reduces        int32
}

// cpTable4 is Table IV, the 22-job sequence (its Time column is in seconds).
var cpTable4 = []cpJob{
	{"grep", "[1-5]*", "randomInput", 0, 148, 15}, {"grep", "[5-9]*", "randomInput", 30, 148, 15},
	{"montecarlo", "", "", 150, 5, 1}, {"wordcount", "", "randomInput05", 170, 8, 1},
	{"grep", "[2-6]*", "randomInput05", 190, 8, 2}, {"grep", "[3-6]*", "randomInput05", 210, 8, 2},
	{"grep", "[4-6]*", "randomInput05", 230, 8, 3}, {"grep", "[a-h][a-z]*", "wikiInput", 470, 427, 15},
	{"grep", "[a-g][a-z]*", "wikiInput", 500, 427, 15}, {"sort", "", "randomPair1", 800, 224, 27},
	{"grep", "[1-2]*", "randomInput10", 860, 15, 5}, {"grep", "[1-5]*", "randomInput05", 880, 8, 3},
	{"grep", "[6-9]*", "randomInput05", 900, 8, 2}, {"sort", "", "randomPair3", 1020, 64, 27},
	{"grep", "[3-8]*", "randomInput20", 1140, 30, 2}, {"wordcount", "", "randomInput10", 1440, 15, 1},
	{"sort", "", "randomPair2", 1710, 352, 27}, {"montecarlo", "", "", 2110, 15, 1},
	{"grep", "[1-5]*", "randomInput05", 2125, 8, 3}, {"sort", "", "randomPair3", 2245, 64, 27},
	{"randomwriter", "", "", 2365, 150, 0}, {"montecarlo", "", "", 2485, 10, 1},
}

// cpTable3 is Table III: ten Grep jobs without reduces (job 01 at 0 s).
var cpTable3 = []cpJob{
	{"grep", "[a-f][a-z]*", "wikiInput", 0, 427, 0}, {"grep", "[1-5]*", "randomInput10", 120, 15, 0},
	{"grep", "[1-4]*", "randomInput15", 240, 23, 0}, {"grep", "[1-3]*", "randomInput30", 360, 45, 0},
	{"grep", "[a-f][a-z]*", "wikiInput", 480, 427, 0}, {"grep", "[1-2]*", "randomInput10", 600, 15, 0},
	{"grep", "[1-4]*", "randomInput15", 720, 23, 0}, {"grep", "[1-3]*", "randomInput20", 840, 30, 0},
	{"grep", "[a-f][a-z]*", "wikiInput", 960, 427, 0}, {"grep", "[1-2]*", "randomInput30", 1080, 45, 0},
}

// cpSingle are the single jobs of Table II (Fig. 12).
var cpSingle = map[string]cpJob{
	"grep":         {"grep", "[1-5]*", "randomInput", 0, 148, 6},
	"randomwriter": {"randomwriter", "", "", 0, 70, 0},
	"montecarlo":   {"montecarlo", "", "", 0, 50, 1},
	"sort1":        {"sort", "", "randomPair1", 0, 224, 12},
	"sort2":        {"sort", "", "randomPair2", 0, 352, 27},
}

// cpKind is the calibration of one job kind (see the package comment).
type cpKind struct {
	secPerMB  float64 // map seconds per MB of input; 0: fixedSec
	fixedSec  float64
	mapOut    float64 // map output / map input
	redOut    float64 // reduce output / reduce input
	inputless bool    // maps read (next to) nothing
}

var cpKinds = map[string]cpKind{
	"grep":         {secPerMB: 0.58, mapOut: 0.02, redOut: 0.1},
	"wordcount":    {secPerMB: 0.74, mapOut: 1, redOut: 0.5},
	"sort":         {secPerMB: 0.6, mapOut: 1, redOut: 1},
	"montecarlo":   {fixedSec: 30, inputless: true},
	"randomwriter": {fixedSec: 80, inputless: true},
}

// cpWikiWordCountOut is WordCount's map output ratio on wikiInput.
const cpWikiWordCountOut = 0.005

// cpDurationCV is the spread of map durations.
const cpDurationCV = 0.25

// Generators returns the Coupling paper's workload generators.
func Generators() []trace.Generator {
	return []trace.Generator{
		{Name: "coupling-twojobs", Doc: "Coupling Figs. 1-2: a 427-map Grep, then a smaller Grep a minute later (params maps1, reduces1, maps2, reduces2, at2_s)", Make: genCouplingTwoJobs},
		{Name: "coupling-grep", Doc: "Coupling Figs. 5-6: identical Grep jobs at a fixed interval (params jobs, interval_s, maps, reduces)", Make: genCouplingGrep},
		{Name: "coupling-single", Doc: "Coupling Table II / Fig. 12: one job alone (param job: grep, randomwriter, montecarlo, sort1, sort2)", Make: genCouplingSingle},
		{Name: "coupling-wordcount", Doc: "Coupling Figs. 10-11: one WordCount of 427 maps on wikiInput (param reduces)", Make: genCouplingWordCount},
		{Name: "coupling-table3", Doc: "Coupling Table III / Figs. 13-15: ten map-only Grep jobs", Make: genCouplingTable3},
		{Name: "coupling-table4", Doc: "Coupling Table IV / Fig. 3: the 22-job sequence", Make: genCouplingTable4},
		{Name: "coupling-batches", Doc: "Coupling Fig. 16: batches of Table IV-like jobs, exponential gaps (params batches, per_batch, gap_s, batch_gap_s)", Make: genCouplingBatches},
	}
}

func genCouplingTwoJobs(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	r := trace.NewParamReader(p)
	jobs := []cpJob{
		{"grep", "[a-f][a-z]*", "wikiInput", 0, int32(r.Int("maps1", 427, 1, 100000)), int32(r.Int("reduces1", 15, 0, 10000))},
		{"grep", "[1-3]*", "randomInput30", r.Float("at2_s", 60, 0, 1e7), int32(r.Int("maps2", 45, 1, 100000)), int32(r.Int("reduces2", 5, 0, 10000))},
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return cpTrace(jobs, seed), nil
}

func genCouplingGrep(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	r := trace.NewParamReader(p)
	n := r.Int("jobs", 10, 1, 100000)
	gap := r.Float("interval_s", 300, 0, 1e7)
	maps := int32(r.Int("maps", 427, 1, 100000))
	reds := int32(r.Int("reduces", 8, 0, 10000))
	r.Budget(float64(n), float64(maps)+float64(reds), "jobs × (maps + reduces)")
	if err := r.Check(); err != nil {
		return nil, err
	}
	jobs := make([]cpJob, n)
	for i := range jobs {
		jobs[i] = cpJob{"grep", "[a-f][a-z]*", "wikiInput", float64(i) * gap, maps, reds}
	}
	return cpTrace(jobs, seed), nil
}

func genCouplingSingle(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	r := trace.NewParamReader(p)
	names := make([]string, 0, len(cpSingle))
	for k := range cpSingle {
		names = append(names, k)
	}
	slices.Sort(names)
	name := r.Choice("job", "grep", names...)
	if err := r.Check(); err != nil {
		return nil, err
	}
	return cpTrace([]cpJob{cpSingle[name]}, seed), nil
}

func genCouplingWordCount(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	r := trace.NewParamReader(p)
	reds := int32(r.Int("reduces", 1, 0, 10000))
	if err := r.Check(); err != nil {
		return nil, err
	}
	return cpTrace([]cpJob{{"wordcount", "", "wikiInput", 0, 427, reds}}, seed), nil
}

func genCouplingTable3(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	if err := trace.NewParamReader(p).Check(); err != nil {
		return nil, err
	}
	return cpTrace(cpTable3, seed), nil
}

func genCouplingTable4(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	if err := trace.NewParamReader(p).Check(); err != nil {
		return nil, err
	}
	return cpTrace(cpTable4, seed), nil
}

// cpMix is the job mix of the 62-node run (§III-D): Grep 73.8%, WordCount 8.9%,
// QuasiMonteCarlo 6.8%, Sort 10.5%.
var cpMix = []struct {
	kind string
	p    float64
}{{"grep", 0.738}, {"wordcount", 0.089}, {"montecarlo", 0.068}, {"sort", 0.105}}

// genCouplingBatches is the workload of Fig. 16 (§III-D): batches of jobs "with
// similar characteristics as the workflow in Table IV": each job's kind is drawn
// from the paper's mix and the job itself uniformly from Table IV's jobs of that
// kind (input, maps and reduces). Within a batch the gaps between arrivals are
// exponential with mean gap_s seconds (25); the first jobs of consecutive batches
// are exponential batch_gap_s seconds apart (1200). Jobs keep the order drawn.
func genCouplingBatches(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	r := trace.NewParamReader(p)
	batches := r.Int("batches", 10, 1, 100000)
	per := r.Int("per_batch", 20, 1, 100000)
	gap := r.Float("gap_s", 25, 0, 1e7)
	batchGap := r.Float("batch_gap_s", 1200, 0, 1e9)
	most := 0.0
	for _, j := range cpTable4 {
		most = max(most, float64(j.maps)+float64(j.reduces))
	}
	r.Budget(float64(batches)*float64(per), most, "batches × per_batch × (maps + reduces of the largest Table IV job)")
	if err := r.Check(); err != nil {
		return nil, err
	}
	byKind := map[string][]cpJob{}
	for _, j := range cpTable4 {
		byKind[j.kind] = append(byKind[j.kind], j)
	}
	rng := rand.New(rand.NewPCG(seed, 0xc0b1))
	var jobs []cpJob
	start := 0.0
	for b := range batches {
		if b > 0 {
			start += rng.ExpFloat64() * batchGap
		}
		at := start
		for k := range per {
			if k > 0 {
				at += rng.ExpFloat64() * gap
			}
			u, kind := rng.Float64(), cpMix[len(cpMix)-1].kind
			for _, m := range cpMix {
				if u < m.p {
					kind = m.kind
					break
				}
				u -= m.p
			}
			j := byKind[kind][rng.IntN(len(byKind[kind]))]
			j.at = at
			jobs = append(jobs, j)
		}
	}
	// Batches may overlap when a batch gap is short: keep submit order.
	slices.SortStableFunc(jobs, func(a, b cpJob) int {
		if a.at < b.at {
			return -1
		}
		if a.at > b.at {
			return 1
		}
		return 0
	})
	return cpTrace(jobs, seed), nil
}

// cpTrace materialises jobs, which are in submit order, with seeded map times.
func cpTrace(jobs []cpJob, seed uint64) *trace.Trace {
	rng := rand.New(rand.NewPCG(seed, 0xc091))
	s2 := math.Log1p(cpDurationCV * cpDurationCV)
	tr := &trace.Trace{}
	width := len(fmt.Sprint(len(jobs)))
	for i, cj := range jobs {
		kind := cpKinds[cj.kind]
		id := fmt.Sprintf("job_%0*d", max(2, width), i+1)
		j := trace.NewJob(id)
		j.Name = cpName(cj)
		j.User, j.Queue, j.Status = "coupling", "default", trace.StatusSucceeded
		j.SubmitMs = int64(math.Round(cj.at * 1000))
		j.NumMaps, j.NumReduces = cj.maps, cj.reduces
		j.InputPath = cj.input
		var perMap int64
		if !kind.inputless {
			perMap = int64(cpInputs[cj.input].gb * 1e9 / float64(cj.maps))
		} else if cj.kind == "montecarlo" {
			perMap = 118 // one sequence file holding the map's sample offsets
		}
		mapOut := float64(perMap) * kind.mapOut
		if cj.kind == "wordcount" && cj.input == "wikiInput" {
			mapOut = float64(perMap) * cpWikiWordCountOut
		}
		mean := kind.fixedSec
		if kind.secPerMB > 0 {
			mean = kind.secPerMB * float64(perMap) / 1e6
		}
		var in, shuffle int64
		for m := range cj.maps {
			t := trace.GenTask(id, trace.Map, m)
			t.InputBytes, t.OutputBytes = perMap, int64(mapOut)
			d := mean * math.Exp(-s2/2+math.Sqrt(s2)*rng.NormFloat64())
			t.Status, t.StartMs, t.FinishMs = trace.StatusSucceeded, j.SubmitMs, j.SubmitMs+int64(math.Round(d*1000))
			tr.Tasks = append(tr.Tasks, t)
			in += perMap
			shuffle += int64(mapOut)
		}
		if cj.reduces == 0 {
			shuffle = 0
		}
		j.InputBytes, j.ShuffleBytes = in, shuffle
		var out int64
		for r := range cj.reduces {
			t := trace.GenTask(id, trace.Reduce, r)
			t.ShuffleBytes = shuffle / int64(cj.reduces)
			if r == cj.reduces-1 {
				t.ShuffleBytes += shuffle % int64(cj.reduces)
			}
			t.OutputBytes = int64(float64(t.ShuffleBytes) * kind.redOut)
			t.Status = trace.StatusSucceeded
			out += t.OutputBytes
			tr.Tasks = append(tr.Tasks, t)
		}
		if cj.reduces == 0 {
			out = int64(mapOut) * int64(cj.maps) // map-only: what the maps emit is the output
		}
		j.OutputBytes = out
		tr.Jobs = append(tr.Jobs, j)
	}
	return tr
}

// cpName is a job's name as the paper writes it.
func cpName(j cpJob) string {
	switch j.kind {
	case "grep":
		return "Grep " + j.pattern + " " + j.input
	case "wordcount":
		return "WordCount " + j.input
	case "sort":
		return "Sort " + j.input
	case "montecarlo":
		return "QuasiMonteCarlo"
	}
	return "RandomWriter"
}
