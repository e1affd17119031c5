package bar

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"

	"github.com/tracereplay/tracereplay/internal/results/resultstest"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/presettest"
)

func TestBARTable4Table(t *testing.T) {
	// Case a (q = 10 s, W = 40 s) on 100 servers and 300 tasks is Table IV(a)'s E1.
	runs := []report.Run{{Dir: "study", Alloc: &report.AllocResults{Rows: resultstest.AllocRows([]string{"a"}, []string{"E1"}, []string{"bar", "hds", "mine"}, 2)}}}
	tb := Table4(runs)
	// hds: makespans 21 and 22 s against bar's 11 and 12: ratios 21/11, 22/12.
	r1, r2 := 21.0/11, 22.0/12
	half := resultstest.T975DF1 * math.Abs(r1-r2) / math.Sqrt2 / math.Sqrt2
	// mine: 31/11 and 32/12.
	m1, m2 := 31.0/11, 32.0/12
	mhalf := resultstest.T975DF1 * math.Abs(m1-m2) / math.Sqrt2 / math.Sqrt2
	want := []string{
		"a|E1|100|300|bar|2|1.00|0.00|90.0|0.0|11.5|6.4|1.00|99.9",
		fmt.Sprintf("a|E1|100|300|hds|2|%.2f|%.2f|80.0|0.0|21.5|6.4|3.84|91.4", (r1+r2)/2, half),
		fmt.Sprintf("a|E1|100|300|mine|2|%.2f|%.2f|70.0|0.0|31.5|6.4|-|-", (m1+m2)/2, mhalf),
	}
	got := presettest.RowLines(tb)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(tb.Columns); tb.Columns[n-2].Name != "paper_makespan_ratio" || tb.Columns[n-1].Name != "paper_locality_pct" {
		t.Errorf("columns %v", tb.Columns)
	}
	// Another case is not the paper's: no paper values; a second study gets its
	// own column.
	other := resultstest.AllocRows([]string{"z"}, []string{"E1"}, []string{"bar"}, 1)
	other[0].QUs = 3 * resultstest.Sec
	runs = append(runs, report.Run{Dir: "other", Alloc: &report.AllocResults{Rows: other}})
	tb = Table4(runs)
	if got := presettest.RowLines(tb); tb.Columns[0].Name != "study" || got[len(got)-1] != "other|z|E1|100|300|bar|1|1.00|-|90.0|-|11.0|-|-|-" {
		t.Errorf("with a second study: columns %v, last row %q", tb.Columns[0], got[len(got)-1])
	}
	if tb := Table4(nil); len(tb.Rows) != 0 || !strings.Contains(strings.Join(tb.Notes, " "), "No allocation study") {
		t.Errorf("no studies: %+v", tb)
	}
}

func TestBARTable4Figures(t *testing.T) {
	dir := t.TempDir()
	runs := []report.Run{{Dir: "study", Alloc: &report.AllocResults{Rows: resultstest.AllocRows([]string{"a", "b"}, []string{"E1", "E2"}, []string{"bar", "hds"}, 2)}}}
	paths, err := WriteTable4Figures(runs, dir, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || filepath.Base(paths[0]) != "bar_table4_a.svg" || filepath.Base(paths[1]) != "bar_table4_b.svg" {
		t.Errorf("wrote %v", paths)
	}
	if _, err := WriteTable4Figures(nil, dir, "svg"); err == nil {
		t.Error("no study: no error")
	}
}

// timingRows gives algorithm k on n tasks a wall time of (k+1)·n·seed µs.
func timingRows(cases []string, tasks []int32, algs []string, seeds int) []results.AllocTiming {
	var out []results.AllocTiming
	for _, c := range cases {
		for _, n := range tasks {
			for seed := 1; seed <= seeds; seed++ {
				for k, a := range algs {
					out = append(out, results.AllocTiming{Case: c, System: fmt.Sprint(n), Servers: 2000, Tasks: n, Seed: uint64(seed),
						Algorithm: a, WallNs: int64(k+1) * int64(n) * int64(seed) * 1000})
				}
			}
		}
	}
	return out
}

func TestBARFig9Table(t *testing.T) {
	runs := []report.Run{{Dir: "study", Alloc: &report.AllocResults{
		Rows:   resultstest.AllocRows([]string{"a"}, []string{"E1"}, []string{"bar"}, 1),
		Timing: timingRows([]string{"a"}, []int32{100, 200}, []string{"bar", "hds"}, 2)}}}
	tb := Fig9Table(runs)
	// bar on 100 tasks: 0.1 and 0.2 ms; hds twice that.
	h := func(a, b float64) string {
		return fmt.Sprintf("%.2f", resultstest.T975DF1*math.Abs(a-b)/math.Sqrt2/math.Sqrt2)
	}
	want := []string{
		"a|100|0.15|" + h(0.1, 0.2) + "|0.30|" + h(0.2, 0.4),
		"a|200|0.30|" + h(0.2, 0.4) + "|0.60|" + h(0.4, 0.8),
	}
	if got := presettest.RowLines(tb); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows %q, want %q", got, want)
	}
	notes := strings.Join(tb.Notes, "\n")
	if !strings.Contains(notes, "Case a, 200 tasks: BAR/HDS time ratio 0.50") || strings.Contains(notes, "Case a, 100 tasks") {
		t.Errorf("notes:\n%s", notes)
	}
	paths, err := WriteFig9Figures(runs, t.TempDir(), "svg")
	if err != nil || len(paths) != 1 || filepath.Base(paths[0]) != "bar_fig9_a.svg" {
		t.Errorf("figures %v, %v", paths, err)
	}
	untimed := []report.Run{{Dir: "study", Alloc: &report.AllocResults{Rows: resultstest.AllocRows([]string{"a"}, []string{"E1"}, []string{"bar"}, 1)}}}
	if _, err := WriteFig9Figures(untimed, t.TempDir(), "svg"); err == nil || !strings.Contains(err.Error(), "alloc_timing.parquet") {
		t.Errorf("untimed study: %v", err)
	}
}
