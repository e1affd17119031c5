package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/golden"
	"github.com/tracereplay/tracereplay/report/preset/workloads"
	"github.com/tracereplay/tracereplay/trace"
)

const sample = "../../samples/traces/fb2009-first50.tsv"

func gzipFile(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCLI(t *testing.T) {
	cases := []struct {
		name    string
		args    []string // OUT is replaced by the output directory
		stdin   []byte
		setup   func(t *testing.T, out string)
		wantOut bool // whether OUT must exist afterwards
	}{
		{name: "help", args: []string{"--help"}},
		{name: "sample", args: []string{"--out", "OUT", sample}, wantOut: true},
		{name: "stdin-gzip", args: []string{"--out", "OUT", "--format", "swim", "-"}, stdin: gzipFile(t, sample), wantOut: true},
		{name: "merge", args: []string{"--out", "OUT", "testdata/small.tsv", sample}, wantOut: true},
		{name: "gap-mismatch-warns", args: []string{"--out", "OUT", "testdata/gap-mismatch.tsv"}, wantOut: true},
		{name: "gap-mismatch-strict", args: []string{"--out", "OUT", "--strict", "testdata/gap-mismatch.tsv"}},
		{name: "bad-columns", args: []string{"--out", "OUT", "testdata/bad-columns.tsv"}},
		{name: "negative-bytes", args: []string{"--out", "OUT", "testdata/negative-bytes.tsv"}},
		{name: "time-backwards", args: []string{"--out", "OUT", "testdata/time-backwards.tsv"}},
		{name: "bad-second-input", args: []string{"--out", "OUT", sample, "testdata/negative-bytes.tsv"}},
		{name: "undetectable", args: []string{"--out", "OUT", "testdata/not-swim.csv"}},
		{name: "missing-file", args: []string{"--out", "OUT", "testdata/no-such-file.tsv"}},
		{name: "unknown-flag", args: []string{"--out", "OUT", "--bogus", sample}},
		{name: "unknown-format", args: []string{"--out", "OUT", "--format", "csv", sample}},
		{name: "no-out", args: []string{sample}},
		{name: "no-inputs", args: []string{"--out", "OUT"}},
		{name: "stdin-twice", args: []string{"--out", "OUT", "-", "-"}},
		{name: "tree-jhist", args: []string{"--out", "OUT", "../../trace/testdata/jhist"}, wantOut: true},
		{name: "tree-with-broken", args: []string{"--out", "OUT", "../../trace/testdata/jhist", "testdata/tree-broken"}, wantOut: true},
		{name: "tree-broken-strict", args: []string{"--out", "OUT", "--strict", "../../trace/testdata/jhist", "testdata/tree-broken"}},
		{name: "tree-only-broken", args: []string{"--out", "OUT", "testdata/tree-broken"}},
		{name: "tree-no-histories", args: []string{"--out", "OUT", "testdata/tree-no-histories"}},
		{name: "tree-rumen-topology", args: []string{"--out", "OUT", "--workers", "1", "../../trace/testdata/rumen"}, wantOut: true},
		{name: "tree-format-filter", args: []string{"--out", "OUT", "--format", "jhist", "../../trace/testdata/rumen"}},
		{name: "tree-format-swim", args: []string{"--out", "OUT", "--format", "swim", "../../trace/testdata/jhist"}},
		{name: "jhist-file", args: []string{"--out", "OUT", "../../trace/testdata/jhist/job_2.4.0-FAILED.jhist"}, wantOut: true},
		{name: "hadoop1-topology", args: []string{"--out", "OUT", "--topology", "../../trace/testdata/rumen/truncated-topology-output",
			"../../trace/testdata/hadoop1/v20-single-input-log.gz"}, wantOut: true},
		{name: "bad-topology", args: []string{"--out", "OUT", "--topology", sample, sample}},
		{name: "generate", args: []string{"--out", "OUT", "--generate", "synthetic", "--param", "jobs=5", "--param", "maps=list",
			"--param", "maps_values=2,3", "--param", "map_time=normal", "--param", "map_time_sd_s=60", "--seed", "7"}, wantOut: true},
		{name: "generate-bad-param", args: []string{"--out", "OUT", "--generate", "synthetic", "--param", "jobs=0", "--param", "mpas=3"}},
		{name: "generate-not-key-value", args: []string{"--out", "OUT", "--generate", "synthetic", "--param", "jobs"}},
		{name: "generate-resample", args: []string{"--out", "OUT", "--generate", "swim-resample", "--param", "trace=" + sample,
			"--param", "days=2", "--param", "block_s=600", "--seed", "3"}, wantOut: true},
		{name: "generate-resample-bad", args: []string{"--out", "OUT", "--generate", "swim-resample", "--param", "trace=" + sample,
			"--param", "days=-1", "--param", "block_s=0"}},
		{name: "generate-resample-no-trace", args: []string{"--out", "OUT", "--generate", "swim-resample", "--param", "trace=testdata/no-such-file.tsv"}},
		{name: "generate-unknown", args: []string{"--out", "OUT", "--generate", "bogus"}},
		{name: "generate-with-file", args: []string{"--out", "OUT", "--generate", "synthetic", sample}},
		{name: "param-without-generate", args: []string{"--out", "OUT", "--param", "jobs=3"}},
		{name: "foreign-out-dir", args: []string{"--out", "OUT", sample}, setup: func(t *testing.T, out string) {
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, "thesis.tex"), []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, wantOut: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "trace")
			if c.setup != nil {
				c.setup(t, out)
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, bytes.NewReader(c.stdin), &stdout, &stderr)
			got := fmt.Sprintf("$ ingest %s\nexit: %d\n-- stdout --\n%s-- stderr --\n%s",
				strings.Join(c.args, " "), code, stdout.String(), stderr.String())
			got = strings.ReplaceAll(got, out, "OUT")
			golden.Check(t, filepath.Join("testdata", c.name+".golden"), []byte(got))
			_, statErr := os.Stat(out)
			if exists := statErr == nil; exists != c.wantOut {
				t.Errorf("output directory exists = %v, want %v", exists, c.wantOut)
			}
			entries, _ := os.ReadDir(filepath.Dir(out))
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("temporary %s left behind", e.Name())
				}
			}
		})
	}
}

