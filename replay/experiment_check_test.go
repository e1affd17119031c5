package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExperimentRejectsDuplicates is issue 10 item 10: an experiment with a
// duplicated policy or two traces of one name wrote several runs into one cell
// directory, which report then averaged as seeds. Such specs are refused up
// front, naming the duplicate.
func TestExperimentRejectsDuplicates(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.tsv"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "other"), 0o755)
	os.WriteFile(filepath.Join(dir, "other", "a.tsv"), []byte("y"), 0o644)
	cases := []struct{ name, spec, want string }{
		{"duplicated policy", `policies = ["fifo", "fair", "fifo"]
[[traces]]
path = "a.tsv"`, `policy "fifo" given twice (entries 1 and 3)`},
		{"two traces of one name", `policies = ["fifo"]
[[traces]]
path = "a.tsv"
[[traces]]
path = "other/a.tsv"`, `trace name "a" given twice`},
		{"names equal as paths", `policies = ["fifo"]
[[traces]]
name = "x/y"
path = "a.tsv"
[[traces]]
name = "x_y"
path = "other/a.tsv"`, `trace name "x/y" and "x_y" name the same result directory "x_y"`},
		{"duplicated hardware", `policies = ["fifo"]
[[traces]]
path = "a.tsv"
[[hardware]]
name = "h"
[[hardware]]
name = "h"
set = { replication = 2 }`, `hardware name "h" given twice`},
		{"duplicated seed", `policies = ["fifo"]
seeds = [1, 2, 1]
[[traces]]
path = "a.tsv"`, `seed "1" given twice`},
		{"duplicated sweep value", `policies = ["fifo"]
[[traces]]
path = "a.tsv"
[sweep]
replication = [1, 2, 2]`, `value of sweep replication "2" given twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "exp.toml")
			os.WriteFile(p, []byte(c.spec+"\n"), 0o644)
			_, err := LoadExperiment(p)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want one naming %s and saying %q", err, p, c.want)
			}
		})
	}
	// Distinct names load.
	p := filepath.Join(dir, "ok.toml")
	os.WriteFile(p, []byte("policies = [\"fifo\", \"fair\"]\n[[traces]]\npath = \"a.tsv\"\n[[traces]]\nname = \"a2\"\npath = \"other/a.tsv\"\n"), 0o644)
	e, err := LoadExperiment(p)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := e.Cells()
	if err != nil || len(cells) != 4 {
		t.Fatalf("%d cells, %v; want 4", len(cells), err)
	}
}
