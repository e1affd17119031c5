package policy

import (
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// TestCouplingDeterministic: the same seed gives identical results, another seed
// different ones, with the full peeking sample and with a sampled one.
func TestCouplingDeterministic(t *testing.T) {
	for _, pol := range []string{"coupling", "coupling:beta=0.5,k=5"} {
		a := simGenerated(t, "coupling-twojobs", nil, "coupling-set-b.toml", pol, 7)
		b := simGenerated(t, "coupling-twojobs", nil, "coupling-set-b.toml", pol, 7)
		c := simGenerated(t, "coupling-twojobs", nil, "coupling-set-b.toml", pol, 8)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: seed 7 twice gives different results", pol)
		}
		if reflect.DeepEqual(a.Jobs, c.Jobs) {
			t.Errorf("%s: seeds 7 and 8 give the same jobs", pol)
		}
		if len(a.NodeNet) == 0 || a.Summary.NetworkBytes == 0 {
			t.Errorf("%s: no network traffic recorded", pol)
		}
		cpCheckReducePlacement(t, a)
	}
}

// cpCheckReducePlacement checks, from the task records, that no reduce was
// launched on a node already running a reduce of its job while some other node
// was certainly free of reduces: no reduce of any job ran there at any time in
// [launch, launch] inclusive of tasks ending or starting at that instant.
func cpCheckReducePlacement(t *testing.T, res *replay.Result) {
	t.Helper()
	var reds []replay.TaskResult
	nodes := map[int32]bool{}
	for _, n := range res.Nodes {
		nodes[n.Node] = true
	}
	for _, x := range res.Tasks {
		if x.Type == "REDUCE" {
			reds = append(reds, x)
		}
	}
	for _, r := range reds {
		doubled := false
		busy := map[int32]bool{}
		for _, o := range reds {
			if o.LaunchUs <= r.LaunchUs && r.LaunchUs <= o.FinishUs && o != r {
				busy[o.Node] = true
				if o.JobIndex == r.JobIndex && o.Node == r.Node && o.LaunchUs < r.LaunchUs {
					doubled = true
				}
			}
		}
		if doubled && len(busy) < len(nodes) {
			t.Errorf("job %s: reduce %d launched at %d on node %d beside another of its reduces while %d nodes ran no reduce",
				r.JobID, r.Index, r.LaunchUs, r.Node, len(nodes)-len(busy))
		}
	}
}

// TestCouplingStarvationTwoJobs: on the two-job example (Figs. 1-2) the second
// job's reduces wait for the first job's under Fair and not under Coupling, on
// every seed.
func TestCouplingStarvationTwoJobs(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		fair := simGenerated(t, "coupling-twojobs", nil, "coupling-set-a.toml", "fair:node-delay=15s,rack-delay=15s", seed)
		cp := simGenerated(t, "coupling-twojobs", nil, "coupling-set-a.toml", "coupling", seed)
		f2, c2 := fair.Jobs[1], cp.Jobs[1]
		if f2.FirstReduceLaunchUs < fair.Jobs[0].LastMapEndUs {
			t.Errorf("seed %d: under Fair job 2's first reduce at %d, before job 1's maps end at %d", seed, f2.FirstReduceLaunchUs, fair.Jobs[0].LastMapEndUs)
		}
		if c2.StarvationUs >= f2.StarvationUs || c2.FlowtimeUs >= f2.FlowtimeUs {
			t.Errorf("seed %d: job 2 starvation %d / flowtime %d under Coupling, %d / %d under Fair",
				seed, c2.StarvationUs, c2.FlowtimeUs, f2.StarvationUs, f2.FlowtimeUs)
		}
		cpCheckReducePlacement(t, cp)
	}
}

// BenchmarkCouplingTable4 replays the 22-job sequence of Table IV on set B.
func BenchmarkCouplingTable4(b *testing.B) {
	hw := sampleHardware(b, "coupling-set-b.toml")
	tr := generate(b, "coupling-table4", nil, 1)
	for b.Loop() {
		w, _ := newWorkload(b, hw, tr, 1)
		runPolicy(b, w, newPolicy(b, "coupling"), replay.Options{Seed: 1})
	}
}
