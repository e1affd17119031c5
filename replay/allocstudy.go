package replay

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

	"github.com/tracereplay/tracereplay/trace"
)

// AllocStudy is a static allocation study (BAR §V): for every case (network
// factor q, workload W), system (servers, tasks) and seed, one job's tasks get
// their input blocks placed by HDFS placement, the servers initial loads drawn
// uniformly on [0, W], and every algorithm allocates the tasks; the rows record
// each allocation's makespan and locality. It is the [alloc_study] table of an
// experiment spec, whose policies name the algorithms and whose seeds are used.
type AllocStudy struct {
	CLoc        Duration `toml:"c_loc"`       // C_loc, the local cost (default 20s)
	Replication int      `toml:"replication"` // replicas per block (default 3)
	Placement   string   `toml:"placement"`   // rack-aware (default) or random
	// Racks splits the servers evenly into racks; the paper puts all servers in
	// one rack (the default).
	Racks   int           `toml:"racks"`
	Systems []AllocSystem `toml:"systems"`
	Cases   []AllocCase   `toml:"cases"`
	// Timing records how long each algorithm took (Fig. 9) in a separate,
	// non-deterministic table.
	Timing bool `toml:"timing"`
}

// AllocSystem is one computational system of Table III.
type AllocSystem struct {
	Name    string `toml:"name"`
	Servers int    `toml:"servers"`
	Tasks   int    `toml:"tasks"`
}

// AllocCase is one setting of the network factor q (C_rem(r) = C_loc + q·r) and
// the workload bound W.
type AllocCase struct {
	Name string   `toml:"name"`
	Q    Duration `toml:"q"`
	W    Duration `toml:"w"`
}

// Random streams of the study, apart from the simulator's.
const (
	streamAllocPlacement = 16
	streamAllocLoads     = 17
	streamAllocAlgorithm = 18
)

// check fills in defaults and validates the study.
func (st *AllocStudy) check() error {
	if st.CLoc == 0 {
		st.CLoc = 20_000_000
	}
	if st.Replication == 0 {
		st.Replication = 3
	}
	if st.Placement == "" {
		st.Placement = "rack-aware"
	}
	if st.Racks == 0 {
		st.Racks = 1
	}
	switch {
	case st.Placement != "rack-aware" && st.Placement != "random":
		return fmt.Errorf("alloc_study: placement %q: want rack-aware or random", st.Placement)
	case st.Replication < 1 || st.Replication > 64:
		return fmt.Errorf("alloc_study: replication %d: want 1..64", st.Replication)
	case st.Racks < 1:
		return fmt.Errorf("alloc_study: racks %d: want at least 1", st.Racks)
	case len(st.Systems) == 0 || len(st.Cases) == 0:
		return fmt.Errorf("alloc_study: needs at least one system and one case")
	}
	for i, s := range st.Systems {
		if s.Name == "" {
			st.Systems[i].Name = fmt.Sprintf("%dx%d", s.Servers, s.Tasks)
		}
		if s.Servers < 1 || s.Servers > 1<<20 || s.Tasks < 1 || s.Tasks > 1<<22 {
			return fmt.Errorf("alloc_study: system %q: servers must be in 1..%d and tasks in 1..%d", s.Name, 1<<20, 1<<22)
		}
		if s.Servers%st.Racks != 0 {
			return fmt.Errorf("alloc_study: system %q: %d servers do not split evenly into %d racks", s.Name, s.Servers, st.Racks)
		}
	}
	for i, c := range st.Cases {
		if c.Name == "" {
			st.Cases[i].Name = fmt.Sprintf("q=%s,W=%s", c.Q, c.W)
		}
	}
	return nil
}

// Instance builds the problem of one system, case and seed. Placement depends
// only on the seed and the system, loads only on the seed, the server count and
// W (the same uniform draws scaled by W), so cases and algorithms are compared on
// common random numbers.
func (st *AllocStudy) Instance(sys AllocSystem, c AllocCase, seed uint64) (*AllocProblem, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	return st.instance(sys, c, seed)
}

