package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/allocstudy"
	"github.com/tracereplay/tracereplay/internal/cells"
	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/bar"
	"github.com/tracereplay/tracereplay/report/preset/coupling"
)

// End-to-end tests of the coupling and BAR presets: each small spec in
// testdata/e2e runs through replay's experiment API (one seed, invariants
// checked), its results are written as cmd/replay writes them and read back
// with report.Load, and the preset's table must match its golden file
// (testdata/e2e_NAME.golden; go test -update rewrites them) and its figures must
// be the expected set.

// runSpec runs the experiment spec at path into out.
func runSpec(t *testing.T, path, out string) {
	t.Helper()
	e, err := replay.LoadExperiment(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{"tracereplay.tool": "report-e2e-test"}
	if e.AllocStudy != nil {
		res, err := replay.RunAllocStudy(e.AllocStudy, e.Policies, e.Seeds, policy.NewAllocator, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := allocstudy.Write(out, res, meta); err != nil {
			t.Fatal(err)
		}
		return
	}
	specCells, err := e.Cells()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range specCells {
		res, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New, Replay: replay.Options{
			CheckInvariants: true, Timeline: e.TimelineOn(), RecordTasks: e.Tasks, TraceName: c.Trace.Name, HardwareName: c.HWName}})
		if err != nil {
			t.Fatalf("%s: %v", c.Dir, err)
		}
		hwJSON, err := json.Marshal(c.Hardware)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{results.HardwareMetaKey: string(hwJSON)}
		for k, v := range meta {
			m[k] = v
		}
		if err := replay.WriteRun(filepath.Join(out, c.Dir), res, m); err != nil {
			t.Fatal(err)
		}
	}
}

// decimals matches the decimal numbers of a table: the wall times of a timing
// study differ from run to run.
var decimals = regexp.MustCompile(`\b[0-9]+\.[0-9]+`)

func TestPresetsEndToEnd(t *testing.T) {
	tests := []struct {
		spec    string
		table   func([]report.Run) *report.Table
		figures func([]report.Run, string, string) ([]string, error)
		want    []string // figure files
		timed   bool     // mask the table's decimals
	}{
		{"coupling-twojobs", coupling.Table, coupling.WriteFigures, []string{"coupling_running_fair", "coupling_running_coupling", "coupling_spans", "coupling_network"}, false},
		{"coupling-grep", coupling.Table, coupling.WriteFigures, []string{"coupling_running_fair", "coupling_running_coupling", "coupling_spans", "coupling_network"}, false},
		{"coupling-single", coupling.Table, coupling.WriteFigures, []string{"coupling_processing"}, false},
		{"coupling-wordcount", coupling.Table, coupling.WriteFigures, []string{"coupling_maps", "coupling_network"}, false},
		{"coupling-table3", coupling.Table, coupling.WriteFigures, []string{"coupling_maps", "coupling_spans", "coupling_local_maps", "coupling_network"}, false},
		{"coupling-table4", coupling.Table, coupling.WriteFigures, []string{"coupling_spans", "coupling_network"}, false},
		{"coupling-batches", coupling.Table, coupling.WriteFigures, []string{"coupling_network", "coupling_cdf"}, false},
		{"bar-table4", bar.Table4, bar.WriteTable4Figures, []string{"bar_table4_a", "bar_table4_b"}, false},
		{"bar-fig9", bar.Fig9Table, bar.WriteFig9Figures, []string{"bar_fig9_a"}, true},
	}
	for n, tt := range tests {
		// PNG, rasterised and deflated, was half of the test's CPU: the fast
		// lane draws the first spec of each preset as PNG and the others as
		// SVG (the same figures; the names are what is checked).
		format := "png"
		if preset := func(spec string) string { return strings.Split(spec, "-")[0] }; testgate.IsFast() && n > 0 && preset(tests[n-1].spec) == preset(tt.spec) {
			format = "svg"
		}
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "runs")
			runSpec(t, filepath.Join("testdata", "e2e", tt.spec+".toml"), out)
			runs, err := report.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			tb := tt.table(runs)
			if tt.timed { // wall times: keep the layout, not the values
				for _, row := range tb.Rows {
					for i := range row {
						if row[i].IsNum && i >= 2 {
							row[i].Text = "#"
						}
					}
				}
				for i, n := range tb.Notes {
					tb.Notes[i] = decimals.ReplaceAllString(n, "#")
				}
			}
			var b bytes.Buffer
			if err := tb.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			report.CheckGolden(t, "e2e_"+tt.spec+".golden", []byte(got))
			dir := t.TempDir()
			paths, err := tt.figures(runs, dir, format)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range paths {
				if filepath.Ext(p) != "."+format {
					t.Errorf("figure %s, want a .%s file", p, format)
				}
				names = append(names, strings.TrimSuffix(filepath.Base(p), "."+format))
			}
			if strings.Join(names, " ") != strings.Join(tt.want, " ") {
				t.Errorf("figures %v, want %v", names, tt.want)
			}
			// The summary that report prints beside the preset works too.
			if tb := report.SummaryTable(runs); len(tb.Rows) == 0 {
				t.Error("empty summary table")
			}
		})
	}
}
