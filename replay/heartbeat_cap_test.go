package replay_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

const capacityTaskScheduler = "org.apache.hadoop.mapred.CapacityTaskScheduler"

// capHistory is one job of a Hadoop 0.21 JobTracker (its conf names the
// CapacityTaskScheduler and hadoop.common.configuration.version = version)
// whose 4 maps ran at once on h1 over [0, 10 s) and whose 2 reduces ran on
// h1 over [0, 20 s); the conf names 4 map and 2 reduce slots.
func capHistory(version string) *trace.Trace {
	const id = "job_201102110711_0001"
	j := trace.NewJob(id)
	j.Status, j.SubmitMs, j.LaunchMs, j.FinishMs = trace.StatusSucceeded, 0, 0, 20000
	j.NumMaps, j.NumReduces, j.ConfMapSlots, j.ConfReduceSlots = 4, 2, 4, 2
	j.Scheduler, j.ConfCommonVersion = capacityTaskScheduler, version
	tr := &trace.Trace{Jobs: []trace.Job{j}}
	for i := range 6 {
		typ, idx, kind, end := trace.Map, i, "m", int64(10000)
		if i >= 4 {
			typ, idx, kind, end = trace.Reduce, i-4, "r", 20000
		}
		k := trace.NewTask(id, fmt.Sprintf("task_201102110711_0001_%s_%06d", kind, idx), typ, int32(idx))
		k.Status, k.StartMs, k.FinishMs, k.Host, k.Rack = trace.StatusSucceeded, 0, end, "h1", "/a"
		tr.Tasks = append(tr.Tasks, k)
	}
	return tr
}

// launchTimes returns the distinct launch times of res's tasks of type typ
// ("MAP" or "REDUCE"), in order.
func launchTimes(res *replay.Result, typ string) []int64 {
	var ts []int64
	for _, k := range res.Tasks {
		if k.Type == typ && !slices.Contains(ts, k.LaunchUs) {
			ts = append(ts, k.LaunchUs)
		}
	}
	slices.Sort(ts)
	return ts
}

// TestHeartbeatCapSchedule: fifo on the cluster derived from a Hadoop 0.21
// Capacity scheduler's history (one host, 4 map and 2 reduce slots,
// heartbeats 1 s apart) launches one map and one reduce a heartbeat: its 4
// maps at 4 heartbeats 1 s apart and its 2 reduces at 2, as
// CapacityTaskScheduler.assignTasks of 0.21 hands them out; with the caps
// set to 0 on top (--set) it fills every free slot at the first heartbeat,
// 4 maps and 2 reduces at once, as it does for a 1.x history (no version).
func TestHeartbeatCapSchedule(t *testing.T) {
	capped := deriveHardware(t, capHistory("0.21.0"), handBase(t, ""))
	if capped.MapsPerHeartbeat != 1 || capped.ReducesPerHeartbeat != 1 {
		t.Fatalf("derived caps %d/%d, want 1/1", capped.MapsPerHeartbeat, capped.ReducesPerHeartbeat)
	}
	res := runOne(t, capHistory("0.21.0"), capped)
	maps, reds := launchTimes(res, "MAP"), launchTimes(res, "REDUCE")
	if len(maps) != 4 || len(reds) != 2 {
		t.Fatalf("capped: maps launched at %v, reduces at %v; want 4 and 2 times", maps, reds)
	}
	for i := 1; i < len(maps); i++ {
		if maps[i]-maps[i-1] != sec {
			t.Errorf("capped: maps launched at %v µs, want a heartbeat (1 s) apart", maps)
		}
	}
	if reds[1]-reds[0] != sec {
		t.Errorf("capped: reduces launched at %v µs, want a heartbeat (1 s) apart", reds)
	}
	off, err := capped.WithSettings(map[string]any{"maps_per_heartbeat": int64(0), "reduces_per_heartbeat": int64(0)})
	if err != nil {
		t.Fatal(err)
	}
	for name, hw := range map[string]replay.Hardware{
		"caps off on top":  off,
		"1.x (no version)": deriveHardware(t, capHistory(""), handBase(t, "")),
	} {
		res := runOne(t, capHistory("0.21.0"), hw)
		if maps, reds := launchTimes(res, "MAP"), launchTimes(res, "REDUCE"); len(maps) != 1 || len(reds) != 1 || maps[0] != reds[0] {
			t.Errorf("%s: maps launched at %v, reduces at %v; want all at one heartbeat", name, maps, reds)
		}
	}
}

