package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/golden"
	"github.com/tracereplay/tracereplay/replay"
)

const sec = 1_000_000

// writeRun writes a run directory as cmd/replay does: n jobs submitted one per
// second, job i with flowtime scale·(i+1) s, one reduce starving i%4 s, and
// node/rack/off-rack maps 2/1/0 (every fifth job 0/0/3); a cluster timeline.
func writeRun(t *testing.T, dir, policy string, seed uint64, n int, scale int64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var jobs []replay.JobResult
	var last int64
	for i := range n {
		j := replay.JobResult{
			Policy: policy, JobIndex: int32(i), JobID: fmt.Sprintf("job_%d", i), Maps: 3, Reduces: 1,
			SubmitUs: int64(i) * sec, FlowtimeUs: scale * int64(i+1) * sec, StarvationUs: int64(i%4) * sec,
			MapsNodeLocal: 2, MapsRackLocal: 1, ObservedFlowtimeUs: replay.Unset,
		}
		if i%5 == 4 {
			j.MapsNodeLocal, j.MapsRackLocal, j.MapsOffRack = 0, 0, 3
		}
		j.FinishUs = j.SubmitUs + j.FlowtimeUs
		last = max(last, j.FinishUs)
		jobs = append(jobs, j)
	}
	var tl []replay.TimelineSample
	for ts := int64(0); ts <= last; ts += 2 * sec {
		tl = append(tl, replay.TimelineSample{Policy: policy, TimeUs: ts, JobIndex: -1,
			RunningMaps: int32(ts / sec % 9), RunningReduces: int32(ts / sec % 4)})
	}
	if err := parquet.WriteFile(filepath.Join(dir, "jobs.parquet"), jobs); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, "timeline.parquet"), tl); err != nil {
		t.Fatal(err)
	}
	sum, _ := json.Marshal(replay.RunSummary{Policy: policy, Seed: seed, Jobs: n, MakespanUs: last})
	if err := os.WriteFile(filepath.Join(dir, "run.json"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}

// resultsTree builds a results tree of two policies and two seeds.
func resultsTree(t *testing.T) string {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "manifest.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeRun(t, filepath.Join(root, "policy=fifo", "seed=1"), "fifo", 1, 10, 2)
	writeRun(t, filepath.Join(root, "policy=fifo", "seed=2"), "fifo", 2, 12, 2)
	writeRun(t, filepath.Join(root, "policy=fair", "seed=1"), "fair", 1, 10, 1)
	writeRun(t, filepath.Join(root, "policy=fair", "seed=2"), "fair", 2, 8, 3)
	return root
}

func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func TestSummaryStdout(t *testing.T) {
	root := resultsTree(t)
	for _, args := range [][]string{{root}, {"summary", root}} {
		code, out, errs := runCmd(args...)
		if code != 0 {
			t.Fatalf("report %v: exit %d, stderr %s", args, code, errs)
		}
		if errs != "" {
			t.Errorf("report %v: unexpected stderr %q", args, errs)
		}
		checkGolden(t, "stdout.golden", []byte(out))
	}
}

func TestSummaryOut(t *testing.T) {
	t.Parallel()
	root := resultsTree(t)
	for _, format := range []string{"png", "svg", "pdf"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "a", "b") // parents are created too
			code, stdout, stderr := runCmd("--out", out, "--format", format, root)
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			checkGolden(t, "stdout.golden", []byte(stdout))
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			want := fmt.Sprintf(".tracereplay-owned flowtime_cdf.%[1]s running_tasks.%[1]s starvation.%[1]s summary.csv summary.md summary.tex", format)
			if strings.Join(names, " ") != want {
				t.Errorf("files %v, want %s", names, want)
			}
			for _, n := range strings.Fields(want)[1:] {
				if !strings.Contains(stderr, filepath.Join(out, n)) {
					t.Errorf("stderr does not report %s: %s", n, stderr)
				}
			}
			md, _ := os.ReadFile(filepath.Join(out, "summary.md"))
			checkGolden(t, "summary.md.golden", md)
			csv, _ := os.ReadFile(filepath.Join(out, "summary.csv"))
			checkGolden(t, "summary.csv.golden", csv)
			tex, _ := os.ReadFile(filepath.Join(out, "summary.tex"))
			checkGolden(t, "summary.tex.golden", tex)
			if format == "png" {
				f, err := os.Open(filepath.Join(out, "flowtime_cdf.png"))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if _, err := png.Decode(f); err != nil {
					t.Errorf("flowtime_cdf.png: %v", err)
				}
			}
			// Nothing but the output directory beside it: the temporary directory is gone.
			siblings, _ := os.ReadDir(filepath.Dir(out))
			if len(siblings) != 1 {
				t.Errorf("%d entries beside the output directory, want 1", len(siblings))
			}
		})
	}
}

