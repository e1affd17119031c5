package replay

import (
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

const tmSec = 1_000_000 // µs per second

// TestObservedUsFactors: a map observed for 6 s at each locality, replayed at
// each locality, with Rumen's factors (1.5, 3) and with others (2, 4): D·f(s)/f(o).
func TestObservedUsFactors(t *testing.T) {
	mumak := DefaultHardware()
	other := DefaultHardware()
	other.RackLocalFactor, other.OffRackFactor = 2, 4
	cases := []struct {
		hw   *Hardware
		obs  obsRule
		want [3]float64 // seconds replayed node-local, rack-local, off-rack
	}{
		{&mumak, obsNode, [3]float64{6, 9, 18}},
		{&mumak, obsRack, [3]float64{4, 6, 12}},
		{&mumak, obsOff, [3]float64{2, 3, 6}},
		{&mumak, obsAnywhere, [3]float64{6, 6, 6}},
		{&other, obsNode, [3]float64{6, 12, 24}},
		{&other, obsRack, [3]float64{3, 6, 12}},
		{&other, obsOff, [3]float64{1.5, 3, 6}},
	}
	for _, c := range cases {
		for l, want := range c.want {
			if got := c.hw.observedUs(c.obs, 6*tmSec, Locality(l)); got != int64(want*tmSec) {
				t.Errorf("factors %g/%g, observed rule %d, replayed %s: %d µs, want %g s",
					c.hw.RackLocalFactor, c.hw.OffRackFactor, c.obs, Locality(l), got, want)
			}
		}
	}
	// Rounding to the nearest µs: 10 s observed off-rack, replayed node-local.
	if got := mumak.observedUs(obsOff, 10*tmSec, NodeLocal); got != 3_333_333 {
		t.Errorf("10 s off-rack replayed node-local: %d µs, want 3333333", got)
	}
}

// TestObservedMapRules: which rule a map's trace record selects, and its
// node-local time, under both trace_locality models. 250 MB of input move in 2 s
// at the 125 MB/s NIC (rack-local) and in 4 s at the 1250/20 = 62.5 MB/s uplink
// share (off-rack).
func TestObservedMapRules(t *testing.T) {
	task := func(host, loc string, prefs ...string) *trace.Task {
		tt := trace.NewTask("j", "m", trace.Map, 0)
		tt.Host, tt.Locality, tt.PreferredHosts = host, loc, prefs
		return &tt
	}
	bw := DefaultHardware()
	bw.TraceLocality = "bandwidth"
	bar := bw
	bar.Network, bar.BARq = "bar", 1500000
	fac := DefaultHardware()
	cases := []struct {
		name  string
		hw    *Hardware
		tt    *trace.Task
		obs   int64
		rule  obsRule
		local int64
	}{
		{"no host: node-local time, network model", &fac, task("", trace.OffSwitch, "h"), 10 * tmSec, obsNone, 10 * tmSec},
		{"no split location: anywhere", &fac, task("h", trace.NodeLocal), 10 * tmSec, obsAnywhere, 10 * tmSec},
		{"no split location, bandwidth: anywhere", &bw, task("h", trace.OffSwitch), 10 * tmSec, obsAnywhere, 10 * tmSec},
		{"factors, node-local", &fac, task("h", trace.NodeLocal, "h"), 9 * tmSec, obsNode, 9 * tmSec},
		{"factors, rack-local", &fac, task("h", trace.RackLocal, "g"), 9 * tmSec, obsRack, 6 * tmSec},
		{"factors, off-rack", &fac, task("h", trace.OffSwitch, "g"), 9 * tmSec, obsOff, 3 * tmSec},
		{"factors, unknown locality counts off-rack", &fac, task("h", "", "g"), 9 * tmSec, obsOff, 3 * tmSec},
		{"bandwidth, node-local", &bw, task("h", trace.NodeLocal, "h"), 9 * tmSec, obsNone, 9 * tmSec},
		{"bandwidth, rack-local", &bw, task("h", trace.RackLocal, "g"), 9 * tmSec, obsNone, 7 * tmSec},
		{"bandwidth, off-rack", &bw, task("h", trace.OffSwitch, "g"), 9 * tmSec, obsNone, 5 * tmSec},
		{"bandwidth, transfer longer than observed", &bw, task("h", trace.OffSwitch, "g"), 3 * tmSec, obsNone, 0},
		{"bandwidth, bar network: minus q", &bar, task("h", trace.OffSwitch, "g"), 9 * tmSec, obsNone, 7500000},
	}
	for _, c := range cases {
		m := &MapTask{InputBytes: 250_000_000}
		rule, _ := c.hw.observedMap(m, c.tt, c.obs, c.hw.NetworkModel())
		if rule != c.rule || m.localUs != c.local {
			t.Errorf("%s: rule %d, node-local %d µs; want rule %d, %d µs", c.name, rule, m.localUs, c.rule, c.local)
		}
	}
}

// TestObservedReduceWork: the work after the shuffle is finish − shuffle finish
// when the trace has it, else the observed duration minus the modelled copy.
func TestObservedReduceWork(t *testing.T) {
	tt := trace.NewTask("j", "r", trace.Reduce, 0)
	tt.StartMs, tt.ShuffleFinishMs, tt.FinishMs = 1000, 8000, 11000
	if got := observedReduceWork(&tt, 10*tmSec, 2*tmSec); got != 3*tmSec {
		t.Errorf("with shuffle finish: %d, want 3 s", got)
	}
	tt.ShuffleFinishMs = trace.Unknown
	if got := observedReduceWork(&tt, 10*tmSec, 2*tmSec); got != 8*tmSec {
		t.Errorf("without shuffle finish: %d, want 8 s", got)
	}
	if got := observedReduceWork(&tt, 1*tmSec, 2*tmSec); got != 0 {
		t.Errorf("copy longer than observed: %d, want 0", got)
	}
}

// TestTraceLocalityKeys: the keys parse, default to Rumen's model and are
// validated like the others.
func TestTraceLocalityKeys(t *testing.T) {
	h, err := ParseHardware(nil)
	if err != nil || h.TraceLocality != "factors" || h.RackLocalFactor != 1.5 || h.OffRackFactor != 3 {
		t.Fatalf("defaults: %v %q %g %g", err, h.TraceLocality, h.RackLocalFactor, h.OffRackFactor)
	}
	h, err = ParseHardware([]byte("trace_locality = \"bandwidth\"\nrack_local_factor = 1.2\noff_rack_factor = 2.5\n"))
	if err != nil || h.TraceLocality != "bandwidth" || h.RackLocalFactor != 1.2 || h.OffRackFactor != 2.5 {
		t.Fatalf("set: %v %+v", err, h)
	}
	for _, c := range []struct{ toml, want string }{
		{`trace_locality = "mumak"`, `trace_locality "mumak": want factors or bandwidth`},
		{`rack_local_factor = 0.5`, "want 1 <= rack_local_factor <= off_rack_factor <= 100"},
		{"rack_local_factor = 4.0\noff_rack_factor = 2.0", "want 1 <= rack_local_factor <= off_rack_factor"},
		{`off_rack_factor = 1000.0`, "off_rack_factor <= 100"},
	} {
		if _, err := ParseHardware([]byte(c.toml)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.toml, err, c.want)
		}
	}
}

