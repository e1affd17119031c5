package eas

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"

	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/presettest"
)

// easRun is a run of the EAS experiment whose summary holds v in every metric
// the preset reads (locality v/100, so that Fig. 3 shows v).
func easRun(policy, repl, seed string, v float64) report.Run {
	return report.Run{Labels: map[string]string{report.PolicyLabel: policy, "trace": "table1", "hw": "eas", "replication": repl, "seed": seed},
		Policy: policy,
		Summary: results.RunSummary{Policy: policy, MapLocality: v / 100, LoadBalanceSum: v, MapMachineThroughput: v,
			ReduceMachineThroughput: v, TotalFlowtimeUs: int64(v * 1e6)},
		Jobs: []results.Job{{Policy: policy, FlowtimeUs: 1, FinishUs: 1}}}
}

// easRuns: hfs-s, fifo-be, eas and an unknown policy (given in that order),
// replication 10 and 2, three seeds; policy k at replication r and seed s has
// value 10·(k+1) + r + s - 2, so that each cell's seeds are c-1, c, c+1.
func easRuns() []report.Run {
	var runs []report.Run
	for k, pol := range []string{"hfs-s", "fifo-be", "eas", "fair"} {
		for _, r := range []int{10, 2} {
			for s := 1; s <= 3; s++ {
				runs = append(runs, easRun(pol, fmt.Sprint(r), fmt.Sprint(s), float64(10*(k+1)+r+s-2)))
			}
		}
	}
	return runs
}

func TestEASTable(t *testing.T) {
	tb := Table(easRuns())
	var headers, names []string
	for _, c := range tb.Columns {
		headers = append(headers, c.Header)
		names = append(names, c.Name)
	}
	// The paper's order and names, the unknown policy last under its own name.
	if got := strings.Join(headers, "|"); got != "figure|replication factor|seeds|EAS|±|FIFO-BE|±|HFS-S|±|fair|±" {
		t.Errorf("headers %s", got)
	}
	if got := strings.Join(names, ","); got != "figure,replication,seeds,eas,eas_ci95,fifo_be,fifo_be_ci95,hfs_s,hfs_s_ci95,fair,fair_ci95" {
		t.Errorf("CSV names %s", got)
	}
	rows := presettest.RowTexts(tb)
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 5 figures × 2 replication factors", len(rows))
	}
	h := fmt.Sprintf("%.1f", presettest.Half95(3, 1))
	// Fig. 3, replication 2 (before 10): EAS is policy 2: 30 + 2 = 32.
	want := []string{"Fig. 3 locality (%)", "2", "3", "32.0", h, "22.0", h, "12.0", h, "42.0", h}
	if got := strings.Join(rows[0], "|"); got != strings.Join(want, "|") {
		t.Errorf("row 1 = %s\nwant    %s", got, strings.Join(want, "|"))
	}
	if rows[1][1] != "10" || rows[1][3] != "40.0" {
		t.Errorf("row 2 = %v, want replication 10 with EAS 40.0", rows[1])
	}
	// Fig. 4 is divided by its largest mean, fair's at replication 10: 50.
	want = []string{"Fig. 4 load balance (0-1)", "2", "3", "0.640", fmt.Sprintf("%.3f", presettest.Half95(3, 1)/50), "0.440"}
	if got := strings.Join(rows[2][:6], "|"); got != strings.Join(want, "|") {
		t.Errorf("row 3 = %s\nwant    %s", got, strings.Join(want, "|"))
	}
	if rows[3][9] != "1.000" {
		t.Errorf("Fig. 4's largest mean is %s, want 1.000", rows[3][9])
	}
	for i, fig := range []string{"Fig. 3", "Fig. 3", "Fig. 4", "Fig. 4", "Fig. 5", "Fig. 5", "Fig. 6", "Fig. 6", "Fig. 7", "Fig. 7"} {
		if !strings.HasPrefix(rows[i][0], fig) {
			t.Errorf("row %d is %q, want %s", i+1, rows[i][0], fig)
		}
	}
	if rows[8][3] != "32" {
		t.Errorf("Fig. 7 total flowtime %s, want 32 (s, no decimals)", rows[8][3])
	}
}

func TestEASTableOneSeedNoCI(t *testing.T) {
	tb := Table([]report.Run{easRun("eas", "1", "1", 50), easRun("fifo-s", "1", "1", 40)})
	rows := presettest.RowTexts(tb)
	// The replication label is the x axis even when it does not vary.
	if len(rows) != 5 || rows[0][1] != "1" || rows[0][2] != "1" || rows[0][3] != "50.0" || rows[0][4] != "-" {
		t.Errorf("rows %v", rows)
	}
	// Without it and without a varying label, one x value "–"; another varying
	// label is the x axis.
	a, b := easRun("eas", "1", "1", 50), easRun("eas", "1", "2", 40)
	a.Labels = map[string]string{report.PolicyLabel: "eas", "seed": "1"}
	b.Labels = map[string]string{report.PolicyLabel: "eas", "seed": "2"}
	if rows := presettest.RowTexts(Table([]report.Run{a, b})); rows[0][1] != "–" || rows[0][2] != "2" || rows[0][3] != "45.0" {
		t.Errorf("rows without an x label %v", rows)
	}
	a.Labels["threshold"], b.Labels["threshold"] = "3", "10"
	if tb := Table([]report.Run{b, a}); tb.Columns[1].Header != "threshold" || tb.Rows[0][1].Text != "3" {
		t.Errorf("x axis %s, first row %v", tb.Columns[1].Header, presettest.RowTexts(tb)[0])
	}
	if len(Table(nil).Rows) != 0 {
		t.Error("no runs: rows")
	}
}

func TestEASFigures(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteFigures(easRuns(), dir, "svg")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"eas_fig3_locality", "eas_fig4_load-balance", "eas_fig5_map-throughput", "eas_fig6_reduce-throughput", "eas_fig7_flowtime"}
	if len(paths) != len(want) {
		t.Fatalf("wrote %v, want %v", paths, want)
	}
	for i, p := range paths {
		if filepath.Base(p) != want[i]+".svg" {
			t.Errorf("figure %d is %s, want %s.svg", i+1, filepath.Base(p), want[i])
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"EAS", "FIFO-BE", "HFS-S", "replication factor", "mean of 3 seeds, 95% CI"} {
			if !bytes.Contains(b, []byte(s)) {
				t.Errorf("%s lacks %q", filepath.Base(p), s)
			}
		}
		// The legend lists the policies in the paper's order.
		if i, j := bytes.Index(b, []byte(">EAS<")), bytes.Index(b, []byte(">FIFO-BE<")); i < 0 || j < i {
			t.Errorf("%s: legend order EAS at %d, FIFO-BE at %d", filepath.Base(p), i, j)
		}
	}
	again := t.TempDir()
	if _, err := WriteFigures(easRuns(), again, "png"); err != nil {
		t.Fatal(err)
	}
	third := t.TempDir()
	if _, err := WriteFigures(easRuns(), third, "png"); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		a, _ := os.ReadFile(filepath.Join(again, w+".png"))
		b, _ := os.ReadFile(filepath.Join(third, w+".png"))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s.png differs between two renderings", w)
		}
	}
	if _, err := WriteFigures(nil, dir, "png"); err == nil {
		t.Error("no runs: no error")
	}
	if _, err := WriteFigures(easRuns(), dir, "gif"); err == nil {
		t.Error("gif: no error")
	}
}
