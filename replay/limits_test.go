package replay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/internal/cputime"
	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/trace"
)

// TestHardwareLimits: hostile or mistyped hardware models are refused quickly by
// Validate with a message naming the key, never overflowing, panicking or
// spending time in proportion to the values.
func TestHardwareLimits(t *testing.T) {
	for _, tc := range []struct {
		toml, want string
	}{
		// racks × nodes_per_rack overflows int: it used to pass as a small or
		// negative product and make NewTopology panic in makeslice.
		{"racks = 4294967296\nnodes_per_rack = 4294967297", "exceeds the limit of 1048576 nodes"},
		{"racks = 3037000500\nnodes_per_rack = 3037000500", "exceeds the limit"},
		{"racks = 1000000000", "exceeds the limit"},
		{"racks = 1024\nnodes_per_rack = 1025", "exceeds the limit"},
		{"map_nodes = 9223372036854775807\nreduce_nodes = 9223372036854775807", "map_nodes + reduce_nodes"},
		{"task_startup = \"1000000h\"", "task_startup = 1000000h0m0s: want at most 24h0m0s"},
		{"heartbeat = \"25h\"", "heartbeat"},
		{"timeline_sample = \"48h\"", "timeline_sample"},
		{"bar_q = \"100h\"", "bar_q"},
		{"disk_mb_per_s = inf", "disk_mb_per_s = +Inf: want a finite rate"},
		{"nic_mb_per_s = nan", "nic_mb_per_s = NaN"},
		{"rack_uplink_mb_per_s = -1.0", "rack_uplink_mb_per_s"},
		{"map_compute_mb_per_s = inf", "map_compute_mb_per_s"},
		{"reduce_compute_mb_per_s = -1.0", "reduce_compute_mb_per_s"},
		{"reduce_mb_per_task = inf", "reduce_mb_per_task"},
		{"block_size_mb = 9223372036854775807", "block_size_mb"},
	} {
		start := cputime.Process()
		_, err := ParseHardware([]byte(tc.toml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error with %q", tc.toml, err, tc.want)
		}
		if d := cputime.Process() - start; d > time.Second {
			t.Errorf("%q: refused after %v, want well under a second", tc.toml, d)
		}
	}
	// the limits themselves are accepted
	for _, ok := range []string{"racks = 1024\nnodes_per_rack = 1024\nmap_slots = 1\nreduce_slots = 1",
		"task_startup = \"24h\"", "map_compute_mb_per_s = 0.0", "disk_mb_per_s = 1e9"} {
		if _, err := ParseHardware([]byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestExperimentCellLimit: a spec expanding into more cells than MaxCells is
// refused by Cells before it expands anything, with the sizes named; the count
// cannot overflow.
func TestExperimentCellLimit(t *testing.T) {
	seeds := make([]string, 3000)
	for i := range seeds {
		seeds[i] = fmt.Sprint(i + 1)
	}
	policies := `["fifo", "fair", "capacity", "fifo-delay", "fair-delay", "bar", "hpfsp", "eas", "coupling"]`
	for _, tc := range []struct {
		name, spec, want string
	}{
		{"9x2000", "policies = " + policies + "\nseeds = [" + strings.Join(seeds[:2000], ",") + "]\n[[traces]]\ngenerator = \"synthetic\"\n",
			"9 policies × 1 traces × 1 hardware models × 2000 seeds expand into more than 5000 cells"},
		{"sweeps", "policies = [\"fifo\"]\n[[traces]]\ngenerator = \"synthetic\"\n[sweep]\nreplication = [1,2,3,4,5,6,7,8,9,10,11,12]\nslow_start = [0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0]\nheartbeat = [\"1s\",\"2s\",\"3s\",\"4s\",\"5s\",\"6s\",\"7s\",\"8s\",\"9s\",\"10s\"]\nduration_cv = [0.1,0.2,0.3,0.4,0.5]\n",
			"× 5 duration_cv × 10 heartbeat × 12 replication × 10 slow_start expand into more than 5000 cells"},
	} {
		path := filepath.Join(t.TempDir(), "spec.toml")
		if err := os.WriteFile(path, []byte(tc.spec), 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := LoadExperiment(path)
		if err != nil {
			t.Fatal(err)
		}
		cells, err := e.Cells()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %d cells, error %v; want an error with %q", tc.name, len(cells), err, tc.want)
		}
	}
	// exactly MaxCells is fine, and CellCount agrees with Cells
	spec := "policies = [\"fifo\", \"fair\"]\nseeds = [" + strings.Join(seeds[:MaxCells/2], ",") + "]\n[[traces]]\ngenerator = \"synthetic\"\n"
	path := filepath.Join(t.TempDir(), "spec.toml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := LoadExperiment(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.CellCount()
	cells, err2 := e.Cells()
	if err != nil || err2 != nil || n != MaxCells || len(cells) != MaxCells {
		t.Fatalf("CellCount %d (%v), Cells %d (%v): want %d", n, err, len(cells), err2, MaxCells)
	}
}

// TestSynthesisLimit: a job given only by its bytes (SWIM) whose input would
// make more than MaxSynthTasksPerJob maps is refused by NewWorkload before any
// task is built; it used to ask for half a terabyte.
func TestSynthesisLimit(t *testing.T) {
	hw := DefaultHardware()
	topo := NewTopology(&hw, 1)
	for _, tc := range []struct {
		in, shuffle int64
		reduces     int32
		want        string
	}{
		{1<<63 - 1, 0, trace.Unknown, "make 68719476736 maps, more than the limit of 1048576 per job"},
		{(MaxSynthTasksPerJob + 1) * 128 << 20, 0, trace.Unknown, "more than the limit"},
		{1, 0, MaxSynthTasksPerJob + 1, "1048577 reduces"},
		{1, 1 << 62, trace.Unknown, "reduces, more than the limit"},
	} {
		j := trace.NewJob("job0")
		j.Status = trace.StatusSucceeded
		j.SubmitMs, j.InputBytes, j.ShuffleBytes, j.OutputBytes, j.NumReduces = 0, tc.in, tc.shuffle, 0, tc.reduces
		big := hw
		big.MapSlots, big.ReduceSlots, big.Racks, big.NodesPerRack = 1024, 1024, 1024, 1024 // a reduce cap of 2^30
		_, err := NewWorkload(&trace.Trace{Jobs: []trace.Job{j}}, &big, topo, 1, WorkloadOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("input %d shuffle %d reduces %d: error %v, want %q", tc.in, tc.shuffle, tc.reduces, err, tc.want)
		}
	}
	j := trace.NewJob("job0")
	j.Status, j.SubmitMs, j.InputBytes = trace.StatusSucceeded, 0, (MaxSynthTasksPerJob-1)*128<<20
	if _, err := NewWorkload(&trace.Trace{Jobs: []trace.Job{j}}, &hw, topo, 1, WorkloadOptions{}); err != nil {
		t.Errorf("a job at the limit: %v", err)
	}
}

// TestTasksPerHourLimit: a few lines of SWIM whose jobs arrive together with
// 2^20 maps each (the audit's six.tsv replayed in 1.17 GB and 21 s) are refused
// by NewWorkload with ErrTooManyTasks before any task is built; the same jobs
// an hour apart, or under a raised limit, are accepted, and so is FB-2010 on
// fb-600 (in 128 and in 64 MB blocks) under the defaults.
func TestTasksPerHourLimit(t *testing.T) {
	hw := DefaultHardware()
	topo := NewTopology(&hw, 1)
	jobs := func(n int, gapMs int64) *trace.Trace {
		tr := &trace.Trace{}
		for i := range n {
			j := trace.NewJob(fmt.Sprintf("job%d", i))
			j.Status, j.SubmitMs = trace.StatusSucceeded, 10_000+int64(i)*gapMs
			j.InputBytes, j.ShuffleBytes, j.OutputBytes = (MaxSynthTasksPerJob-2)*128<<20, 100, 100
			tr.Jobs = append(tr.Jobs, j)
		}
		return tr
	}
	start := cputime.Process()
	_, err := NewWorkload(jobs(6, 1000), &hw, topo, 1, WorkloadOptions{})
	if !errors.Is(err, ErrTooManyTasks) || !strings.Contains(err.Error(), "more than the limit of 2097152 an hour") ||
		!strings.Contains(err.Error(), "--max-tasks-per-hour") {
		t.Errorf("six jobs of 2^20 maps a second apart: %v, want ErrTooManyTasks naming --max-tasks-per-hour", err)
	}
	if d := cputime.Process() - start; d > time.Second {
		t.Errorf("refused after %v", d)
	}
	if _, err := NewWorkload(jobs(2, 1000), &hw, topo, 1, WorkloadOptions{}); err != nil {
		t.Errorf("two jobs of 2^20 tasks, at the limit: %v", err)
	}
	if _, err := NewWorkload(jobs(6, 3_600_000), &hw, topo, 1, WorkloadOptions{}); err != nil {
		t.Errorf("six jobs an hour apart: %v", err)
	}
	if _, err := NewWorkload(jobs(6, 1000), &hw, topo, 1, WorkloadOptions{MaxTasksPerHour: 7 << 20}); err != nil {
		t.Errorf("six jobs under a raised limit: %v", err)
	}
	_, err = NewWorkload(jobs(6, 3_600_000), &hw, topo, 1, WorkloadOptions{MaxTasks: 5 << 20})
	if !errors.Is(err, ErrTooManyTasks) || !strings.Contains(err.Error(), "for a trace (replay --max-tasks raises it)") {
		t.Errorf("six jobs an hour apart over --max-tasks: %v", err)
	}

	if !testgate.Enabled(testgate.Full) {
		return
	}
	path := filepath.Join("..", "..", "shared", "traces", "swim", "FB-2010_samples_24_times_1hr_0.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("FB-2010 not available: %v", err)
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(path, f, "auto", trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fb, err := LoadHardware(filepath.Join("..", "samples", "hardware", "fb-600.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range []int{128, 64} {
		fb.BlockSizeMB = block
		if _, err := NewWorkload(tr, &fb, NewTopology(&fb, 1), 1, WorkloadOptions{}); err != nil {
			t.Errorf("FB-2010 on fb-600 in %d MB blocks under the default limits: %v", block, err)
		}
	}
}
