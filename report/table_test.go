package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
	"strings"
	"testing"
)

// summaryFixtures are the result sets of the golden summary tests.
func summaryFixtures() map[string][]Run {
	lbl := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return map[string][]Run{
		// Given out of order: the table sorts by policy.
		"policies": {
			seqRun(lbl("policy", "fifo"), 20, 1),
			seqRun(lbl("policy", "fair"), 10, 2),
		},
		// hw is the same everywhere and is left out; seeds sort numerically.
		"seeds": {
			seqRun(lbl("policy", "fifo", "hw", "small", "seed", "10"), 20, 1),
			seqRun(lbl("policy", "fair", "hw", "small", "seed", "2"), 10, 2),
			seqRun(lbl("policy", "fifo", "hw", "small", "seed", "2"), 10, 3),
			seqRun(lbl("policy", "fair", "hw", "small", "seed", "10"), 20, 2),
			seqRun(lbl("policy", "fair", "hw", "small", "seed", "1"), 4, 1),
		},
		// One run per cell: one row per run, sorted numerically by the sweep.
		"sweep": {
			seqRun(lbl("policy", "fifo", "replication", "10", "seed", "1"), 20, 1),
			seqRun(lbl("policy", "fair", "replication", "2", "seed", "1"), 10, 2),
			seqRun(lbl("policy", "fifo", "replication", "2", "seed", "1"), 10, 3),
			seqRun(lbl("policy", "fair", "replication", "10", "seed", "1"), 20, 2),
			seqRun(lbl("policy", "fair", "replication", "1", "seed", "1"), 4, 1),
		},
		// Several seeds in a cell: one row per cell, mean ± CI; fifo's third
		// seed has an unfinished job.
		"seeds_unfinished": {
			seqRun(lbl("policy", "fifo", "seed", "1"), 10, 2),
			seqRun(lbl("policy", "fifo", "seed", "2"), 10, 3),
			makeRun(lbl("policy", "fifo", "seed", "3"), []jobSpec{{submit: 0, flow: 3, node: 2}, {submit: 1, flow: -1, node: 1}}),
			seqRun(lbl("policy", "fair", "seed", "1"), 10, 2),
		},
		"unfinished": {
			makeRun(lbl("policy", "fifo"), []jobSpec{{submit: 0, flow: 3, node: 2}, {submit: 1, flow: -1, node: 1}}),
			makeRun(lbl("policy", "eas"), []jobSpec{{submit: 0, flow: 5, reduces: 1, starv: 2, rack: 2}}),
		},
	}
}

func TestSummaryTableGolden(t *testing.T) {
	for name, runs := range summaryFixtures() {
		t.Run(name, func(t *testing.T) {
			tbl := SummaryTable(runs)
			for _, f := range []struct {
				ext   string
				write func(*bytes.Buffer) error
			}{
				{"txt", func(b *bytes.Buffer) error { return tbl.WriteText(b) }},
				{"md", func(b *bytes.Buffer) error { return tbl.WriteMarkdown(b) }},
				{"csv", func(b *bytes.Buffer) error { return tbl.WriteCSV(b) }},
				{"tex", func(b *bytes.Buffer) error { return tbl.WriteLaTeX(b) }},
			} {
				var b bytes.Buffer
				if err := f.write(&b); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, "summary_"+name+"."+f.ext+".golden", b.Bytes())
			}
		})
	}
}

func TestSummaryTableDoesNotReorderInput(t *testing.T) {
	runs := summaryFixtures()["policies"]
	SummaryTable(runs)
	if runs[0].Policy != "fifo" {
		t.Errorf("SummaryTable reordered its input: first run is %q", runs[0].Policy)
	}
}

func TestSummaryTableRowsFollowLabels(t *testing.T) {
	tbl := SummaryTable(summaryFixtures()["sweep"])
	var got []string
	for _, r := range tbl.Rows {
		got = append(got, r[0].Text+" "+r[1].Text)
	}
	want := "fair 1|fair 2|fair 10|fifo 2|fifo 10"
	if strings.Join(got, "|") != want {
		t.Errorf("row order %q, want %q", strings.Join(got, "|"), want)
	}
	if tbl.Columns[1].Name != "replication" || tbl.Columns[2].Name != "jobs" {
		t.Errorf("label columns: got %q, %q; want replication then jobs (seed does not vary)", tbl.Columns[1].Name, tbl.Columns[2].Name)
	}
}

