package summary

import (
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

func settingRun(policy, trace, hw string, seed uint64, mapU, redU float64, finish ...int64) Run {
	r := Run{Policy: policy, Labels: map[string]string{"policy": policy},
		Summary: results.RunSummary{Trace: trace, Hardware: hw, Seed: seed, Jobs: len(finish), MapUtilisation: mapU, ReduceUtilisation: redU}}
	for i, f := range finish {
		r.Jobs = append(r.Jobs, results.Job{Policy: policy, JobIndex: int32(i), FinishUs: f, FlowtimeUs: f})
	}
	return r
}

func TestSetting(t *testing.T) {
	for _, c := range []struct {
		name string
		runs []Run
		want string
	}{
		{"one", []Run{settingRun("fifo", "traces/fb.tsv", "samples/hardware/fb-600.toml", 1, 0.0034, 0.001, 5)},
			"trace fb (1 job) · hardware fb-600 · seed 1 · slot utilisation: map 0.34%, reduce 0.10%"},
		{"range", []Run{
			settingRun("fifo", "t", "hw", 1, 0.25, 0.5, 5, 6),
			settingRun("fair", "t", "hw", 2, 0.125, 0.5, 5, 6),
		}, "trace t (2 jobs) · hardware hw · seeds 1, 2 · slot utilisation: map 12.5%–25.0%, reduce 50.0%"},
		{"many", []Run{
			settingRun("a", "t1", "h1", 3, 0.5, 0.5), settingRun("a", "t2", "h2", 3, 0.5, 0.5),
			settingRun("a", "t3", "h3", 3, 0.5, 0.5), settingRun("a", "t4", "h4", 3, 0.5, 0.5),
			settingRun("a", "t5", "h5", 3, 0.5, 0.5),
		}, "traces t1 (0 jobs), t2 (0 jobs), t3 (0 jobs) and 2 more · hardware h1, h2, h3 and 2 more · seed 3 · slot utilisation: map 50.0%, reduce 50.0%"},
	} {
		if got := Setting(c.runs); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if Setting(nil) != "" {
		t.Error("Setting(nil) is not empty")
	}
}

func TestWarnings(t *testing.T) {
	runs := []Run{
		settingRun("fifo", "idle", "hw", 1, 0.0034, 0, 5),
		settingRun("fair", "idle", "hw", 1, 0.0099, 0, 5),
		settingRun(results.ObservedPolicy, "busy", "hw", 1, 0.001, 0, 5), // observed does not count
		settingRun("fifo", "busy", "hw", 1, 0.01, 0, 5),
	}
	got := Warnings(runs)
	if len(got) != 1 || !strings.Contains(got[0], "0.99% at most (trace idle, hardware hw)") || !strings.Contains(got[0], "policies cannot differ on an idle cluster") {
		t.Errorf("Warnings = %q", got)
	}
}

func TestIdentical(t *testing.T) {
	runs := []Run{
		settingRun("hpfsp", "t", "hw", 1, 0.5, 0.5, 10, 20),
		settingRun("fifo", "t", "hw", 1, 0.5, 0.5, 10, 20),
		settingRun("fair", "t", "hw", 1, 0.5, 0.5, 10, 21),
		settingRun("capacity", "t", "hw", 1, 0.5, 0.5, 10, 20),
		settingRun("srpt", "t", "hw", 1, 0.5, 0.5, 10, 21),
		settingRun("eas", "t", "hw", 1, 0.5, 0.5, 11, 21),
	}
	got := strings.Join(Identical(runs), "; ")
	if want := "capacity = fifo = hpfsp; fair = srpt"; got != want {
		t.Errorf("Identical = %q, want %q", got, want)
	}
	// Equal jobs under different seeds are not merged: the seed label differs.
	a, b := settingRun("fifo", "t", "hw", 1, 0.5, 0.5, 10), settingRun("fair", "t", "hw", 2, 0.5, 0.5, 10)
	a.Labels["seed"], b.Labels["seed"] = "1", "2"
	if got := Identical([]Run{a, b}); len(got) != 0 {
		t.Errorf("runs of different seeds merged: %q", got)
	}
}

// TestSettingYARN: runs on a YARN cluster (their AMs held memory) state
// memory utilisation, without the observed schedule's slot count; mixed
// runs say both; the idle warning names container memory.
func TestSettingYARN(t *testing.T) {
	yarn := func(policy string, mapU float64) Run {
		r := settingRun(policy, "t", "hw", 1, mapU, 0.5, 5)
		r.Summary.AMUtilisation = 0.01
		return r
	}
	if got, want := Setting([]Run{yarn("yarn-fifo", 0.25), settingRun(results.ObservedPolicy, "t", "hw", 1, 0.75, 0.75, 5)}),
		"trace t (1 job) · hardware hw · seed 1 · memory utilisation: map 25.0%, reduce 50.0%"; got != want {
		t.Errorf("YARN:\n got %q\nwant %q", got, want)
	}
	if got := Setting([]Run{yarn("yarn-fifo", 0.25), settingRun("fifo", "t", "hw", 1, 0.5, 0.5, 5)}); !strings.Contains(got, "slot or (YARN) memory utilisation: map 25.0%–50.0%") {
		t.Errorf("mixed: %q", got)
	}
	if got := Warnings([]Run{yarn("yarn-fifo", 0.001)}); len(got) != 1 || !strings.HasPrefix(got[0], "warning: map-container memory utilisation is 0.10% at most") {
		t.Errorf("Warnings = %q", got)
	}
}

// yarnHW is a cluster that reports NodeManager resources.
type yarnHW struct{ yarn bool }

func (yarnHW) RackCount() int        { return 1 }
func (yarnHW) Nodes() int            { return 3 }
func (yarnHW) TotalMapSlots() int    { return 24 }
func (yarnHW) TotalReduceSlots() int { return 24 }
func (h yarnHW) NodeResources() (int64, int64, bool) {
	return 9216, 8, h.yarn
}

// TestClusterSizeYARN: a YARN cluster is described by its NodeManagers'
// resources, a slot cluster by its slots.
func TestClusterSizeYARN(t *testing.T) {
	if got, want := ClusterSize(yarnHW{true}), "1 rack, 3 nodes of 9216 MB and 8 vcores"; got != want {
		t.Errorf("YARN: %q, want %q", got, want)
	}
	if got, want := ClusterSize(yarnHW{false}), "1 rack, 3 nodes, 24 map + 24 reduce slots"; got != want {
		t.Errorf("slots: %q, want %q", got, want)
	}
}
