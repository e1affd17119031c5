package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// ingestTree reads a tree of job histories and writes it as a trace directory,
// as ingest does.
func ingestTree(t *testing.T, root string) string {
	t.Helper()
	tr, _, err := trace.ReadTree(context.Background(), root, trace.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "trace")
	if err := trace.Write(out, tr); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTraceModeGolden: the five .jhist samples replayed on the cluster derived
// from them (one rack per the histories' racks; slots from the busiest host)
// with the observed row beside the policies.
func TestTraceModeGolden(t *testing.T) {
	t.Parallel()
	dir := ingestTree(t, filepath.Join("..", "..", "trace", "testdata", "jhist"))
	code, out, errOut := runCmd("--trace", dir, "--policy", "fifo,fair,coupling,observed", "--seed", "3", "--check-invariants")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkGolden(t, "tracemode.golden", out)
}

// TestIncompleteJobs: a history cut before its job-end event is an incomplete
// job, left out of every row unless --include-incomplete; then the observed
// row counts it unfinished and the policies replay it.
func TestIncompleteJobs(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", "trace", "testdata", "jhist")
	tree := t.TempDir()
	for _, name := range []string{
		"job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist",
		"job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist",
	} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(name, "TeraGen") { // drop the JOB_FINISHED event, the last line
			lines := bytes.SplitAfter(bytes.TrimRight(b, "\n"), []byte("\n"))
			if !bytes.Contains(lines[len(lines)-1], []byte(`"JOB_FINISHED"`)) {
				t.Fatalf("last line of %s is not the job end", name)
			}
			b = bytes.Join(lines[:len(lines)-1], nil)
		}
		if err := os.WriteFile(filepath.Join(tree, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := ingestTree(t, tree)
	tr, err := trace.Read(dir)
	if err != nil || len(tr.Jobs) != 2 {
		t.Fatalf("ingested %v: %v", tr, err)
	}
	for _, j := range tr.Jobs {
		if want := strings.HasPrefix(j.ID, "job_1416424547277"); (j.Status == trace.StatusIncomplete) != want {
			t.Fatalf("job %s has status %s", j.ID, j.Status)
		}
	}
	for _, c := range []struct {
		args []string
		want map[string]string // policy -> the start of its row after the name
	}{
		// QuasiMonteCarlo's history (and file name) say submit 1526555642677 ms,
		// finish 1526555658299 ms: an observed flowtime of 15.6 s.
		{nil, map[string]string{"fifo": "1 ", "observed": "1 15.6"}},
		{[]string{"--include-incomplete"}, map[string]string{"fifo": "2 0", "observed": "2 1"}},
	} {
		args := append([]string{"--trace", dir, "--policy", "fifo,observed", "--check-invariants"}, c.args...)
		code, out, errOut := runCmd(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) > 2 && c.want[f[0]] != "" {
				if got := f[1] + " " + f[2]; !strings.HasPrefix(got, c.want[f[0]]) {
					t.Errorf("%v: %s row starts %q, want %q:\n%s", c.args, f[0], got, c.want[f[0]], out)
				}
				delete(c.want, f[0])
			}
		}
		if len(c.want) > 0 {
			t.Errorf("%v: no rows for %v in\n%s", c.args, c.want, out)
		}
	}
}

// TestTraceModeOutOfBandHeartbeat: the Gridmix trace's job confs say
// mapreduce.tasktracker.outofband.heartbeat = true, so the cluster derived
// from it heartbeats out of band; --set, applied after the derivation, wins.
func TestTraceModeOutOfBandHeartbeat(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", "trace", "testdata", "rumen", "trace_1m.json.gz")
	for _, c := range []struct {
		set  []string
		want bool
	}{
		{nil, true},
		{[]string{"--set", "out_of_band_heartbeat=false"}, false},
	} {
		out := filepath.Join(t.TempDir(), "runs")
		args := append([]string{"--quiet", "--trace", src, "--policy", "fifo", "--out", out}, c.set...)
		if code, _, errOut := runCmd(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.set, code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Runs []struct {
				Hardware map[string]any `json:"hardware"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if len(m.Runs) != 1 || m.Runs[0].Hardware["name"] != "trace-derived" {
			t.Fatalf("%v: runs %+v, want one on the trace-derived cluster", c.set, m.Runs)
		}
		if got := m.Runs[0].Hardware["out_of_band_heartbeat"]; got != c.want {
			t.Errorf("%v: out_of_band_heartbeat %v, want %v", c.set, got, c.want)
		}
	}
}
