package report

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/results"
)

func TestLoadRoundTrip(t *testing.T) {
	root := t.TempDir()
	want := []Run{
		seqRun(map[string]string{"policy": "fair", "hw": "a", "seed": "1"}, 5, 1),
		seqRun(map[string]string{"policy": "fair", "hw": "a", "seed": "2"}, 6, 1),
		seqRun(map[string]string{"policy": "fifo", "hw": "a", "seed": "1"}, 7, 2),
	}
	for i := range want {
		want[i].Dir = filepath.Join(root, "policy="+want[i].Policy, "hw=a", "seed="+want[i].Labels["seed"])
		writeRunDir(t, want[i].Dir, want[i])
	}
	// Noise the loader must ignore: the manifest and a directory without jobs.
	if err := os.WriteFile(filepath.Join(root, "manifest.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "policy=fair", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}

	got, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("Load found %d runs, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("run %d differs after the round trip:\n got %+v\nwant %+v", i, got[i].Labels, want[i].Labels)
		}
	}
}

func TestLoadSingleRunDirectory(t *testing.T) {
	parent := t.TempDir()
	r := seqRun(map[string]string{"policy": "fair"}, 3, 1)
	dir := filepath.Join(parent, "policy=fair")
	writeRunDir(t, dir, r)
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Policy != "fair" || got[0].Dir != dir {
		t.Fatalf("Load(%s) = %d runs, first %q in %q", dir, len(got), got[0].Policy, got[0].Dir)
	}
}

func TestLoadPolicyNameFromSummaryOverPath(t *testing.T) {
	// cmd/replay writes '/' in a label value as '_'; run.json keeps the name.
	root := t.TempDir()
	r := seqRun(map[string]string{"policy": "mine/v2"}, 3, 1)
	writeRunDir(t, filepath.Join(root, "policy=mine_v2"), r)
	got, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Policy != "mine/v2" || got[0].Labels[PolicyLabel] != "mine/v2" {
		t.Errorf("policy %q, label %q; want mine/v2", got[0].Policy, got[0].Labels[PolicyLabel])
	}
}

func TestLoadPolicyFromSummary(t *testing.T) {
	root := t.TempDir()
	r := seqRun(map[string]string{"policy": "hfs-s"}, 3, 1)
	writeRunDir(t, filepath.Join(root, "run1"), r)
	got, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Policy != "hfs-s" || got[0].Labels[PolicyLabel] != "hfs-s" {
		t.Errorf("policy %q, label %q; want hfs-s from run.json", got[0].Policy, got[0].Labels[PolicyLabel])
	}
}

func TestPathLabels(t *testing.T) {
	tests := []struct {
		path    string
		want    map[string]string
		wantErr string
	}{
		{"out/policy=fair/hw=x/seed=3", map[string]string{"policy": "fair", "hw": "x", "seed": "3"}, ""},
		{"out/policy=fair:locality-delay=5s", map[string]string{"policy": "fair:locality-delay=5s"}, ""},
		{"a/b/c", map[string]string{}, ""},
		{"a/policy=/b", map[string]string{"policy": ""}, ""},
		{"a/=x", nil, "empty label key"},
		{"seed=1/seed=2", nil, `label "seed" given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := PathLabels(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("PathLabels(%q) error %v, want %q", tt.path, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("PathLabels(%q) = %v, %v; want %v", tt.path, got, err, tt.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	good := seqRun(map[string]string{"policy": "fair"}, 3, 1)
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) // root is an empty directory
		want  []string                        // substrings of the error
	}{
		{"missing root", func(t *testing.T, root string) { os.Remove(root) }, []string{"results", "no such directory"}},
		{"root is a file", func(t *testing.T, root string) {
			os.Remove(root)
			os.WriteFile(root, nil, 0o644)
		}, []string{"not a directory"}},
		{"no runs", func(t *testing.T, root string) {}, []string{"no run directory", results.JobsFile}},
		{"missing timeline", func(t *testing.T, root string) {
			writeRunDir(t, filepath.Join(root, "policy=fair"), good)
			os.Remove(filepath.Join(root, "policy=fair", results.TimelineFile))
		}, []string{results.TimelineFile, "no such file"}},
		{"missing run.json", func(t *testing.T, root string) {
			writeRunDir(t, filepath.Join(root, "policy=fair"), good)
			os.Remove(filepath.Join(root, "policy=fair", results.SummaryFile))
		}, []string{results.SummaryFile, "no such file"}},
		{"bad run.json", func(t *testing.T, root string) {
			writeRunDir(t, filepath.Join(root, "policy=fair"), good)
			os.WriteFile(filepath.Join(root, "policy=fair", results.SummaryFile), []byte(`{"jobs": "many"}`), 0o644)
		}, []string{results.SummaryFile, "jobs"}},
		{"not parquet", func(t *testing.T, root string) {
			writeRunDir(t, filepath.Join(root, "policy=fair"), good)
			os.WriteFile(filepath.Join(root, "policy=fair", results.JobsFile), []byte("job_id,flowtime\n1,2\n"), 0o644)
		}, []string{results.JobsFile, "not a Parquet file"}},
		{"truncated parquet", func(t *testing.T, root string) {
			writeRunDir(t, filepath.Join(root, "policy=fair"), good)
			p := filepath.Join(root, "policy=fair", results.TimelineFile)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)/2], 0o644)
		}, []string{results.TimelineFile}},
		{"other schema", func(t *testing.T, root string) {
			writeRunDir(t, filepath.Join(root, "policy=fair"), good)
			type other struct {
				Policy string `parquet:"policy"`
				JobID  string `parquet:"job_id"`
			}
			parquet.WriteFile(filepath.Join(root, "policy=fair", results.JobsFile), []other{{"fair", "j"}})
		}, []string{results.JobsFile, `column "job_index" missing`}},
		{"no job rows", func(t *testing.T, root string) {
			writeRunDir(t, filepath.Join(root, "policy=fair"), Run{Summary: good.Summary})
		}, []string{results.JobsFile, "no job rows"}},
		{"negative flowtime", func(t *testing.T, root string) {
			bad := seqRun(map[string]string{"policy": "fair"}, 3, 1)
			bad.Jobs[1].FlowtimeUs = -5
			writeRunDir(t, filepath.Join(root, "policy=fair"), bad)
		}, []string{results.JobsFile, "row 1", "job_001", "flowtime_us"}},
		{"no policy anywhere", func(t *testing.T, root string) {
			bad := seqRun(map[string]string{}, 3, 1)
			writeRunDir(t, filepath.Join(root, "run"), bad)
		}, []string{"no policy", "policy=NAME"}},
		{"duplicate label", func(t *testing.T, root string) {
			writeRunDir(t, filepath.Join(root, "seed=1", "policy=fair", "seed=2"), good)
		}, []string{`label "seed" given twice`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "results")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, root)
			_, err := Load(root)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// FuzzDecodeJobs feeds arbitrary bytes to the jobs reader: it must return rows or
// an error naming the file, never panic. checkParquet bounds what parquet-go
// may allocate (TestDecodeParquetBounds measures it), so executions stay cheap.
func FuzzDecodeJobs(f *testing.F) {
	for _, b := range seedParquet(f, jobRows(2)) {
		f.Add(b)
	}
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := results.DecodeParquet[results.JobRow]("jobs.parquet", bytes.NewReader(data), int64(len(data)))
		if err != nil && !strings.Contains(err.Error(), "jobs.parquet") {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}

// FuzzPathLabels checks that every label found comes from a key=value segment.
func FuzzPathLabels(f *testing.F) {
	f.Add("out/policy=fair/hw=x/seed=3")
	f.Add("a/=b")
	f.Add("k=1/k=2")
	f.Fuzz(func(t *testing.T, path string) {
		labels, err := PathLabels(path)
		if err != nil {
			return
		}
		for k, v := range labels {
			if k == "" || strings.Contains(k, "/") || strings.Contains(v, "/") {
				t.Errorf("PathLabels(%q): bad label %q=%q", path, k, v)
			}
			if !strings.Contains(filepath.ToSlash(filepath.Clean(path)), k+"="+v) {
				t.Errorf("PathLabels(%q): label %q=%q not in the path", path, k, v)
			}
		}
	})
}
