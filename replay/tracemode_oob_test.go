package replay_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// gridmixTrace is one of the Gridmix system tests' Rumen traces
// (apache/hadoop-mapreduce trunk), whose every job conf records
// mapreduce.tasktracker.outofband.heartbeat = true.
const gridmixTrace = "../trace/testdata/rumen/trace_1m.json.gz"

func readGridmix(t *testing.T) *trace.Trace {
	t.Helper()
	f, err := os.Open(gridmixTrace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(gridmixTrace, f, "auto", trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestTraceHardwareOutOfBandHeartbeat: a cluster derived from a trace whose
// job confs say mapreduce.tasktracker.outofband.heartbeat = true heartbeats
// out of band; without the key, with a majority saying false, or on a YARN
// cluster it does not; an explicit setting on top wins.
func TestTraceHardwareOutOfBandHeartbeat(t *testing.T) {
	tr := readGridmix(t)
	if hw := deriveHardware(t, tr, replay.DefaultHardware()); !hw.OutOfBandHeartbeat {
		t.Errorf("%s: out_of_band_heartbeat false, want true (every conf says true)", gridmixTrace)
	}
	// set gives the first jobs vals, the others no value
	set := func(vals ...int32) *trace.Trace {
		c := *tr
		c.Jobs = append([]trace.Job(nil), tr.Jobs...)
		for i := range c.Jobs {
			c.Jobs[i].ConfOutOfBandHeartbeat = trace.Unknown
			if i < len(vals) {
				c.Jobs[i].ConfOutOfBandHeartbeat = vals[i]
			}
		}
		return &c
	}
	for _, c := range []struct {
		name string
		vals []int32
		want bool
	}{
		{"no conf records it", []int32{trace.Unknown}, false},
		{"all false", []int32{0, 0, 0, 0, 0}, false},
		{"one true, others unrecorded", []int32{1}, true},
		{"a tie", []int32{1, 0}, false},
		{"majority false", []int32{1, 0, 0}, false},
		{"majority true", []int32{1, 1, 0}, true},
	} {
		if len(tr.Jobs) < len(c.vals) {
			t.Fatalf("%d jobs: too few for %v", len(tr.Jobs), c.vals)
		}
		if hw := deriveHardware(t, set(c.vals...), replay.DefaultHardware()); hw.OutOfBandHeartbeat != c.want {
			t.Errorf("%s: out_of_band_heartbeat %v, want %v", c.name, hw.OutOfBandHeartbeat, c.want)
		}
	}
	hw, err := deriveHardware(t, tr, replay.DefaultHardware()).WithSettings(map[string]any{"out_of_band_heartbeat": false})
	if err != nil {
		t.Fatal(err)
	}
	if hw.OutOfBandHeartbeat {
		t.Errorf("--set out_of_band_heartbeat=false on top: still true")
	}
	yarn := replay.DefaultHardware()
	yarn.Cluster = replay.ClusterYARN
	if hw, ok, err := replay.TraceHardware(tr, yarn); err != nil || !ok || hw.OutOfBandHeartbeat {
		t.Errorf("YARN cluster: out_of_band_heartbeat %v (ok %v, err %v), want false", hw.OutOfBandHeartbeat, ok, err)
	}
}

// TestCalibrateOutOfBandHeartbeat: replay calibrate writes the job confs'
// out-of-band heartbeat as a key, with how it was found, and writes none
// when no conf records it.
func TestCalibrateOutOfBandHeartbeat(t *testing.T) {
	tr := readGridmix(t)
	cal, err := replay.Calibrate(tr, replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := cal.WriteTOML(&b, gridmixTrace); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if v, _ := cal.Value("out_of_band_heartbeat"); v != "true" || !strings.Contains(out, "\nout_of_band_heartbeat = true\n") ||
		!strings.Contains(out, "mapreduce.tasktracker.outofband.heartbeat of the job confs") {
		t.Errorf("out_of_band_heartbeat = %q; calibration:\n%s", v, out)
	}
	for i := range tr.Jobs {
		tr.Jobs[i].ConfOutOfBandHeartbeat = trace.Unknown
	}
	if cal, err = replay.Calibrate(tr, replay.DefaultHardware()); err != nil {
		t.Fatal(err)
	}
	if v, ok := cal.Value("out_of_band_heartbeat"); ok {
		t.Errorf("no conf records it: out_of_band_heartbeat = %q", v)
	}
}

// TestTraceHardwareJobTrackerHeartbeat: a cluster derived from a Hadoop 1
// JobTracker's history heartbeats at the interval that JobTracker hands its
// trackers (3 s up to 300, a second more per 100 above); a YARN history, a
// base model with another heartbeat, and --set on top keep theirs.
func TestTraceHardwareJobTrackerHeartbeat(t *testing.T) {
	// hosts is a one-job history whose n maps ran on n hosts, its job id a
	// JobTracker's (job_201002080801_0001) or a ResourceManager's
	// (job_1329348432655_0001).
	hosts := func(n int, yarn bool) *trace.Trace {
		id := "job_201002080801_0001"
		if yarn {
			id = "job_1329348432655_0001"
		}
		j := trace.NewJob(id)
		j.SubmitMs, j.NumMaps, j.NumReduces = 0, int32(n), 0
		tr := &trace.Trace{Jobs: []trace.Job{j}}
		for i := range n {
			tk := trace.NewTask(id, fmt.Sprintf("task_%s_m_%06d", id[4:], i), trace.Map, int32(i))
			tk.Host, tk.StartMs, tk.FinishMs, tk.Status = fmt.Sprintf("host%d", i), 1000, 2000, trace.StatusSucceeded
			tr.Tasks = append(tr.Tasks, tk)
		}
		return tr
	}
	s := func(d replay.Duration) string { return time.Duration(d * 1000).String() }
	for _, c := range []struct {
		hosts int
		yarn  bool
		want  string
	}{
		{20, false, "3s"}, {300, false, "3s"}, {301, false, "4s"}, {1000, false, "10s"}, {1536, false, "16s"},
		{1000, true, "3s"},
	} {
		tr := hosts(c.hosts, c.yarn)
		if hw := deriveHardware(t, tr, replay.DefaultHardware()); s(hw.Heartbeat) != c.want || hw.Nodes() != c.hosts {
			t.Errorf("%d hosts, yarn %v: heartbeat %s on %d nodes, want %s", c.hosts, c.yarn, s(hw.Heartbeat), hw.Nodes(), c.want)
		}
	}
	tr := hosts(1000, false)
	other := replay.DefaultHardware()
	other.Heartbeat = replay.Duration(5 * time.Second / time.Microsecond)
	if hw := deriveHardware(t, tr, other); s(hw.Heartbeat) != "5s" {
		t.Errorf("base heartbeat 5s: derived %s, want the base's", s(hw.Heartbeat))
	}
	hw, err := deriveHardware(t, tr, replay.DefaultHardware()).WithSettings(map[string]any{"heartbeat": "2s"})
	if err != nil {
		t.Fatal(err)
	}
	if s(hw.Heartbeat) != "2s" {
		t.Errorf("--set heartbeat=2s on top: %s", s(hw.Heartbeat))
	}
}

// deriveHardware is replay.TraceHardware of tr on base, failing the test when
// it gives no cluster.
func deriveHardware(t *testing.T, tr *trace.Trace, base replay.Hardware) replay.Hardware {
	t.Helper()
	hw, ok, err := replay.TraceHardware(tr, base)
	if err != nil || !ok {
		t.Fatalf("TraceHardware: ok %v, err %v", ok, err)
	}
	return hw
}
