package flow

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// sgCase is one random topology and flow set, as the SimGrid script reads it.
type sgCase struct {
	Caps  []float64 `json:"caps"`
	Flows []sgFlow  `json:"flows"`
}

type sgFlow struct {
	Bytes   int64        `json:"bytes"`
	Path    []ResourceID `json:"path"`
	StartUs int64        `json:"start_us"` // 0, or from 100 s on
	// Weights, when set, are the flow's usage weights on Path, whole numbers
	// (SimGrid's script repeats a link in the route that many times).
	Weights []int `json:"weights,omitempty"`
}

// spec is the flow as a Spec for the solver.
func (f sgFlow) spec(id int) Spec {
	sp := Spec{ID: FlowID(id), Bytes: f.Bytes, Path: f.Path}
	for _, w := range f.Weights {
		sp.Weights = append(sp.Weights, float64(w))
	}
	return sp
}

type sgResult struct {
	SimGrid string `json:"simgrid"`
	Cases   []struct {
		Rates  []float64 `json:"rates"`
		Finish []float64 `json:"finish"`
	} `json:"cases"`
}

// randomCase draws a topology and a set of flows. Even cases are Hadoop
// clusters built by Cluster (1–4 racks of 1–4 nodes, or of 1–5 nodes each
// for every third of them, uniform NICs, uplinks, disks and an oversubscribed
// core half the time), with flows between random
// nodes that read a disk at the source and/or write one at the destination;
// odd cases are arbitrary resources and arbitrary paths. Capacities are
// 1–100 MB/s and sizes 10–100 GB, so every flow takes at least 100 s and the
// microsecond rounding of finish times stays below 1e-6 relative. In every
// third case half the flows start later, at a whole millisecond between 100
// and 300 s, so flows start while others run; elsewhere all start at 0.
func randomCase(rng *rand.Rand, i int) sgCase {
	c := randomPaths(rng, i)
	if i%3 == 1 {
		for k := range c.Flows {
			if rng.IntN(2) == 0 {
				c.Flows[k].StartUs = 1000 * (100_000 + rng.Int64N(200_000))
			}
		}
	}
	return c
}

// randomPaths draws the topology, the flows' paths and their sizes.
func randomPaths(rng *rand.Rand, i int) sgCase {
	capacity := func() float64 { return 1e6 * float64(1+rng.IntN(100)) }
	size := func() int64 { return 1e10 + rng.Int64N(9e10) }
	var c sgCase
	nflows := 1 + rng.IntN(30)
	if i%2 == 0 {
		ratio := 1.0
		if rng.IntN(2) == 0 {
			ratio = 1 + 3*rng.Float64()
		}
		cl := Cluster{Racks: 1 + rng.IntN(4), NodesPerRack: 1 + rng.IntN(4), NICBytesPerSec: capacity(),
			UplinkBytesPerSec: capacity(), CoreRatio: ratio, DisksPerNode: 1 + rng.IntN(2), DiskBytesPerSec: capacity()}
		if i%6 == 0 { // racks of different sizes
			cl.RackSizes = make([]int, cl.Racks)
			for r := range cl.RackSizes {
				cl.RackSizes[r] = 1 + rng.IntN(5)
			}
			cl.Racks, cl.NodesPerRack = 0, 0
		}
		n := New()
		top, err := cl.Build(n)
		if err != nil {
			panic(err)
		}
		for r := range n.NumResources() {
			c.Caps = append(c.Caps, n.Capacity(ResourceID(r)))
		}
		for range nflows {
			src, dst := rng.IntN(cl.Nodes()), rng.IntN(cl.Nodes())
			p, _ := top.Path(nil, src, dst)
			if rng.IntN(2) == 0 || len(p) == 0 {
				d, _ := top.Disk(src, rng.IntN(cl.DisksPerNode))
				p = append(p, d)
			}
			if rng.IntN(3) == 0 && src != dst {
				d, _ := top.Disk(dst, rng.IntN(cl.DisksPerNode))
				p = append(p, d)
			}
			c.Flows = append(c.Flows, sgFlow{Bytes: size(), Path: p})
		}
		return c
	}
	nres := 1 + rng.IntN(10)
	for range nres {
		c.Caps = append(c.Caps, capacity())
	}
	for range nflows {
		perm := rng.Perm(nres)[:1+rng.IntN(min(nres, 5))]
		p := make([]ResourceID, len(perm))
		for k, r := range perm {
			p[k] = ResourceID(r)
		}
		c.Flows = append(c.Flows, sgFlow{Bytes: size(), Path: p})
	}
	return c
}

