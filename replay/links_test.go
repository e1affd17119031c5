package replay_test

import (
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestLinkSamples: under network = "flow" with the timeline on, a run
// records the links that carry transfers, named by the replay's hosts. Four
// one-map jobs with 8 MB blocks on two single-slot nodes of a 1 MB/s NIC:
// maps that run away from their block read over the NICs for 8 s, so the
// samples every second see a NIC at full use.
func TestLinkSamples(t *testing.T) {
	hw, err := replay.ParseHardware([]byte(`
racks = 1
nodes_per_rack = 2
map_slots = 1
reduce_slots = 1
replication = 1
disk_mb_per_s = 100
nic_mb_per_s = 1
network = "flow"
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
duration_cv = 0
task_times = "model"
timeline_sample = "1s"
`))
	if err != nil {
		t.Fatal(err)
	}
	tr := &trace.Trace{}
	for _, id := range []string{"a", "b", "c", "d"} {
		j := trace.NewJob(id)
		j.SubmitMs, j.Status, j.InputBytes = 0, trace.StatusSucceeded, 8e6
		m := trace.NewTask(id, id+"_m_0", trace.Map, 0)
		m.InputBytes, m.OutputBytes = 8e6, 0
		tr.Jobs = append(tr.Jobs, j)
		tr.Tasks = append(tr.Tasks, m)
	}
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(w, mustPolicy(t, "fifo"), replay.Options{Seed: 1, CheckInvariants: true, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	full := 0
	for _, l := range res.Links {
		host, dir, _ := strings.Cut(l.Link, "/")
		if host != "node0" && host != "node1" || dir != "nic-in" && dir != "nic-out" || !(l.Utilisation > 0 && l.Utilisation <= 1+1e-9) || l.Flows < 1 || l.CapacityMBps != 1 {
			t.Errorf("link row %+v", l)
		}
		if l.Utilisation > 1-1e-9 {
			full++
		}
	}
	if full == 0 {
		t.Errorf("no link at full use in %d rows: %+v", len(res.Links), res.Links)
	}
}
