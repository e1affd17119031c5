// Package workload generates the workload of EAS (Zhao et al. 2013), the
// 50-job mix of its Table 1. It imports only trace, so that ingest can list and
// run its generator without linking the presets or the simulator.
package workload

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// Generators returns the EAS paper's workload generator.
func Generators() []trace.Generator {
	return []trace.Generator{
		{Name: "eas-table1", Doc: "EAS (Zhao et al. 2013) Table 1: 50 wordcount/sort jobs, 128 MB maps, arrivals uniform in [0,120] s", Make: genEASTable1},
	}
}

// easTable1 is the workload of EAS (Zhao et al. 2013) Table 1: job type, maps,
// reduces and how many such jobs.
var easTable1 = []struct {
	kind          string
	maps, reduces int32
	jobs          int
}{
	{"wordcount", 1, 1, 25},
	{"sort", 2, 1, 14},
	{"wordcount", 5, 2, 7},
	{"sort", 30, 10, 4},
}

// easParams are the generator's parameters.
type easParams struct {
	window       float64 // arrivals uniform in [0, window] seconds
	blockMB      float64 // input of every map
	wordcountMap float64 // wordcount map output / input (combiner on)
	sortMap      float64 // sort map output / input
	wordcountOut float64 // wordcount reduce output / shuffle
	sortOut      float64 // sort reduce output / shuffle
	user         string
}

// genEASTable1 makes the 50-job workload of EAS Table 1 (§5.2): wordcount and sort
// jobs with the table's map and reduce counts, each map reading one full block
// (128 MB by default: 208 maps, 26 GiB of input, the paper's "about 26GB"), sort
// maps emitting their input, wordcount maps (with a combiner) 0.24 of it, so that
// the map output is about 20 GiB of which 91% comes from sort (§5.2); every reduce
// of a job gets an equal share of its map output. Submit times are drawn uniformly
// in [0, window] seconds (§5.2: [0, 120]) and dealt to the 50 jobs in a seeded
// random order, all for one user. The reduce output ratios are not in the paper:
// sort writes what it reads, wordcount half of it.
func genEASTable1(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	ep, err := readEASParams(p)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0xea5))
	type spec struct {
		kind          string
		maps, reduces int32
	}
	var specs []spec
	for _, row := range easTable1 {
		for range row.jobs {
			specs = append(specs, spec{row.kind, row.maps, row.reduces})
		}
	}
	rng.Shuffle(len(specs), func(a, b int) { specs[a], specs[b] = specs[b], specs[a] })
	submit := make([]int64, len(specs))
	for i := range submit {
		submit[i] = int64(math.Round(rng.Float64() * ep.window * 1000))
	}
	order := make([]int, len(specs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(submit[a], submit[b]) })

	block := int64(ep.blockMB * (1 << 20))
	tr := &trace.Trace{}
	for k, i := range order {
		sp := specs[i]
		id := fmt.Sprintf("job_%02d", k+1)
		mapRatio, outRatio := ep.wordcountMap, ep.wordcountOut
		if sp.kind == "sort" {
			mapRatio, outRatio = ep.sortMap, ep.sortOut
		}
		mapOut := int64(float64(block) * mapRatio)
		shuffle := mapOut * int64(sp.maps)
		j := trace.NewJob(id)
		j.Name, j.User, j.Queue, j.Status = sp.kind, ep.user, "default", trace.StatusSucceeded
		j.SubmitMs = submit[i]
		j.NumMaps, j.NumReduces = sp.maps, sp.reduces
		j.InputBytes, j.ShuffleBytes = block*int64(sp.maps), shuffle
		j.OutputBytes = 0
		for m := range sp.maps {
			t := trace.GenTask(id, trace.Map, m)
			t.InputBytes, t.OutputBytes = block, mapOut
			tr.Tasks = append(tr.Tasks, t)
		}
		for r := range sp.reduces {
			t := trace.GenTask(id, trace.Reduce, r)
			t.ShuffleBytes = shuffle / int64(sp.reduces)
			if r < int32(shuffle%int64(sp.reduces)) {
				t.ShuffleBytes++
			}
			t.OutputBytes = int64(float64(t.ShuffleBytes) * outRatio)
			j.OutputBytes += t.OutputBytes
			tr.Tasks = append(tr.Tasks, t)
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	return tr, nil
}

// readEASParams reads the generator's parameters, with their defaults; unknown
// keys and bad values are errors.
func readEASParams(p trace.GenParams) (easParams, error) {
	const unbounded = math.MaxFloat64
	r := trace.NewParamReader(p)
	ep := easParams{
		window:       r.Float("window_s", 120, 0, unbounded),
		blockMB:      r.Float("block_mb", 128, 0, unbounded),
		wordcountMap: r.Float("wordcount_map_ratio", 0.24, 0, unbounded),
		sortMap:      r.Float("sort_map_ratio", 1, 0, unbounded),
		wordcountOut: r.Float("wordcount_output_ratio", 0.5, 0, unbounded),
		sortOut:      r.Float("sort_output_ratio", 1, 0, unbounded),
		user:         r.Str("user", "eas"),
	}
	if ep.blockMB*(1<<20) < 1 {
		r.Bad("block_mb = %v: want at least one byte", p["block_mb"])
	}
	return ep, r.Check()
}