// solveCase runs c as an engine would: the flows starting at 0 are added
// together, each later one at its start time, and each flow is removed at its
// finish time (before a start in the same microsecond). It returns the rates
// of the flows starting at 0 before anything else happens (bytes per second;
// 0 for the others) and every finish time (µs).
func solveCase(c sgCase, fullOnly bool) (rates []float64, finish []int64, err error) {
	n := New()
	n.fullOnly = fullOnly
	for _, capacity := range c.Caps {
		if _, err := n.AddResource("", capacity); err != nil {
			return nil, nil, err
		}
	}
	var first []Spec
	var later []int
	for i, f := range c.Flows {
		if f.StartUs == 0 {
			first = append(first, f.spec(i))
		} else {
			later = append(later, i)
		}
	}
	slices.SortStableFunc(later, func(a, b int) int { return cmp.Compare(c.Flows[a].StartUs, c.Flows[b].StartUs) })
	if _, err := n.AddBatch(0, first); err != nil {
		return nil, nil, err
	}
	rates = make([]float64, len(c.Flows))
	finish = make([]int64, len(c.Flows))
	for _, sp := range first {
		rates[sp.ID], _ = n.Rate(sp.ID)
	}
	for {
		id, at, ok := n.Next()
		if len(later) > 0 && (!ok || c.Flows[later[0]].StartUs < at) {
			t := c.Flows[later[0]].StartUs
			var batch []Spec
			for len(later) > 0 && c.Flows[later[0]].StartUs == t {
				batch = append(batch, c.Flows[later[0]].spec(later[0]))
				later = later[1:]
			}
			if _, err := n.AddBatch(t, batch); err != nil {
				return nil, nil, err
			}
			continue
		}
		if !ok {
			return rates, finish, nil
		}
		finish[id] = at
		if _, err := n.Remove(at, id); err != nil {
			return nil, nil, err
		}
	}
}

// simGridPython is a Python interpreter that can import SimGrid's bindings:
// $SIMGRID_PYTHON when set (and then only it), else Debian's /usr/bin/python3
// (where python3-simgrid installs them, whatever python3 comes first on PATH)
// or python3 on PATH.
func simGridPython() string {
	candidates := []string{"/usr/bin/python3", "python3"}
	if py := os.Getenv("SIMGRID_PYTHON"); py != "" {
		candidates = []string{py}
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import simgrid").Run() == nil {
			return py
		}
	}
	return ""
}

// TestSimGridCrossCheck compares the solver with SimGrid on 240 random
// topologies and flow sets: the rates of the flows that start together at 0,
// and every finish time of the event-driven run in which each start and finish
// re-solves the others' rates; once with the incremental solver and once with
// full re-solves only. Both must agree within 1e-6 relative. It skips without
// SimGrid's Python bindings (Debian's python3-simgrid) unless CI=true.
func TestSimGridCrossCheck(t *testing.T) {
	crossCheck(t, rand.New(rand.NewPCG(2026, 13)), false)
}

// TestSimGridCrossCheckWeighted is TestSimGridCrossCheck with usage weights
// (Spec.Weights): two thirds of the flows load each resource of their path
// by a weight of 1, 2 or 3, drawn per resource. SimGrid's plain max-min
// (CM02) model takes a weight as a link repeated in a flow's route, which
// adds to the flow's consumption weight on that link's constraint; fractional
// weights cannot be set from its Python bindings (ptask_L07, whose tasks
// load links by their bytes, refuses the max-min solver), but the solver
// treats a weight the same whether above or below 1: max-min with weights
// is unchanged when every weight and capacity is scaled alike.
func TestSimGridCrossCheckWeighted(t *testing.T) {
	crossCheck(t, rand.New(rand.NewPCG(2026, 29)), true)
}

