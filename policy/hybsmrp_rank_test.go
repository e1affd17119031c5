package policy

import (
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestHybSMRPRankBySubmit replays workloads under the fcfs preset with
// rankBySubmit's shortcut and with eq. (1) computed at every heartbeat: the
// results (jobs, tasks, timeline, summary) must be the same. The workloads
// are the first 50 jobs of FB-2009 on fb-600 and on a small cluster where
// jobs queue, the same with every other job submitted with the one before it
// (ties), and the paper's generated workload.
func TestHybSMRPRankBySubmit(t *testing.T) {
	fb, tied := readFB50(t), readFB50(t)
	for i := 1; i < len(tied.Jobs); i += 2 {
		tied.Jobs[i].SubmitMs = tied.Jobs[i-1].SubmitMs
	}
	small := parseHardware(t, "name = \"small\"\nracks = 2\nnodes_per_rack = 3\nmap_slots = 2\nreduce_slots = 1\n")
	gen := generate(t, "hybsmrp", trace.GenParams{"jobs": int64(30), "maps": int64(40), "app": "mix"}, 1)
	cases := []struct {
		name string
		hw   replay.Hardware
		tr   *trace.Trace
	}{
		{"fb-600", sampleHardware(t, "fb-600.toml"), fb},
		{"small", small, fb},
		{"small-tied", small, tied},
		{"paper", sampleHardware(t, "hybsmrp.toml"), gen},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= 2; seed++ {
			var res [2]*replay.Result
			for k, general := range []bool{false, true} {
				w, _ := newWorkload(t, c.hw, c.tr, seed)
				p := newPolicy(t, "hybsmrp").(*HybSMRP)
				p.general = general
				res[k] = runPolicy(t, w, p, replay.Options{Seed: seed, CheckInvariants: true, RecordTasks: true, Timeline: true})
				res[k].Wall = 0
			}
			if !reflect.DeepEqual(res[0], res[1]) {
				t.Errorf("%s seed %d: the shortcut's replay differs from eq. (1)'s", c.name, seed)
			}
		}
	}
}
