package hybsmrp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tracereplay/tracereplay/internal/results"

	"github.com/tracereplay/tracereplay/internal/results/resultstest"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/presettest"
)

// hybRun is a run of a HybSMRP spec: the generator's app in run.json as
// cmd/replay records it, node-local maps loc (in %), and one job per flowtime
// (seconds).
func hybRun(policy, traceName, app, maps, seed string, loc float64, flows ...int64) report.Run {
	r := report.Run{Labels: map[string]string{report.PolicyLabel: policy, "trace": traceName, "hw": "hybsmrp", "trace.maps": maps, "seed": seed},
		Policy: policy,
		Summary: results.RunSummary{Policy: policy, MapLocality: loc / 100,
			Trace: fmt.Sprintf(`hybsmrp{"app":%q,"jobs":%d,"maps":%s}@%s`, app, len(flows), maps, seed)}}
	for i, f := range flows {
		r.Jobs = append(r.Jobs, results.Job{Policy: policy, JobIndex: int32(i), FlowtimeUs: f * resultstest.Sec, FinishUs: f * resultstest.Sec})
	}
	return r
}

// hybLoadRuns: the trace "wc" (app wordcount) under load, 10 and 20 maps per
// job, seeds 1 and 2, FIFO, HybSMRP and Fair (given in that order).
//
//	completion (mean of the run's two jobs)   locality (%)
//	         10 maps     20 maps              10 maps    20 maps
//	fifo     10, 12      20, 24               40, 50     60, 70
//	hybsmrp   9, 12      18, 24               90, 96     94, 100
//	fair     11, 13      22, 26               80, 90     90, 100
func hybLoadRuns() []report.Run {
	type cell struct {
		pol       string
		flow, loc [2][2]float64 // [maps][seed]
	}
	cells := []cell{
		{"fifo", [2][2]float64{{10, 12}, {20, 24}}, [2][2]float64{{40, 50}, {60, 70}}},
		{"hybsmrp", [2][2]float64{{9, 12}, {18, 24}}, [2][2]float64{{90, 96}, {94, 100}}},
		{"fair", [2][2]float64{{11, 13}, {22, 26}}, [2][2]float64{{80, 90}, {90, 100}}},
	}
	var runs []report.Run
	for _, c := range cells {
		for m, maps := range []string{"10", "20"} {
			for s, seed := range []string{"1", "2"} {
				f := int64(c.flow[m][s])
				runs = append(runs, hybRun(c.pol, "wc", "wordcount", maps, seed, c.loc[m][s], f-1, f+1))
			}
		}
	}
	return runs
}

func TestHybSMRPTableUnderLoad(t *testing.T) {
	tb := Table(hybLoadRuns())
	var headers []string
	for _, c := range tb.Columns {
		headers = append(headers, c.Header)
	}
	if got := strings.Join(headers, "|"); got != "table|number of tasks|seeds|FIFO|±|Fair|±|HybSMRP|±" {
		t.Errorf("headers %s", got)
	}
	if tb.Columns[1].Name != "trace_maps" || tb.Columns[7].Name != "hybsmrp" {
		t.Errorf("CSV names %v", tb.Columns)
	}
	h := func(sd float64) string { return fmt.Sprintf("%.1f", presettest.Half95(2, sd)) }
	// Columns FIFO, Fair, HybSMRP. Locality, 10 maps: means 45, 85, 93, sd of
	// two values a, b is |a-b|/√2.
	sd := func(a, b float64) float64 { return max(a-b, b-a) / 1.4142135623730951 }
	want := [][]string{
		{"Table 4 locality (%)", "10", "2", "45.0", h(sd(40, 50)), "85.0", h(sd(80, 90)), "93.0", h(sd(90, 96))},
		{"Table 4 locality (%)", "20", "2", "65.0", h(sd(60, 70)), "95.0", h(sd(90, 100)), "97.0", h(sd(94, 100))},
		// Per seed, the mean of the two rows: FIFO 50 and 60.
		{"Table 4 locality (%)", "average", "2", "55.0", h(sd(50, 60)), "90.0", h(sd(85, 95)), "95.0", h(sd(92, 98))},
		// HybSMRP minus FIFO per seed: 92-50 = 42, 98-60 = 38.
		{"Table 4 locality (%)", "vs FIFO", "2", "-", "-", "35.0", h(0), "40.0", h(sd(42, 38))},
		{"Table 4 locality (%)", "vs Fair", "2", "-35.0", h(0), "-", "-", "5.0", h(sd(7, 3))},
		{"completion (s)", "10", "2", "11.0", h(sd(10, 12)), "12.0", h(sd(11, 13)), "10.5", h(sd(9, 12))},
		{"completion (s)", "20", "2", "22.0", h(sd(20, 24)), "24.0", h(sd(22, 26)), "21.0", h(sd(18, 24))},
		{"completion (s)", "average", "2", "16.5", h(sd(15, 18)), "18.0", h(sd(16.5, 19.5)), "15.8", h(sd(13.5, 18))},
		// (ΣFIFO − ΣHybSMRP)/ΣFIFO per seed: (30-27)/30 = 10%, (36-36)/36 = 0%;
		// Fair: (30-33)/30 = -10%, (36-39)/36 = -8.33%.
		{"completion (s)", "vs FIFO", "2", "-", "-", "-9.2", h(sd(-10, -100.0*3/36)), "5.0", h(sd(10, 0))},
		{"completion (s)", "vs Fair", "2", "8.4", h(sd(100.0*3/33, 100.0*3/39)), "-", "-", "12.9", h(sd(100.0*6/33, 100.0*3/39))},
	}
	rows := presettest.RowTexts(tb)
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%v", len(rows), len(want), rows)
	}
	for i, w := range want {
		if got := strings.Join(rows[i], "|"); got != strings.Join(w, "|") {
			t.Errorf("row %d = %s\nwant     %s", i+1, got, strings.Join(w, "|"))
		}
	}
}