// TestSummaryTableAggregatesSeeds checks the per-cell rows against MeanCI95 of
// the per-run statistics, worked out from the runs themselves.
func TestSummaryTableAggregatesSeeds(t *testing.T) {
	runs := summaryFixtures()["seeds"]
	tbl := SummaryTable(runs)
	if len(tbl.Rows) != 2 {
		t.Fatalf("%d rows, want one per policy", len(tbl.Rows))
	}
	var names []string
	for _, c := range tbl.Columns[:3] {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "policy,seeds,jobs" {
		t.Errorf("first columns %v, want policy, seeds, jobs", names)
	}
	col := slices.IndexFunc(tbl.Columns, func(c Column) bool { return c.Name == "flowtime_p95_s" })
	if col < 0 || !tbl.Columns[col].CI {
		t.Fatalf("flowtime_p95_s missing or not a CI column")
	}
	// fair: seeds 1, 2, 10 with 4, 10, 20 jobs of step 1, 2, 2.
	var p95 []float64
	for _, r := range runs {
		if r.Policy == "fair" {
			p95 = append(p95, ComputeStats(r).FlowtimeP95)
		}
	}
	m, h := MeanCI95(p95)
	row := tbl.Rows[0]
	if row[0].Text != "fair" || row[1].Text != "3" {
		t.Fatalf("first row %q %q, want fair with 3 seeds", row[0].Text, row[1].Text)
	}
	if c := row[col]; c.Num != m || c.CI != h || math.IsNaN(h) {
		t.Errorf("fair flowtime p95 = %v ± %v, want %v ± %v", c.Num, c.CI, m, h)
	}
	if row[2].IsInt || row[2].Text != "11.3" {
		t.Errorf("jobs of fair (4, 10, 20 per seed) = %q, want the mean 11.3", row[2].Text)
	}
}

// TestSummaryTableMixedSeeds: a cell with one seed among cells with several
// shows its value without an interval.
func TestSummaryTableMixedSeeds(t *testing.T) {
	tbl := SummaryTable(summaryFixtures()["seeds_unfinished"])
	fair := tbl.Rows[0]
	if fair[0].Text != "fair" || fair[1].Text != "1" {
		t.Fatalf("first row %q %q, want fair with 1 seed", fair[0].Text, fair[1].Text)
	}
	for i, c := range fair {
		if tbl.Columns[i].CI && (strings.Contains(c.Text, "±") || !math.IsNaN(c.CI)) {
			t.Errorf("column %s: %q has an interval from one seed", tbl.Columns[i].Name, c.Text)
		}
	}
}

func TestSummaryTableInMemoryRunsWithoutLabels(t *testing.T) {
	a := seqRun(nil, 4, 1)
	a.Policy = "srpt"
	b := seqRun(nil, 4, 1)
	b.Policy = "fair"
	tbl := SummaryTable([]Run{a, b})
	if tbl.Rows[0][0].Text != "fair" || tbl.Rows[1][0].Text != "srpt" {
		t.Errorf("policies from Run.Policy: got %q, %q", tbl.Rows[0][0].Text, tbl.Rows[1][0].Text)
	}
}

func testTable() *Table {
	t := &Table{
		Title: "T",
		Columns: []Column{
			{Header: "name", Name: "name"},
			{Header: "long\nvalue (s)", Name: "value_s", Align: AlignRight},
		},
		Notes: []string{"a note"},
	}
	t.AddRow(Str("a|b"), Float(1.0/3, 2))
	t.AddRow(Str("ccc"), Float(math.NaN(), 2))
	t.AddRow(Str("d,\"e\""), Float(1234567.125, 0))
	t.AddRow(Str("ünï"), Int(42))
	return t
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := testTable().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "T\n\n" +
		"            long\n" +
		"name   value (s)\n" +
		"-----  ---------\n" +
		"a|b         0.33\n" +
		"ccc            -\n" +
		"d,\"e\"    1234567\n" +
		"ünï           42\n" +
		"\na note\n"
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := testTable().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "## T\n\n" +
		"| name | long value (s) |\n" +
		"| :--- | ---: |\n" +
		"| a\\|b | 0.33 |\n" +
		"| ccc | - |\n" +
		"| d,\"e\" | 1234567 |\n" +
		"| ünï | 42 |\n" +
		"\n- a note\n"
	if b.String() != want {
		t.Errorf("WriteMarkdown:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := testTable().WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v", err)
	}
	want := [][]string{
		{"name", "value_s"},
		{"a|b", "0.3333333333333333"},
		{"ccc", ""},
		{`d,"e"`, "1234567.125"},
		{"ünï", "42"},
	}
	if len(recs) != len(want) {
		t.Fatalf("got %d records, want %d", len(recs), len(want))
	}
	for i := range want {
		if strings.Join(recs[i], "\x00") != strings.Join(want[i], "\x00") {
			t.Errorf("record %d = %q, want %q", i, recs[i], want[i])
		}
	}
}

func TestAddRowWrongWidthPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("AddRow with too few cells did not panic")
		}
	}()
	testTable().AddRow(Str("x"))
}