func (st *AllocStudy) instance(sys AllocSystem, c AllocCase, seed uint64) (*AllocProblem, error) {
	hw := DefaultHardware()
	hw.Racks, hw.NodesPerRack, hw.MapSlots, hw.ReduceSlots = st.Racks, sys.Servers/st.Racks, 1, 1
	hw.Replication, hw.Placement = st.Replication, PlacementPolicy(st.Placement)
	if err := hw.Validate(); err != nil {
		return nil, fmt.Errorf("alloc_study: system %q: %w", sys.Name, err)
	}
	topo := NewTopology(&hw, seed)
	p := &AllocProblem{
		Servers:     sys.Servers,
		Replication: min(st.Replication, sys.Servers),
		Replicas:    make([]int32, 0, sys.Tasks*min(st.Replication, sys.Servers)),
		Init:        make([]int64, sys.Servers),
		LocalCost:   int64(st.CLoc),
		Q:           int64(c.Q),
	}
	place := rand.New(rand.NewPCG(seed, streamAllocPlacement<<44|uint64(sys.Servers)<<22|uint64(sys.Tasks)))
	for range sys.Tasks {
		p.Replicas = topo.placeBlock(place, p.Replication, st.Placement == "rack-aware", p.Replicas)
	}
	loads := rand.New(rand.NewPCG(seed, streamAllocLoads<<44|uint64(sys.Servers)))
	for s := range p.Init {
		p.Init[s] = int64(loads.Float64() * float64(c.W))
	}
	return p, p.Validate()
}

// AllocRow is one algorithm's allocation of one instance of a study.
type AllocRow struct {
	Case        string `parquet:"case"`
	System      string `parquet:"system"`
	Servers     int32  `parquet:"servers"`
	Tasks       int32  `parquet:"tasks"`
	QUs         int64  `parquet:"q_us"`
	WUs         int64  `parquet:"w_us"`
	CLocUs      int64  `parquet:"c_loc_us"`
	Seed        uint64 `parquet:"seed"`
	Algorithm   string `parquet:"algorithm"`
	MakespanUs  int64  `parquet:"makespan_us"`
	LocalTasks  int32  `parquet:"local_tasks"`
	RemoteTasks int32  `parquet:"remote_tasks"`
	// Locality is the data locality ratio DR of Table IV: local tasks / tasks.
	Locality float64 `parquet:"locality"`
	// Ratio is this makespan over the makespan of the study's first algorithm
	// on the same instance (MR of Table IV when that algorithm is BAR).
	Ratio float64 `parquet:"ratio"`
}

// AllocTiming is how long one algorithm took on one instance (Fig. 9). Wall time
// is not deterministic, so these rows go to their own file.
type AllocTiming struct {
	Case      string `parquet:"case"`
	System    string `parquet:"system"`
	Servers   int32  `parquet:"servers"`
	Tasks     int32  `parquet:"tasks"`
	Seed      uint64 `parquet:"seed"`
	Algorithm string `parquet:"algorithm"`
	WallNs    int64  `parquet:"wall_ns"`
}

// AllocStudyResult holds a study's rows in spec order: case, system, seed,
// algorithm.
type AllocStudyResult struct {
	Rows   []AllocRow
	Timing []AllocTiming // only when the study asks for timing
}

