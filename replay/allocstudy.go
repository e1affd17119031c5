package replay

import (
	"fmt"
	"math/rand/v2"

	"github.com/tracereplay/tracereplay/internal/allocstudy"
	"github.com/tracereplay/tracereplay/internal/results"
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

// AllocSystem is one computational system of Table III (allocstudy.System).
type AllocSystem = allocstudy.System

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
	// 18 is the algorithms' stream (internal/allocstudy).
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

// AllocRow is one algorithm's allocation of one instance of a study
// (results.AllocRow).
type AllocRow = results.AllocRow

// AllocTiming is how long one algorithm took on one instance
// (results.AllocTiming).
type AllocTiming = results.AllocTiming

// AllocStudyResult holds a study's rows in spec order: case, system, seed,
// algorithm (allocstudy.Result).
type AllocStudyResult = allocstudy.Result

// RunAllocStudy runs every algorithm on every instance of the study
// (allocstudy.Run), the instances built by st.Instance. newAlloc builds an
// algorithm from its name; each worker builds its own, so algorithms may keep
// working memory. workers ≤ 0 means one per CPU; timing studies should use
// one, so that algorithms do not share the CPU with each other.
func RunAllocStudy(st *AllocStudy, algorithms []string, seeds []uint64, newAlloc func(string) (Allocator, error), workers int) (*AllocStudyResult, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	cases := make([]allocstudy.Case, len(st.Cases))
	for i, c := range st.Cases {
		cases[i] = allocstudy.Case{Name: c.Name, QUs: int64(c.Q), WUs: int64(c.W)}
	}
	study := &allocstudy.Study{Cases: cases, Systems: st.Systems, CLocUs: int64(st.CLoc), Timing: st.Timing,
		Instance: func(sys AllocSystem, c allocstudy.Case, seed uint64) (*AllocProblem, error) {
			return st.instance(sys, AllocCase{Name: c.Name, Q: Duration(c.QUs), W: Duration(c.WUs)}, seed)
		}}
	return allocstudy.Run(study, algorithms, seeds, newAlloc, workers)
}

// SummariseAlloc aggregates study rows per case, system and algorithm
// (allocstudy.Summarise).
func SummariseAlloc(rows []AllocRow) []AllocSummary { return allocstudy.Summarise(rows) }

// AllocSummary is one cell of Table IV (allocstudy.Summary).
type AllocSummary = allocstudy.Summary

// Files of a study's results directory (internal/results).
const (
	AllocFile       = results.AllocFile
	AllocTimingFile = results.AllocTimingFile
)
