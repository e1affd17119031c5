package policy

import (
	"context"
	"math"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tracereplay/tracereplay/internal/cells"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report/preset/workloads"
	"github.com/tracereplay/tracereplay/trace"
)

// Helpers shared by the policy tests: hardware models, hand-made and generated
// traces, and runs with the simulator's invariants checked.

// sec is one second of simulated time in µs.
const sec = 1_000_000

// parseHardware parses a hardware model given as TOML.
func parseHardware(tb testing.TB, toml string) replay.Hardware {
	tb.Helper()
	hw, err := replay.ParseHardware([]byte(toml))
	if err != nil {
		tb.Fatal(err)
	}
	return hw
}

// sampleHardware loads samples/hardware/<file>.
func sampleHardware(tb testing.TB, file string) replay.Hardware {
	tb.Helper()
	hw, err := replay.LoadHardware(filepath.Join("..", "samples", "hardware", file))
	if err != nil {
		tb.Fatal(err)
	}
	return hw
}

// tinyHardware is 2 nodes with 1 map and 1 reduce slot, a disk of 1 MB/s (one
// second per 10^6 bytes), no start-up cost, exact durations, aligned heartbeats
// every second and out-of-band heartbeats, so schedules can be worked by hand.
func tinyHardware(tb testing.TB) replay.Hardware {
	tb.Helper()
	return parseHardware(tb, `
name = "tiny"
racks = 1
nodes_per_rack = 2
map_slots = 1
reduce_slots = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
out_of_band_heartbeat = true
replication = 2
duration_cv = 0
slow_start = 0
`)
}

// job describes a hand-made job: submit second, map lengths and reduce lengths in
// seconds (a reduce's length is its output write, its shuffle is empty).
type job struct {
	submit  int64
	maps    []int64
	reduces []int64
}

// handTrace builds jobs A, B, C, … from their descriptions: a map of m seconds
// reads m MB and writes nothing, a reduce of r seconds shuffles nothing and
// writes r MB.
func handTrace(jobs []job) *trace.Trace {
	tr := &trace.Trace{}
	for i, jb := range jobs {
		id := string(rune('A' + i))
		j := trace.NewJob(id)
		j.SubmitMs = jb.submit * 1000
		j.Status = trace.StatusSucceeded
		tr.Jobs = append(tr.Jobs, j)
		for k, m := range jb.maps {
			t := trace.NewTask(id, id+"m", trace.Map, int32(k))
			t.InputBytes, t.OutputBytes = m*1e6, 0
			tr.Tasks = append(tr.Tasks, t)
		}
		for k, r := range jb.reduces {
			t := trace.NewTask(id, id+"r", trace.Reduce, int32(k))
			t.ShuffleBytes, t.OutputBytes = 0, r*1e6
			tr.Tasks = append(tr.Tasks, t)
		}
	}
	return tr
}

