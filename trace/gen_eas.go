package trace

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

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

// easParams are the generator's parameters with their defaults.
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
func genEASTable1(p GenParams, seed uint64) (*Trace, error) {
	ep := easParams{window: 120, blockMB: 128, wordcountMap: 0.24, sortMap: 1, wordcountOut: 0.5, sortOut: 1, user: "eas"}
	if err := ep.read(p); err != nil {
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
	tr := &Trace{}
	for k, i := range order {
		sp := specs[i]
		id := fmt.Sprintf("job_%02d", k+1)
		mapRatio, outRatio := ep.wordcountMap, ep.wordcountOut
		if sp.kind == "sort" {
			mapRatio, outRatio = ep.sortMap, ep.sortOut
		}
		mapOut := int64(float64(block) * mapRatio)
		shuffle := mapOut * int64(sp.maps)
		j := NewJob(id)
		j.Name, j.User, j.Queue, j.Status = sp.kind, ep.user, "default", StatusSucceeded
		j.SubmitMs = submit[i]
		j.NumMaps, j.NumReduces = sp.maps, sp.reduces
		j.InputBytes, j.ShuffleBytes = block*int64(sp.maps), shuffle
		j.OutputBytes = 0
		for m := range sp.maps {
			t := NewTask(id, fmt.Sprintf("%s_m_%06d", id, m), Map, m)
			t.InputBytes, t.OutputBytes = block, mapOut
			tr.Tasks = append(tr.Tasks, t)
		}
		for r := range sp.reduces {
			t := NewTask(id, fmt.Sprintf("%s_r_%06d", id, r), Reduce, r)
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

// read takes the generator's parameters from p; unknown keys and bad values are
// errors.
func (ep *easParams) read(p GenParams) error {
	floats := map[string]*float64{
		"window_s": &ep.window, "block_mb": &ep.blockMB, "wordcount_map_ratio": &ep.wordcountMap,
		"sort_map_ratio": &ep.sortMap, "wordcount_output_ratio": &ep.wordcountOut, "sort_output_ratio": &ep.sortOut,
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := p[k]
		if k == "user" {
			s, ok := v.(string)
			if !ok || s == "" {
				return fmt.Errorf("parameter user: want a non-empty string, got %v", v)
			}
			ep.user = s
			continue
		}
		dst, ok := floats[k]
		if !ok {
			return fmt.Errorf("unknown parameter %q; valid parameters: block_mb, sort_map_ratio, sort_output_ratio, user, window_s, wordcount_map_ratio, wordcount_output_ratio", k)
		}
		var f float64
		switch x := v.(type) {
		case int64:
			f = float64(x)
		case int:
			f = float64(x)
		case float64:
			f = x
		default:
			return fmt.Errorf("parameter %s: want a number, got %v", k, v)
		}
		if !(f >= 0) || math.IsInf(f, 0) {
			return fmt.Errorf("parameter %s: want a finite non-negative number, got %v", k, v)
		}
		if k == "block_mb" && f*(1<<20) < 1 {
			return fmt.Errorf("parameter block_mb: want at least one byte, got %v", v)
		}
		*dst = f
	}
	return nil
}
