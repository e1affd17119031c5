package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/allocstudy"
	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/results/resultstest"
)

// writeStudy writes rows (and timing) as cmd/replay does.
func writeStudy(t *testing.T, dir string, rows []results.AllocRow, timing []results.AllocTiming) {
	t.Helper()
	if err := allocstudy.Write(dir, &allocstudy.Result{Rows: rows, Timing: timing}, map[string]string{"tool": "report-test"}); err != nil {
		t.Fatal(err)
	}
}

func TestLoadAllocStudyAndSummary(t *testing.T) {
	root := t.TempDir()
	rows := resultstest.AllocRows([]string{"a"}, []string{"E1"}, []string{"bar", "hds"}, 2)
	timing := []results.AllocTiming{{Case: "a", System: "E1", Servers: 100, Tasks: 300, Seed: 1, Algorithm: "bar", WallNs: 2e6}}
	writeStudy(t, filepath.Join(root, "study"), rows, timing)
	runs, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Alloc == nil || len(runs[0].Alloc.Rows) != 4 || len(runs[0].Alloc.Timing) != 1 || runs[0].Jobs != nil {
		t.Fatalf("runs %+v", runs)
	}
	// Only studies: the summary is the study's means. bar: ratio 1; hds:
	// makespans 21, 22 s over 11, 12 s: ratios 21/11 and 22/12.
	tb := SummaryTable(runs)
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	hds := (21.0/11 + 22.0/12) / 2
	for _, want := range []string{"Allocation study", "bar", fmt.Sprintf("%.2f", hds), "11.5", "21.5", "90.0", "80.0"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	paths, err := WriteFigures(runs, t.TempDir(), "svg")
	if err != nil || len(paths) != 0 {
		t.Errorf("WriteFigures on a study alone: %v, %v; want nothing", paths, err)
	}
	// A study beside a simulation run: the summary and figures cover the run.
	writeRunDir(t, filepath.Join(root, "policy=fair"), seqRun(map[string]string{"policy": "fair"}, 3, 1))
	runs, err = Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want a run and a study", len(runs))
	}
	if tb := SummaryTable(runs); len(tb.Rows) != 1 || !strings.HasPrefix(tb.Title, "Summary of 1 run") {
		t.Errorf("summary %q with %d rows, want the one run", tb.Title, len(tb.Rows))
	}
	if paths, err := WriteFigures(runs, t.TempDir(), "svg"); err != nil || len(paths) != 3 {
		t.Errorf("WriteFigures: %v, %v; want the run's three figures", paths, err)
	}
}

func TestLoadAllocStudyErrors(t *testing.T) {
	good := resultstest.AllocRows([]string{"a"}, []string{"E1"}, []string{"bar", "hds"}, 1)
	bad := func(f func(r *results.AllocRow)) []results.AllocRow {
		rows := append([]results.AllocRow(nil), good...)
		f(&rows[1])
		return rows
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  []string
	}{
		{"no rows", func(t *testing.T, dir string) { writeStudy(t, dir, []results.AllocRow{}, nil) }, []string{results.AllocFile, "no rows"}},
		{"locality above 1", func(t *testing.T, dir string) {
			writeStudy(t, dir, bad(func(r *results.AllocRow) { r.Locality = 1.5 }), nil)
		}, []string{results.AllocFile, "row 1", "locality"}},
		{"NaN ratio", func(t *testing.T, dir string) {
			writeStudy(t, dir, bad(func(r *results.AllocRow) { r.Ratio = math.NaN() }), nil)
		}, []string{"row 1", "column ratio"}},
		{"negative makespan", func(t *testing.T, dir string) {
			writeStudy(t, dir, bad(func(r *results.AllocRow) { r.MakespanUs = -1 }), nil)
		}, []string{"row 1", "makespan_us"}},
		{"no algorithm", func(t *testing.T, dir string) {
			writeStudy(t, dir, bad(func(r *results.AllocRow) { r.Algorithm = "" }), nil)
		}, []string{"row 1", "empty name"}},
		{"no servers", func(t *testing.T, dir string) {
			writeStudy(t, dir, bad(func(r *results.AllocRow) { r.Servers = 0 }), nil)
		}, []string{"row 1", "servers/tasks"}},
		{"negative wall time", func(t *testing.T, dir string) {
			writeStudy(t, dir, good, []results.AllocTiming{{Case: "a", System: "E1", Tasks: 3, Algorithm: "bar", WallNs: -1}})
		}, []string{results.AllocTimingFile, "row 0", "wall_ns"}},
		{"not parquet", func(t *testing.T, dir string) {
			writeStudy(t, dir, good, nil)
			os.WriteFile(filepath.Join(dir, results.AllocFile), []byte("case,system\na,E1\n"), 0o644)
		}, []string{results.AllocFile, "not a Parquet file"}},
		{"other schema", func(t *testing.T, dir string) {
			os.MkdirAll(dir, 0o755)
			type other struct {
				Case string `parquet:"case"`
			}
			parquet.WriteFile(filepath.Join(dir, results.AllocFile), []other{{"a"}})
		}, []string{results.AllocFile, `column "system" missing`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.setup(t, filepath.Join(root, "study"))
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

// FuzzDecodeAllocRows feeds arbitrary bytes to the study reader: rows or an
// error, never a panic. checkParquet bounds what parquet-go may allocate
// (TestDecodeParquetBounds measures it), so executions stay cheap.
func FuzzDecodeAllocRows(f *testing.F) {
	for _, b := range seedParquet(f, resultstest.AllocRows([]string{"a"}, []string{"E1"}, []string{"bar", "hds"}, 1)) {
		f.Add(b)
	}
	f.Add([]byte("PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := results.DecodeParquet[results.AllocRow]("alloc.parquet", bytes.NewReader(data), int64(len(data)))
		if err == nil {
			_ = checkAllocRows("alloc.parquet", rows)
		}
	})
}
