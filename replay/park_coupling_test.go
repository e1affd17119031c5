package replay_test

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
)

// TestCouplingParkedChangesNothing is TestParkedNodesChangeNothing for the
// Coupling Scheduler (a replay.Waker: nodes that are in none of Wait
// Scheduling's lists for their next heartbeats, with no free map slot or no
// pending map, are parked): the same results as handling every heartbeat,
// with its parameters varied (Random Peeking's sample k draws from the
// policy's stream at map heartbeats), on shapes where reduces wait for their
// list's node, one with a short heartbeat so that task ends and samples fall
// on parked nodes' heartbeats, and one with dedicated map and reduce nodes;
// and with the job lifecycle (with and without report_at_heartbeat and JVM
// reuse, and with dedicated map and reduce nodes, where setup and cleanup
// tasks take the reduce nodes' slots and so move Wait Scheduling's lists:
// Coupling.OtherSlot) and report_at_heartbeat alone. Coupling must park
// nodes on the first two shapes and on those with the lifecycle (it did
// not before it followed the setup and cleanup tasks' slots); and under
// network = "flow".
func TestCouplingParkedChangesNothing(t *testing.T) {
	t.Parallel() // CPU-bound; its own traces and hardware, no process-wide setting changed
	shapes := []string{
		"racks = 6\nnodes_per_rack = 10\nreduce_slots = 1",
		"racks = 6\nnodes_per_rack = 10\nreduce_slots = 1\nheartbeat = \"50ms\"\ntimeline_sample = \"1s\"",
		"racks = 3\nnodes_per_rack = 4\nreduce_slots = 1\nmap_nodes = 8\nreduce_nodes = 4\nreplication = 1",
		"racks = 4\nnodes_per_rack = 8\nslow_start = 1.0\nreduce_slots = 2",
		"racks = 3\nnodes_per_rack = 4\nreduce_slots = 1\nheartbeat = \"1ms\"\ntimeline_sample = \"1s\"",
		// The job lifecycle: setup and cleanup tasks take any free slot at a
		// heartbeat, so a parked node with one must wake when one waits.
		"racks = 6\nnodes_per_rack = 10\nreduce_slots = 1\nlifecycle = true",
		"racks = 6\nnodes_per_rack = 10\nreduce_slots = 1\nlifecycle = true\nreport_at_heartbeat = true\nheartbeat = \"50ms\"\ntimeline_sample = \"1s\"",
		"racks = 4\nnodes_per_rack = 8\nreduce_slots = 2\nlifecycle = true\njvm_reuse = -1\nreport_at_heartbeat = true",
		"racks = 3\nnodes_per_rack = 4\nreduce_slots = 1\nlifecycle = true\njvm_reuse = 3\nsetup_task = \"200ms\"\ncleanup_task = \"10s\"\nheartbeat = \"100ms\"\ntimeline_sample = \"1s\"",
		"racks = 6\nnodes_per_rack = 10\nreduce_slots = 1\nreport_at_heartbeat = true",
		"racks = 4\nnodes_per_rack = 6\nreduce_slots = 1\nmap_nodes = 16\nreduce_nodes = 8\nlifecycle = true\nsetup_task = \"2s\"\ncleanup_task = \"20s\"",
		// Under network = "flow" (the flow network's steps come between
		// events: flowStep), with batch rounds and deferred re-solves, a
		// short heartbeat, and the lifecycle with report_at_heartbeat.
		"racks = 6\nnodes_per_rack = 10\nreduce_slots = 1\nnetwork = \"flow\"\nmap_compute_mb_per_s = 40",
		"racks = 3\nnodes_per_rack = 4\nreduce_slots = 1\nheartbeat = \"1ms\"\ntimeline_sample = \"1s\"\nnetwork = \"flow\"\nflow_shuffle = \"batch\"\nflow_update = \"1s\"",
		"racks = 4\nnodes_per_rack = 8\nreduce_slots = 2\nlifecycle = true\nreport_at_heartbeat = true\nnetwork = \"flow\"\nflow_shuffle = \"batch\"",
	}
	life := func(si int) bool { return si >= 5 && si != 9 }
	names := []string{"coupling", "coupling:k=5", "coupling:d=2,threshold=1", "coupling:beta=0.5,pool-by=queue"}
	jobs := 150
	// More workloads through plain coupling: a list that changes while nodes
	// are parked (a reduce's end re-keys its ties) must wake its nodes before
	// their heartbeats, which only some workloads catch (seeds 4 and 5 did,
	// with that wake left out).
	seeds := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if testgate.IsFast() {
		names, jobs, seeds = names[:2], 80, seeds[4:6]
	}
	for si, shape := range shapes {
		hw, err := replay.ParseHardware([]byte("name = \"park\"\nmap_slots = 2\nblock_size_mb = 64\n" + shape))
		if err != nil {
			t.Fatal(err)
		}
		tr := randomTrace(jobs, uint64(si)+31)
		if si == 4 || si == 12 {
			tr.Jobs = tr.Jobs[:20]
		}
		for _, name := range names {
			t.Run(fmt.Sprintf("shape%d/%s", si, name), func(t *testing.T) {
				got, all := sameAsEveryHeartbeat(t, tr, hw, name, 5)
				t.Logf("events: %d, %d with every heartbeat handled", got, all)
				if (si < 2 || life(si)) && got >= all {
					t.Errorf("no heartbeat skipped: %d events, %d with every heartbeat handled", got, all)
				}
			})
		}
		if si == 2 || si == 4 || si == 8 || si == 9 || si == 12 {
			continue
		}
		for _, seed := range seeds {
			tr := randomTrace(150, seed+100)
			t.Run(fmt.Sprintf("shape%d/coupling/trace%d", si, seed), func(t *testing.T) {
				sameAsEveryHeartbeat(t, tr, hw, "coupling", seed)
			})
		}
	}
}

