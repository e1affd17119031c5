// Package resample makes long job-level workloads at a real trace's rates by
// resampling the real trace in blocks of time (ingest --generate
// swim-resample). It imports only trace, so that ingest links neither the
// simulator nor the report package.
package resample

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"

	"github.com/tracereplay/tracereplay/trace"
)

// Name is the generator's name (ingest --generate swim-resample).
const Name = "swim-resample"

// streamBlocks keys the generator's random stream of block orders.
const streamBlocks = 1

// Generator returns the swim-resample generator: a job-level trace of days
// days made of the source trace's blocks of block_s seconds (an hour by
// default), each consecutive period of the source's length a random
// permutation of its blocks (drawn from the seed), every job keeping its
// bytes and its offset within its block. The output lists jobs only (no task
// rows: replay derives each job's maps and reduces from its bytes when it
// arrives), named job0, job1, … in submit order, each with the Name of the
// source job it copies.
//
// Why blocks of an hour, permuted: SWIM's FB-2009 and FB-2010 files are
// themselves 24 one-hour samples of the month-long Facebook traces put end to
// end, so an hour is the unit whose inner structure (arrival bursts, runs of
// large jobs) is real and the order of the hours is not. Permuting the blocks
// of each period (without replacement) keeps every period's jobs, bytes and
// derived tasks exactly those of the source, so a month has exactly 30 times
// the source's day; drawing jobs i.i.d. with their gaps would lose the
// bursts, and shifting whole days would repeat one schedule 30 times.
//
// Blocks are counted from time 0 of the source (SWIM's submit times start
// there): block b holds the jobs submitted in [b·block_s, (b+1)·block_s), and
// the source has B = max(1, round(last submit / block_s)) blocks; jobs past
// the last whole block (FB-2010 has 5 in its last 8 s) belong to it and keep
// their offset, so they spill into the next output block. The source must
// be job-level (a SWIM file or an ingested dataset without task rows).
//
// The generated trace is not bound by trace.MaxGenTasks: that limit bounds
// the task rows a generator holds and writes, and this one writes none.
func Generator() trace.Generator {
	return trace.Generator{
		Name: Name,
		Doc: "a long job-level workload from a real job-level trace (SWIM): each period of the source's " +
			"length is a seeded permutation of its hour blocks. Params: trace (path, required), days (default 30), block_s (default 3600)",
		Make: generate,
	}
}

// maxDays bounds the days parameter: ten years of FB-2010 would be 89 M jobs.
const maxDays = 3660

// generate is the generator's Make.
func generate(p trace.GenParams, seed uint64) (*trace.Trace, error) {
	r := trace.NewParamReader(p)
	path := r.Str("trace", "")
	days := r.Int("days", 30, 1, maxDays)
	blockS := r.Int("block_s", 3600, 1, 86400)
	if err := r.Check(); err != nil {
		return nil, err
	}
	if path == "" {
		return nil, fmt.Errorf("trace: missing: want trace=PATH, a job-level trace (a SWIM file or an ingested dataset)")
	}
	src, err := readSource(path)
	if err != nil {
		return nil, fmt.Errorf("trace = %s: %w", path, err)
	}
	if len(src.Tasks) > 0 {
		return nil, fmt.Errorf("trace = %s: has %d task rows: want a job-level trace (a SWIM file, or a dataset of jobs only)", path, len(src.Tasks))
	}
	if len(src.Jobs) == 0 {
		return nil, fmt.Errorf("trace = %s: no jobs", path)
	}
	jobs, err := Resample(src.Jobs, days*86400, blockS, seed)
	if err != nil {
		return nil, fmt.Errorf("trace = %s: %w", path, err)
	}
	return &trace.Trace{Jobs: jobs, Meta: trace.Meta{Sources: []string{path}}}, nil
}

// readSource reads the source trace: an ingested dataset directory or one
// trace file in any format ingest detects.
func readSource(path string) (*trace.Trace, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return trace.Read(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, _, err := trace.ReadInput(path, f, "auto", trace.ReadOptions{})
	return t, err
}

// Resample returns the jobs of spanS seconds made from src's blocks of blockS
// seconds as Generator describes, sorted by submit time and named job0, job1,
// …; src must be sorted by submit time with no negative submit time.
func Resample(src []trace.Job, spanS, blockS int64, seed uint64) ([]trace.Job, error) {
	blockMs := blockS * 1000
	last := src[len(src)-1].SubmitMs
	if src[0].SubmitMs < 0 {
		return nil, fmt.Errorf("job %s: submit time %d ms: want submit times from 0", src[0].ID, src[0].SubmitMs)
	}
	nb := max(1, (last+blockMs/2)/blockMs) // blocks in the source, rounded
	// starts[b] is the first job of block b (jobs sorted by submit time).
	starts := make([]int, nb+1)
	for b := int64(1); b < nb; b++ {
		starts[b] = sort.Search(len(src), func(i int) bool { return src[i].SubmitMs >= b*blockMs })
	}
	starts[nb] = len(src)
	outBlocks := (spanS*1000 + blockMs - 1) / blockMs
	rng := rand.New(rand.NewPCG(seed, streamBlocks))
	var jobs []trace.Job
	var perm []int
	for ob := int64(0); ob < outBlocks; ob++ {
		if ob%nb == 0 {
			perm = rng.Perm(int(nb))
		}
		b := int64(perm[ob%nb])
		shift := (ob - b) * blockMs // source time + shift = output time
		for _, j := range src[starts[b]:starts[b+1]] {
			j.Name = j.ID
			j.SubmitMs += shift
			if j.LaunchMs != trace.Unknown {
				j.LaunchMs += shift
			}
			if j.FinishMs != trace.Unknown {
				j.FinishMs += shift
			}
			if j.AMStartMs != trace.Unknown {
				j.AMStartMs += shift
			}
			jobs = append(jobs, j)
		}
	}
	// Jobs of a block that spill past its end (offset ≥ blockS) may come after
	// the next block's first jobs: a stable sort keeps block order among ties.
	slices.SortStableFunc(jobs, func(a, b trace.Job) int { return cmp.Compare(a.SubmitMs, b.SubmitMs) })
	for i := range jobs {
		jobs[i].ID = fmt.Sprintf("job%d", i)
	}
	return jobs, nil
}
