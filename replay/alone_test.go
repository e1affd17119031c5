package replay_test

import (
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestAloneSlowdown: one node with two map slots, maps of 2 s (2 MB at 1 MB/s),
// aligned heartbeats every second. A (t=0, three maps) and B (t=1, one map)
// under FIFO: A runs 0-2 on both slots, then A's third map and B's map run 2-4:
// flowtimes A 4 s, B 3 s. Alone, A needs two waves (4 s) while its ideal is
// max(2, 6/2) = 3 s; B alone runs 1-3 (2 s, its ideal). So the slowdowns are
// A 4/4 and B 3/2 against alone runs, A 4/3 and B 3/2 against the ideal.
func TestAloneSlowdown(t *testing.T) {
	hw, err := replay.ParseHardware([]byte(`
racks = 1
nodes_per_rack = 1
map_slots = 2
reduce_slots = 1
disk_mb_per_s = 1
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
out_of_band_heartbeat = true
replication = 1
duration_cv = 0
`))
	if err != nil {
		t.Fatal(err)
	}
	tr := &trace.Trace{}
	for i, maps := range []int{3, 1} {
		id := string(rune('A' + i))
		j := trace.NewJob(id)
		j.SubmitMs, j.Status = int64(i)*1000, trace.StatusSucceeded
		tr.Jobs = append(tr.Jobs, j)
		for k := range maps {
			tk := trace.NewTask(id, id+"m", trace.Map, int32(k))
			tk.InputBytes, tk.OutputBytes = 2e6, 0
			tr.Tasks = append(tr.Tasks, tk)
		}
	}
	run := func(alone bool) *replay.Result {
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		opt := replay.Options{Seed: 1, CheckInvariants: true}
		if alone {
			opt.Alone = func() (replay.Policy, error) { return policy.New("fifo") }
		}
		p, _ := policy.New("fifo")
		res, err := replay.Run(w, p, opt)
		if err != nil {
			t.Fatal(err)
		}
		res.Wall = 0
		return res
	}
	const s = 1_000_000
	res := run(true)
	want := []struct {
		flow, ideal, alone int64
		slowdown           float64
	}{{4 * s, 3 * s, 4 * s, 1}, {3 * s, 2 * s, 2 * s, 1.5}}
	for i, w := range want {
		j := res.Jobs[i]
		if j.FlowtimeUs != w.flow || j.IdealUs != w.ideal || j.AloneUs != w.alone || j.Slowdown != w.slowdown {
			t.Errorf("job %s: flow %d ideal %d alone %d slowdown %g; want %d %d %d %g",
				j.JobID, j.FlowtimeUs, j.IdealUs, j.AloneUs, j.Slowdown, w.flow, w.ideal, w.alone, w.slowdown)
		}
	}
	if wantJain := (1 + 1.5) * (1 + 1.5) / (2 * (1 + 1.5*1.5)); res.Summary.JainFairness != wantJain {
		t.Errorf("Jain index %g over the alone slowdowns, want %g", res.Summary.JainFairness, wantJain)
	}
	if again := run(true); !reflect.DeepEqual(res, again) {
		t.Error("alone runs are not deterministic")
	}
	plain := run(false)
	if a := plain.Jobs[0]; a.AloneUs != replay.Unset || a.Slowdown != 4.0/3 {
		t.Errorf("without Alone: alone %d slowdown %g, want Unset and 4/3", a.AloneUs, a.Slowdown)
	}
}
