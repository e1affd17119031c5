package replay_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/internal/testheap"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// backlogTrace is n jobs, one every 5 s, each of maps blocks of 1 MB and one
// long reduce: their maps are done within seconds, their reduces (about 200
// s each on 20 reduce slots, one launch at a time under Coupling) fall
// behind, so finished-map jobs pile up, as FB-2010's do under Coupling.
func backlogTrace(n, maps int) *trace.Trace {
	tr := &trace.Trace{}
	for k := range n {
		j := trace.NewJob(fmt.Sprintf("job%05d", k))
		j.SubmitMs, j.Status = int64(k)*5000, trace.StatusSucceeded
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = int64(maps)<<20, 1<<30, 1<<20
		j.NumReduces = 1
		tr.Jobs = append(tr.Jobs, j)
	}
	return tr
}

// backlogHardware is the cluster of the backlog tests: 20 nodes of 4 map
// slots and 1 reduce slot, 1 MB blocks, reduces of 5 MB/s.
const backlogHardware = `
racks = 2
nodes_per_rack = 10
map_slots = 4
reduce_slots = 1
block_size_mb = 1
reduce_compute_mb_per_s = 5
timeline_sample = "10s"
`

// TestBacklogHeapFlatInMaps: the memory of a backlog of jobs whose maps are
// all done does not grow with their maps (Sim.retireMaps drops the per-map
// records). 600 jobs pile up behind their reduces under Coupling; giving
// each job 4 times the maps (16 → 64 maps of 1 MB, the same reduces, so the
// same schedule of reduces and the same backlog) must leave the peak live
// heap above the loaded workload within 25%. Keeping every finished map's
// record fails it (the peak grows with the maps). Without and with the job
// lifecycle. In its own process, each size replayed twice and the smaller
// peak kept, as TestPeakHeapFlat.
func TestBacklogHeapFlatInMaps(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays 2,400 jobs")
	if !inOwnProcess(t, "TRACEREPLAY_BACKLOG_CHILD") {
		return
	}
	hw, err := replay.ParseHardware([]byte(backlogHardware))
	if err != nil {
		t.Fatal(err)
	}
	for _, life := range []bool{false, true} {
		hw.Lifecycle = life
		t.Run(fmt.Sprintf("lifecycle=%v", life), func(t *testing.T) { backlogGrowth(t, hw, "coupling", 1, 0.25) })
	}
}

// TestBacklogHeapFlowMaps is TestBacklogHeapFlatInMaps under network =
// "flow" with flow_shuffle = "batch", where a done map's output (its node,
// rack, bytes and a reduce's share, 24 bytes) and its place in the job's done
// order (4) stay until the job's end for the reduces' rounds, and its flow
// stages' table (jobDisk: 25 bytes) too, but its record (MapTask, 96 bytes),
// its replicas (12) and its part of the locality index are dropped once the
// job's maps are all done (Sim.retireMaps, flowRetiresMaps). Under Coupling,
// 2 reduces a job (the job's tally is on), 4 times the maps per backlogged job
// must leave the peak live heap above the workload within 25%: measured
// 8.38 → 9.66 MB (+15%), and 8.78 → 12.08 MB (+38%) with the map records
// kept under flow (flowRetiresMaps false), which fails it. In its own
// process, each size replayed twice and the smaller peak kept.
func TestBacklogHeapFlowMaps(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays 2,400 jobs under the flow model")
	if !inOwnProcess(t, "TRACEREPLAY_BACKLOGFLOW_CHILD") {
		return
	}
	backlogGrowth(t, backlogFlowHardware(t), "coupling", 2, 0.25)
}

// TestBacklogHeapFlowMapsNoTally is TestBacklogHeapFlowMaps with one reduce
// a job, so the job's tally is off (outputTally: it needs two reduces or more
// of the same shuffle bytes): a reduce launched after the maps are done
// queues their outputs one by one (queueOutput), from the done outputs
// (jobOutput.outs), so the map records are dropped when the maps are done
// too and not at the reduce's launch. The same bound of 25%.
func TestBacklogHeapFlowMapsNoTally(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays 2,400 jobs under the flow model")
	if !inOwnProcess(t, "TRACEREPLAY_BACKLOGFLOW1_CHILD") {
		return
	}
	backlogGrowth(t, backlogFlowHardware(t), "coupling", 1, 0.25)
}

// backlogFlowHardware is backlogHardware under the flow network with batch
// shuffle rounds re-solved every second.
func backlogFlowHardware(t *testing.T) replay.Hardware {
	t.Helper()
	hw, err := replay.ParseHardware([]byte(backlogHardware + `
network = "flow"
flow_shuffle = "batch"
flow_update = "1s"
`))
	if err != nil {
		t.Fatal(err)
	}
	return hw
}

// backlogGrowth replays backlogTrace's 600 jobs with 16 and with 64 maps a
// job (reduces a job) under policy on hw and fails when the peak live heap
// above the workload grows by more than the fraction bound.
func backlogGrowth(t *testing.T, hw replay.Hardware, name string, reduces int, bound float64) {
	const jobs = 600
	peak := func(maps int) (uint64, replay.RunSummary) {
		tr := backlogTrace(jobs, maps)
		for k := range tr.Jobs {
			tr.Jobs[k].NumReduces = int32(reduces)
		}
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := policy.New(name)
		if err != nil {
			t.Fatal(err)
		}
		out, err := replay.NewRunWriter(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		probe := &heapProbe{Policy: p, every: 1}
		base := testheap.Live()
		res, err := replay.Run(w, probe, replay.Options{Seed: 1, Timeline: true, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(w)
		return probe.peak - min(base, probe.peak), res.Summary
	}
	smaller := func(maps int) (uint64, replay.RunSummary) {
		a, s := peak(maps)
		b, _ := peak(maps)
		return min(a, b), s
	}
	p1, s1 := smaller(16)
	p2, s2 := smaller(64)
	t.Logf("peak live heap above the workload: 16 maps a job %.2f MB (makespan %.1f h), 64 maps a job %.2f MB (%.1f h)",
		float64(p1)/1e6, float64(s1.MakespanUs)/3.6e9, float64(p2)/1e6, float64(s2.MakespanUs)/3.6e9)
	// The backlog is there: the run lasts well beyond the last arrival
	// (600 × 5 s = 50 min).
	if s1.MakespanUs < 2*jobs*5e6 || s2.MakespanUs < 2*jobs*5e6 {
		t.Fatalf("no backlog: makespans %d and %d µs", s1.MakespanUs, s2.MakespanUs)
	}
	if float64(p2) > (1+bound)*float64(p1) {
		t.Errorf("peak heap grew from %d to %d bytes (%.0f%%) with 4 times the maps per backlogged job",
			p1, p2, 100*(float64(p2)/float64(p1)-1))
	}
}
