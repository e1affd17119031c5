package replay_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// Known parameters of the synthetic schedule calibrate must recover.
const (
	calStartupMs   = 2000 // task_startup
	calDiskMBps    = 100  // the base model's disk rate (subtracted, not fitted)
	calMapMBps     = 20.0 // map_compute_mb_per_s
	calReduceMBps  = 10.0 // reduce_compute_mb_per_s
	calNICMBps     = 50.0 // nic_mb_per_s (the shuffle rate)
	calFetchMs     = 300  // shuffle_fetch_latency per round of parallel copies
	calInitMs      = 5000 // job_init_time
	calMapSlots    = 3
	calSetupMs     = 1500 // setup_task
	calCleanupMs   = 800  // cleanup_task
	calReduceSlots = 2
)

// bytesMs is the model's time for b bytes at r MB/s (MB = 10^6 bytes), in ms.
func bytesMs(b int64, r float64) float64 { return float64(b) / r / 1000 }

// calibrationTrace builds a schedule with the model's duration formulas and the
// constants above: 60 jobs of 2-8 node-local maps and 1-2 reduces launched after
// their last map, on 20 hosts that never run more than calMapSlots maps or
// calReduceSlots reduces at once (one job at a time per host group); every
// fifth job waits behind others for initialisation.
func calibrationTrace() *trace.Trace {
	rng := rand.New(rand.NewPCG(7, 11))
	tr := &trace.Trace{}
	t0 := int64(1_000_000)
	for j := range 60 {
		id := fmt.Sprintf("job_%03d", j)
		job := trace.NewJob(id)
		job.SubmitMs = t0
		job.LaunchMs = t0 + calInitMs
		if j%5 == 4 {
			job.LaunchMs += int64(1000 * (1 + j%7)) // queued behind other jobs
		}
		maps, reduces := 2+rng.IntN(7), 1+rng.IntN(2)
		job.NumMaps, job.NumReduces = int32(maps), int32(reduces)
		host := func(k int) string { return fmt.Sprintf("h%02d", (j*7+k)%20) }
		start := job.LaunchMs + calSetupMs + 500 // after the setup task, which holds a map slot
		var lastMap int64
		for m := range maps {
			t := trace.NewTask(id, fmt.Sprintf("%s_m_%d", id, m), trace.Map, int32(m))
			t.InputBytes = int64(10e6 + rng.Float64()*490e6)
			t.OutputBytes = t.InputBytes / 4
			d := calStartupMs + bytesMs(t.InputBytes+t.OutputBytes, calDiskMBps) + bytesMs(t.InputBytes, calMapMBps)
			// At most calMapSlots maps at once on a host: host m/calMapSlots.
			t.Host, t.Rack, t.Locality = host(m/calMapSlots), "/r1", trace.NodeLocal
			t.StartMs = start
			t.FinishMs = start + int64(math.Round(d))
			t.Status = trace.StatusSucceeded
			lastMap = max(lastMap, t.FinishMs)
			tr.Tasks = append(tr.Tasks, t)
		}
		var finish int64
		for r := range reduces {
			t := trace.NewTask(id, fmt.Sprintf("%s_r_%d", id, r), trace.Reduce, int32(r))
			t.ShuffleBytes = int64(50e6 + rng.Float64()*950e6)
			t.OutputBytes = t.ShuffleBytes / 10
			rounds := math.Ceil(float64(maps) / 5)
			copyMs := calStartupMs + rounds*calFetchMs + bytesMs(t.ShuffleBytes, calNICMBps)
			work := bytesMs(t.ShuffleBytes+t.OutputBytes, calDiskMBps) + bytesMs(t.ShuffleBytes, calReduceMBps)
			t.Host, t.Rack = host(10), "/r1"
			t.StartMs = lastMap + 500
			t.ShuffleFinishMs = t.StartMs + int64(math.Round(copyMs))
			t.SortFinishMs = t.ShuffleFinishMs
			t.FinishMs = t.ShuffleFinishMs + int64(math.Round(work))
			t.Status = trace.StatusSucceeded
			finish = max(finish, t.FinishMs)
			tr.Tasks = append(tr.Tasks, t)
		}
		// Setup before the maps, cleanup after the reduces (trace order: after
		// the reduces).
		setup := trace.NewTask(id, id+"_setup", trace.Setup, 0)
		setup.Host, setup.StartMs, setup.FinishMs = host(0), job.LaunchMs, job.LaunchMs+calSetupMs
		cleanup := trace.NewTask(id, id+"_cleanup", trace.Cleanup, 0)
		cleanup.Host, cleanup.StartMs, cleanup.FinishMs = host(0), finish+100, finish+100+calCleanupMs
		tr.Tasks = append(tr.Tasks, setup, cleanup)
		finish = cleanup.FinishMs
		job.FinishMs, job.Status = finish, trace.StatusSucceeded
		tr.Jobs = append(tr.Jobs, job)
		t0 = finish + 1000 // jobs one after another: slots per host as planned
	}
	return tr
}

