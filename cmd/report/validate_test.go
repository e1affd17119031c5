package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/results"
)

// vjob is a hand-made job for the validation fixture; times in seconds, -1 for
// none.
type vjob struct {
	id                                     string
	submit, first, lastMap, redLaunch, fin int64
	maps, reduces                          int32
	node, rack                             int32
	starv                                  int64
}

func us(s int64) int64 {
	if s < 0 {
		return results.Unset
	}
	return s * sec
}

// writeValidateRun writes one run directory holding the given jobs; the
// makespan is the last finish minus the first submit.
func writeValidateRun(t *testing.T, dir, policy string, js []vjob) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var jobs []results.Job
	var first, last int64 = 1 << 62, 0
	for i, v := range js {
		jobs = append(jobs, results.Job{
			Policy: policy, JobIndex: int32(i), JobID: v.id, Maps: v.maps, Reduces: v.reduces,
			SubmitUs: us(v.submit), FirstLaunchUs: us(v.first), LastMapEndUs: us(v.lastMap),
			FirstReduceLaunchUs: us(v.redLaunch), LastReduceLaunchUs: us(v.redLaunch),
			FinishUs: us(v.fin), FlowtimeUs: us(v.fin - v.submit), StarvationUs: us(v.starv),
			MapsNodeLocal: v.node, MapsRackLocal: v.rack, MapsOffRack: v.maps - v.node - v.rack,
			ObservedFlowtimeUs: results.Unset,
		})
		first, last = min(first, us(v.submit)), max(last, us(v.fin))
	}
	if err := parquet.WriteFile(filepath.Join(dir, "jobs.parquet"), jobs); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, "timeline.parquet"), []results.TimelineSample{{Policy: policy, JobIndex: -1}}); err != nil {
		t.Fatal(err)
	}
	sum, _ := json.Marshal(results.RunSummary{Policy: policy, Trace: "t", Seed: 1, Jobs: len(js), MakespanUs: last - first})
	if err := os.WriteFile(filepath.Join(dir, "run.json"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}

// observedJobs is the observed schedule of the fixture; job_4 finished only
// there.
var observedJobs = []vjob{
	{"job_0", 0, 2, 10, 8, 20, 2, 1, 2, 0, 0},
	{"job_1", 5, 7, 15, 12, 35, 2, 1, 1, 1, 2},
	{"job_2", 10, 11, 30, -1, 30, 4, 0, 4, 0, 0},
	{"job_3", 20, 24, 44, 40, 60, 1, 1, 1, 0, 3},
	{"job_4", 30, 31, 40, -1, 50, 1, 0, 1, 0, 0},
}

// fifoJobs is the simulated fifo run. Against observedJobs (matched jobs 0-3):
//   - flowtime 10/30/30/50 vs 20/30/20/40: errors -50%, 0, +50%, +25%: median
//     (2nd of 4 by |e|) 25%, p90 (4th) 50%, under 25%, over 50%;
//   - wait 1/1/0/1 vs 2/2/1/4: -50%, -50%, -100%, -75%: median 50%, p90 100%;
//   - map phase 5/10/30/24 vs 8/8/19/20: -37.5%, +25%, +57.9%, +20%: median 25%,
//     p90 57.9%, under 25%, over 75%;
//   - reduce phase (jobs 0, 1, 3) 5/21/29 vs 12/23/20: -58.3%, -8.7%, +45%:
//     median 45%, p90 58.3%, under 66.7%, over 33.3%;
//   - makespan 70 vs 60 s: ratio 1.167; node-local 6/9 = 66.7% vs 8/9 = 88.9%;
//     starvation over jobs 0, 1, 3: (0+0+1)/3 = 0.33 s vs (0+2+3)/3 = 1.67 s.
var fifoJobs = []vjob{
	{"job_0", 0, 1, 6, 5, 10, 2, 1, 1, 0, 0},
	{"job_1", 5, 6, 16, 14, 35, 2, 1, 2, 0, 0},
	{"job_2", 10, 10, 40, -1, 40, 4, 0, 2, 2, 0},
	{"job_3", 20, 21, 45, 41, 70, 1, 1, 1, 0, 1},
	{"job_5", 30, 31, 40, -1, 45, 1, 0, 1, 0, 0},
}

// validateResults writes observed, fifo and (exact copy of the observed jobs
// 0-3) fair runs.
func validateResults(t *testing.T) string {
	root := t.TempDir()
	writeValidateRun(t, filepath.Join(root, "policy=observed"), "observed", observedJobs)
	writeValidateRun(t, filepath.Join(root, "policy=fifo"), "fifo", fifoJobs)
	writeValidateRun(t, filepath.Join(root, "policy=fair"), "fair", observedJobs[:4])
	return root
}

func TestValidateGolden(t *testing.T) {
	root := validateResults(t)
	out := t.TempDir()
	code, stdout, stderr := runCmd("validate", "--out", out, "--format", "svg", root)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	checkGolden(t, "validate_stdout.golden", []byte(stdout))
	csv, err := os.ReadFile(filepath.Join(out, "validate_errors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "validate_errors.csv.golden", csv)
	for _, f := range []string{"validate_runs.md", "validate_runs.csv", "validate_errors.md", "validate_flowtime_scatter.svg", "validate_error_cdf.svg"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: not written (%v)", f, err)
		}
	}
	// The hand-computed fifo figures of fifoJobs' comment.
	for _, want := range []string{
		"fifo                  flowtime        4    25.0   50.0    25.0    50.0",
		"fifo                  wait            4    50.0  100.0   100.0     0.0",
		"fifo                  map phase       4    25.0   57.9    25.0    75.0",
		"fifo                  reduce phase    3    45.0   58.3    66.7    33.3",
		"fair                  flowtime        4     0.0    0.0     0.0     0.0",
	} {
		if !strings.Contains(squash(stdout), squash(want)) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if !strings.Contains(stdout, "1.167") || !strings.Contains(stdout, "88.9") || !strings.Contains(stdout, "66.7        1.67        0.33") {
		t.Errorf("run table lacks the fifo makespan ratio 1.167, locality 88.9/66.7, starvation 1.67/0.33:\n%s", stdout)
	}
}

func TestValidateExitCodes(t *testing.T) {
	root := validateResults(t)
	noObs := t.TempDir()
	writeValidateRun(t, filepath.Join(noObs, "policy=fifo"), "fifo", fifoJobs)
	noMatch := t.TempDir()
	writeValidateRun(t, filepath.Join(noMatch, "policy=observed"), "observed", observedJobs[4:])
	writeValidateRun(t, filepath.Join(noMatch, "policy=fifo"), "fifo", fifoJobs[:4])
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"within the limit", []string{"--max-median-error", "0.25", root}, exitOK, ""},
		{"beyond the limit", []string{"--max-median-error", "20%", root}, exitFail, "fifo: median flowtime error 25.0% > 20.0%"},
		{"no observed run", []string{noObs}, exitUsage, `no "observed" run`},
		{"no matching jobs", []string{noMatch}, exitUsage, "no job finished in both"},
		{"bad limit", []string{"--max-median-error", "x", root}, exitUsage, "--max-median-error"},
		{"no results", []string{}, exitUsage, "want at least one RESULTS_DIR"},
		{"missing dir", []string{filepath.Join(root, "nope")}, exitUsage, "no such directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"validate"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d (want %d), stderr %q (want it to contain %q)", code, tc.code, stderr, tc.msg)
			}
		})
	}
}

// TestValidatePooled pools two result sets: rows per set, a pooled row per
// policy, and the pooled fifo error over both sets' jobs.
func TestValidatePooled(t *testing.T) {
	t.Parallel()
	a, b := validateResults(t), validateResults(t)
	code, stdout, stderr := runCmd("validate", a, b)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"fifo (pooled, 2 runs)", "fair (pooled, 2 runs)", "all (pooled, 4 runs)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// Pooled fifo: the same four errors twice, so the same quantiles.
	if !strings.Contains(squash(stdout), "fifo (pooled, 2 runs) flowtime 8 25.0 50.0 25.0 50.0") {
		t.Errorf("pooled fifo flowtime row wrong:\n%s", stdout)
	}
}

// squash collapses runs of spaces, so that checks do not depend on column widths.
func squash(s string) string { return regexp.MustCompile(` +`).ReplaceAllString(s, " ") }
