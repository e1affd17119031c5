package replay_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// flowCalibrationTrace builds a schedule with the flow model's formulas
// (calibrate_flow.go) on an idle cluster: 60 jobs one after another, each of
// 2–8 node-local maps, start-up 2 s, read ∥ compute at mapMBps beside a
// 100 MB/s disk, then the spill; one reduce launched after the last map,
// which copies for start-up, its shuffle at 125 MB/s (the base's NIC) and
// latency/5 per map output (fetchMs = 300 ms per output at 5 parallel
// copies), then works for its shuffle at 10 MB/s with no disk term.
func flowCalibrationTrace(mapMBps float64) *trace.Trace {
	const fetchMs = 300
	rng := rand.New(rand.NewPCG(7, 11))
	tr := &trace.Trace{}
	t0 := int64(1_000_000)
	for j := range 60 {
		id := fmt.Sprintf("job_%03d", j)
		job := trace.NewJob(id)
		job.SubmitMs, job.LaunchMs = t0, t0+5000
		maps := 2 + rng.IntN(7)
		job.NumMaps, job.NumReduces = int32(maps), 1
		host := func(k int) string { return fmt.Sprintf("h%02d", (j*7+k)%20) }
		start := job.LaunchMs + 2000
		var lastMap int64
		for m := range maps {
			t := trace.NewTask(id, fmt.Sprintf("%s_m_%d", id, m), trace.Map, int32(m))
			t.InputBytes = int64(10e6 + rng.Float64()*490e6)
			t.OutputBytes = t.InputBytes / 4
			d := 2000 + max(bytesMs(t.InputBytes, 100), bytesMs(t.InputBytes, mapMBps)) + bytesMs(t.OutputBytes, 100)
			t.Host, t.Rack, t.Locality = host(m/3), "/r1", trace.NodeLocal
			t.StartMs, t.FinishMs, t.Status = start, start+int64(math.Round(d)), trace.StatusSucceeded
			lastMap = max(lastMap, t.FinishMs)
			tr.Tasks = append(tr.Tasks, t)
		}
		r := trace.NewTask(id, id+"_r_0", trace.Reduce, 0)
		r.ShuffleBytes = int64(50e6 + rng.Float64()*950e6)
		r.OutputBytes = r.ShuffleBytes / 10
		copyMs := 2000 + bytesMs(r.ShuffleBytes, 125) + float64(maps)*fetchMs/5
		r.Host, r.Rack = host(10), "/r1"
		r.StartMs = lastMap + 500
		r.ShuffleFinishMs = r.StartMs + int64(math.Round(copyMs))
		r.SortFinishMs = r.ShuffleFinishMs
		r.FinishMs = r.ShuffleFinishMs + int64(math.Round(bytesMs(r.ShuffleBytes, 10)))
		r.Status = trace.StatusSucceeded
		tr.Tasks = append(tr.Tasks, r)
		job.FinishMs, job.Status = r.FinishMs, trace.StatusSucceeded
		tr.Jobs = append(tr.Jobs, job)
		t0 = r.FinishMs + 1000
	}
	return tr
}

// TestCalibrateFlowRecoversParameters: with a base of network = "flow" the
// fit follows the flow model's formulas and recovers the schedule's
// parameters within 1%: start-up 2 s, map compute 20 MB/s (slower than the
// 100 MB/s read it runs beside), reduce compute 10 MB/s, the base's NIC kept
// (no host received faster than 125 MB/s) and a fetch latency of 300 ms; the
// file says network = "flow" and loads. With a compute of 400 MB/s the read
// hides it: 0 (not a bottleneck). The fixed fit of the same schedule (the
// old behaviour for flow) counts the read twice and finds 25 MB/s (1/20 −
// 1/100 s per MB) and a reduce compute of 11.x MB/s with the disk term
// taken out.
func TestCalibrateFlowRecoversParameters(t *testing.T) {
	base := replay.DefaultHardware()
	base.DiskMBps, base.NICMBps, base.ParallelCopies = 100, 125, 5
	flowBase := base
	flowBase.Network = "flow"
	dur := func(v string) float64 {
		d, err := time.ParseDuration(strings.Trim(v, `"`))
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		return float64(d.Milliseconds())
	}
	num := func(v string) float64 {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		return f
	}
	type want struct {
		key   string
		parse func(string) float64
		want  float64
	}
	for _, c := range []struct {
		name    string
		base    replay.Hardware
		mapMBps float64
		wants   []want
	}{
		{"flow", flowBase, 20, []want{{"task_startup", dur, 2000}, {"map_compute_mb_per_s", num, 20}, {"reduce_compute_mb_per_s", num, 10}, {"nic_mb_per_s", num, 125}, {"shuffle_fetch_latency", dur, 300}}},
		{"flow, read-bound", flowBase, 400, []want{{"task_startup", dur, 2000}, {"map_compute_mb_per_s", num, 0}}},
		{"fixed", base, 20, []want{{"map_compute_mb_per_s", num, 25}}},
	} {
		cal, err := replay.Calibrate(flowCalibrationTrace(c.mapMBps), c.base)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.wants {
			v, ok := cal.Value(w.key)
			if !ok {
				t.Errorf("%s: %s not fitted", c.name, w.key)
				continue
			}
			if got := w.parse(v); math.Abs(got-w.want) > 0.01*w.want || w.want == 0 && got != 0 {
				t.Errorf("%s: %s = %s, want %g within 1%%", c.name, w.key, v, w.want)
			}
		}
		if c.name == "fixed" {
			if v, _ := cal.Value("reduce_compute_mb_per_s"); num(v) < 10.5 {
				t.Errorf("fixed: reduce_compute_mb_per_s = %s, want above 10.5 (the disk term taken out)", v)
			}
			if _, ok := cal.Value("network"); ok {
				t.Errorf("fixed: network written")
			}
			continue
		}
		var b strings.Builder
		if err := cal.WriteTOML(&b, "synthetic"); err != nil {
			t.Fatal(err)
		}
		hw, err := replay.ParseHardware([]byte(b.String()))
		if err != nil {
			t.Fatalf("%s: calibrated file does not load: %v\n%s", c.name, err, b.String())
		}
		if hw.Network != "flow" {
			t.Errorf("%s: network = %q in the file, want flow", c.name, hw.Network)
		}
	}
}

