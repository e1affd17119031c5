package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/allocstudy"
	"github.com/tracereplay/tracereplay/trace"
)

const allocSec = 1_000_000

func testStudy() *AllocStudy {
	return &AllocStudy{
		Systems: []AllocSystem{{Name: "small", Servers: 10, Tasks: 30}, {Name: "wide", Servers: 50, Tasks: 5}},
		Cases:   []AllocCase{{Name: "a", Q: 10 * allocSec, W: 40 * allocSec}, {Name: "b", Q: allocSec, W: 1000 * allocSec}},
	}
}

func TestAllocInstance(t *testing.T) {
	st := testStudy()
	a, err := st.Instance(st.Systems[0], st.Cases[0], 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.Instance(st.Systems[0], st.Cases[1], 7)
	if !reflect.DeepEqual(a.Replicas, b.Replicas) {
		t.Error("placement differs between cases of the same system and seed")
	}
	for s := range a.Init {
		// The same uniform draw scaled by W: a's load is b's × 40/1000, up to
		// truncation.
		if x, y := a.Init[s], b.Init[s]*40/1000; x < y-1 || x > y+1 {
			t.Errorf("server %d: load %d under W=40 s, %d under W=1000 s", s, a.Init[s], b.Init[s])
		}
		if a.Init[s] < 0 || a.Init[s] > 40*allocSec {
			t.Errorf("server %d: load %d outside [0, W]", s, a.Init[s])
		}
	}
	for i := range a.Tasks() {
		r := a.Preferred(int32(i))
		if len(r) != 3 || r[0] == r[1] || r[1] == r[2] || r[0] == r[2] {
			t.Errorf("task %d: replicas %v, want 3 distinct servers", i, r)
		}
	}
	if a.LocalCost != 20*allocSec || a.Q != 10*allocSec {
		t.Errorf("C_loc %d, q %d; want the defaults 20 s and the case's 10 s", a.LocalCost, a.Q)
	}
	c, _ := st.Instance(st.Systems[0], st.Cases[0], 8)
	if reflect.DeepEqual(a.Replicas, c.Replicas) {
		t.Error("seeds 7 and 8 place blocks identically")
	}
}

// firstReplica puts every task on its first preferred server; lastServer puts
// every task on the last server.
type firstReplica struct{}

func (firstReplica) Name() string { return "first" }
func (firstReplica) Allocate(p *AllocProblem, _ *rand.Rand) (*Allocation, error) {
	a := &Allocation{Server: make([]int32, p.Tasks())}
	for t := range a.Server {
		a.Server[t] = p.Preferred(int32(t))[0]
	}
	return a, nil
}

type lastServer struct{}

func (lastServer) Name() string { return "last" }
func (lastServer) Allocate(p *AllocProblem, rng *rand.Rand) (*Allocation, error) {
	a := &Allocation{Server: make([]int32, p.Tasks())}
	for t := range a.Server {
		a.Server[t] = int32(p.Servers - 1)
	}
	return a, nil
}

func testAllocators(name string) (Allocator, error) {
	if name == "first" {
		return firstReplica{}, nil
	}
	return lastServer{}, nil
}

func TestRunAllocStudy(t *testing.T) {
	st := testStudy()
	st.Timing = true
	one, err := RunAllocStudy(st, []string{"first", "last"}, []uint64{1, 2, 3}, testAllocators, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Rows) != 2*2*3*2 || len(one.Timing) != len(one.Rows) {
		t.Fatalf("%d rows, %d timings; want 24 each", len(one.Rows), len(one.Timing))
	}
	r0, r1 := one.Rows[0], one.Rows[1]
	if r0.Case != "a" || r0.System != "small" || r0.Seed != 1 || r0.Algorithm != "first" || r1.Algorithm != "last" {
		t.Errorf("first rows out of order: %+v, %+v", r0, r1)
	}
	if r0.LocalTasks != 30 || r0.Locality != 1 || r0.Ratio != 1 {
		t.Errorf("first-replica row: %+v", r0)
	}
	if r1.Ratio <= 1 || r1.RemoteTasks == 0 {
		t.Errorf("last-server row should be slower than the reference: %+v", r1)
	}
	p, _ := st.Instance(st.Systems[0], st.Cases[0], 1)
	a, _ := lastServer{}.Allocate(p, nil)
	if o, _ := p.Evaluate(a, nil); o.Makespan != r1.MakespanUs {
		t.Errorf("row makespan %d, evaluating the instance again gives %d", r1.MakespanUs, o.Makespan)
	}
	many, err := RunAllocStudy(st, []string{"first", "last"}, []uint64{1, 2, 3}, testAllocators, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one.Rows, many.Rows) {
		t.Error("rows depend on the number of workers")
	}
	sum := SummariseAlloc(one.Rows)
	if len(sum) != 2*2*2 || sum[0].Seeds != 3 || sum[0].Ratio != 1 || sum[0].Algorithm != "first" {
		t.Errorf("summary %+v", sum)
	}
}

func TestAllocStudyErrors(t *testing.T) {
	for name, mut := range map[string]func(*AllocStudy){
		"placement": func(s *AllocStudy) { s.Placement = "striped" },
		"no system": func(s *AllocStudy) { s.Systems = nil },
		"racks":     func(s *AllocStudy) { s.Racks = 3 },
		"tasks":     func(s *AllocStudy) { s.Systems[0].Tasks = 0 },
	} {
		st := testStudy()
		mut(st)
		if _, err := RunAllocStudy(st, []string{"first"}, []uint64{1}, testAllocators, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	st := testStudy()
	_, err := RunAllocStudy(st, []string{"first"}, []uint64{1}, func(string) (Allocator, error) { return nil, errTest }, 2)
	if err != errTest {
		t.Errorf("allocator error %v, want it passed through", err)
	}
}

var errTest = errString("no such allocator")

type errString string

func (e errString) Error() string { return string(e) }

func TestAllocExperimentSpecsAndOutput(t *testing.T) {
	for _, name := range []string{"bar_table4", "bar_fig9"} {
		e, err := LoadExperiment(filepath.Join("..", "samples", "experiments", name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		if e.AllocStudy == nil || len(e.AllocStudy.Systems) == 0 || len(e.Policies) != 6 || e.Policies[0] != "bar" {
			t.Errorf("%s: study %+v, policies %v", name, e.AllocStudy, e.Policies)
		}
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "study.toml")
	if err := os.WriteFile(spec, []byte(`
policies = ["first", "last"]
seeds = [1, 2]
[alloc_study]
systems = [{ name = "s", servers = 10, tasks = 30 }]
cases = [{ name = "a", q = "10s", w = "40s" }]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := LoadExperiment(spec)
	if err != nil {
		t.Fatal(err)
	}
	var files [2][]byte
	for i := range files {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		res, err := RunAllocStudy(e.AllocStudy, e.Policies, e.Seeds, testAllocators, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := allocstudy.Write(out, res, map[string]string{"seed": "1"}); err != nil {
			t.Fatal(err)
		}
		if files[i], err = os.ReadFile(filepath.Join(out, AllocFile)); err != nil {
			t.Fatal(err)
		}
		rows, _, err := trace.ReadParquetFile[AllocRow](filepath.Join(out, AllocFile))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rows, res.Rows) {
			t.Error("rows read back differ from rows written")
		}
		if _, err := os.Stat(filepath.Join(out, AllocTimingFile)); !os.IsNotExist(err) {
			t.Errorf("untimed study wrote %s (%v)", AllocTimingFile, err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two runs of the same study wrote different alloc.parquet files")
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("policies = [\"bar\"]\n[alloc_study]\nsystems = []\n"), 0o644)
	if _, err := LoadExperiment(bad); err == nil || !strings.Contains(err.Error(), "at least one system") {
		t.Errorf("study without systems: error %v", err)
	}
}
