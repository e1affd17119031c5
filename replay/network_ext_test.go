package replay_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
)

// TestFlowInvariantsEveryPolicy replays random workloads through every
// registered policy under network = "flow" with the invariant checker on, on
// shapes that exercise the core, the parallel-copies limit, the lifecycle,
// dedicated nodes and the tasks' disk stages.
func TestFlowInvariantsEveryPolicy(t *testing.T) {
	t.Parallel() // CPU-bound; its own traces and hardware, no process-wide setting changed
	shapes := []string{
		"network = \"flow\"",
		"network = \"flow\"\ncore_oversubscription = 4\nrack_uplink_mb_per_s = 200\nslow_start = 0\nparallel_copies = 2\nshuffle_fetch_latency = \"20ms\"",
		"network = \"flow\"\nlifecycle = true\nreport_at_heartbeat = true\nmap_nodes = 8\nreduce_nodes = 4\nreplication = 1\nattempt_failure_rate = 0.2",
		"network = \"flow\"\ndata_node_fraction = 0.5\nplacement = \"random\"\nout_of_band_heartbeat = true\nduration_cv = 1.5",
		// disks: compute outlasting reads, start-up timers, reused JVMs, fetch
		// latency after the shuffle, reports at heartbeats
		"network = \"flow\"\ndisk_mb_per_s = 60\nmap_compute_mb_per_s = 20\nreduce_compute_mb_per_s = 10\nsort_mb_per_s = 50\ntask_startup = \"2s\"\njvm_reuse = -1\nshuffle_fetch_latency = \"50ms\"\nreport_at_heartbeat = true\nduration_cv = 0.5",
		// the lifecycle with failed attempts, stragglers, reused JVMs and
		// speculative copies whose flows are killed (lifecycle_flowspec.go):
		// LATE, then Hadoop's rule with exact rates
		"network = \"flow\"\nlifecycle = true\nreport_at_heartbeat = true\nattempt_failure_rate = 0.1\nstraggler_fraction = 0.3\nstraggler_alpha = 1.5\nspeculation = \"late\"\njvm_reuse = -1\ntask_startup = \"1s\"\nmap_compute_mb_per_s = 30\nreduce_compute_mb_per_s = 20\ndisk_mb_per_s = 80",
		// With the merges' disk traffic (flow_merges).
		"network = \"flow\"\nflow_merges = true\nlifecycle = true\nattempt_failure_rate = 0.1\nstraggler_fraction = 0.3\nstraggler_alpha = 1.5\nspeculation = \"hadoop\"\nmap_compute_mb_per_s = 30\nflow_update = \"0s\"\nout_of_band_heartbeat = true",
	}
	// The fast lane runs each policy under two of the shapes in turn
	// (fastCell: every shape under four to six policies); the full suite
	// every policy under every shape.
	for si, shape := range shapes {
		hw := smallHardware(t, shape)
		tr := randomTrace(40, uint64(si)+20)
		names := policy.NamesFor(replay.ClusterSlots)
		for pi, name := range names {
			if !fastCell(si, pi, len(shapes), len(names), 2) {
				continue
			}
			t.Run(fmt.Sprintf("shape%d/%s", si, name), func(t *testing.T) {
				res := runPolicy(t, tr, hw, name, uint64(si)+1)
				if len(res.Jobs) != len(tr.Jobs) {
					t.Fatalf("%d jobs finished of %d", len(res.Jobs), len(tr.Jobs))
				}
				var maps, reduces int64
				for _, j := range res.Jobs {
					maps += int64(j.Maps)
					reduces += int64(j.Reduces)
				}
				if int64(len(res.Tasks)) != maps+reduces {
					t.Errorf("%d task rows for %d tasks", len(res.Tasks), maps+reduces)
				}
				for _, tk := range res.Tasks {
					if tk.FinishUs < tk.LaunchUs || tk.Type == "REDUCE" && (tk.ShuffleEndUs < tk.LaunchUs || tk.ShuffleEndUs > tk.FinishUs) {
						t.Fatalf("%s %d of %s: launch %d, shuffle end %d, finish %d", tk.Type, tk.Index, tk.JobID, tk.LaunchUs, tk.ShuffleEndUs, tk.FinishUs)
					}
				}
			})
		}
	}
}

// TestFlowDeterminism: under network = "flow" the same seed gives identical
// results, and contention makes the run differ from the fixed model's.
func TestFlowDeterminism(t *testing.T) {
	hw := smallHardware(t, "network = \"flow\"\ncore_oversubscription = 2")
	tr := randomTrace(30, 5)
	a := runPolicy(t, tr, hw, "fair", 7)
	b := runPolicy(t, tr, hw, "fair", 7)
	a.Wall, b.Wall = 0, 0
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two flow runs with the same seed differ")
	}
	c := runPolicy(t, tr, smallHardware(t, ""), "fair", 7)
	if reflect.DeepEqual(a.Jobs, c.Jobs) {
		t.Fatal("the flow model gave the fixed model's results")
	}
}

// copyCounter counts speculative copies launched.
type copyCounter struct {
	replay.NopObserver
	copies int
}