// TestSummaryOutExistingDirectory: --out replaces a directory report wrote, and
// refuses (exit 2, naming the file and --force) one holding anything else;
// --force replaces it.
func TestSummaryOutExistingDirectory(t *testing.T) {
	t.Parallel()
	root := resultsTree(t)
	out := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(out, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "summary.md"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("--out", out, "--format", "svg", root)
	if code != 2 || !strings.Contains(stderr, "notes.txt") || !strings.Contains(stderr, "--force") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming notes.txt and --force", code, stderr)
	}
	if b, _ := os.ReadFile(keep); string(b) != "mine" {
		t.Error("an unrelated file in the output directory was changed")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "summary.md")); string(b) != "stale" {
		t.Error("a refused directory was changed")
	}
	if code, _, stderr := runCmd("--out", out, "--format", "svg", "--force", root); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "summary.md")); !bytes.HasPrefix(b, []byte("## Summary of 4 runs in 2 cells")) {
		t.Errorf("summary.md not replaced: %q", b)
	}
	// Its own output is replaced without --force, figures of another format
	// included.
	if code, _, stderr := runCmd("--out", out, "--format", "png", root); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "flowtime_cdf.svg")); !os.IsNotExist(err) {
		t.Errorf("the old svg figure survived the rerun: %v", err)
	}
	siblings, _ := os.ReadDir(filepath.Dir(out))
	if len(siblings) != 1 {
		t.Errorf("%d entries beside the output directory, want 1 (temporary directory left?)", len(siblings))
	}
}

