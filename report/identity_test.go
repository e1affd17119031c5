package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

// writeResults writes runs under root/out as cmd/replay does, with a manifest
// giving each run its trace and hardware identity.
func writeResults(t *testing.T, root, out string, runs map[string]Run, traceID, hwID string) {
	t.Helper()
	m := results.RunManifest{}
	for dir, r := range runs {
		writeRunDir(t, filepath.Join(root, out, dir), r)
		m.Runs = append(m.Runs, results.ManifestRun[results.HardwareJSON]{Dir: dir, Policy: r.Policy, Seed: r.Summary.Seed,
			TraceSHA256: traceID, HardwareSHA256: hwID})
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(root, out, results.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func withSummary(r Run, trace, hw string, seed uint64) Run {
	r.Summary.Trace, r.Summary.Hardware, r.Summary.Seed = trace, hw, seed
	return r
}

// TestLoadRefusesMixedCells is issue 10 item 10: report on a directory holding
// runs of two different traces averaged them as seeds of one cell. Load now
// reads each run's identity from its manifest and refuses, naming both runs.
func TestLoadRefusesMixedCells(t *testing.T) {
	fifo := map[string]string{PolicyLabel: "fifo"}
	cases := []struct {
		name        string
		a, b        Run
		traceB, hwB string
		want        string
	}{
		{"two traces of one name", withSummary(seqRun(fifo, 5, 1), "t.tsv", "fb", 1), withSummary(seqRun(fifo, 5, 2), "t.tsv", "fb", 2),
			"sha256:bbb", "sha256:111", "replayed different traces (t.tsv sha256:aaa and t.tsv sha256:bbb)"},
		{"two hardware models of one name", withSummary(seqRun(fifo, 5, 1), "t.tsv", "fb", 1), withSummary(seqRun(fifo, 5, 2), "t.tsv", "fb", 2),
			"sha256:aaa", "sha256:222", "ran on different hardware (fb sha256:111 and fb sha256:222)"},
		{"one seed twice", withSummary(seqRun(fifo, 5, 1), "t.tsv", "fb", 7), withSummary(seqRun(fifo, 5, 1), "t.tsv", "fb", 7),
			"sha256:aaa", "sha256:111", "same cell and seed 7"},
		{"seeds of one cell", withSummary(seqRun(fifo, 5, 1), "x.tsv", "fb", 1), withSummary(seqRun(fifo, 5, 2), "t.tsv", "other-name", 2),
			"sha256:aaa", "sha256:111", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeResults(t, root, "a", map[string]Run{"policy=fifo": c.a}, "sha256:aaa", "sha256:111")
			writeResults(t, root, "b", map[string]Run{"policy=fifo": c.b}, c.traceB, c.hwB)
			runs, err := Load(root)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(runs) != 2 || runs[0].TraceID != "sha256:aaa" || runs[1].HardwareID != "sha256:111" {
					t.Errorf("identities not loaded: %+v", runs)
				}
				if g := GroupRuns(runs); len(g) != 1 || len(g[0].Runs) != 2 {
					t.Errorf("%d groups, want one of two seeds", len(g))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) ||
				!strings.Contains(err.Error(), filepath.Join(root, "a", "policy=fifo")) || !strings.Contains(err.Error(), filepath.Join(root, "b", "policy=fifo")) {
				t.Fatalf("err = %v, want one naming both runs and %q", err, c.want)
			}
		})
	}
}

// TestCheckCellsWithoutManifest: runs no manifest lists are told apart by their
// trace and hardware names; a generated trace's name carries its seed, which
// does not make it another trace.
func TestCheckCellsWithoutManifest(t *testing.T) {
	fifo := map[string]string{PolicyLabel: "fifo"}
	seed := func(s string) map[string]string { return map[string]string{PolicyLabel: "fifo", SeedLabel: s} }
	err := CheckCells([]Run{withSummary(seqRun(fifo, 3, 1), "a.tsv", "h", 1), withSummary(seqRun(fifo, 3, 1), "b.tsv", "h", 2)})
	if err == nil || !strings.Contains(err.Error(), "different traces (a.tsv and b.tsv)") {
		t.Errorf("different trace names: err = %v", err)
	}
	err = CheckCells([]Run{withSummary(seqRun(seed("1"), 3, 1), `synthetic{"jobs":3}@1`, "h", 1),
		withSummary(seqRun(seed("2"), 3, 1), `synthetic{"jobs":3}@2`, "h", 2)})
	if err != nil {
		t.Errorf("seeds of a generated trace: %v", err)
	}
	err = CheckCells([]Run{withSummary(seqRun(seed("1"), 3, 1), `synthetic{"jobs":3}@1`, "h", 1),
		withSummary(seqRun(seed("2"), 3, 1), `synthetic{"jobs":4}@2`, "h", 2)})
	if err == nil {
		t.Error("two generator settings accepted as seeds")
	}
}

// TestCompareHardwareMismatch is item 10: report compare matched cells whose
// hardware differed. Cells must agree in trace and hardware identity; every
// cell that does not is named, and nothing is compared.
func TestCompareHardwareMismatch(t *testing.T) {
	base, cand := knownEffects()
	for i := range base {
		base[i].TraceID, base[i].HardwareID = "sha256:t", "sha256:fb600"
		cand[i].TraceID, cand[i].HardwareID = "sha256:t", "sha256:fb600"
		if cand[i].Policy == "fair" {
			cand[i].HardwareID = "sha256:fb600-replication2"
		}
	}
	_, err := Compare(base, cand, nil)
	if err == nil || !strings.Contains(err.Error(), "policy=fair hw=h trace=t: hardware (unnamed) sha256:fb600 in the baseline, (unnamed) sha256:fb600-replic in the candidate") {
		t.Fatalf("err = %v, want the fair cell's hardware mismatch", err)
	}
	if strings.Contains(err.Error(), "policy=fifo") {
		t.Errorf("err names a matching cell: %v", err)
	}
	for i := range cand {
		cand[i].HardwareID = "sha256:fb600"
		if cand[i].Policy == "fifo" {
			cand[i].TraceID = "sha256:other"
		}
	}
	if _, err := Compare(base, cand, nil); err == nil || !strings.Contains(err.Error(), "policy=fifo hw=h trace=t: trace") {
		t.Fatalf("err = %v, want the fifo cell's trace mismatch", err)
	}
}

// TestLoadSkipsScratch: an interrupted run's hidden temporary or set-aside
// directory is not read as more runs (it would be averaged in as seeds).
func TestLoadSkipsScratch(t *testing.T) {
	root := t.TempDir()
	fifo := map[string]string{PolicyLabel: "fifo"}
	writeResults(t, root, "a", map[string]Run{"policy=fifo": withSummary(seqRun(fifo, 5, 1), "t", "h", 1)}, "sha256:t", "sha256:h")
	writeRunDir(t, filepath.Join(root, ".a.tmp-123", "policy=fifo"), withSummary(seqRun(fifo, 5, 3), "t", "h", 2))
	writeRunDir(t, filepath.Join(root, ".b.old-45", "policy=fifo"), withSummary(seqRun(fifo, 5, 3), "t", "h", 3))
	runs, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Dir != filepath.Join(root, "a", "policy=fifo") {
		t.Errorf("loaded %d runs, want only a/policy=fifo", len(runs))
	}
}
