package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

// gridHalf returns the 95% half-width of n values (2 or 3) with sample standard
// deviation sd: Student's t 0.975 quantile for n-1 degrees of freedom × sd/√n.
func gridHalf(n int, sd float64) float64 {
	t := 12.706204736174698 // 1 degree of freedom
	if n == 3 {
		t = 4.302652729911275
	}
	return t * sd / math.Sqrt(float64(n))
}

// easRun is a run of the EAS experiment whose summary holds v in every metric
// the preset reads (locality v/100, so that Fig. 3 shows v).
func easRun(policy, repl, seed string, v float64) Run {
	return Run{Labels: map[string]string{PolicyLabel: policy, "trace": "table1", "hw": "eas", "replication": repl, "seed": seed},
		Policy: policy,
		Summary: results.RunSummary{Policy: policy, MapLocality: v / 100, LoadBalanceSum: v, MapMachineThroughput: v,
			ReduceMachineThroughput: v, TotalFlowtimeUs: int64(v * 1e6)},
		Jobs: []results.Job{{Policy: policy, FlowtimeUs: 1, FinishUs: 1}}}
}

// easRuns: hfs-s, fifo-be, eas and an unknown policy (given in that order),
// replication 10 and 2, three seeds; policy k at replication r and seed s has
// value 10·(k+1) + r + s - 2, so that each cell's seeds are c-1, c, c+1.
func easRuns() []Run {
	var runs []Run
	for k, pol := range []string{"hfs-s", "fifo-be", "eas", "fair"} {
		for _, r := range []int{10, 2} {
			for s := 1; s <= 3; s++ {
				runs = append(runs, easRun(pol, fmt.Sprint(r), fmt.Sprint(s), float64(10*(k+1)+r+s-2)))
			}
		}
	}
	return runs
}

func rowTexts(tb *Table) [][]string {
	var out [][]string
	for _, r := range tb.Rows {
		var row []string
		for _, c := range r {
			row = append(row, c.Text)
		}
		out = append(out, row)
	}
	return out
}

func TestEASTable(t *testing.T) {
	tb := EASTable(easRuns())
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
	rows := rowTexts(tb)
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 5 figures × 2 replication factors", len(rows))
	}
	h := fmt.Sprintf("%.1f", gridHalf(3, 1))
	// Fig. 3, replication 2 (before 10): EAS is policy 2: 30 + 2 = 32.
	want := []string{"Fig. 3 locality (%)", "2", "3", "32.0", h, "22.0", h, "12.0", h, "42.0", h}
	if got := strings.Join(rows[0], "|"); got != strings.Join(want, "|") {
		t.Errorf("row 1 = %s\nwant    %s", got, strings.Join(want, "|"))
	}
	if rows[1][1] != "10" || rows[1][3] != "40.0" {
		t.Errorf("row 2 = %v, want replication 10 with EAS 40.0", rows[1])
	}
	// Fig. 4 is divided by its largest mean, fair's at replication 10: 50.
	want = []string{"Fig. 4 load balance (0-1)", "2", "3", "0.640", fmt.Sprintf("%.3f", gridHalf(3, 1)/50), "0.440"}
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
	tb := EASTable([]Run{easRun("eas", "1", "1", 50), easRun("fifo-s", "1", "1", 40)})
	rows := rowTexts(tb)
	// The replication label is the x axis even when it does not vary.
	if len(rows) != 5 || rows[0][1] != "1" || rows[0][2] != "1" || rows[0][3] != "50.0" || rows[0][4] != "-" {
		t.Errorf("rows %v", rows)
	}
	// Without it and without a varying label, one x value "–"; another varying
	// label is the x axis.
	a, b := easRun("eas", "1", "1", 50), easRun("eas", "1", "2", 40)
	a.Labels = map[string]string{PolicyLabel: "eas", "seed": "1"}
	b.Labels = map[string]string{PolicyLabel: "eas", "seed": "2"}
	if rows := rowTexts(EASTable([]Run{a, b})); rows[0][1] != "–" || rows[0][2] != "2" || rows[0][3] != "45.0" {
		t.Errorf("rows without an x label %v", rows)
	}
	a.Labels["threshold"], b.Labels["threshold"] = "3", "10"
	if tb := EASTable([]Run{b, a}); tb.Columns[1].Header != "threshold" || tb.Rows[0][1].Text != "3" {
		t.Errorf("x axis %s, first row %v", tb.Columns[1].Header, rowTexts(tb)[0])
	}
	if len(EASTable(nil).Rows) != 0 {
		t.Error("no runs: rows")
	}
}