func TestCLIExitCodes(t *testing.T) {
	// The golden files hold the codes too; this states the contract directly.
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"--help"}, exitOK},
		{[]string{"--out", "OUT", sample}, exitOK},
		{[]string{"--out", "OUT", "testdata/bad-columns.tsv"}, exitUsage},
		{[]string{"--out", "OUT", "--format", "nope", sample}, exitUsage},
		{[]string{"--nope"}, exitUsage},
		{[]string{"--out", "OUT", "--generate", "synthetic", "--param", "jobs=3"}, exitOK},
		{[]string{"--out", "OUT", "--generate", "synthetic", "--param", "arrival=bursty"}, exitUsage},
		{[]string{"--out", "OUT", "--generate", "synthetic", "--workers", "2"}, exitUsage},
		{[]string{"--out", "OUT", "--generate", "swim-resample", "--param", "days=3"}, exitUsage},
		{[]string{"--out", "OUT", "--generate", "swim-resample", "--param", "trace=" + sample, "--param", "days=x"}, exitUsage},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "trace")
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = strings.ReplaceAll(a, "OUT", out)
		}
		var stdout, stderr bytes.Buffer
		if got := run(context.Background(), args, nil, &stdout, &stderr); got != c.want {
			t.Errorf("ingest %v: exit %d, want %d (stderr %q)", c.args, got, c.want, stderr.String())
		}
	}
}

