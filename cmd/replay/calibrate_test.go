package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// sharedTraces is ../shared/traces beside the repository root, or
// $TRACEREPLAY_TRACES (for a worktree elsewhere).
func sharedTraces() string {
	if d := os.Getenv("TRACEREPLAY_TRACES"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "traces")
}

func TestCalibrateWritesLoadableModel(t *testing.T) {
	t.Parallel()
	in := filepath.Join(sharedTraces(), "rumen/apache-hadoop-branch-1-rumen-testdata/small-trace-test/folder-input-trace.json.gz")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("shared traces not present: %v", err)
	}
	out := filepath.Join(t.TempDir(), "hw.toml")
	code, _, stderr := runCmd("calibrate", "--trace", in, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	hw, err := replay.LoadHardware(out)
	if err != nil {
		t.Fatalf("calibrated model does not load: %v", err)
	}
	if hw.Name != "calibrated" || hw.MapSlots < 1 {
		t.Errorf("name %q, map_slots %d", hw.Name, hw.MapSlots)
	}
	b, _ := os.ReadFile(out)
	for _, want := range []string{"task_startup = ", "map_compute_mb_per_s = ", "samples."} {
		if !strings.Contains(string(b), want) {
			t.Errorf("hw.toml lacks %q", want)
		}
	}
}

// TestCalibrateForFlow: --network flow fits the flow model's formulas and
// writes network = "flow" (replay/calibrate_flow.go); the file loads as a
// flow model. Without it the file names no network (fixed).
func TestCalibrateForFlow(t *testing.T) {
	for _, args := range [][]string{{"--network", "flow"}, nil} {
		out := filepath.Join(t.TempDir(), "hw.toml")
		code, _, stderr := runCmd(append([]string{"calibrate", "--trace", rawHadoop1Dir, "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		hw, err := replay.LoadHardware(out)
		if err != nil {
			t.Fatalf("%v: calibrated model does not load: %v", args, err)
		}
		b, _ := os.ReadFile(out)
		flow := strings.Contains(string(b), `network = "flow"`)
		if want := args != nil; flow != want || (hw.Network == "flow") != want {
			t.Errorf("%v: network = %q, file names flow %v; want flow %v", args, hw.Network, flow, want)
		}
	}
}

// rawHadoop1Dir is a directory of raw Hadoop 1 JobTracker history logs and
// their confs, as a cluster leaves them (two jobs; committed for the
// validation harness).
const rawHadoop1Dir = "../../internal/validation/testdata/traces/hadoop1/apache-hadoop-branch-1-rumen-testdata/counters-format-test-logs"

// TestCalibrateRawDirectory: calibrate reads a directory of raw job histories
// as ingest does (trace.ReadTree), and fits the same model as from the trace
// ingest writes from it.
func TestCalibrateRawDirectory(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.toml")
	code, _, stderr := runCmd("calibrate", "--trace", rawHadoop1Dir, "--out", raw)
	if code != 0 {
		t.Fatalf("raw directory: exit %d: %s", code, stderr)
	}
	tr, _, err := trace.ReadTree(context.Background(), rawHadoop1Dir, trace.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ingested := filepath.Join(dir, "ingested")
	if err := trace.Write(ingested, tr); err != nil {
		t.Fatal(err)
	}
	fromIngested := filepath.Join(dir, "ingested.toml")
	if code, _, stderr := runCmd("calibrate", "--trace", ingested, "--out", fromIngested); code != 0 {
		t.Fatalf("ingested directory: exit %d: %s", code, stderr)
	}
	a, errA := replay.LoadHardware(raw)
	b, errB := replay.LoadHardware(fromIngested)
	if errA != nil || errB != nil {
		t.Fatalf("load: %v, %v", errA, errB)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the raw directory and its ingested trace give different models:\n%+v\n%+v", a, b)
	}
}

func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "hw.toml")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	swim := filepath.Join(dir, "swim.tsv")
	if err := os.WriteFile(swim, []byte("job0\t49\t0\t1000\t500\t100\njob1\t60\t11\t2000\t0\t10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no schedule", []string{"--trace", swim, "--format", "swim", "--out", out}, "records no schedule"},
		{"no out", []string{"--trace", swim}, "--trace and --out are both required"},
		{"missing trace", []string{"--trace", filepath.Join(dir, "nope"), "--out", out}, "no such file"},
		{"directory without histories", []string{"--trace", empty, "--out", out}, "no job histories found"},
		{"directory, file format", []string{"--trace", empty, "--format", "swim", "--out", out}, "--format swim reads files, not directories"},
		{"unknown network", []string{"--trace", swim, "--network", "mesh", "--out", out}, `network "mesh": want one of fixed, bar, flow`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"calibrate"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d (want 2), stderr %q (want %q)", code, stderr, tc.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written on bad input", out)
			}
		})
	}
}

// TestCalibrateSameHistoryTwice: a directory holding the same history twice
// (as a .jhist beside its Rumen conversion would) fits the model one copy
// fits, and stderr names the copies left out.
func TestCalibrateSameHistoryTwice(t *testing.T) {
	const history = "../../internal/validation/testdata/traces/hadoop1/apache-hadoop-branch-1-rumen-testdata/sample-job-tracker-logs.gz"
	data, err := os.ReadFile(history)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var models [2]string
	for n := 1; n <= 2; n++ {
		in := filepath.Join(dir, fmt.Sprintf("copies%d", n))
		for i := range n {
			if err := os.MkdirAll(in, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("copy%d.gz", i)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		models[n-1] = filepath.Join(dir, fmt.Sprintf("hw%d.toml", n))
		code, _, stderr := runCmd("calibrate", "--trace", in, "--out", models[n-1])
		if code != 0 {
			t.Fatalf("%d copies: exit %d: %s", n, code, stderr)
		}
		if dup := strings.Contains(stderr, "duplicate job(s) counted once") && strings.Contains(stderr, "job_200904211745_0002#2"); dup != (n == 2) {
			t.Errorf("%d copies: stderr names the duplicates: %v, want %v:\n%s", n, dup, n == 2, stderr)
		}
	}
	a, errA := replay.LoadHardware(models[0])
	b, errB := replay.LoadHardware(models[1])
	if errA != nil || errB != nil {
		t.Fatalf("load: %v, %v", errA, errB)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("one copy and two copies give different models:\n%+v\n%+v", a, b)
	}
}