// RunAllocStudy runs every algorithm on every instance of the study. newAlloc
// builds an algorithm from its name; each worker builds its own, so algorithms
// may keep working memory. workers ≤ 0 means one per CPU; timing studies should
// use one, so that algorithms do not share the CPU with each other.
func RunAllocStudy(st *AllocStudy, algorithms []string, seeds []uint64, newAlloc func(string) (Allocator, error), workers int) (*AllocStudyResult, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	if len(algorithms) == 0 || len(seeds) == 0 {
		return nil, fmt.Errorf("alloc_study: needs at least one algorithm and one seed")
	}
	type inst struct {
		c    AllocCase
		sys  AllocSystem
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
	res := &AllocStudyResult{Rows: make([]AllocRow, len(insts)*na)}
	if st.Timing {
		res.Timing = make([]AllocTiming, len(insts)*na)
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
func (st *AllocStudy) runInstance(c AllocCase, sys AllocSystem, seed uint64, names []string, algs []Allocator, res *AllocStudyResult, at int, finish *[]int64) error {
	p, err := st.instance(sys, c, seed)
	if err != nil {
		return err
	}
	for k, a := range algs {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s\x00%s\x00%s", c.Name, sys.Name, names[k])
		rng := rand.New(rand.NewPCG(seed, streamAllocAlgorithm<<56^h.Sum64()>>8))
		start := time.Now()
		alloc, err := a.Allocate(p, rng)
		wall := time.Since(start)
		if err != nil {
			return fmt.Errorf("alloc_study: %s on %s, case %s, seed %d: %w", names[k], sys.Name, c.Name, seed, err)
		}
		if len(*finish) < p.Servers {
			*finish = make([]int64, p.Servers)
		}
		o, err := p.Evaluate(alloc, *finish)
		if err != nil {
			return fmt.Errorf("alloc_study: %s on %s, case %s, seed %d: %w", names[k], sys.Name, c.Name, seed, err)
		}
		res.Rows[at+k] = AllocRow{Case: c.Name, System: sys.Name, Servers: int32(sys.Servers), Tasks: int32(sys.Tasks),
			QUs: int64(c.Q), WUs: int64(c.W), CLocUs: int64(st.CLoc), Seed: seed, Algorithm: names[k],
			MakespanUs: o.Makespan, LocalTasks: int32(o.Local), RemoteTasks: int32(o.Remote),
			Locality: float64(o.Local) / float64(sys.Tasks)}
		if res.Timing != nil {
			res.Timing[at+k] = AllocTiming{Case: c.Name, System: sys.Name, Servers: int32(sys.Servers), Tasks: int32(sys.Tasks),
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

// SummariseAlloc aggregates study rows per case, system and algorithm, in first
// appearance order: the mean makespan ratio and mean locality over seeds, as
// Table IV reports them.
func SummariseAlloc(rows []AllocRow) []AllocSummary {
	var out []AllocSummary
	idx := map[[3]string]int{}
	for _, r := range rows {
		k := [3]string{r.Case, r.System, r.Algorithm}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, AllocSummary{Case: r.Case, System: r.System, Algorithm: r.Algorithm})
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

// AllocSummary is one cell of Table IV: an algorithm on a system under a case,
// averaged over seeds.
type AllocSummary struct {
	Case, System, Algorithm string
	Seeds                   int
	Ratio                   float64 // mean of per-seed makespan ratios
	Locality                float64 // mean data locality ratio
	MakespanUs              float64 // mean makespan
}

// Files of a study's results directory.
const (
	AllocFile       = "alloc.parquet"        // AllocRow, deterministic
	AllocTimingFile = "alloc_timing.parquet" // AllocTiming, wall times
)

// WriteAllocStudy writes a study's rows into dir (created if needed) as
// alloc.parquet and, when timed, alloc_timing.parquet, with meta as key/value
// metadata. Each file is written atomically; the same rows give byte-identical
// alloc.parquet files (wall times differ from run to run by nature).
func WriteAllocStudy(dir string, res *AllocStudyResult, meta map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write allocation study: %w", err)
	}
	if err := trace.WriteParquetFile(filepath.Join(dir, AllocFile), res.Rows, meta); err != nil {
		return err
	}
	if res.Timing != nil {
		return trace.WriteParquetFile(filepath.Join(dir, AllocTimingFile), res.Timing, meta)
	}
	return nil
}

// RunAllocExperiment runs the allocation study of an experiment spec — its
// policies as the allocators, its seeds — and writes the results into out
// (WriteAllocStudy). A timed study runs one instance at a time, so that wall
// times are not inflated by sharing the CPU; otherwise workers ≤ 0 means one per
// CPU.
func RunAllocExperiment(e *Experiment, out string, newAlloc func(string) (Allocator, error), workers int, meta map[string]string) (*AllocStudyResult, error) {
	if e.AllocStudy == nil {
		return nil, fmt.Errorf("experiment %s has no alloc_study", e.Name)
	}
	if e.AllocStudy.Timing {
		workers = 1
	}
	res, err := RunAllocStudy(e.AllocStudy, e.Policies, e.Seeds, newAlloc, workers)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	return res, WriteAllocStudy(out, res, meta)
}
