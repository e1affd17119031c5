package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compareSets writes a baseline and a candidate results tree: policies fair,
// fifo and capacity, seeds 1-5, 10 jobs each (writeRun: job i has flowtime
// scale·(i+1) s). fair is 20% slower in the candidate (scale 5 to 6), fifo 20%
// faster (5 to 4), and capacity is noise: scale 10 to 13, 8, 12, 9, 11 by seed,
// +6% on average but not significant over five seeds.
func compareSets(t *testing.T) (base, cand string) {
	t.Helper()
	base, cand = t.TempDir(), t.TempDir()
	noise := []int64{13, 8, 12, 9, 11}
	for s := 1; s <= 5; s++ {
		for _, x := range []struct {
			policy     string
			base, cand int64
		}{{"fair", 5, 6}, {"fifo", 5, 4}, {"capacity", 10, noise[s-1]}} {
			dir := filepath.Join("policy="+x.policy, "trace=sample", "hw=fb-600", "seed="+string(rune('0'+s)))
			writeRun(t, filepath.Join(base, dir), x.policy, uint64(s), 10, x.base)
			writeRun(t, filepath.Join(cand, dir), x.policy, uint64(s), 10, x.cand)
		}
	}
	return base, cand
}

const ciRules = "flowtime.p95>+5%,starvation.mean>+10%,locality<-2pt"

func TestCompareRegression(t *testing.T) {
	t.Parallel()
	base, cand := compareSets(t)
	dir := t.TempDir()
	md, junit := filepath.Join(dir, "out", "compare.md"), filepath.Join(dir, "compare.xml")
	code, stdout, stderr := runCmd("compare", "--baseline", base, "--candidate", cand, "--fail-on", ciRules, "--markdown", md, "--junit", junit)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a regression); stderr %s", code, stderr)
	}
	if !strings.Contains(stderr, "report: 1 regression") {
		t.Errorf("stderr %q does not count the regression", stderr)
	}
	checkGolden(t, "compare_stdout.golden", []byte(stdout))
	for _, want := range []string{
		"fair      flowtime p95 (s)", "FAIL +5%", // the regression
		"fifo      flowtime p95 (s)", "better", // the improvement
		"pass +5% (beyond, n.s.)", // the noise
		"Regressions:\n  fair: flowtime.p95 changed +10.000 s (+20.0%)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	mdb, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(mdb), "## report compare: 1 regression in 9 checks over 3 cells") || !strings.Contains(string(mdb), "**FAIL**") {
		t.Errorf("Markdown summary:\n%s", mdb)
	}
	xb, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(xb, &suites); err != nil || suites.Tests != 9 || suites.Failures != 1 {
		t.Errorf("JUnit: %v, %d tests, %d failures; want 9 and 1", err, suites.Tests, suites.Failures)
	}
}

