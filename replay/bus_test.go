package replay_test

import (
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
)

// counter counts a run's events (an Options.Observers listener).
type counter struct {
	replay.NopObserver
	arrived, finished, samples int
	launched, ended            map[replay.TaskKind]int
	transferIn                 map[int32]int64
	lastTime                   int64
	backwards                  bool
}

func newCounter() *counter {
	return &counter{launched: map[replay.TaskKind]int{}, ended: map[replay.TaskKind]int{}, transferIn: map[int32]int64{}}
}

func (c *counter) JobArrived(replay.JobEvent)  { c.arrived++ }
func (c *counter) JobFinished(replay.JobEvent) { c.finished++ }
func (c *counter) Sample(replay.SampleEvent)   { c.samples++ }
func (c *counter) TaskLaunched(e replay.TaskEvent) {
	c.launched[e.Kind]++
	c.backwards = c.backwards || e.Time < c.lastTime
	c.lastTime = e.Time
}
func (c *counter) TaskEnded(e replay.TaskEvent) {
	c.ended[e.Kind]++
	c.backwards = c.backwards || e.Time < c.lastTime
	c.lastTime = e.Time
}
func (c *counter) Transfer(e replay.TransferEvent) { c.transferIn[e.Dst] += e.Bytes }

// TestBusSimulated: a run emits every job's arrival and finish, every map's and
// reduce's launch and end in time order, a sample per timeline instant, and
// transfers that add up to the per-node network accounting, to an observer
// registered through Options.Observers.
func TestBusSimulated(t *testing.T) {
	for _, extra := range []string{"", `shuffle = "topology"`, `network = "flow"`, "lifecycle = true\nspeculation = \"late\"\nstraggler_fraction = 0.2"} {
		hw := smallHardware(t, extra)
		tr := randomTrace(30, 3)
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := policy.New("fair")
		if err != nil {
			t.Fatal(err)
		}
		c := newCounter()
		res, err := replay.Run(w, p, replay.Options{Seed: 1, CheckInvariants: true, Timeline: true, Observers: []replay.Observer{c}})
		if err != nil {
			t.Fatalf("%q: %v", extra, err)
		}
		s := res.Summary
		if c.arrived != s.Jobs || c.finished != s.Jobs || c.backwards {
			t.Errorf("%q: %d arrived, %d finished of %d jobs; time went back: %v", extra, c.arrived, c.finished, s.Jobs, c.backwards)
		}
		for _, k := range []replay.TaskKind{replay.TaskMap, replay.TaskReduce} {
			want := int(s.Maps)
			if k == replay.TaskReduce {
				want = int(s.Reduces)
			}
			if c.launched[k] != want || c.ended[k] != want {
				t.Errorf("%q: kind %d: %d launched, %d ended, want %d", extra, k, c.launched[k], c.ended[k], want)
			}
		}
		if c.launched[replay.TaskSpeculative] != c.ended[replay.TaskSpeculative] || c.launched[replay.TaskSetup] != c.ended[replay.TaskSetup] {
			t.Errorf("%q: setup or speculative copies launched and ended differ: %v %v", extra, c.launched, c.ended)
		}
		if c.samples == 0 {
			t.Errorf("%q: no sample", extra)
		}
		for _, n := range res.Nodes {
			if c.transferIn[n.Node] != n.NetInBytes {
				t.Errorf("%q: node %d: transfers in %d, accounted %d", extra, n.Node, c.transferIn[n.Node], n.NetInBytes)
			}
		}
	}
}

// TestBusObserved: the observed schedule emits the same events for the
// hand-made history: two jobs, four maps and three reduces launched and
// ended, and a sample per timeline instant.
func TestBusObserved(t *testing.T) {
	w := observedWorkload(t, observedHistory(), replay.WorkloadOptions{})
	c := newCounter()
	res, err := replay.Observed(w, replay.Options{Seed: 1, Timeline: true, Observers: []replay.Observer{c}})
	if err != nil {
		t.Fatal(err)
	}
	cluster := 0
	for _, x := range res.Timeline {
		if x.JobIndex == -1 {
			cluster++
		}
	}
	if c.samples == 0 || c.samples != cluster {
		t.Errorf("%d samples emitted, %d cluster rows", c.samples, cluster)
	}
	if c.arrived != 2 || c.finished != 2 || c.launched[replay.TaskMap] != 4 || c.ended[replay.TaskMap] != 4 ||
		c.launched[replay.TaskReduce] != 3 || c.ended[replay.TaskReduce] != 3 {
		t.Errorf("events: %+v", c)
	}
}
