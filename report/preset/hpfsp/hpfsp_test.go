package hpfsp

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/report"
)

// hpfspRun builds a run of n jobs whose slowdowns (and flowtimes in seconds)
// are base, base+1, ...; alone says whether the jobs were replayed alone; maps
// gives job i maps[i % len(maps)] maps.
func hpfspRun(labels map[string]string, n int, base float64, alone bool, maps ...int32) report.Run {
	r := report.Run{Labels: labels, Policy: labels[report.PolicyLabel]}
	for i := range n {
		j := results.Job{JobIndex: int32(i), Maps: 1, SubmitUs: int64(i), AloneUs: results.Unset}
		if len(maps) > 0 {
			j.Maps = maps[i%len(maps)]
		}
		j.Slowdown = base + float64(i)
		j.FlowtimeUs = int64(j.Slowdown * 1e6)
		j.FinishUs = j.SubmitUs + j.FlowtimeUs
		if alone {
			j.AloneUs = 1e6
		}
		r.Jobs = append(r.Jobs, j)
	}
	return r
}

// fig4Runs: Fair and H-PFSP with fair-limit 0 and 5, three seeds, jobs alone.
// Per run the mean slowdown of jobs base..base+3 is base+1.5.
func fig4Runs() []report.Run {
	var runs []report.Run
	for s, seed := range []string{"1", "2", "3"} {
		for p, pol := range []string{"fair", "hpfsp:fair-limit=0", "hpfsp:fair-limit=5,alpha=0.9"} {
			runs = append(runs, hpfspRun(map[string]string{report.PolicyLabel: pol, "trace": "sim50", "seed": seed},
				4, float64(10*p+s), true))
		}
	}
	return runs
}

func TestHPFSPTableFairLimitAxis(t *testing.T) {
	tb := Table(fig4Runs())
	// Per policy the three seeds give base 1.5, 2.5, 3.5 (+10 per policy): mean
	// 2.5 (+10p), sd 1, 95% half-width t(0.975, 2)/sqrt(3) = 4.302653/1.732051.
	half := fmt.Sprintf("%.3f", 4.302652729911275/math.Sqrt(3))
	want := [][]string{
		{"fair", "–", "3", "2.500", half},
		{"hpfsp", "0", "3", "12.500", half},
		{"hpfsp:alpha=0.9", "5", "3", "22.500", half},
	}
	if tb.Columns[1].Header != "FAIR_LIMIT" || tb.Columns[1].Name != "fair_limit" || tb.Columns[3].Name != "mean_slowdown" || len(tb.Rows) != len(want) {
		t.Fatalf("columns %v, %d rows", tb.Columns, len(tb.Rows))
	}
	for i, w := range want {
		var got []string
		for _, c := range tb.Rows[i] {
			got = append(got, c.Text)
		}
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("row %d = %v, want %v", i+1, got, w)
		}
	}
}

func TestHPFSPTableSweepAndTraceAxes(t *testing.T) {
	// Fig. 2: trace.jobs swept, no alone runs: mean flowtime against jobs.
	var runs []report.Run
	for _, jobs := range []string{"10", "2"} {
		for _, seed := range []string{"1", "2"} {
			runs = append(runs, hpfspRun(map[string]string{report.PolicyLabel: "fair", "trace": "wc", "trace.jobs": jobs, "seed": seed}, 3, 5, false))
		}
	}
	tb := Table(runs)
	if tb.Columns[1].Header != "trace.jobs" || tb.Columns[3].Header != "mean flowtime (s)" || len(tb.Rows) != 2 {
		t.Fatalf("columns %v, %d rows", tb.Columns, len(tb.Rows))
	}
	if tb.Rows[0][1].Text != "2" || tb.Rows[1][1].Text != "10" || tb.Rows[0][3].Text != "6.000" {
		t.Errorf("rows %v", tb.Rows)
	}
	// Fig. 3(a): one trace per size: categories in natural order.
	runs = nil
	for _, tr := range []string{"terasort-2g", "terasort-10g", "terasort-1g"} {
		runs = append(runs, hpfspRun(map[string]string{report.PolicyLabel: "fair", "trace": tr, "seed": "1"}, 2, 1, false))
	}
	tb = Table(runs)
	var got []string
	for _, r := range tb.Rows {
		got = append(got, r[1].Text)
	}
	if strings.Join(got, " ") != "terasort-10g terasort-1g terasort-2g" || tb.Columns[1].Header != "trace" {
		t.Errorf("trace axis %v (%s)", got, tb.Columns[1].Name)
	}
}

func TestHPFSPFigures(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteFigures(fig4Runs(), dir, "svg")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{MeanFigure + ".svg", ProfileFigure + ".svg"} // one size: no size figure
	if len(paths) != len(want) {
		t.Fatalf("wrote %v, want %v", paths, want)
	}
	for i, p := range paths {
		if filepath.Base(p) != want[i] {
			t.Errorf("figure %d is %s, want %s", i, filepath.Base(p), want[i])
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("alpha=0.9")) {
			t.Errorf("%s: %v, legend missing", p, err)
		}
	}
	// Fig. 3(b): jobs of five sizes in each run: the size figure, no profile.
	var runs []report.Run
	for _, pol := range []string{"fair", "hpfsp:fair-limit=2"} {
		for _, seed := range []string{"1", "2"} {
			runs = append(runs, hpfspRun(map[string]string{report.PolicyLabel: pol, "trace": "mixed", "seed": seed}, 5, 1, false, 16, 32, 48, 64, 80))
		}
	}
	paths, err = WriteFigures(runs, dir, "png")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || filepath.Base(paths[1]) != SizeFigure+".png" {
		t.Errorf("wrote %v, want the mean and by-size figures", paths)
	}
	// Same runs, same bytes.
	again := t.TempDir()
	if _, err := WriteFigures(runs, again, "png"); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(again, filepath.Base(p)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two renderings", filepath.Base(p))
		}
	}
	if _, err := WriteFigures(nil, dir, "png"); err == nil {
		t.Error("no runs: no error")
	}
	if _, err := WriteFigures(runs, dir, "gif"); err == nil {
		t.Error("gif: no error")
	}
}

func TestJobGroupsQuintiles(t *testing.T) {
	r := hpfspRun(map[string]string{report.PolicyLabel: "x"}, 20, 1, false, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)
	g := jobGroups(r)
	for i, want := range []int{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5} {
		if g[i] != want {
			t.Fatalf("size quintiles %v", g)
		}
	}
}