func TestCompareNoRegression(t *testing.T) {
	t.Parallel()
	base, cand := compareSets(t)
	// Against itself, and with a threshold the regression stays within.
	for _, args := range [][]string{
		{"--baseline", base, "--candidate", base, "--fail-on", ciRules},
		{"--baseline", base, "--candidate", cand, "--fail-on", "flowtime.p95>+25%"},
		{"--baseline", base, "--candidate", cand}, // no thresholds: report only
	} {
		code, stdout, stderr := runCmd(append([]string{"compare"}, args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d, want 0; stderr %s", args, code, stderr)
		}
		if !strings.Contains(stdout, "report compare:") {
			t.Errorf("%v: stdout %q", args, stdout)
		}
	}
}

func TestCompareThresholdFile(t *testing.T) {
	t.Parallel()
	base, cand := compareSets(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "ci.toml")
	if err := os.WriteFile(good, []byte("# pull-request thresholds\nfail_on = [\"flowtime.p95 > +5%\", \"locality < -2pt\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd("compare", "--baseline", base, "--candidate", cand, "--fail-on-file", good)
	if code != 1 || !strings.Contains(stdout, "1 regression in 6 checks") {
		t.Errorf("exit %d, stdout %q, stderr %s; want 1 regression in 6 checks", code, stdout, stderr)
	}
}

func TestCompareErrors(t *testing.T) {
	t.Parallel()
	base, cand := compareSets(t)
	dir := t.TempDir()
	badTOML := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badTOML, []byte("fail_on = [\"flowtime.p95>+5%\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A candidate without fair and with an extra policy.
	partial := t.TempDir()
	for s := 1; s <= 2; s++ {
		writeRun(t, filepath.Join(partial, "policy=fifo", "trace=sample", "hw=fb-600", "seed="+string(rune('0'+s))), "fifo", uint64(s), 10, 5)
		writeRun(t, filepath.Join(partial, "policy=srpt", "trace=sample", "hw=fb-600", "seed="+string(rune('0'+s))), "srpt", uint64(s), 10, 5)
	}
	// A candidate that replayed a shorter trace for one cell.
	short := t.TempDir()
	for s := 1; s <= 5; s++ {
		for _, p := range []string{"fair", "fifo", "capacity"} {
			n := 10
			if p == "fifo" {
				n = 9
			}
			writeRun(t, filepath.Join(short, "policy="+p, "trace=sample", "hw=fb-600", "seed="+string(rune('0'+s))), p, uint64(s), n, 5)
		}
	}
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no candidate", []string{"--baseline", base}, 2, []string{"--baseline and --candidate are both required", "Usage: report compare"}},
		{"positional", []string{"--baseline", base, "--candidate", cand, "extra"}, 2, []string{`unexpected argument "extra"`}},
		{"bad rule", []string{"--baseline", base, "--candidate", cand, "--fail-on", "flowtime.p95>+5%,locality<2pt"}, 2,
			[]string{"--fail-on: rule 2:", "a '<' rule needs a change of that sign"}},
		{"unknown metric", []string{"--baseline", base, "--candidate", cand, "--fail-on", "latency>+5%"}, 2, []string{`unknown metric "latency"`}},
		{"bad TOML", []string{"--baseline", base, "--candidate", cand, "--fail-on-file", badTOML}, 2, []string{"--fail-on-file", badTOML}},
		{"missing baseline", []string{"--baseline", filepath.Join(dir, "nope"), "--candidate", cand}, 2, []string{"cannot read the baseline", "no such directory"}},
		{"missing cells", []string{"--baseline", base, "--candidate", partial}, 2, []string{
			"cannot compare: the result sets have different cells",
			"only in the baseline: policy=capacity hw=fb-600 trace=sample, policy=fair hw=fb-600 trace=sample",
			"only in the candidate: policy=srpt hw=fb-600 trace=sample"}},
		{"different traces", []string{"--baseline", base, "--candidate", short}, 2, []string{"cell policy=fifo hw=fb-600 trace=sample: seed 1: different traces: 10 jobs in the baseline"}},
		{"markdown not writable", []string{"--baseline", base, "--candidate", base, "--markdown", filepath.Join(notDir, "x.md")}, 1, []string{"cannot write the Markdown summary"}},
		{"unknown flag", []string{"--base", base}, 2, []string{"report: bad usage: unknown flag --base (see report compare --help)\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(append([]string{"compare"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty on error: %q", stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestCompareHelp(t *testing.T) {
	code, out, _ := runCmd("compare", "--help")
	if code != 0 || !strings.Contains(out, "Usage: report compare") || !strings.Contains(out, "flowtime.p95, flowtime.p99") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

// TestCompareUntestedFails is issue 10 item 10: with one seed a +200% flowtime
// change passed the gate as "untested". It now fails (exit 1) unless
// --allow-untested; the JUnit file counts it as a failure.
func TestCompareUntestedFails(t *testing.T) {
	base, cand := t.TempDir(), t.TempDir()
	dir := filepath.Join("policy=fair", "seed=1")
	writeRun(t, filepath.Join(base, dir), "fair", 1, 10, 2)
	writeRun(t, filepath.Join(cand, dir), "fair", 1, 10, 6)
	junit := filepath.Join(t.TempDir(), "c.xml")
	code, stdout, stderr := runCmd("compare", "--baseline", base, "--candidate", cand, "--fail-on", "flowtime.mean>+5%", "--junit", junit)
	if code != 1 || !strings.Contains(stderr, "1 untested change beyond a limit") || !strings.Contains(stderr, "--allow-untested") {
		t.Fatalf("exit %d, stderr %q; want exit 1 for the untested change", code, stderr)
	}
	if !strings.Contains(stdout, "FAIL untested +5%") || !strings.Contains(stdout, "Failed checks:\n  fair: flowtime.mean changed +22.000 s (+200.0%), beyond flowtime.mean>+5%, untested (1 seed)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	xb, _ := os.ReadFile(junit)
	if !strings.Contains(string(xb), `failures="1"`) || !strings.Contains(string(xb), `type="untested"`) {
		t.Errorf("JUnit:\n%s", xb)
	}
	code, stdout, stderr = runCmd("compare", "--baseline", base, "--candidate", cand, "--fail-on", "flowtime.mean>+5%", "--allow-untested")
	if code != 0 || !strings.Contains(stdout, "untested +5%") || strings.Contains(stdout, "FAIL") {
		t.Fatalf("--allow-untested: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}