// crossCheck runs the cross-check on 240 random cases drawn from rng, with
// random whole weights when weighted.
func crossCheck(t *testing.T, rng *rand.Rand, weighted bool) {
	py := simGridPython()
	if py == "" {
		testgate.Unavailable(t, "SimGrid's Python bindings are missing (apt-get install python3-simgrid)")
	}
	const ncases = 240
	cases := make([]sgCase, ncases)
	// Both solvers: the incremental one (as used) and the full re-solve of
	// every change's component.
	solvers := []string{"incremental", "full"}
	var rates [2][][]float64
	var finish [2][][]int64
	first := int64(math.MaxInt64)
	nflows := 0
	for i := range cases {
		cases[i] = randomCase(rng, i)
		if weighted {
			for k := range cases[i].Flows {
				f := &cases[i].Flows[k]
				if rng.IntN(3) == 0 {
					continue
				}
				f.Weights = make([]int, len(f.Path))
				for j := range f.Weights {
					f.Weights[j] = 1 + rng.IntN(3)
				}
			}
		}
		for m := range solvers {
			r, f, err := solveCase(cases[i], m == 1)
			if err != nil {
				t.Fatalf("case %d, %s solver: %v", i, solvers[m], err)
			}
			rates[m] = append(rates[m], r)
			finish[m] = append(finish[m], f)
			for k, at := range f {
				first = min(first, at)
				if s := cases[i].Flows[k].StartUs; s > 0 {
					first = min(first, s)
				}
			}
		}
		nflows += len(cases[i].Flows)
	}
	// SimGrid reads the rates at t0, half-way to the first finish or late
	// start of all.
	t0 := float64(first/2) / 1e6
	in, err := json.Marshal(map[string]any{"t0": t0, "cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		t.Fatal(err)
	}
	// The script goes in on standard input: read here, it is part of what go
	// test's cache keys on.
	script, err := os.ReadFile(filepath.Join("testdata", "simgrid_maxmin.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-", file)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(script), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("simgrid_maxmin.py: %v\n%s", err, stderr.String())
	}
	var res sgResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("simgrid_maxmin.py output: %v\n%s", err, stderr.String())
	}
	if len(res.Cases) != ncases {
		t.Fatalf("SimGrid returned %d cases, want %d", len(res.Cases), ncases)
	}
	const tol = 1e-6
	nlate := 0
	for _, c := range cases {
		for _, f := range c.Flows {
			if f.StartUs > 0 {
				nlate++
			}
		}
	}
	for i, c := range cases {
		got := res.Cases[i]
		if len(got.Rates) != len(c.Flows) || len(got.Finish) != len(c.Flows) {
			t.Fatalf("case %d: SimGrid returned %d rates and %d finishes for %d flows", i, len(got.Rates), len(got.Finish), len(c.Flows))
		}
	}
	for m, solver := range solvers {
		var worstRate, worstFinish float64
		var worstRateAt, worstFinishAt string
		for i, c := range cases {
			got := res.Cases[i]
			for f := range c.Flows {
				at := fmt.Sprintf("%s solver, case %d flow %d", solver, i, f)
				late := c.Flows[f].StartUs > 0
				rate := rates[m][i][f]
				if d := math.Abs(rate-got.Rates[f]) / got.Rates[f]; !late && !(d <= worstRate) {
					worstRate, worstRateAt = d, at
				}
				ours := float64(finish[m][i][f]) / 1e6
				if d := math.Abs(ours-got.Finish[f]) / got.Finish[f]; !(d <= worstFinish) {
					worstFinish, worstFinishAt = d, at
				}
				if d := math.Abs(rate - got.Rates[f]); !late && !(d <= tol*got.Rates[f]) {
					t.Errorf("%s: rate %v B/s, SimGrid %v", at, rate, got.Rates[f])
				}
				if d := math.Abs(ours - got.Finish[f]); !(d <= tol*got.Finish[f]) {
					t.Errorf("%s: finishes at %.6f s, SimGrid %.9f s", at, ours, got.Finish[f])
				}
			}
		}
		t.Logf("SimGrid %s, %s solver, weighted %v: %d cases, %d flows (%d starting late); largest relative difference: rate %.3g (%s), finish time %.3g (%s)",
			res.SimGrid, solver, weighted, ncases, nflows, nlate, worstRate, worstRateAt, worstFinish, worstFinishAt)
	}
}