// TestCalibrateFlowNICBound works the NIC's lower bound by hand. Job J has
// three maps on h1 and one on h2, 30 MB of output each, so a reduce on h2
// fetches 3/4 of its shuffle over h2's NIC. Reduce 0 on h2 copies 16 MB over
// 0–10 s (12 MB remote), reduce 1 on h2 20 MB over 5–10 s (15 MB remote):
// the window 0–10 s holds both, 27 MB in 10 s = 2.7 MB/s; the window 5–10 s
// holds reduce 1 only, 15 MB in 5 s = 3 MB/s, the bound. A base NIC of
// 1 MB/s is raised to 3; one of 125 is kept.
func TestCalibrateFlowNICBound(t *testing.T) {
	job := trace.NewJob("J")
	job.SubmitMs, job.LaunchMs, job.FinishMs, job.Status = 0, 0, 20000, trace.StatusSucceeded
	tr := &trace.Trace{Jobs: []trace.Job{job}}
	for m, h := range []string{"h1", "h1", "h1", "h2"} {
		t := trace.NewTask("J", fmt.Sprintf("J_m_%d", m), trace.Map, int32(m))
		t.InputBytes, t.OutputBytes, t.Host, t.StartMs, t.FinishMs = 1e6, 30e6, h, 0, 1000
		tr.Tasks = append(tr.Tasks, t)
	}
	for r, c := range []struct{ startMs, endMs, bytes int64 }{{0, 10000, 16e6}, {5000, 10000, 20e6}} {
		t := trace.NewTask("J", fmt.Sprintf("J_r_%d", r), trace.Reduce, int32(r))
		t.ShuffleBytes, t.Host, t.StartMs, t.ShuffleFinishMs, t.FinishMs = c.bytes, "h2", c.startMs, c.endMs, c.endMs+1000
		tr.Tasks = append(tr.Tasks, t)
	}
	tr.Sort()
	for _, c := range []struct{ base, want float64 }{{1, 3}, {125, 125}} {
		hw := replay.DefaultHardware()
		hw.Network, hw.NICMBps = "flow", c.base
		cal, err := replay.Calibrate(tr, hw)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := cal.Value("nic_mb_per_s")
		if got, err := strconv.ParseFloat(v, 64); err != nil || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("base NIC %g: nic_mb_per_s = %q, want %g", c.base, v, c.want)
		}
	}
}

// TestCalibrateFlowLatencyPerOutput: a wait of 3 s per reduce that does not
// grow with the maps (Hadoop 1's ReduceCopier sleeps 5 s whenever it has no
// map output to fetch) is the intercept of the flow fit, not a per-output
// latency: the latency stays the schedule's 300 ms per output. Dividing each
// copy's rest by its maps (the fit before) made it (3 s + maps × 60 ms) × 5 /
// maps, 2.2–7.8 s for these 2–8-map jobs.
func TestCalibrateFlowLatencyPerOutput(t *testing.T) {
	base := replay.DefaultHardware()
	base.DiskMBps, base.NICMBps, base.ParallelCopies, base.Network = 100, 125, 5, "flow"
	tr := flowCalibrationTrace(20)
	for i := range tr.Tasks {
		if r := &tr.Tasks[i]; r.Type == trace.Reduce {
			r.ShuffleFinishMs += 3000
			r.SortFinishMs += 3000
			r.FinishMs += 3000
		}
	}
	cal, err := replay.Calibrate(tr, base)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := cal.Value("shuffle_fetch_latency")
	if !ok {
		t.Fatalf("shuffle_fetch_latency not fitted; notes %v", cal.Notes)
	}
	d, err := time.ParseDuration(strings.Trim(v, `"`))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(d.Milliseconds())-300) > 3 {
		t.Errorf("shuffle_fetch_latency = %s, want 300ms within 1%% (the 3 s per reduce is the intercept)", v)
	}
}
