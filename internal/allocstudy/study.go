package allocstudy

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/trace"
)

// System is one computational system of Table III.
type System struct {
	Name    string `toml:"name"`
	Servers int    `toml:"servers"`
	Tasks   int    `toml:"tasks"`
}

// Case is one setting of the network factor q (C_rem(r) = C_loc + q·r) and the
// workload bound W, in microseconds.
type Case struct {
	Name     string
	QUs, WUs int64
}

// Study is what Run needs of an allocation study: its cases and systems in
// spec order, C_loc, whether to time the algorithms, and how to build the
// problem of one system, case and seed (replay.AllocStudy builds it over the
// simulator's HDFS placement).
type Study struct {
	Cases   []Case
	Systems []System
	CLocUs  int64
	Timing  bool
	// Instance builds the problem of one system, case and seed; Run calls it
	// from several goroutines.
	Instance func(sys System, c Case, seed uint64) (*Problem, error)
}

// streamAlgorithm is the random stream of the algorithms, apart from the
// simulator's and the study's placement and loads (replay/allocstudy.go).
const streamAlgorithm = 18

// Result holds a study's rows in spec order: case, system, seed, algorithm.
type Result struct {
	Rows   []results.AllocRow
	Timing []results.AllocTiming // only when the study asks for timing
}

// Run runs every algorithm on every instance of the study. newAlloc builds an
// algorithm from its name; each worker builds its own, so algorithms may keep
// working memory. workers ≤ 0 means one per CPU; timing studies should use
// one, so that algorithms do not share the CPU with each other.
func Run(st *Study, algorithms []string, seeds []uint64, newAlloc func(string) (Allocator, error), workers int) (*Result, error) {
	if len(algorithms) == 0 || len(seeds) == 0 {
		return nil, fmt.Errorf("alloc_study: needs at least one algorithm and one seed")
	}
	type inst struct {
		c    Case
		sys  System
		seed uint64
	}
	var insts []inst
	for _, c := range st.Cases {
		for _, sys := range st.Systems {
			for _, seed := range seeds {
				insts = append(insts, inst{c, sys, seed})
			}
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(insts))
	na := len(algorithms)
	res := &Result{Rows: make([]results.AllocRow, len(insts)*na)}
	if st.Timing {
		res.Timing = make([]results.AllocTiming, len(insts)*na)
	}
	errs := make([]error, len(insts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			algs := make([]Allocator, na)
			var bad error
			for k, name := range algorithms {
				if algs[k], bad = newAlloc(name); bad != nil {
					break
				}
			}
			var finish []int64
			for i := range next {
				if bad != nil {
					errs[i] = bad
					continue
				}
				in := insts[i]
				errs[i] = st.runInstance(in.c, in.sys, in.seed, algorithms, algs, res, i*na, &finish)
			}
		}()
	}
	for i := range insts {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// runInstance allocates one instance with every algorithm, filling rows from at.
func (st *Study) runInstance(c Case, sys System, seed uint64, names []string, algs []Allocator, res *Result, at int, finish *[]int64) error {
	p, err := st.Instance(sys, c, seed)
	if err != nil {
		return err
	}
	for k, a := range algs {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s\x00%s\x00%s", c.Name, sys.Name, names[k])
		rng := rand.New(rand.NewPCG(seed, streamAlgorithm<<56^h.Sum64()>>8))
		start := time.Now()
		al, err := a.Allocate(p, rng)
		wall := time.Since(start)
		if err != nil {
			return fmt.Errorf("alloc_study: %s on %s, case %s, seed %d: %w", names[k], sys.Name, c.Name, seed, err)
		}
		if len(*finish) < p.Servers {
			*finish = make([]int64, p.Servers)
		}
		o, err := p.Evaluate(al, *finish)
		if err != nil {
			return fmt.Errorf("alloc_study: %s on %s, case %s, seed %d: %w", names[k], sys.Name, c.Name, seed, err)
		}
		res.Rows[at+k] = results.AllocRow{Case: c.Name, System: sys.Name, Servers: int32(sys.Servers), Tasks: int32(sys.Tasks),
			QUs: c.QUs, WUs: c.WUs, CLocUs: st.CLocUs, Seed: seed, Algorithm: names[k],
			MakespanUs: o.Makespan, LocalTasks: int32(o.Local), RemoteTasks: int32(o.Remote),
			Locality: float64(o.Local) / float64(sys.Tasks)}
		if res.Timing != nil {
			res.Timing[at+k] = results.AllocTiming{Case: c.Name, System: sys.Name, Servers: int32(sys.Servers), Tasks: int32(sys.Tasks),
				Seed: seed, Algorithm: names[k], WallNs: wall.Nanoseconds()}
		}
	}
	ref := res.Rows[at].MakespanUs
	for k := range algs {
		r := &res.Rows[at+k]
		if ref > 0 {
			r.Ratio = float64(r.MakespanUs) / float64(ref)
		}
	}
	return nil
}

// Summarise aggregates study rows per case, system and algorithm, in first
// appearance order: the mean makespan ratio and mean locality over seeds, as
// Table IV reports them.
func Summarise(rows []results.AllocRow) []Summary {
	var out []Summary
	idx := map[[3]string]int{}
	for _, r := range rows {
		k := [3]string{r.Case, r.System, r.Algorithm}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Summary{Case: r.Case, System: r.System, Algorithm: r.Algorithm})
		}
		s := &out[i]
		s.Seeds++
		s.Ratio += r.Ratio
		s.Locality += r.Locality
		s.MakespanUs += float64(r.MakespanUs)
	}
	for i := range out {
		n := float64(out[i].Seeds)
		out[i].Ratio /= n
		out[i].Locality /= n
		out[i].MakespanUs /= n
	}
	return slices.Clip(out)
}

// Summary is one cell of Table IV: an algorithm on a system under a case,
// averaged over seeds.
type Summary struct {
	Case, System, Algorithm string
	Seeds                   int
	Ratio                   float64 // mean of per-seed makespan ratios
	Locality                float64 // mean data locality ratio
	MakespanUs              float64 // mean makespan
}

// Write writes a study's rows into dir (created if needed) as
// results.AllocFile and, when timed, results.AllocTimingFile, with meta as key/value
// metadata. Each file is written atomically; the same rows give byte-identical
// alloc.parquet files (wall times differ from run to run by nature).
func Write(dir string, res *Result, meta map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write allocation study: %w", err)
	}
	if err := trace.WriteParquetFile(filepath.Join(dir, results.AllocFile), res.Rows, meta); err != nil {
		return err
	}
	if res.Timing != nil {
		return trace.WriteParquetFile(filepath.Join(dir, results.AllocTimingFile), res.Timing, meta)
	}
	return nil
}