// TestTraceHardwareHeartbeatCaps: a cluster derived from a trace gets one
// map and one reduce a heartbeat when most of its jobs' confs name the
// CapacityTaskScheduler of Hadoop 0.21 or 0.22 (conf_common_version), as
// the Gridmix traces' do; not for 1.x or 0.20 confs (no version), Hadoop 2
// (0.23.0), another scheduler, a YARN cluster, or a base that sets them.
func TestTraceHardwareHeartbeatCaps(t *testing.T) {
	gm := readGridmix(t)
	if hw := deriveHardware(t, gm, replay.DefaultHardware()); hw.MapsPerHeartbeat != 1 || hw.ReducesPerHeartbeat != 1 {
		t.Errorf("%s: caps %d/%d, want 1/1", gridmixTrace, hw.MapsPerHeartbeat, hw.ReducesPerHeartbeat)
	}
	for _, c := range []struct {
		name, sched, version string
		want                 int
	}{
		{"0.21", capacityTaskScheduler, "0.21.0", 1},
		{"0.22", capacityTaskScheduler, "0.22.1", 1},
		{"0.21 bare", capacityTaskScheduler, "0.21", 1},
		{"1.x", capacityTaskScheduler, "", 0},
		{"Hadoop 2", capacityTaskScheduler, "0.23.0", 0},
		{"0.210", capacityTaskScheduler, "0.210", 0},
		{"fair on 0.21", "org.apache.hadoop.mapred.FairScheduler", "0.21.0", 0},
	} {
		tr := capHistory(c.version)
		tr.Jobs[0].Scheduler = c.sched
		if hw := deriveHardware(t, tr, handBase(t, "")); hw.MapsPerHeartbeat != c.want || hw.ReducesPerHeartbeat != c.want {
			t.Errorf("%s: caps %d/%d, want %d", c.name, hw.MapsPerHeartbeat, hw.ReducesPerHeartbeat, c.want)
		}
	}
	// a majority of the jobs naming a scheduler decides
	mixed := readGridmix(t)
	for i := range mixed.Jobs {
		if i >= len(mixed.Jobs)/2 { // 2 of trace_1m's 5 jobs keep 0.21.0
			mixed.Jobs[i].ConfCommonVersion = ""
		}
	}
	if hw := deriveHardware(t, mixed, replay.DefaultHardware()); hw.MapsPerHeartbeat+hw.ReducesPerHeartbeat > 0 {
		t.Errorf("a minority of the jobs 0.21: caps %d/%d, want none", hw.MapsPerHeartbeat, hw.ReducesPerHeartbeat)
	}
	if hw := deriveHardware(t, gm, handBase(t, "maps_per_heartbeat = 2")); hw.MapsPerHeartbeat != 2 || hw.ReducesPerHeartbeat != 0 {
		t.Errorf("base sets maps_per_heartbeat = 2: caps %d/%d, want 2/0", hw.MapsPerHeartbeat, hw.ReducesPerHeartbeat)
	}
	yarn := replay.DefaultHardware()
	yarn.Cluster = replay.ClusterYARN
	if hw, ok, err := replay.TraceHardware(gm, yarn); err != nil || !ok || hw.MapsPerHeartbeat != 0 || hw.ReducesPerHeartbeat != 0 {
		t.Errorf("YARN cluster: caps %d/%d (ok %v, err %v), want none", hw.MapsPerHeartbeat, hw.ReducesPerHeartbeat, ok, err)
	}
}
