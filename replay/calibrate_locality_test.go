package replay_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// localityTrace is a schedule of jobs whose maps (with split locations) take
// base ms node-local and rack·base and off·base ms rack-local and off-rack,
// each job's base different (so pooling the jobs' maps would mix programs),
// four maps of each locality per job.
func localityTrace(jobs int, rack, off float64) *trace.Trace {
	tr := &trace.Trace{}
	t0 := int64(1_000_000)
	for j := range jobs {
		id := fmt.Sprintf("job_%03d", j)
		job := trace.NewJob(id)
		job.SubmitMs, job.LaunchMs = t0, t0+1000
		base := float64(5000 + 4000*j)
		var last int64
		k := 0
		for _, g := range []struct {
			loc string
			f   float64
		}{{trace.NodeLocal, 1}, {trace.RackLocal, rack}, {trace.OffSwitch, off}} {
			for m := range 4 {
				t := trace.NewTask(id, fmt.Sprintf("%s_m_%d", id, k), trace.Map, int32(k))
				t.InputBytes = 64e6
				t.Host, t.Rack, t.Locality = fmt.Sprintf("h%02d", k), "/r1", g.loc
				t.PreferredHosts, t.PreferredRacks = []string{"h99"}, []string{"/r1"}
				t.StartMs = job.LaunchMs + 500
				t.FinishMs = t.StartMs + int64(g.f*base*(1+0.01*float64(m)))
				t.Status = trace.StatusSucceeded
				last = max(last, t.FinishMs)
				tr.Tasks = append(tr.Tasks, t)
				k++
			}
		}
		job.NumMaps, job.FinishMs, job.Status = int32(k), last+1000, trace.StatusSucceeded
		tr.Jobs = append(tr.Jobs, job)
		t0 = last + 5000
	}
	return tr
}

// TestCalibrateLocalityFactors: rack_local_factor and off_rack_factor are
// the per-job ratios of the rack-local and off-rack maps' durations over the
// node-local maps', and the file they are written to loads; an off-rack
// ratio below the rack-local one is raised to it (1 <= rack <= off).
func TestCalibrateLocalityFactors(t *testing.T) {
	for _, c := range []struct {
		rack, off, wantRack, wantOff float64
	}{
		{1.25, 2, 1.25, 2},
		{1.2, 0.9, 1.2, 1.2},
		{0.8, 0.9, 1, 1},
	} {
		cal, err := replay.Calibrate(localityTrace(5, c.rack, c.off), replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []struct {
			key  string
			want float64
		}{{"rack_local_factor", c.wantRack}, {"off_rack_factor", c.wantOff}} {
			v, ok := cal.Value(w.key)
			f, _ := strconv.ParseFloat(v, 64)
			if !ok || f < w.want*0.99 || f > w.want*1.02 {
				t.Errorf("rack %g, off %g: %s = %q (fitted %v), want %g", c.rack, c.off, w.key, v, ok, w.want)
			}
		}
		var b strings.Builder
		if err := cal.WriteTOML(&b, "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := replay.ParseHardware([]byte(b.String())); err != nil {
			t.Errorf("rack %g, off %g: the calibrated file does not load: %v", c.rack, c.off, err)
		}
	}
}

// TestCalibrateLocalityFactorsNeedNodeLocalMaps: without node-local maps to
// compare with (or without split locations), the factors are not fitted and
// the base's values stay.
func TestCalibrateLocalityFactorsNeedNodeLocalMaps(t *testing.T) {
	tr := localityTrace(3, 1.5, 2)
	for i := range tr.Tasks {
		if tr.Tasks[i].Locality == trace.NodeLocal {
			tr.Tasks[i].Locality = trace.RackLocal
		}
	}
	cal, err := replay.Calibrate(tr, replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"rack_local_factor", "off_rack_factor"} {
		if v, ok := cal.Value(k); ok {
			t.Errorf("%s = %s fitted without node-local maps", k, v)
		}
	}
}
