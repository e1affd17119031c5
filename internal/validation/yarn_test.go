package validation_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/trace"
)

// isYARN reports whether a trace's jobs ran on YARN: a .jhist, a job whose
// ApplicationMaster start is recorded, or a conf naming a YARN scheduler.
func isYARN(tr *trace.Trace) bool {
	if tr.Meta.SourceFormat == "jhist" {
		return true
	}
	for _, j := range tr.Jobs {
		if j.AMStartMs >= 0 || strings.Contains(j.Scheduler, "yarn") {
			return true
		}
	}
	return false
}

// TestValidationHarnessYARN is the harness's YARN half (docs/validation.md,
// "YARN histories on the YARN model"): every harness trace whose jobs ran on
// YARN is replayed on a YARN cluster derived from it (cluster = "yarn", the
// other fold's calibration, as TestValidationHarness) through the
// ResourceManager policy its confs name (yarn-capacity for the
// CapacityScheduler and by default, yarn-fair, yarn-fifo), and through
// yarn-capacity and yarn-fair beside it, each beside the observed schedule. VALIDATION_OUT writes validate_yarn_errors.md and
// validate_yarn_runs.md there.
func TestValidationHarnessYARN(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays the shared YARN histories")
	dir := sharedTraces(t)
	folds := map[string][]*trace.Trace{}
	inFold := map[string]bool{} // job sets already in a fold's calibration
	type input struct {
		harnessTrace
		tr *trace.Trace
	}
	var inputs []input
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil || !replay.HasObservedSchedule(tr) {
			continue
		}
		folds[h.fold] = appendJobSet(folds[h.fold], tr, inFold)
		if isYARN(tr) {
			inputs = append(inputs, input{h, tr})
		}
	}
	models := map[string]replay.Hardware{}
	for f, other := range map[string]string{"A": "B", "B": "A"} {
		hw, _ := calibrated(t, folds[other], other)
		hw.Cluster = replay.ClusterYARN
		hw.Heartbeat = replay.Duration(1e6) // YARN's NodeManager heartbeat (docs/yarn.md)
		models[f] = hw
	}
	for _, f := range []string{"A", "B"} {
		hw := models[f]
		fmt.Printf("== fold %s is scored on YARN with the model calibrated on the other fold: am_launch %v, am_startup %v, retry_container_delay %v\n",
			f, hw.AMLaunch, hw.AMStartup, hw.RetryContainerDelay)
	}
	var pairs []report.ValidationPair
	scored := map[string]string{}
	for _, in := range inputs {
		pol, why := confPolicy(in.tr)
		pol = "yarn-" + pol
		key := jobSet(in.tr)
		if prev, dup := scored[key]; dup {
			fmt.Printf("%s (fold %s): the same jobs as %s; scored once\n", in.path, in.fold, prev)
			continue
		}
		scored[key] = in.path
		// The policy the confs name, and yarn-capacity and yarn-fair beside it.
		pols := []string{pol}
		for _, other := range []string{"yarn-capacity", "yarn-fair"} {
			if other != pol {
				pols = append(pols, other)
			}
		}
		for _, pl := range pols {
			p, err := replayPair(in.tr, models[in.fold], pl, shortName(in.path), harnessMode(t))
			if err != nil {
				t.Errorf("%s: %v", in.path, err)
				continue
			}
			fmt.Printf("%s (fold %s): policy %s (the confs name %s: %s), %d jobs\n", in.path, in.fold, pl, pol, why, len(p.Sim.Jobs))
			pairs = append(pairs, p)
		}
	}
	if len(pairs) < 10 {
		t.Fatalf("%d YARN runs scored: want the five .jhist files at least, each through yarn-capacity and yarn-fair", len(pairs))
	}
	v, err := report.Validate(pairs)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println()
	for i, tb := range []*report.Table{v.ErrorTable(), v.RunTable()} {
		if err := tb.WriteText(os.Stdout); err != nil {
			t.Fatal(err)
		}
		fmt.Println()
		if out := os.Getenv("VALIDATION_OUT"); out != "" {
			path := filepath.Join(out, []string{"validate_yarn_errors.md", "validate_yarn_runs.md"}[i])
			if err := report.WriteFileAtomic(path, tb.WriteMarkdown); err != nil {
				t.Fatal(err)
			}
		}
	}
}
