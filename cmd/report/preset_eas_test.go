package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/cells"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
)

// writeSpecRuns replays every cell of an experiment spec as `replay
// --experiment SPEC --out DIR` does (cells.Run; trace named
// generator+params@seed, hardware by name, the sweep's labels as run
// parameters), with the simulator's invariants checked, and writes the runs
// under a fresh directory it returns.
func writeSpecRuns(t *testing.T, spec string) string {
	t.Helper()
	e, err := replay.LoadExperiment(spec)
	if err != nil {
		t.Fatal(err)
	}
	specCells, err := e.Cells()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, c := range specCells {
		params, _ := json.Marshal(c.Trace.Params)
		res, err := cells.Run(context.Background(), c, cells.Options{NewPolicy: policy.New, Replay: replay.Options{
			CheckInvariants: true, Timeline: e.TimelineOn(),
			TraceName: fmt.Sprintf("%s%s@%d", c.Trace.Generator, params, c.Seed), HardwareName: c.HWName}})
		if err != nil {
			t.Fatalf("%s: %v", c.Dir, err)
		}
		if err := replay.WriteRun(filepath.Join(root, c.Dir), res, nil); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// readCSV reads a preset's CSV table.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// TestPresetEndToEnd runs the reduced EAS and HybSMRP specs in testdata through
// replay's experiment API and the simulator, then `report --preset NAME --out
// DIR RESULTS`, and checks the preset's table: its rows (figure or table ×
// x value, plus HybSMRP's summaries) and series (the paper's policies, in the
// paper's order), its figures, and its Markdown against a golden file.
func TestPresetEndToEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		preset, spec string
		header       string   // the CSV header
		rows         []string // the cells before "seeds" of each CSV row
		figures      []string
	}{
		{
			preset: "eas", spec: "eas-small.toml",
			header: "figure,replication,seeds,eas,eas_ci95,fifo_be,fifo_be_ci95,fifo_s,fifo_s_ci95,hfs_be,hfs_be_ci95,hfs_s,hfs_s_ci95",
			rows: []string{"Fig. 3 locality (%) 1", "Fig. 3 locality (%) 3", "Fig. 4 load balance (0-1) 1", "Fig. 4 load balance (0-1) 3",
				"Fig. 5 map machines (MB/s) 1", "Fig. 5 map machines (MB/s) 3", "Fig. 6 reduce machines (MB/s) 1", "Fig. 6 reduce machines (MB/s) 3",
				"Fig. 7 total flowtime (s) 1", "Fig. 7 total flowtime (s) 3"},
			figures: []string{"eas_fig3_locality", "eas_fig4_load-balance", "eas_fig5_map-throughput", "eas_fig6_reduce-throughput", "eas_fig7_flowtime"},
		},
		{
			preset: "hybsmrp", spec: "hybsmrp-small.toml",
			header: "table,trace,trace_maps,seeds,fifo,fifo_ci95,fair,fair_ci95,hybsmrp,hybsmrp_ci95,hybsmrp_preset_sjf,hybsmrp_preset_sjf_ci95",
			rows: []string{
				"Table 4 locality (%) wordcount 10", "Table 4 locality (%) wordcount 40", "Table 4 locality (%) wordcount average",
				"Table 4 locality (%) wordcount vs FIFO", "Table 4 locality (%) wordcount vs Fair",
				"Table 7 completion (s) terasort-alone 10", "Table 7 completion (s) terasort-alone 40", "Table 7 completion (s) terasort-alone average",
				"Table 7 completion (s) terasort-alone vs FIFO", "Table 7 completion (s) terasort-alone vs Fair",
				"completion (s) wordcount 10", "completion (s) wordcount 40", "completion (s) wordcount average",
				"completion (s) wordcount vs FIFO", "completion (s) wordcount vs Fair"},
			figures: []string{"hybsmrp_table4_locality_wordcount", "hybsmrp_table7_completion_terasort-alone", "hybsmrp_completion_wordcount"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			root := writeSpecRuns(t, filepath.Join("testdata", tt.spec))
			out := filepath.Join(t.TempDir(), "report")
			code, stdout, stderr := runCmd("--preset", tt.preset, "--out", out, root)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			md, err := os.ReadFile(filepath.Join(out, tt.preset+".md"))
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "preset_"+tt.preset+".md.golden", md)
			title, _, _ := strings.Cut(strings.TrimPrefix(string(md), "## "), "\n")
			if !strings.Contains(stdout, title) {
				t.Errorf("stdout lacks the preset table %q", title)
			}
			recs := readCSV(t, filepath.Join(out, tt.preset+".csv"))
			if got := strings.Join(recs[0], ","); got != tt.header {
				t.Errorf("CSV header\n%s\nwant\n%s", got, tt.header)
			}
			seeds := slices.Index(recs[0], "seeds")
			var rows []string
			for _, r := range recs[1:] {
				rows = append(rows, strings.Join(r[:seeds], " "))
				if r[seeds] != "2" {
					t.Errorf("row %v: %s seeds, want 2", r, r[seeds])
				}
			}
			if !slices.Equal(rows, tt.rows) {
				t.Errorf("rows\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(tt.rows, "\n"))
			}
			for _, f := range tt.figures {
				checkPNG(t, filepath.Join(out, f+".png"))
			}
		})
	}
}

// checkPNG fails unless path is a PNG image.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}
