package replay_test

import (
	"fmt"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
)

// TestSourceMixWalk: under flow_shuffle = "batch" with the invariant checker
// on, every batch round's sources, as sourceMix reads them from the done
// outputs' records (jobOutput.outs), equal those of a walk of the job's done
// maps' own records (their node, or their speculative copy's, and their
// output), as sourceMix had them; on random workloads, with the poll chain
// holding outputs back, speculative copies winning, and failed reduce
// attempts queueing everything again. A reduce that queues every done
// output at once from its job's tally (outputTally) gets the same counters
// and hosts' bytes out as queueing them one by one (checkTallied).
func TestSourceMixWalk(t *testing.T) {
	tallies := 0
	shapes := []string{
		"network = \"flow\"\nflow_shuffle = \"batch\"\nflow_update = \"1s\"",
		"network = \"flow\"\nflow_shuffle = \"batch\"\nevent_poll = true\ncore_oversubscription = 2",
		"network = \"flow\"\nflow_shuffle = \"batch\"\nevent_poll = true\nlifecycle = true\nreport_at_heartbeat = true\nattempt_failure_rate = 0.2\nstraggler_fraction = 0.3\nstraggler_alpha = 1.5\nspeculation = \"late\"\nmap_compute_mb_per_s = 30\nreduce_compute_mb_per_s = 20\ndisk_mb_per_s = 80",
	}
	eachBatchRun(t, shapes, func(opt *replay.Options, run func() string) {
		rounds := -1
		replay.SourceMixChecks(opt, func(n, k int) { rounds = n; tallies += k })
		where := run()
		if rounds <= 0 {
			t.Errorf("%s: %d rounds checked: the case does not exercise sourceMix", where, rounds)
		}
	})
	if tallies == 0 {
		t.Error("no reduce queued its outputs from its job's tally: the cases do not exercise it")
	}
	t.Logf("%d reduces queued from their job's tally", tallies)
}

// TestQuietSkips: under flow_shuffle = "batch" with the invariant checker
// on, a map's end skips the job's reduces that have started and have a
// round from other racks under way when the output lies on another rack
// (jobOutput.quiet), and they queue the skipped outputs when a round may
// next start (catchUpQuiet). The checker compares every skip with the
// reduce's own state (checkQuiet) and every output caught up with the
// reduce's rack, and TestSourceMixWalk's walk checks the rounds' sources
// built from the caught-up counters; this test makes sure the cases skip.
func TestQuietSkips(t *testing.T) {
	skips := 0
	shapes := []string{
		"network = \"flow\"\nflow_shuffle = \"batch\"\nflow_update = \"1s\"",
		"network = \"flow\"\nflow_shuffle = \"batch\"\ncore_oversubscription = 2",
		"network = \"flow\"\nflow_shuffle = \"batch\"\nlifecycle = true\nattempt_failure_rate = 0.2\nstraggler_fraction = 0.3\nstraggler_alpha = 1.5\nspeculation = \"late\"\nmap_compute_mb_per_s = 30\nreduce_compute_mb_per_s = 20\ndisk_mb_per_s = 80",
		// Reduce attempts failing while their job's maps still end.
		"network = \"flow\"\nflow_shuffle = \"batch\"\nlifecycle = true\nattempt_failure_rate = 0.3\nslow_start = 0.05\nmap_compute_mb_per_s = 4",
	}
	eachBatchRun(t, shapes, func(opt *replay.Options, run func() string) {
		n := -1
		replay.QuietSkipChecks(opt, func(k int) { n = k })
		run()
		skips += n
	})
	if skips == 0 {
		t.Error("no map's end skipped a quiet reduce: the cases do not exercise it")
	}
	t.Logf("%d quiet reduces skipped at map ends", skips)
}

// eachBatchRun replays three random 30-job traces (seeds 0-2) through fifo
// and fair on a small cluster of each hardware shape, with the invariant
// checker on. For each run it calls with the run's options, which with may
// add checks to, and a run function that replays (failing the test on an
// error) and returns the run's name for messages.
func eachBatchRun(t *testing.T, shapes []string, with func(opt *replay.Options, run func() string)) {
	t.Helper()
	for k, shape := range shapes {
		hw := smallHardware(t, shape)
		for seed := range uint64(3) {
			tr := randomTrace(30, 40+seed)
			for _, name := range []string{"fifo", "fair"} {
				w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, seed), seed, replay.WorkloadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p, err := policy.New(name)
				if err != nil {
					t.Fatal(err)
				}
				opt := replay.Options{Seed: seed, CheckInvariants: true}
				where := fmt.Sprintf("shape %d, seed %d, %s", k, seed, name)
				with(&opt, func() string {
					if _, err := replay.Run(w, p, opt); err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					return where
				})
			}
		}
	}
}
