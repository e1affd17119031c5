package replay_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
)

// TestCancelledHeartbeatsChangeNothing replays random workloads through every
// registered policy on several cluster shapes, with the invariant checker on,
// once cancelling the heartbeats that fall due while nothing waits
// (heartbeats.go) and once queueing every heartbeat, and requires the same
// jobs, tasks, timeline and per-node results, and no more events; under
// network = "flow" too, where the flow network's steps are ordered against
// the heartbeats (flowStep).
func TestCancelledHeartbeatsChangeNothing(t *testing.T) {
	t.Parallel() // CPU-bound; its own traces and hardware, no process-wide setting changed
	shapes := []string{
		"",
		"heartbeat_jitter = false",
		"map_nodes = 8\nreduce_nodes = 4\nreplication = 1",
		"out_of_band_heartbeat = true",
		"lifecycle = true\njob_init_poll = \"4s\"\njob_init_threads = 2\njob_init_time = \"1s\"",
		"lifecycle = true\nreport_at_heartbeat = true",
		"network = \"flow\"\nmap_compute_mb_per_s = 40",
		"attempt_failure_rate = 0.2\nstraggler_fraction = 0.2\nspeculation = \"late\"",
		// The flow network's steps are ordered against the heartbeats kept
		// apart from q (flowStep, nextDue): batch rounds, deferred
		// re-solves, the lifecycle and its faults, and a short heartbeat so
		// that transfer ends fall on heartbeats' microseconds.
		"network = \"flow\"\nflow_shuffle = \"batch\"\nflow_update = \"1s\"",
		"network = \"flow\"\nflow_update = \"0s\"\nheartbeat = \"1ms\"\ntimeline_sample = \"1s\"",
		"network = \"flow\"\nflow_shuffle = \"batch\"\nlifecycle = true\nreport_at_heartbeat = true",
		"network = \"flow\"\nlifecycle = true\nattempt_failure_rate = 0.2\nstraggler_fraction = 0.2\nspeculation = \"late\"",
	}
	for si, shape := range shapes {
		hw := smallHardware(t, shape)
		tr := randomTrace(60, uint64(si)+7)
		if si == 9 && testgate.IsFast() {
			// A 1 ms heartbeat: about as many CPU-seconds as every other
			// shape together. The fast lane replays its first 30 jobs (the
			// full suite all 60), through the same three policies; still
			// caught (broken by hand): nextDue leaving out the heartbeat
			// queue hbq or the heartbeats kept apart (hbf) fails this
			// shape and the other flow shapes.
			tr.Jobs = tr.Jobs[:30]
		}
		names := policy.NamesFor(replay.ClusterSlots)
		if testgate.IsFast() {
			names = []string{"fifo", "fair", "coupling"}
		}
		for _, name := range names {
			t.Run(fmt.Sprintf("shape%d/%s", si, name), func(t *testing.T) {
				run := func(all bool) *replay.Result {
					topo := replay.NewTopology(&hw, 3)
					w, err := replay.NewWorkload(tr, &hw, topo, 3, replay.WorkloadOptions{})
					if err != nil {
						t.Fatal(err)
					}
					p, err := policy.New(name)
					if err != nil {
						t.Fatal(err)
					}
					opt := replay.Options{Seed: 3, CheckInvariants: true, RecordTasks: true, Timeline: true}
					if all {
						replay.QueueAllHeartbeats(&opt)
					}
					res, err := replay.Run(w, p, opt)
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				cancelling, all := run(false), run(true)
				for _, c := range []struct {
					what string
					a, b any
				}{{"jobs", cancelling.Jobs, all.Jobs}, {"tasks", cancelling.Tasks, all.Tasks}, {"timeline", cancelling.Timeline, all.Timeline},
					{"nodes", cancelling.Nodes, all.Nodes}, {"node_net", cancelling.NodeNet, all.NodeNet}} {
					if !reflect.DeepEqual(c.a, c.b) {
						t.Errorf("%s differ with cancelled heartbeats", c.what)
					}
				}
				hs, as := cancelling.Summary, all.Summary
				if hs.Events > as.Events {
					t.Errorf("%d events with cancelled heartbeats, %d without", hs.Events, as.Events)
				}
				t.Logf("events: %d cancelling, %d all handled", hs.Events, as.Events)
				hs.Events = as.Events
				if !reflect.DeepEqual(hs, as) {
					t.Errorf("summaries differ beyond the events:\n%+v\n%+v", hs, as)
				}
			})
		}
	}
}