func TestEASFigures(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteEASFigures(easRuns(), dir, "svg")
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
	if _, err := WriteEASFigures(easRuns(), again, "png"); err != nil {
		t.Fatal(err)
	}
	third := t.TempDir()
	if _, err := WriteEASFigures(easRuns(), third, "png"); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		a, _ := os.ReadFile(filepath.Join(again, w+".png"))
		b, _ := os.ReadFile(filepath.Join(third, w+".png"))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s.png differs between two renderings", w)
		}
	}
	if _, err := WriteEASFigures(nil, dir, "png"); err == nil {
		t.Error("no runs: no error")
	}
	if _, err := WriteEASFigures(easRuns(), dir, "gif"); err == nil {
		t.Error("gif: no error")
	}
}

func TestGridFileNameAndCSVName(t *testing.T) {
	p := hybsmrpPreset()
	b := &gridBlock{metric: &p.metrics[1], paper: "Table 6", context: []string{"trace=Word Count", "hw=25mbps"}}
	if got := p.fileName(b); got != "hybsmrp_table6_completion_wordcount_25mbps" {
		t.Errorf("file name %s", got)
	}
	for in, want := range map[string]string{"hybsmrp:preset=sjf": "hybsmrp_preset_sjf", "trace.maps": "trace_maps", "fifo-be": "fifo_be", "number of tasks": "number_of_tasks"} {
		if got := csvName(in); got != want {
			t.Errorf("csvName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGridSeriesOrderAndNames(t *testing.T) {
	p := easPreset()
	in := []string{"zz", "hfs-s", "eas:threshold=10", "hfs-be:node-delay=0s,rack-delay=0s", "eas:threshold=3", "hfs-be", "eas", "a1"}
	slices.SortFunc(in, p.compareSeries)
	want := []string{"eas", "eas:threshold=3", "eas:threshold=10", "hfs-be", "hfs-be:node-delay=0s,rack-delay=0s", "hfs-s", "a1", "zz"}
	if !slices.Equal(in, want) {
		t.Errorf("order %v, want %v", in, want)
	}
	for policy, name := range map[string]string{"eas": "EAS", "eas:threshold=3": "EAS threshold=3",
		"hfs-be:node-delay=0s,rack-delay=0s": "HFS-BE node-delay=0s rack-delay=0s", "fair": "fair", "fair:x=1": "fair:x=1"} {
		if got := p.display(policy); got != name {
			t.Errorf("display(%q) = %q, want %q", policy, got, name)
		}
	}
	for _, tt := range []struct {
		a, b string
		want int
	}{{"t=3", "t=10", -1}, {"t=10", "t=3", 1}, {"a", "ab", -1}, {"x2y", "x2y", 0}, {"x2b", "x2a", 1}, {"9", "a", -1}} {
		if got := compareNatural(tt.a, tt.b); got != tt.want {
			t.Errorf("compareNatural(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestGridStyleIndex(t *testing.T) {
	p := easPreset()
	g := &grid{series: []string{"eas", "fifo-be", "x", "hfs-s", "y"}}
	for s, want := range map[string]int{"eas": 0, "fifo-be": 1, "hfs-s": 4, "x": 5, "y": 6} {
		if got := p.styleIndex(g, s); got != want {
			t.Errorf("styleIndex(%s) = %d, want %d", s, got, want)
		}
	}
}
