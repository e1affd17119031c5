package replay

import (
	"fmt"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// diskProbe is placed, looking at every heartbeat at the flow stages' state
// (jobDisk) of the jobs whose map records are dropped (retireMaps).
type diskProbe struct {
	*placed
	retired int    // heartbeats that found such a job
	kept    string // the first such job that still held a per-map table
}

func (p *diskProbe) Heartbeat(s Cluster, n int32) {
	for _, j := range s.(*Sim).jobs {
		if j == nil || !j.retired || j.out.disk == nil {
			continue
		}
		p.retired++
		d := j.out.disk
		if p.kept == "" && (d.mapCPU != nil || d.mapEnd != nil || d.stage != nil) {
			p.kept = fmt.Sprintf("job %s at %d µs: mapCPU %d, mapEnd %d, stage %d entries",
				j.Trace.ID, s.Now(), len(d.mapCPU), len(d.mapEnd), len(d.stage))
		}
	}
	p.placed.Heartbeat(s, n)
}

// TestFlowDiskDroppedWithMaps: under flow with batch shuffle rounds, where a
// job's map records are dropped once its maps are done (flowRetiresMaps), its
// flow stages' per-map tables (jobDisk's mapCPU, mapEnd and stage, 17 bytes a
// map) go with them (dropMaps) while its reduces, launched 19 s after the
// maps' end, are still to fetch and write; and the reduces, which index the
// per-task tables past the maps by jobDisk.maps, run as they did when the
// tables were kept (the times main e19f5a1 gave: 20.0–20.5 s and 20.8–21.3 s).
func TestFlowDiskDroppedWithMaps(t *testing.T) {
	tr := &trace.Trace{}
	diskJob(tr, "A", [][2]int64{{4e6, 4e6}, {4e6, 4e6}}, [][2]int64{{4e6, 1e6}, {4e6, 1e6}})
	h := flowHardware(t, 10, 10, 10)
	h.FlowShuffle = FlowShuffleBatch
	w, err := NewWorkload(tr, &h, NewTopology(&h, 1), 1, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := &diskProbe{placed: &placed{jobs: 1, plan: func(s Cluster, jobs []*JobView) []launch {
		d := jobs[0].Replicas(0)[0]
		e := jobs[0].Replicas(1)[0]
		// The maps on their blocks' nodes at 0 s, the reduces at 20 s, on
		// other nodes than the first map's.
		return []launch{{0, false, 0, d, 0}, {0, false, 1, e, 0},
			{0, true, 0, otherRack(s, d), 20}, {0, true, 0, sameRack(s, d), 20}}
	}}}
	res, err := Run(w, p, Options{Seed: 1, CheckInvariants: true, RecordTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.todo) > 0 {
		t.Fatalf("launches left undone: %+v", p.todo)
	}
	if p.retired == 0 {
		t.Fatal("no heartbeat found the job with its map records dropped: the test does not test")
	}
	if p.kept != "" {
		t.Errorf("a job's per-map flow tables outlived its map records: %s", p.kept)
	}
	want := [][2]int64{{20 * sec, 20.5 * sec}, {20.8 * sec, 21.3 * sec}}
	if red := taskTimes(res, "A", "REDUCE"); fmt.Sprint(red) != fmt.Sprint(want) {
		t.Errorf("the reduces ran %v µs, want %v", red, want)
	}
}
