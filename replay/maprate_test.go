package replay_test

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestPassThroughMapDuration replays, in model mode on one node (no start-up,
// no lifecycle, 10 MB/s disk, map_compute_mb_per_s = 1), one map of 10 MB
// input in each of four jobs. A pass-through map (its job has no reduce, its
// output is its input) reads and writes at the disk rate and has no compute
// term: 20 MB / 10 MB/s = 2 s; with passthrough_map_mb_per_s = 5, 2 s more.
// The same map in a job with a reduce, or writing half its input, computes
// at map_compute_mb_per_s: 10 s more.
func TestPassThroughMapDuration(t *testing.T) {
	base := `racks = 1
nodes_per_rack = 1
map_slots = 1
reduce_slots = 1
replication = 1
disk_mb_per_s = 10
map_compute_mb_per_s = 1
task_startup = "0s"
heartbeat = "3s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
`
	job := func(out int64, reduce bool) *trace.Trace {
		j, tasks := oneNodeJob("job_1", 0)
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = 10e6, 0, out
		tasks[0].InputBytes, tasks[0].OutputBytes = 10e6, out
		if reduce {
			tasks[1].ShuffleBytes, tasks[1].OutputBytes = 0, 0
		} else {
			tasks = tasks[:1]
			j.NumReduces = 0
		}
		tr := &trace.Trace{Jobs: []trace.Job{j}, Tasks: tasks}
		tr.Sort()
		return tr
	}
	for _, c := range []struct {
		what   string
		extra  string
		out    int64
		reduce bool
		wantUs int64
	}{
		{"pass-through", "", 10e6, false, 2e6},
		{"pass-through within 1%", "", 10.09e6, false, 2_009_000},
		{"pass-through at its own rate", "passthrough_map_mb_per_s = 5", 10e6, false, 4e6},
		{"output 2% off its input", "", 10.2e6, false, 12_020_000},
		{"half its input out", "", 5e6, false, 11_500_000},
		{"job with a reduce", "", 10e6, true, 12e6},
	} {
		hw, err := replay.ParseHardware([]byte(base + c.extra))
		if err != nil {
			t.Fatal(err)
		}
		res := runOne(t, job(c.out, c.reduce), hw)
		for _, x := range res.Tasks {
			if x.Type == "MAP" && x.FinishUs-x.LaunchUs != c.wantUs {
				t.Errorf("%s: map runs %d µs, want %d", c.what, x.FinishUs-x.LaunchUs, c.wantUs)
			}
		}
	}
	for _, v := range []string{"-1", `"fast"`, "1e10"} {
		if _, err := replay.ParseHardware([]byte("passthrough_map_mb_per_s = " + v)); err == nil {
			t.Errorf("passthrough_map_mb_per_s = %s accepted", v)
		}
	}
}

// passThroughJobs appends to tr jobs of 4 pass-through maps each (no reduce,
// output = input), node-local on hosts of their own, whose durations are
// task_startup + (input+output)/disk + input/rate (rate 0: no compute term).
func passThroughJobs(tr *trace.Trace, jobs int, rate float64) {
	t0 := int64(1)
	for i := range tr.Jobs {
		t0 = max(t0, tr.Jobs[i].FinishMs+1000)
	}
	for j := range jobs {
		id := fmt.Sprintf("job_p%03d", j)
		job := trace.NewJob(id)
		job.SubmitMs, job.LaunchMs = t0, t0+calInitMs
		job.NumMaps, job.NumReduces = 4, 0
		var finish int64
		for m := range 4 {
			k := trace.NewTask(id, fmt.Sprintf("%s_m_%d", id, m), trace.Map, int32(m))
			k.InputBytes = int64(20e6 + float64((j*4+m)%37)*25e6)
			k.OutputBytes = k.InputBytes
			d := calStartupMs + bytesMs(2*k.InputBytes, calDiskMBps)
			if rate > 0 {
				d += bytesMs(k.InputBytes, rate)
			}
			k.Host, k.Rack, k.Locality = fmt.Sprintf("p%02d", m), "/r1", trace.NodeLocal
			k.StartMs = job.LaunchMs + calSetupMs + 500
			k.FinishMs = k.StartMs + int64(math.Round(d))
			k.Status = trace.StatusSucceeded
			finish = max(finish, k.FinishMs)
			tr.Tasks = append(tr.Tasks, k)
		}
		job.FinishMs, job.Status = finish+100, trace.StatusSucceeded
		tr.Jobs = append(tr.Jobs, job)
		t0 = job.FinishMs + 1000
	}
	tr.Sort()
}

// TestCalibratePassThroughMaps: calibrationTrace's maps compute at 20 MB/s;
// 300 pass-through maps beside them read and write at the disk rate alone.
// calibrate leaves them out of the map_compute_mb_per_s fit (with them it
// gave 0, no slope told apart from none) and fits passthrough_map_mb_per_s =
// 0 on them (their duration less the disk term does not grow with the
// input); with a compute term of 40 MB/s it finds 40 (and with them in the
// map_compute fit, 40 there too). Without pass-through maps the key is not
// written.
func TestCalibratePassThroughMaps(t *testing.T) {
	num := func(cal *replay.Calibration, key string) (float64, int) {
		t.Helper()
		for _, v := range cal.Values {
			if v.Key == key {
				f, err := strconv.ParseFloat(v.Value, 64)
				if err != nil {
					t.Fatalf("%s = %q: %v", key, v.Value, err)
				}
				return f, v.Samples
			}
		}
		t.Errorf("%s not fitted", key)
		return math.NaN(), 0
	}
	base := replay.DefaultHardware()
	base.DiskMBps = calDiskMBps
	for _, c := range []struct{ rate, want float64 }{{0, 0}, {40, 40}} {
		tr := calibrationTrace()
		passThroughJobs(tr, 75, c.rate)
		cal, err := replay.Calibrate(tr, base)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := num(cal, "map_compute_mb_per_s"); !(math.Abs(got-calMapMBps) <= 0.01*calMapMBps) {
			t.Errorf("pass-through maps at %g MB/s: map_compute_mb_per_s = %g, want %g within 1%% (the pass-through maps left out)", c.rate, got, calMapMBps)
		}
		got, n := num(cal, "passthrough_map_mb_per_s")
		if n != 300 || !(math.Abs(got-c.want) <= 0.01*c.want) {
			t.Errorf("pass-through maps at %g MB/s: passthrough_map_mb_per_s = %g over %d maps, want %g over 300", c.rate, got, n, c.want)
		}
	}
	cal, err := replay.Calibrate(calibrationTrace(), base)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := cal.Value("passthrough_map_mb_per_s"); ok {
		t.Errorf("passthrough_map_mb_per_s = %s fitted without pass-through maps", v)
	}
}
