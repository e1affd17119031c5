package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// TestSlurmSweep runs a sweep on a real one-node Slurm (scripts/slurm-local.sh,
// Debian's slurmctld, slurmd, slurm-client and munge) through the recipe in
// deploy/slurm: a 3-shard array and its afterok merge give the results of
// replay --experiment on one machine, byte for byte; a shard run again skips
// every cell; a shard killed (SIGKILL) mid-run and run again gives the same
// results. It runs in the full suite (internal/testgate), and skips without
// sbatch or root, except with CI=true.
func TestSlurmSweep(t *testing.T) {
	testgate.Require(t, testgate.Full, "starts a Slurm cluster, 30 s")
	for _, b := range []string{"sbatch", "slurmctld", "slurmd", "munged"} {
		if _, err := exec.LookPath(b); err != nil {
			testgate.Unavailable(t, b+" not installed (apt-get install slurmctld slurmd slurm-client munge)")
		}
	}
	if os.Geteuid() != 0 {
		testgate.Unavailable(t, "slurmd must run as root")
	}
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()
	bin := filepath.Join(dir, "replay")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t0 := time.Now()
	state := filepath.Join(dir, "slurm")
	env := append(os.Environ(), "SLURM_CONF="+filepath.Join(state, "slurm.conf"), "REPLAY="+bin,
		fmt.Sprintf("SLURM_LOCAL_PORT=%d", freePortPair(t)))
	sh := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = env
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr)
		}
		return strings.TrimSpace(string(out))
	}
	script := filepath.Join(root, "scripts", "slurm-local.sh")
	sh(script, "start", state)
	t.Cleanup(func() {
		out, err := exec.Command(script, "stop", state).CombinedOutput()
		if err != nil {
			t.Errorf("slurm-local.sh stop: %v\n%s", err, out)
		}
	})
	t.Logf("Slurm up in %.1f s", time.Since(t0).Seconds())

	// 10 cells of the whole FB-2009 day, about 0.4 s each: shard 0 of 3 has 4.
	tr, _ := filepath.Abs("../../samples/traces/fb2009-day.tsv")
	spec := filepath.Join(dir, "day.toml")
	body := fmt.Sprintf("name = \"day\"\npolicies = [\"fifo\", \"fair\"]\nseeds = [1, 2, 3, 4, 5]\n[[traces]]\nname = \"fb2009-day\"\npath = %q\n", tr)
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one")
	sh(bin, "--experiment", spec, "--out", one, "--quiet", "--parallel", "1")
	logs := filepath.Join(dir, "logs")
	os.MkdirAll(logs, 0o755)
	submit := filepath.Join(root, "deploy", "slurm", "submit.sh")
	shardScript := filepath.Join(root, "deploy", "slurm", "sweep.sbatch")
	logOpt := "--output=" + logs + "/%x-%A_%a.out"

	// The array of 3 shards and the merge after it.
	t1 := time.Now()
	out := filepath.Join(dir, "sweep")
	ids := strings.Fields(sh(submit, spec, out, "3", logOpt))
	if len(ids) != 2 {
		t.Fatalf("submit.sh printed %q, want two job ids", ids)
	}
	waitJobs(t, sh, ids[1], "COMPLETED")
	waitJobs(t, sh, ids[0], "COMPLETED")
	t.Logf("3 shards + merge: %.1f s", time.Since(t1).Seconds())
	sameResults(t, one, out)
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Fatal(err)
	}

	// Shard 1 again: every cell skipped.
	t2 := time.Now()
	again := sh("sbatch", "--parsable", "--array=1", logOpt, shardScript, spec, out, "3")
	waitJobs(t, sh, again, "COMPLETED")
	if log := readLog(t, logs, again); !strings.Contains(log, "3 cells: 0 run, 3 skipped") {
		t.Fatalf("shard 1 run again did not skip its 3 cells:\n%s", log)
	}
	t.Logf("shard 1 again, all skipped: %.1f s", time.Since(t2).Seconds())

	// Shard 0 killed after its first cell, then the whole sweep resubmitted.
	t3 := time.Now()
	out2 := filepath.Join(dir, "killed")
	killed := sh("sbatch", "--parsable", "--array=0", logOpt, shardScript, spec, out2, "3")
	deadline := time.Now().Add(3 * time.Minute)
	var done []string
	for len(done) == 0 && time.Now().Before(deadline) {
		done, _ = filepath.Glob(filepath.Join(out2, "policy=*", "trace=*", "hw=*", "seed=*", cellFile))
		time.Sleep(10 * time.Millisecond)
	}
	sh("scancel", "--signal=KILL", "--full", killed)
	waitJobs(t, sh, killed, "")
	done, _ = filepath.Glob(filepath.Join(out2, "policy=*", "trace=*", "hw=*", "seed=*", cellFile))
	if len(done) == 0 || len(done) >= 4 {
		t.Fatalf("shard 0 killed with %d of its 4 cells done: not mid-run", len(done))
	}
	noHalfCells(t, out2)
	t.Logf("shard 0 killed with %d of 4 cells done", len(done))
	ids = strings.Fields(sh(submit, spec, out2, "3", logOpt))
	waitJobs(t, sh, ids[1], "COMPLETED")
	if log := readLog(t, logs, ids[0]+"_0"); !strings.Contains(log, fmt.Sprintf("4 cells: %d run, %d skipped", 4-len(done), len(done))) {
		t.Fatalf("shard 0 rerun:\n%s", log)
	}
	sameResults(t, one, out2)
	t.Logf("kill, rerun, merge: %.1f s; whole test %.1f s", time.Since(t3).Seconds(), time.Since(t0).Seconds())
}

// freePortPair returns a port P such that P and P+1 are free on 127.0.0.1
// (slurmctld and slurmd).
func freePortPair(t *testing.T) int {
	t.Helper()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+1))
		l.Close()
		if err == nil {
			l2.Close()
			return p
		}
	}
	t.Fatal("no two consecutive free ports")
	return 0
}

// waitJobs waits until every task of job id has ended and, when want is set,
// checks that each ended in that state.
func waitJobs(t *testing.T, sh func(string, ...string) string, id, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		out := sh("scontrol", "show", "job", "-o", id)
		var states []string
		ended := true
		for _, line := range strings.Split(out, "\n") {
			for _, f := range strings.Fields(line) {
				if s, ok := strings.CutPrefix(f, "JobState="); ok {
					states = append(states, s)
					switch s {
					case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED":
					default:
						ended = false
					}
				}
			}
		}
		if ended && len(states) > 0 {
			for _, s := range states {
				if want != "" && s != want {
					t.Fatalf("job %s ended %v, want %s:\n%s", id, states, want, out)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not done after 5 minutes: %v", id, states)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readLog returns the output of array task id (JOB_TASK) or job id.
func readLog(t *testing.T, logs, id string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(logs, "*-"+id+"*.out"))
	if !strings.Contains(id, "_") {
		m, _ = filepath.Glob(filepath.Join(logs, "*-"+id+"_*.out"))
	}
	var b strings.Builder
	for _, f := range m {
		s, _ := os.ReadFile(f)
		b.Write(s)
	}
	return b.String()
}