// TestFetchLatencyAddsToGivenReduce: a reduce whose trace gives its duration
// but no shuffle end keeps the same work after the shuffle whatever the fetch
// latency; the latency lengthens its copy by its fetch rounds (it is a cost the
// model adds, not a share of the given duration), so a job cannot finish
// sooner with a larger latency.
func TestFetchLatencyAddsToGivenReduce(t *testing.T) {
	tr, err := trace.Synthetic().Generate(trace.GenParams{
		"jobs": "1", "maps_mean": "20", "reduces_mean": "2", "map_time": "fixed", "map_time_mean_s": "20",
		"reduce_time": "fixed", "reduce_time_mean_s": "60", "map_input_mb": "64",
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var work, copyUs []int64
	for _, lat := range []Duration{0, Duration(tmSec), Duration(4267 * 1000)} {
		hw := DefaultHardware()
		hw.ShuffleFetchLatency, hw.ParallelCopies = lat, 5
		w, err := NewWorkload(tr, &hw, NewTopology(&hw, 1), 1, WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		j := w.buildAt(0)
		if len(j.Reduces) == 0 {
			t.Fatal("no reduces")
		}
		r := j.Reduces[0]
		work, copyUs = append(work, r.workUs), append(copyUs, r.copyUs)
		if rounds := hw.fetchOverheadUs(len(j.Maps)); r.copyUs-copyUs[0] != rounds {
			t.Errorf("latency %v: copy %d µs, want the no-latency copy %d plus the rounds %d", lat, r.copyUs, copyUs[0], rounds)
		}
	}
	if work[1] != work[0] || work[2] != work[0] {
		t.Errorf("work after the shuffle %v µs: want the same at every latency", work)
	}
}