// TestCouplingParkedFB2010 is TestCouplingParkedChangesNothing on the first
// $TRACEREPLAY_PARK_JOBS jobs of FB-2010 on fb-3000, without and with the
// lifecycle; skipped when that is unset.
//
//	TRACEREPLAY_PARK_JOBS=300 go test ./replay -run TestCouplingParkedFB2010 -v
func TestCouplingParkedFB2010(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TRACEREPLAY_PARK_JOBS"))
	if n <= 0 {
		t.Skip("TRACEREPLAY_PARK_JOBS not set")
	}
	tr := sharedTrace(t, "FB-2010_samples_24_times_1hr_0.tsv")
	tr.Jobs = tr.Jobs[:min(n, len(tr.Jobs))]
	for _, life := range []bool{false, true} {
		t.Run(fmt.Sprintf("lifecycle=%v", life), func(t *testing.T) {
			hw := loadHardware(t, "fb-3000.toml")
			hw.Lifecycle = life
			got, all := sameAsEveryHeartbeat(t, tr, hw, "coupling", 1)
			t.Logf("events: %d, %d with every heartbeat handled", got, all)
		})
	}
}

// readyWakes is Coupling with the engine's wake-ups for ready reduces asked
// for (replay.ReadyWaker), as before Coupling declined them.
type readyWakes struct{ *policy.Coupling }

func (readyWakes) ReducesReadyWake() bool { return true }

// TestCouplingNoReadyWakes: Coupling declines the engine's wake-ups of the
// parked nodes with a free reduce slot when reduces become ready
// (replay.ReadyWaker). The results must be those with the wake-ups (tasks,
// jobs, timeline, nodes, node_net and the summary but its events), with
// fewer events, without and with the lifecycle; it fails if the engine
// wakes the nodes anyway (no fewer events) or if a wake-up was needed.
func TestCouplingNoReadyWakes(t *testing.T) {
	t.Parallel() // CPU-bound; its own traces and hardware, no process-wide setting changed
	for si, shape := range []string{
		"racks = 6\nnodes_per_rack = 10\nreduce_slots = 1",
		"racks = 4\nnodes_per_rack = 8\nreduce_slots = 2\nlifecycle = true\njvm_reuse = -1\nreport_at_heartbeat = true",
		"racks = 6\nnodes_per_rack = 10\nreduce_slots = 1\nlifecycle = true",
	} {
		hw, err := replay.ParseHardware([]byte("name = \"ready\"\nmap_slots = 2\nblock_size_mb = 64\n" + shape))
		if err != nil {
			t.Fatal(err)
		}
		for _, seed := range []uint64{1, 2} {
			tr := randomTrace(150, seed+200)
			run := func(wakes bool) *replay.Result {
				topo := replay.NewTopology(&hw, seed)
				w, err := replay.NewWorkload(tr, &hw, topo, seed, replay.WorkloadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p, err := policy.New("coupling")
				if err != nil {
					t.Fatal(err)
				}
				if wakes {
					p = readyWakes{p.(*policy.Coupling)}
				}
				res, err := replay.Run(w, p, replay.Options{Seed: seed, CheckInvariants: true, RecordTasks: true, Timeline: true})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			got, want := run(false), run(true)
			for _, c := range []struct {
				what string
				a, b any
			}{{"tasks", got.Tasks, want.Tasks}, {"jobs", got.Jobs, want.Jobs}, {"timeline", got.Timeline, want.Timeline},
				{"nodes", got.Nodes, want.Nodes}, {"node_net", got.NodeNet, want.NodeNet}} {
				if !reflect.DeepEqual(c.a, c.b) {
					t.Errorf("shape %d, seed %d: %s differ", si, seed, c.what)
				}
			}
			gs, ws := got.Summary, want.Summary
			if gs.Events >= ws.Events {
				t.Errorf("shape %d, seed %d: %d events, %d with the wake-ups: none saved", si, seed, gs.Events, ws.Events)
			}
			gs.Events = ws.Events
			if !reflect.DeepEqual(gs, ws) {
				t.Errorf("shape %d, seed %d: summaries differ beyond the events:\n%+v\n%+v", si, seed, gs, ws)
			}
			t.Logf("shape %d, seed %d: %d events, %d with the wake-ups", si, seed, got.Summary.Events, want.Summary.Events)
		}
	}
}