func TestRoundTripSample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--out", out, sample}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := trace.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	want, err := trace.ReadSWIM(sample, fh, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Jobs) != 50 || !reflect.DeepEqual(got.Jobs, want.Jobs) || len(got.Tasks) != 0 {
		t.Errorf("jobs read back differ from the SWIM file's (%d vs %d jobs)", len(got.Jobs), len(want.Jobs))
	}
	m := got.Meta
	if m.SchemaVersion != trace.SchemaVersion || m.SourceFormat != "swim" || !reflect.DeepEqual(m.Sources, []string{sample}) ||
		!reflect.DeepEqual(m.Options, map[string]string{"format": "auto", "strict": "false"}) ||
		!strings.HasPrefix(m.Tool, "tracereplay ingest ") {
		t.Errorf("meta = %+v", m)
	}
	// Same input, same bytes.
	out2 := filepath.Join(t.TempDir(), "trace")
	if code := run(context.Background(), []string{"--out", out2, sample}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	a, _ := os.ReadFile(filepath.Join(out, trace.JobsFile))
	b, _ := os.ReadFile(filepath.Join(out2, trace.JobsFile))
	if !bytes.Equal(a, b) {
		t.Errorf("two ingests of the same file gave different jobs.parquet")
	}
}

func TestMergeQualifiesSWIMIDs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--out", out, "testdata/small.tsv", "testdata/small.tsv"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := trace.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var ids, paths []string
	for _, j := range got.Jobs {
		ids = append(ids, j.ID+"/"+j.Name)
		paths = append(paths, j.InputPath)
	}
	wantIDs := []string{"f1:job0/job0", "f2:job0/job0", "f1:job1/job1", "f2:job1/job1"}
	wantPaths := []string{"f1:inputPath1", "f2:inputPath1", "f1:inputPath2", "f2:inputPath2"}
	if !reflect.DeepEqual(ids, wantIDs) || !reflect.DeepEqual(paths, wantPaths) {
		t.Errorf("ids %v paths %v; want %v %v", ids, paths, wantIDs, wantPaths)
	}
}

// TestRoundTripTree ingests a directory and reads the trace back: the jobs and
// tasks are those ReadTree gives, with every field the history readers fill.
func TestRoundTripTree(t *testing.T) {
	const dir = "../../trace/testdata/jhist"
	out := filepath.Join(t.TempDir(), "trace")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--out", out, dir}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := trace.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := trace.ReadTree(context.Background(), dir, trace.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Jobs, want.Jobs) {
		t.Errorf("jobs read back differ:\n got %+v\nwant %+v", got.Jobs, want.Jobs)
	}
	if !reflect.DeepEqual(got.Tasks, want.Tasks) {
		for i := range want.Tasks {
			if i < len(got.Tasks) && !reflect.DeepEqual(got.Tasks[i], want.Tasks[i]) {
				t.Errorf("task %d read back differs:\n got %+v\nwant %+v", i, got.Tasks[i], want.Tasks[i])
				break
			}
		}
	}
	if got.Meta.SourceFormat != "jhist" || !reflect.DeepEqual(got.Meta.Sources, []string{dir}) {
		t.Errorf("meta %+v", got.Meta)
	}
}

// TestGenerateDeterministic: --generate with the same parameters and seed
// writes byte-identical files, and the trace is the generator's.
func TestGenerateDeterministic(t *testing.T) {
	args := []string{"--generate", "synthetic", "--param", "jobs=4", "--param", "map_time=exponential", "--seed", "3"}
	var files [2][]byte
	for i := range files {
		out := filepath.Join(t.TempDir(), "trace")
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"--out", out}, args...), nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, trace.TasksFile))
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
		got, err := trace.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := workloads.Generate("synthetic", trace.GenParams{"jobs": "4", "map_time": "exponential"}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Jobs, want.Jobs) || !reflect.DeepEqual(got.Tasks, want.Tasks) {
			t.Error("the written trace differs from the generator's")
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two runs wrote different tasks.parquet")
	}
}