// generate runs a trace generator.
func generate(tb testing.TB, gen string, params trace.GenParams, seed uint64) *trace.Trace {
	tb.Helper()
	tr, err := workloads.Generate(gen, params, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// newWorkload prepares tr for replay on hw; the topology, returned too, and the
// workload are drawn from seed.
func newWorkload(tb testing.TB, hw replay.Hardware, tr *trace.Trace, seed uint64) (*replay.Workload, *replay.Topology) {
	tb.Helper()
	topo := replay.NewTopology(&hw, seed)
	w, err := replay.NewWorkload(tr, &hw, topo, seed, replay.WorkloadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return w, topo
}

// newPolicy makes the policy a spec names.
func newPolicy(tb testing.TB, spec string) replay.Policy {
	tb.Helper()
	p, err := New(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// runPolicy replays w under p with opt.
func runPolicy(tb testing.TB, w *replay.Workload, p replay.Policy, opt replay.Options) *replay.Result {
	tb.Helper()
	res, err := replay.Run(w, p, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// simulate replays tr on hw under the policy spec with opt; the topology and
// the workload are drawn from opt.Seed.
func simulate(tb testing.TB, hw replay.Hardware, tr *trace.Trace, spec string, opt replay.Options) *replay.Result {
	tb.Helper()
	w, _ := newWorkload(tb, hw, tr, opt.Seed)
	return runPolicy(tb, w, newPolicy(tb, spec), opt)
}

// runHand replays hand-made jobs on tinyHardware with seed 1, invariants
// checked, tasks and timeline recorded.
func runHand(t *testing.T, policy string, jobs []job) *replay.Result {
	t.Helper()
	return simulate(t, tinyHardware(t), handTrace(jobs), policy,
		replay.Options{Seed: 1, CheckInvariants: true, Timeline: true, RecordTasks: true})
}

// simGenerated replays a generated workload on a sample hardware model with
// invariants checked, keeping tasks, timeline and node series; the wall time is
// zeroed so that runs compare.
func simGenerated(tb testing.TB, gen string, params trace.GenParams, hwFile, policy string, seed uint64) *replay.Result {
	tb.Helper()
	res := simulate(tb, sampleHardware(tb, hwFile), generate(tb, gen, params, seed), policy,
		replay.Options{Seed: seed, CheckInvariants: true, RecordTasks: true, Timeline: true})
	res.Wall = 0
	return res
}

// replayCell replays one cell of an experiment as the replay command does
// (cells.Run): its generated trace on its hardware under its policy, seeded by
// the cell's seed (opt.Seed is set there). It returns errors rather than
// failing, so that cells may run in parallel.
func replayCell(c replay.Cell, opt replay.Options) (*replay.Result, error) {
	return cells.Run(context.Background(), c, cells.Options{NewPolicy: New, Replay: opt})
}

// loadExperiment loads an experiment spec.
func loadExperiment(tb testing.TB, path string) *replay.Experiment {
	tb.Helper()
	e, err := replay.LoadExperiment(path)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// experimentCells expands an experiment into its cells.
func experimentCells(tb testing.TB, e *replay.Experiment) []replay.Cell {
	tb.Helper()
	cells, err := e.Cells()
	if err != nil {
		tb.Fatal(err)
	}
	return cells
}

// replayCells replays cells on GOMAXPROCS workers, each with the options opt
// gives it, and fails the test on the first cell, in order, that failed.
func replayCells(t *testing.T, cells []replay.Cell, opt func(replay.Cell) replay.Options) []*replay.Result {
	t.Helper()
	res := make([]*replay.Result, len(cells))
	errs := make([]error, len(cells))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				res[i], errs[i] = replayCell(cells[i], opt(cells[i]))
			}
		})
	}
	for i := range cells {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("cell %s: %v", cells[i].Dir, err)
		}
	}
	return res
}

// runCell replays one cell of an experiment with invariants checked.
func runCell(tb testing.TB, c replay.Cell) *replay.Result {
	tb.Helper()
	res, err := replayCell(c, replay.Options{CheckInvariants: true, TraceName: c.Trace.Name, HardwareName: c.HWName})
	if err != nil {
		tb.Fatalf("%s: %v", c.Dir, err)
	}
	return res
}

// checkFlowtimes compares the jobs' flowtimes with want, in seconds.
func checkFlowtimes(t *testing.T, res *replay.Result, want []int64) {
	t.Helper()
	for i, w := range want {
		if got := res.Jobs[i].FlowtimeUs; got != w*sec {
			t.Errorf("job %s flowtime %v s, want %d s", res.Jobs[i].JobID, float64(got)/sec, w)
		}
	}
}

// meanCI returns the mean of x and the half-width of its 95% confidence interval
// (Student t).
func meanCI(x []float64) (float64, float64) {
	m, sd := stat.MeanStdDev(x, nil)
	if len(x) < 2 {
		return m, 0
	}
	n := float64(len(x))
	return m, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975) * sd / math.Sqrt(n)
}

// t975 is the 0.975 quantile of Student's t with df degrees of freedom, from
// the usual three-decimal table (1.96 beyond df 20).
func t975(df int) float64 {
	table := []float64{math.NaN(), 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086}
	if df < len(table) {
		return table[df]
	}
	return 1.96
}
