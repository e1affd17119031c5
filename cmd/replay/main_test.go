package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tracereplay/tracereplay/internal/golden"
	"github.com/tracereplay/tracereplay/internal/testgate"
)

// binDir holds ingest and report, got once per test binary (by buildTools) for
// the end-to-end scripts and TestSweepS3, and removed when the tests end.
var (
	binDir   string
	binErr   error
	binOnce  sync.Once
	binClean func()
)

// mainCmd is the name under which the test binary runs this package's main
// (signal handling and all), as the built replay binary would: tests that
// need the real binary exec the test binary itself (see mainBinary) instead
// of linking a new one, which costs several CPU-seconds.
const mainCmd = "replay-main"

func TestMain(m *testing.M) {
	testscript.Main(cleanupM{m}, map[string]func(){
		"replay": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		mainCmd:  main,
	})
}

// cleanupM removes the tools built by buildTools once the tests have run.
type cleanupM struct{ m *testing.M }

func (c cleanupM) Run() int {
	code := c.m.Run()
	if binClean != nil {
		binClean()
	}
	return code
}

// buildTools gets ingest and report once for the whole test binary and
// returns a directory that holds them (links to the executables). Since Go
// 1.24 go run keeps the executables it links in the build cache, so it asks
// `go run -exec echo` for each (toolPath): with a warm cache that costs about
// a fifth of the CPU of linking them with go build, and the executable is the
// one go run would run (without DWARF, which the tests do not read).
func buildTools(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "replay-test-tools-")
		if err != nil {
			binErr = err
			return
		}
		binClean = func() { os.RemoveAll(dir) }
		for _, cmd := range []string{"ingest", "report"} {
			exe, err := toolPath(cmd)
			if err == nil {
				err = os.Symlink(exe, filepath.Join(dir, cmd))
			}
			if err != nil {
				binErr = err
				return
			}
		}
		binDir = dir
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

// toolPath returns the path of the executable go run links for ../cmd, in
// the build cache. `go run -exec echo` prints it instead of running it; on a
// cache miss it prints a temporary path that is gone when go run returns
// (having cached the executable), and the second call prints the cached one.
func toolPath(cmd string) (string, error) {
	for range 2 {
		out, err := exec.Command("go", "run", "-exec", "echo", "../"+cmd).Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			return "", fmt.Errorf("go run -exec echo ../%s: %v\n%s", cmd, err, stderr)
		}
		exe := strings.TrimSpace(string(out))
		if filepath.Base(exe) != cmd || !filepath.IsAbs(exe) {
			return "", fmt.Errorf("go run -exec echo ../%s printed %q, want the path of an executable named %s", cmd, out, cmd)
		}
		if _, err := os.Stat(exe); err == nil {
			return exe, nil
		}
	}
	return "", fmt.Errorf("go run -exec echo ../%s: the executable it named is gone twice (is the build cache off?)", cmd)
}

// mainBinary returns the path of an executable named replay-main that runs
// this package's main: a link to the test binary, which TestMain dispatches
// on its name.
func mainBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), mainCmd)
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestScripts runs the end-to-end scripts in testdata/script: ingest, replay and
// report as a user runs them, on the bundled 50-job sample.
func TestScripts(t *testing.T) {
	bin := buildTools(t)
	root, _ := filepath.Abs("../..")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("ROOT", root)
			return nil
		},
	})
}

// first50 is the 50-job sample (the first 47 minutes of FB-2009): tests that
// need a quick run pass it with --trace, since `replay` with no --trace replays
// the embedded whole day (5,894 jobs, several CPU-seconds a policy set).
const first50 = "../../samples/traces/fb2009-first50.tsv"

func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

// checkGolden compares out with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name, out string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(out))
}

// TestDefaultRunGolden: `replay` with no arguments replays the embedded sample
// (the whole FB-2009 day) through every policy and prints the summary table,
// identically every time and whatever --parallel. The day costs about 7
// CPU-seconds a run, so -short replays it through fifo alone and checks fifo's
// row against the golden table, and checks --parallel on the 50-job sample.
func TestDefaultRunGolden(t *testing.T) {
	t.Parallel()
	if testgate.IsFast() {
		code, out, errOut := runCmd("--policy", "fifo")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "default.golden"))
		if err != nil {
			t.Fatal(err)
		}
		if got, w := policyRow(out, "fifo"), policyRow(string(want), "fifo"); got == "" || got != w {
			t.Errorf("fifo on the default trace: row %q, want %q as in testdata/default.golden", got, w)
		}
		_, p2, _ := runCmd("--trace", first50, "--parallel", "2")
		if _, p1, _ := runCmd("--trace", first50, "--parallel", "1"); p1 != p2 || p1 == "" {
			t.Error("the table of the 50-job sample depends on --parallel")
		}
		return
	}
	code, out, errOut := runCmd("--parallel", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkGolden(t, "default.golden", out)
	if _, out2, _ := runCmd("--parallel", "1"); out2 != out {
		t.Error("the table depends on --parallel")
	}
}

// policyRow returns the fields of policy's row in a summary table, one space
// apart (the table's column widths depend on its other rows), or "".
func policyRow(table, policy string) string {
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == policy {
			return strings.Join(f, " ")
		}
	}
	return ""
}

// TestBadUsage: bad flags, policies, hardware keys and inputs exit 2 with a
// message naming what is wrong and what is valid, and write nothing.
func TestBadUsage(t *testing.T) {
	dir := t.TempDir()
	badHW := filepath.Join(dir, "bad.toml")
	os.WriteFile(badHW, []byte("racks = 2\ncolour = \"red\"\n"), 0o644)
	badTrace := filepath.Join(dir, "bad.tsv")
	os.WriteFile(badTrace, []byte("job0\t1\t1\t100\t50\t10\njob1\t0\t0\t100\t-5\t10\n"), 0o644)
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--policy", "bogus"}, `unknown policy "bogus"; valid policies: bar,`},
		{[]string{"--policy", "fair:colour=red"}, "unknown parameter colour; valid parameters:"},
		{[]string{"--hardware", badHW}, "unknown key colour; valid keys: name, racks"},
		{[]string{"--set", "replication=0"}, "replication must be in 1..64"},
		{[]string{"--set", "network=flow", "--set", "disk_mb_per_s=0"}, "disk_mb_per_s = 0: want a finite rate"},
		{[]string{"--set", "nonsense"}, "want KEY=VALUE"},
		{[]string{"--trace", badTrace, "--out", out}, "bad.tsv:2:"},
		{[]string{"--trace", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"--experiment", filepath.Join(dir, "missing.toml")}, "no such file"},
		{[]string{"--no-such-flag"}, "replay: bad usage: unknown flag --no-such-flag (see replay --help)\n"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, c := range cases {
		code, _, errOut := runCmd(c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("replay %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s behind", out)
	}
}

// TestOutRefusesForeignDirectory: --out never replaces a directory that is not a
// results directory.
func TestOutRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("precious"), 0o644)
	code, _, errOut := runCmd("--trace", first50, "--policy", "fifo", "--out", dir, "--quiet")
	if code != 2 || !strings.Contains(errOut, "not a results directory") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "thesis.tex")); string(b) != "precious" {
		t.Fatal("the directory was touched")
	}
}