func TestCalibrateRecoversSyntheticParameters(t *testing.T) {
	base := replay.DefaultHardware()
	base.DiskMBps = calDiskMBps
	cal, err := replay.Calibrate(calibrationTrace(), base)
	if err != nil {
		t.Fatal(err)
	}
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
	for _, tc := range []struct {
		key   string
		parse func(string) float64
		want  float64
	}{
		{"task_startup", dur, calStartupMs},
		{"map_compute_mb_per_s", num, calMapMBps},
		{"reduce_compute_mb_per_s", num, calReduceMBps},
		{"nic_mb_per_s", num, calNICMBps},
		{"shuffle_fetch_latency", dur, calFetchMs},
		{"job_init_time", dur, calInitMs},
		{"setup_task", dur, calSetupMs},
		{"cleanup_task", dur, calCleanupMs},
		{"map_slots", num, calMapSlots},
		{"reduce_slots", num, calReduceSlots},
	} {
		v, ok := cal.Value(tc.key)
		if !ok {
			t.Errorf("%s: not fitted", tc.key)
			continue
		}
		if got := tc.parse(v); math.Abs(got-tc.want) > 0.05*tc.want {
			t.Errorf("%s = %s, want %g within 5%%", tc.key, v, tc.want)
		}
	}
	// The file loads as a hardware model (keys the engine lacks are comments).
	var b strings.Builder
	if err := cal.WriteTOML(&b, "synthetic"); err != nil {
		t.Fatal(err)
	}
	hw, err := replay.ParseHardware([]byte(b.String()))
	if err != nil {
		t.Fatalf("calibrated file does not load: %v\n%s", err, b.String())
	}
	if hw.MapSlots != calMapSlots || math.Abs(hw.MapComputeMBps-calMapMBps) > 0.05*calMapMBps {
		t.Errorf("loaded map_slots %d, map_compute_mb_per_s %g", hw.MapSlots, hw.MapComputeMBps)
	}
	if !strings.Contains(b.String(), "samples.") {
		t.Errorf("no sample counts in the file:\n%s", b.String())
	}
}

func TestCalibrateNeedsASchedule(t *testing.T) {
	tr := calibrationTrace()
	for i := range tr.Tasks {
		tr.Tasks[i].Host = ""
	}
	_, err := replay.Calibrate(tr, replay.DefaultHardware())
	if !errors.Is(err, replay.ErrNoSchedule) || !errors.Is(err, trace.ErrBadInput) {
		t.Fatalf("err = %v, want ErrNoSchedule (bad input)", err)
	}
}

// TestCalibrateRobustToOutliers: a fifth of the maps a minute late leave the
// fitted map rate where it was.
func TestCalibrateRobustToOutliers(t *testing.T) {
	tr := calibrationTrace()
	n := 0
	for i := range tr.Tasks {
		if tr.Tasks[i].Type == trace.Map && i%5 == 0 {
			tr.Tasks[i].FinishMs += 60_000 // a straggler: a minute late
			n++
		}
	}
	base := replay.DefaultHardware()
	base.DiskMBps = calDiskMBps
	cal, err := replay.Calibrate(tr, base)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := cal.Value("map_compute_mb_per_s")
	if f, _ := strconv.ParseFloat(v, 64); math.Abs(f-calMapMBps) > 0.05*calMapMBps {
		t.Errorf("with %d straggling maps map_compute_mb_per_s = %s, want %g within 5%%", n, v, calMapMBps)
	}
}

