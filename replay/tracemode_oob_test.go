package replay_test

import (
	"os"
	"strings"
	"testing"

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
	derive := func(tr *trace.Trace, base replay.Hardware) replay.Hardware {
		t.Helper()
		hw, ok, err := replay.TraceHardware(tr, base)
		if err != nil || !ok {
			t.Fatalf("TraceHardware: ok %v, err %v", ok, err)
		}
		return hw
	}
	tr := readGridmix(t)
	if hw := derive(tr, replay.DefaultHardware()); !hw.OutOfBandHeartbeat {
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
		if hw := derive(set(c.vals...), replay.DefaultHardware()); hw.OutOfBandHeartbeat != c.want {
			t.Errorf("%s: out_of_band_heartbeat %v, want %v", c.name, hw.OutOfBandHeartbeat, c.want)
		}
	}
	hw, err := derive(tr, replay.DefaultHardware()).WithSettings(map[string]any{"out_of_band_heartbeat": false})
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