// TestSummaryOutAndArrowSameDirectory: --out and --arrow may name one directory.
func TestSummaryOutAndArrowSameDirectory(t *testing.T) {
	root := resultsTree(t)
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runCmd("--out", out, "--arrow", out, "--format", "svg", root); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"summary.md", "summary.arrow", "jobs.arrow"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestSummaryDeterministic(t *testing.T) {
	root := resultsTree(t)
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, d := range []string{a, b} {
		if code, _, stderr := runCmd("--out", d, "--format", "pdf", root); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	entries, _ := os.ReadDir(a)
	for _, e := range entries {
		x, _ := os.ReadFile(filepath.Join(a, e.Name()))
		y, _ := os.ReadFile(filepath.Join(b, e.Name()))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", e.Name())
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"summary", "--help"}} {
		code, out, _ := runCmd(args...)
		if code != 0 || !strings.Contains(out, "Usage: report") || !strings.Contains(out, "--format") {
			t.Errorf("report %v: exit %d, stdout %q", args, code, out)
		}
	}
}

func TestErrors(t *testing.T) {
	root := resultsTree(t)
	corrupt := t.TempDir()
	writeRun(t, filepath.Join(corrupt, "policy=x"), "x", 1, 3, 1)
	if err := os.WriteFile(filepath.Join(corrupt, "policy=x", "jobs.parquet"), []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(outFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"no arguments", nil, 2, []string{"want one RESULTS_DIR, got 0", "Usage: report"}},
		{"two directories", []string{root, root}, 2, []string{"got 2 arguments"}},
		{"unknown flag", []string{"--colour", root}, 2, []string{"report: bad usage: unknown flag --colour (see report --help)\n"}},
		{"bad format", []string{"--format", "gif", root}, 2, []string{`--format "gif"`}},
		{"missing results", []string{filepath.Join(root, "nope")}, 2, []string{"report: cannot read results", "nope", "no such directory"}},
		{"empty results", []string{t.TempDir()}, 2, []string{"no run directory"}},
		{"corrupt jobs file", []string{corrupt}, 2, []string{filepath.Join("policy=x", "jobs.parquet"), "not a Parquet file"}},
		{"out is a file", []string{"--out", outFile, root}, 2, []string{"cannot write outputs", "not a directory", "--force"}},
		{"unknown preset", []string{"--preset", "nope", root}, 2, []string{`--preset "nope": want one of `, "hpfsp"}},
		{"bad style", []string{"--style", "print", root}, 2, []string{`--style: figure style "print": want screen or paper`}},
		{"bad width", []string{"--width", "three", root}, 2, []string{`--width: figure width "three": want one or two`}},
		{"arrow is a file", []string{"--arrow", outFile, root}, 2, []string{"cannot write outputs", "not a directory", "--force"}},
		{"html in a file", []string{"--html", filepath.Join(outFile, "r.html"), root}, 1, []string{"cannot write the HTML report"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCmd(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tt.code, stderr)
			}
			if out != "" {
				t.Errorf("stdout not empty on error: %q", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestPresetHPFSP: --preset hpfsp prints the preset's table after the summary
// and writes hpfsp.md, hpfsp.csv and its figures beside the summary's.
func TestPresetHPFSP(t *testing.T) {
	t.Parallel()
	root := resultsTree(t)
	out := filepath.Join(t.TempDir(), "rep")
	code, stdout, stderr := runCmd("--preset", "hpfsp", "--out", out, "--format", "svg", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "H-PFSP (Li et al. 2013): mean flowtime (s) against trace") {
		t.Errorf("stdout lacks the preset table:\n%s", stdout)
	}
	for _, f := range []string{"summary.md", "hpfsp.md", "hpfsp.csv", "hpfsp_mean.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(out, "hpfsp.csv"))
	if !strings.HasPrefix(string(csv), "policy,trace,seeds,mean_flowtime_s,ci95_half_width\n") {
		t.Errorf("hpfsp.csv header: %q", csv)
	}
}

// TestUnknownFlag: every subcommand answers an unknown flag with the one line
// ingest and replay print, and exit status 2.
func TestUnknownFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--x", "dir"}, "report: bad usage: unknown flag --x (see report --help)\n"},
		{[]string{"summary", "--x", "dir"}, "report: bad usage: unknown flag --x (see report --help)\n"},
		{[]string{"compare", "--x"}, "report: bad usage: unknown flag --x (see report compare --help)\n"},
		{[]string{"validate", "--x", "dir"}, "report: bad usage: unknown flag --x (see report validate --help)\n"},
	} {
		code, stdout, stderr := runCmd(tt.args...)
		if code != 2 || stdout != "" || stderr != tt.want {
			t.Errorf("report %v: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

// TestIdleWarning: the idle-cluster warning goes to stderr as replay prints
// it, "report: warning: ...", not into the table on stdout.
func TestIdleWarning(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "policy=fifo")
	writeRun(t, dir, "fifo", 1, 3, 1)
	sum, _ := json.Marshal(replay.RunSummary{Policy: "fifo", Seed: 1, Jobs: 3, Trace: "t", Hardware: "hw", MapUtilisation: 0.0001})
	if err := os.WriteFile(filepath.Join(dir, "run.json"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "report: warning: map-slot utilisation is 0.01% at most (trace t, hardware hw), below 1%"; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want it to start %q", stderr, want)
	}
	if strings.Contains(stdout, "warning") {
		t.Errorf("warning on stdout:\n%s", stdout)
	}
}