func TestHybSMRPTableAlone(t *testing.T) {
	// One job per run: Tables 6 and 7 by the generator's app, whatever the trace
	// is called; no locality block. A trace of another app (mix) has no number.
	var runs []report.Run
	for _, tr := range []struct{ name, app string }{{"b", "terasort"}, {"a", "wordcount"}} {
		for _, pol := range []string{"hybsmrp", "fifo"} {
			runs = append(runs, hybRun(pol, tr.name, tr.app, "65", "1", 100, 50))
		}
	}
	rows := presettest.RowTexts(Table(runs))
	var got []string
	for _, r := range rows {
		got = append(got, r[0]+" "+r[1]+" "+r[2])
	}
	want := []string{
		"Table 6 completion (s) a 65", "Table 6 completion (s) a average", "Table 6 completion (s) a vs FIFO",
		"Table 7 completion (s) b 65", "Table 7 completion (s) b average", "Table 7 completion (s) b vs FIFO",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	mix := hybRun("fifo", "mix", "mix", "10", "1", 50, 1, 2)
	if rows := presettest.RowTexts(Table([]report.Run{mix})); len(rows) != 4 || rows[0][0] != "locality (%)" || rows[2][0] != "completion (s)" {
		t.Errorf("mix rows %v", rows)
	}
}

func TestHybApp(t *testing.T) {
	for _, tt := range []struct{ trace, label, want string }{
		{`hybsmrp{"app":"terasort","jobs":1}@3`, "x", "terasort"},
		{`hybsmrp{}@3`, "wordcount", "wordcount"},
		{`runs/fb.jhist`, "fb", "fb"},
		{`hybsmrp{"app":`, "y", "y"},
	} {
		r := report.Run{Labels: map[string]string{"trace": tt.label}, Summary: results.RunSummary{Trace: tt.trace}}
		if got := hybApp(r); got != tt.want {
			t.Errorf("hybApp(%q) = %q, want %q", tt.trace, got, tt.want)
		}
	}
}

func TestHybSMRPFigures(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteFigures(hybLoadRuns(), dir, "svg")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hybsmrp_table4_locality.svg", "hybsmrp_completion.svg"}
	if len(paths) != len(want) {
		t.Fatalf("wrote %v, want %v", paths, want)
	}
	for i, p := range paths {
		if filepath.Base(p) != want[i] {
			t.Errorf("figure %d is %s, want %s", i+1, filepath.Base(p), want[i])
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"number of tasks", "mean of 2 seeds, 95% CI"} {
			if !bytes.Contains(b, []byte(s)) {
				t.Errorf("%s lacks %q", filepath.Base(p), s)
			}
		}
		fifo, fair, hyb := bytes.Index(b, []byte(">FIFO<")), bytes.Index(b, []byte(">Fair<")), bytes.Index(b, []byte(">HybSMRP<"))
		if fifo < 0 || fair < fifo || hyb < fair {
			t.Errorf("%s: legend order FIFO %d, Fair %d, HybSMRP %d", filepath.Base(p), fifo, fair, hyb)
		}
	}
	if _, err := WriteFigures(nil, dir, "svg"); err == nil {
		t.Error("no runs: no error")
	}
}

// FuzzHybApp: any trace field of run.json gives the app it names or the trace
// label, without a panic.
func FuzzHybApp(f *testing.F) {
	for _, s := range []string{`hybsmrp{"app":"terasort","jobs":1}@3`, `hybsmrp{}@1`, `{`, `}{`, `x{"app":1}`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := report.Run{Labels: map[string]string{"trace": "label"}, Summary: results.RunSummary{Trace: s}}
		got := hybApp(r)
		// JSON decoding turns escapes and invalid UTF-8 into other text: then
		// the app is not a substring of the field
		if got != "label" && !strings.Contains(s, got) && !strings.ContainsRune(s, '\\') && utf8.ValidString(s) {
			t.Errorf("hybApp(%q) = %q: neither the label nor in the field", s, got)
		}
	})
}