// TestCalibrateSlotsFromConf: the job confs' slot maxima win over the peak
// concurrency; the most common value is taken.
func TestCalibrateSlotsFromConf(t *testing.T) {
	tr := calibrationTrace()
	for i := range tr.Jobs {
		tr.Jobs[i].ConfMapSlots, tr.Jobs[i].ConfReduceSlots = 4, 2
		if i%10 == 0 {
			tr.Jobs[i].ConfMapSlots = 8
		}
	}
	cal, err := replay.Calibrate(tr, replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := cal.Value("map_slots"); v != "4" {
		t.Errorf("map_slots = %s, want 4 (54 of 60 confs)", v)
	}
	if v, _ := cal.Value("reduce_slots"); v != "2" {
		t.Errorf("reduce_slots = %s, want 2", v)
	}
}

// TestCalibrateDeterministic: the same trace gives the same file, byte for byte.
func TestCalibrateDeterministic(t *testing.T) {
	var out [2]string
	for i := range out {
		cal, err := replay.Calibrate(calibrationTrace(), replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := cal.WriteTOML(&b, "synthetic"); err != nil {
			t.Fatal(err)
		}
		out[i] = b.String()
	}
	if out[0] != out[1] {
		t.Errorf("two calibrations differ:\n%s\n---\n%s", out[0], out[1])
	}
}

// TestCalibrateRetryContainerDelay fits retry_container_delay from the two
// FAILED .jhist histories: the median of their nine retry gaps (1,321, 1,773,
// 2,844 ms; 1,639, 1,787, 1,722, 1,438, 1,626, 1,660 ms) is 1,660 ms. From the
// Sleep history, which has no retry, it is its JOB_INITED → first attempt
// time, 2,177 ms; a Hadoop 1 trace (no ApplicationMaster) fits none.
func TestCalibrateRetryContainerDelay(t *testing.T) {
	read := func(names ...string) *trace.Trace {
		out := &trace.Trace{}
		for k, name := range names {
			tr, _, err := trace.ReadTree(context.Background(), filepath.Join("..", "trace", "testdata", name), trace.TreeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := fmt.Sprintf("t%d/", k)
			for _, j := range tr.Jobs {
				j.ID = p + j.ID
				out.Jobs = append(out.Jobs, j)
			}
			for _, x := range tr.Tasks {
				x.JobID = p + x.JobID
				out.Tasks = append(out.Tasks, x)
			}
			for _, a := range tr.Attempts {
				a.JobID = p + a.JobID
				out.Attempts = append(out.Attempts, a)
			}
		}
		return out
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"jhist/job_2.4.0-FAILED.jhist", "jhist/job_0.23.9-FAILED.jhist"}, `"1.66s"`},
		{[]string{"jhist/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist"}, `"2.177s"`},
		{[]string{"hadoop1/v20-single-input-log.gz"}, ""},
	} {
		cal, err := replay.Calibrate(read(c.names...), replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := cal.Value("retry_container_delay"); v != c.want {
			t.Errorf("%v: retry_container_delay = %q, want %q", c.names, v, c.want)
		}
	}
}

// TestCalibrateSortRate: the synthetic schedule with a sort phase of
// shuffle/4 MB/s between each reduce's shuffle end and its work (the finish
// moves by as much): calibrate recovers sort_mb_per_s = 4 and still
// reduce_compute_mb_per_s = 10 within 5%, the sort taken out of the reduce
// work. Without sort ends it fits no sort rate.
func TestCalibrateSortRate(t *testing.T) {
	const sortMBps = 4.0
	tr := calibrationTrace()
	for i := range tr.Tasks {
		k := &tr.Tasks[i]
		if k.Type != trace.Reduce || k.ShuffleFinishMs < 0 {
			continue
		}
		d := int64(math.Round(bytesMs(k.ShuffleBytes, sortMBps)))
		k.SortFinishMs = k.ShuffleFinishMs + d
		k.FinishMs += d
	}
	cal, err := replay.Calibrate(tr, replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  string
		want float64
	}{{"sort_mb_per_s", sortMBps}, {"reduce_compute_mb_per_s", calReduceMBps}} {
		v, _ := cal.Value(c.key)
		got, err := strconv.ParseFloat(v, 64)
		if err != nil || math.Abs(got-c.want) > 0.05*c.want {
			t.Errorf("%s = %q, want %g within 5%%", c.key, v, c.want)
		}
	}
	cal, err = replay.Calibrate(calibrationTrace(), replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := cal.Value("sort_mb_per_s"); ok {
		t.Errorf("sort_mb_per_s = %s fitted without sort ends", v)
	}
}

// TestCalibrateTooFewCopiesForARate is fold A of the validation harness
// (docs/validation.md, "Model mode"): three reduces launched after their
// job's last map, one per job, whose copy phases rise with their shuffle bytes
// (28 B in 1.98 s, 233 B in 26.02 s, 4.48 MB in 38.40 s). Three points cannot
// give a slope a 95% interval (they come in that order by chance one time in
// six), so nic_mb_per_s keeps the base value; the rank interval used to be
// clamped to the smallest slope, which made 0.1229 MB/s "significant" and
// slowed every remote map read of the model to it.
func TestCalibrateTooFewCopiesForARate(t *testing.T) {
	tr := &trace.Trace{}
	for j, c := range []struct {
		shuffle       int64
		copyMs, mapMs int64
	}{{28, 1980, 2100}, {233, 26020, 4700}, {4476880, 38400, 23500}} {
		id := fmt.Sprintf("job_%d", j)
		job := trace.NewJob(id)
		t0 := int64(j) * 1_000_000
		job.SubmitMs, job.LaunchMs = t0, t0+1000
		m := trace.NewTask(id, id+"_m_0", trace.Map, 0)
		m.InputBytes, m.OutputBytes = 1000*int64(j+1), c.shuffle
		m.Host, m.Rack, m.Locality = "h1", "/r1", trace.NodeLocal
		m.StartMs, m.FinishMs, m.Status = t0+2000, t0+2000+c.mapMs, trace.StatusSucceeded
		r := trace.NewTask(id, id+"_r_0", trace.Reduce, 0)
		r.ShuffleBytes = c.shuffle
		r.Host, r.Rack = "h1", "/r1"
		r.StartMs = m.FinishMs + 500
		r.ShuffleFinishMs = r.StartMs + c.copyMs
		r.SortFinishMs = r.ShuffleFinishMs
		r.FinishMs, r.Status = r.ShuffleFinishMs+1000, trace.StatusSucceeded
		tr.Tasks = append(tr.Tasks, m, r)
		job.FinishMs, job.Status = r.FinishMs, trace.StatusSucceeded
		tr.Jobs = append(tr.Jobs, job)
	}
	cal, err := replay.Calibrate(tr, replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := cal.Value("nic_mb_per_s"); ok {
		t.Errorf("nic_mb_per_s = %s fitted from 3 copies", v)
	}
}

// TestCalibrateEventPoll: reduces running before their job's last map whose
// shuffle ends a tail after it. Tails of 10 s (beyond half the default 3 s
// heartbeat and the fetch latency) turn event_poll on; tails of 1 s, or the
// same 10 s tails in jobs that record a YARN ApplicationMaster, do not; nor
// does the calibration's own synthetic schedule (its reduces start after the
// last map).
func TestCalibrateEventPoll(t *testing.T) {
	schedule := func(tailMs int64, yarn bool) *trace.Trace {
		tr := &trace.Trace{}
		for j := range 4 {
			id := fmt.Sprintf("job_%d", j)
			job := trace.NewJob(id)
			t0 := int64(j) * 1_000_000
			job.SubmitMs, job.LaunchMs = t0, t0+1000
			if yarn {
				job.AMStartMs = t0 + 500
			}
			m := trace.NewTask(id, id+"_m_0", trace.Map, 0)
			m.InputBytes, m.OutputBytes = 1000, 100
			m.Host, m.Rack, m.Locality = "h1", "/r1", trace.NodeLocal
			m.StartMs, m.FinishMs, m.Status = t0+2000, t0+20_000, trace.StatusSucceeded
			r := trace.NewTask(id, id+"_r_0", trace.Reduce, 0)
			r.ShuffleBytes = 100
			r.Host, r.Rack = "h2", "/r1"
			r.StartMs = t0 + 3000
			r.ShuffleFinishMs = m.FinishMs + tailMs
			r.SortFinishMs = r.ShuffleFinishMs
			r.FinishMs, r.Status = r.ShuffleFinishMs+1000, trace.StatusSucceeded
			tr.Tasks = append(tr.Tasks, m, r)
			job.FinishMs, job.Status = r.FinishMs, trace.StatusSucceeded
			tr.Jobs = append(tr.Jobs, job)
		}
		return tr
	}
	for _, c := range []struct {
		name string
		tr   *trace.Trace
		want bool
	}{
		{"10 s tails", schedule(10_000, false), true},
		{"1 s tails", schedule(1000, false), false},
		{"10 s tails, YARN jobs", schedule(10_000, true), false},
		{"reduces after the last map", calibrationTrace(), false},
	} {
		cal, err := replay.Calibrate(c.tr, replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		if _, got := cal.Value("event_poll"); got != c.want {
			t.Errorf("%s: event_poll set %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCalibrateSetupCleanupLaunchLag: setup_task and cleanup_task are their
// attempts' medians plus the median launch lag of the trace's tasks of every
// kind (Hadoop 1: the JobTracker's assignment to the attempt's start), which a
// setup or cleanup task holds its slot for; with fewer than 3 lags recorded,
// or none (.jhist), the attempts' medians alone.
func TestCalibrateSetupCleanupLaunchLag(t *testing.T) {
	value := func(tr *trace.Trace, key string) (time.Duration, string) {
		t.Helper()
		cal, err := replay.Calibrate(tr, replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		v, ok := cal.Value(key)
		if !ok {
			t.Fatalf("%s not fitted", key)
		}
		d, err := time.ParseDuration(strings.Trim(v, `"`))
		if err != nil {
			t.Fatalf("%s = %q: %v", key, v, err)
		}
		return d, strings.Join(cal.Notes, "\n")
	}
	for _, tc := range []struct {
		name          string
		lag           func(trace.TaskType, int) int64 // the lag of the i-th task of a type, ms
		setup, clean  time.Duration
		noteFewerThan bool
	}{
		{"no lag recorded", func(trace.TaskType, int) int64 { return trace.Unknown }, 1500 * time.Millisecond, 800 * time.Millisecond, false},
		{"every task 700 ms", func(trace.TaskType, int) int64 { return 700 }, 2200 * time.Millisecond, 1500 * time.Millisecond, false},
		// The maps and reduces outnumber the setup and cleanup tasks: their
		// lags set the median, as one TaskTracker code path launches them all.
		{"maps and reduces 1 s, setup and cleanup 100 ms", func(k trace.TaskType, _ int) int64 {
			if k == trace.Setup || k == trace.Cleanup {
				return 100
			}
			return 1000
		}, 2500 * time.Millisecond, 1800 * time.Millisecond, false},
		{"two lags only", func(k trace.TaskType, i int) int64 {
			if k == trace.Map && i < 2 {
				return 700
			}
			return trace.Unknown
		}, 1500 * time.Millisecond, 800 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := calibrationTrace()
			seen := map[trace.TaskType]int{}
			for i := range tr.Tasks {
				k := tr.Tasks[i].Type
				tr.Tasks[i].LaunchLagMs = tc.lag(k, seen[k])
				seen[k]++
			}
			setup, notes := value(tr, "setup_task")
			clean, _ := value(tr, "cleanup_task")
			if setup != tc.setup || clean != tc.clean {
				t.Errorf("setup_task %v, cleanup_task %v; want %v, %v", setup, clean, tc.setup, tc.clean)
			}
			if got := strings.Contains(notes, "launch lag: 2 tasks record one"); got != tc.noteFewerThan {
				t.Errorf("note of too few lags: %v, want %v; notes:\n%s", got, tc.noteFewerThan, notes)
			}
		})
	}
}

// initPoolTrace is five bursts, a minute apart, of six one-map jobs submitted
// 10 ms apart, initialised by a pool of four workers of 3 s each in submit
// order (Hadoop 1's EagerTaskInitializationListener): in each burst jobs 0–3
// launch 3 s after their submission, job 4 takes job 0's worker at 3 s and
// launches at 6 s, job 5 job 1's at 3.01 s and launches at 6.01 s.
func initPoolTrace() *trace.Trace {
	tr := &trace.Trace{}
	for b := range 5 {
		var free [4]int64 // when each worker is free
		for k := range 6 {
			id := fmt.Sprintf("job_%d_%d", b, k)
			job := trace.NewJob(id)
			job.SubmitMs = 1_000_000 + int64(b)*60_000 + int64(k)*10
			w := slices.Index(free[:], slices.Min(free[:]))
			start := max(job.SubmitMs, free[w])
			job.LaunchMs = start + 3000
			free[w] = job.LaunchMs
			job.NumMaps, job.NumReduces = 1, 0
			m := trace.NewTask(id, id+"_m_0", trace.Map, 0)
			m.InputBytes, m.OutputBytes = 1e6, 1e6
			m.Host, m.Rack, m.Locality = fmt.Sprintf("h%d", k), "/r1", trace.NodeLocal
			m.StartMs, m.FinishMs, m.Status = job.LaunchMs+2000, job.LaunchMs+5000, trace.StatusSucceeded
			job.FinishMs, job.Status = m.FinishMs+1000, trace.StatusSucceeded
			tr.Jobs = append(tr.Jobs, job)
			tr.Tasks = append(tr.Tasks, m)
		}
	}
	return tr
}

// TestCalibrateJobInitWorkers: job_init_time is the median launch − submit of
// the jobs that found every earlier job launched, which found a free worker
// whatever the number of workers. On initPoolTrace, made by four workers,
// those are each burst's job 0 (5 samples, 3 s each; jobs 1–3 also found a
// free worker but are not counted, jobs 4 and 5 queued 2.96 s), whatever the
// base model's job_init_threads.
func TestCalibrateJobInitWorkers(t *testing.T) {
	for _, c := range []struct {
		workers, samples int
	}{{4, 5}, {1, 5}} {
		base := replay.DefaultHardware()
		base.JobInitThreads = c.workers
		cal, err := replay.Calibrate(initPoolTrace(), base)
		if err != nil {
			t.Fatal(err)
		}
		var got *replay.CalibratedValue
		for i := range cal.Values {
			if cal.Values[i].Key == "job_init_time" {
				got = &cal.Values[i]
			}
		}
		if got == nil {
			t.Fatalf("%d workers: no job_init_time; notes %v", c.workers, cal.Notes)
		}
		if got.Value != `"3s"` || got.Samples != c.samples {
			t.Errorf("%d workers: job_init_time = %s over %d samples, want \"3s\" over %d (%s)", c.workers, got.Value, got.Samples, c.samples, got.How)
		}
	}
}

// TestCalibrateContainerStartup fits container_startup (calibrate_yarn.go)
// from the .jhist histories: the Sleep job's fastest of its ten maps (3.571
// s; its first seven, launched together on one host, ran 11.4–12.1 s) and
// the QuasiMonteCarlo job's one map (2.097 s), less their few bytes over the
// disk, give a median over the two jobs of 2.834 s; the TeraGen job's two
// maps 2.975 s; the FAILED histories, whose maps never succeed, and a Hadoop
// 1 trace (no ApplicationMaster) fit none.
func TestCalibrateContainerStartup(t *testing.T) {
	read := func(names ...string) *trace.Trace {
		out := &trace.Trace{}
		for _, name := range names {
			tr, _, err := trace.ReadTree(context.Background(), filepath.Join("..", "trace", "testdata", name), trace.TreeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out.Jobs = append(out.Jobs, tr.Jobs...)
			out.Tasks = append(out.Tasks, tr.Tasks...)
			out.Attempts = append(out.Attempts, tr.Attempts...)
		}
		return out
	}
	const sleep = "jhist/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist"
	const qmc = "jhist/job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist"
	const teragen = "jhist/job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist"
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{sleep, qmc}, `"2.834s"`},
		{[]string{teragen}, `"2.975s"`},
		{[]string{"jhist/job_2.4.0-FAILED.jhist", "jhist/job_0.23.9-FAILED.jhist"}, ""},
		{[]string{"hadoop1/v20-single-input-log.gz"}, ""},
	} {
		cal, err := replay.Calibrate(read(c.names...), replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := cal.Value("container_startup"); v != c.want {
			t.Errorf("%v: container_startup = %q, want %q", c.names, v, c.want)
		}
	}
}