func (c *copyCounter) TaskLaunched(e replay.TaskEvent) {
	if e.Kind == replay.TaskSpeculative {
		c.copies++
	}
}

// TestFlowSpeculationEveryPolicy: the lifecycle with failed attempts,
// stragglers and speculative copies (LATE and Hadoop's rule) under
// network = "flow", through every policy with the invariant checker on
// (each task counted once, no slot over-used, no killed attempt's transfer
// ending, LATE's index agreeing with the scan): every run leaves no flow and
// no event, copies run and some attempts' transfers are withdrawn, and the
// same seed gives the same results.
func TestFlowSpeculationEveryPolicy(t *testing.T) {
	t.Parallel() // CPU-bound; its own traces and hardware, no process-wide setting changed
	var allCancels int64
	shapes := []string{
		"network = \"flow\"\nlifecycle = true\nreport_at_heartbeat = true\nattempt_failure_rate = 0.1\nstraggler_fraction = 0.3\nstraggler_alpha = 1.5\nspeculation = \"late\"\njvm_reuse = -1\ntask_startup = \"1s\"\nmap_compute_mb_per_s = 30\nreduce_compute_mb_per_s = 20\ndisk_mb_per_s = 80",
		// With the merges' disk traffic (flow_merges).
		"network = \"flow\"\nflow_merges = true\nlifecycle = true\nattempt_failure_rate = 0.1\nstraggler_fraction = 0.3\nstraggler_alpha = 1.5\nspeculation = \"hadoop\"\nmap_compute_mb_per_s = 30\nflow_update = \"0s\"\nout_of_band_heartbeat = true",
		// Tasks failing for good: at 0.6 a task's four attempts all fail
		// 13% of the time, and its job fails with its transfers under way;
		// with Hadoop 1's poll chain (event_poll).
		"network = \"flow\"\nlifecycle = true\nattempt_failure_rate = 0.6\nspeculation = \"late\"\nmap_compute_mb_per_s = 30\nreduce_compute_mb_per_s = 20\nevent_poll = true",
		// The shuffle in rounds (flow_shuffle = "batch") under the same
		// kills, failures and withdrawals, with the poll chain.
		"network = \"flow\"\nflow_shuffle = \"batch\"\nevent_poll = true\nlifecycle = true\nreport_at_heartbeat = true\nattempt_failure_rate = 0.1\nstraggler_fraction = 0.3\nstraggler_alpha = 1.5\nspeculation = \"late\"\ntask_startup = \"1s\"\nmap_compute_mb_per_s = 30\nreduce_compute_mb_per_s = 20\ndisk_mb_per_s = 80",
		"network = \"flow\"\nflow_shuffle = \"batch\"\nlifecycle = true\nattempt_failure_rate = 0.6\nspeculation = \"late\"\nmap_compute_mb_per_s = 30\nreduce_compute_mb_per_s = 20",
	}
	for si, shape := range shapes {
		hw := smallHardware(t, shape)
		tr := randomTrace(40, 31)
		var copies, failed int
		var cancels int64
		names := policy.NamesFor(replay.ClusterSlots)
		for pi, name := range names {
			if !fastCell(si, pi, len(shapes), len(names), 2) {
				continue
			}
			run := func() *replay.Result {
				w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 3), 3, replay.WorkloadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p, err := policy.New(name)
				if err != nil {
					t.Fatal(err)
				}
				cc := &copyCounter{}
				opt := replay.Options{Seed: 3, CheckInvariants: true, RecordTasks: true, Observers: []replay.Observer{cc}}
				replay.FlowEnd(&opt, func(c int64, left bool, queued int) {
					if left || queued != 0 {
						t.Errorf("%s: the run left flows (%v) or %d events", name, left, queued)
					}
					cancels += c
				})
				res, err := replay.Run(w, p, opt)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				copies += cc.copies
				for _, j := range res.Jobs {
					if j.Status == results.StatusFailed {
						failed++
					}
				}
				res.Wall = 0
				return res
			}
			a := run()
			// The same seed gives the same results. The fast lane runs
			// each policy under two shapes (fastCell) and a second time
			// under the first of them, the shapes taking turns (every
			// policy and every shape still rerun); the full suite runs
			// and reruns every policy under every shape.
			if !testgate.IsFast() || pi%len(shapes) == si {
				if b := run(); !reflect.DeepEqual(a, b) {
					t.Errorf("%s: two runs with the same seed differ", name)
				}
			}
		}
		t.Logf("%s: %d copies, %d transfers withdrawn, %d jobs failed over the policies' runs", shape[strings.LastIndex(shape, "speculation"):], copies, cancels, failed)
		if copies == 0 {
			t.Errorf("no copy: the shape does not exercise speculation")
		}
		if strings.Contains(shape, "rate = 0.6") && failed == 0 {
			t.Errorf("no job failed: the shape does not exercise tasks failing for good")
		}
		allCancels += cancels
	}
	if allCancels == 0 {
		t.Error("no killed attempt's transfer withdrawn: the shapes do not exercise it")
	}
}
