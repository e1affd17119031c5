package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

// TestLinkTable: links ranked by mean utilisation over the run's timeline
// instants, worked out by hand: the run samples at 0, 5, 10, 15 and 20 s
// (makeRun, flowtime 20 s); links.parquet has rows only at 0 and 10 s, where
// r0/uplink carries 0.5 then nothing (mean 0.5/5 = 0.1) and h1/nic-in 1.0
// then 0.5 (mean 1.5/5 = 0.3, load 30 MB/s, saturated 1 instant of 5).
func TestLinkTable(t *testing.T) {
	r := makeRun(map[string]string{PolicyLabel: "fair"}, []jobSpec{{flow: 20}})
	row := func(ts int64, link string, u float64) results.LinkSample {
		return results.LinkSample{Policy: "fair", TimeUs: ts * sec, Link: link, CapacityMBps: 100, LoadMBps: 100 * u, Utilisation: u, Flows: 1}
	}
	r.Links = []results.LinkSample{row(0, "h1/nic-in", 1), row(0, "r0/uplink", 0.5), row(10, "h1/nic-in", 0.5)}
	var b bytes.Buffer
	if err := LinkTable([]Run{r}).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "fair,h1/nic-in,100,30,0.3,1,0.2\nfair,r0/uplink,100,10,0.1,0.5,0\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("link table\n%s\nlacks\n%s", b.String(), want)
	}
	figs, err := RenderFigures([]Run{r}, FigureOptions{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(names(figs), BusiestLinksFigure) {
		t.Errorf("figures %s: no %s", names(figs), BusiestLinksFigure)
	}
	if LinkTable([]Run{makeRun(map[string]string{PolicyLabel: "fifo"}, []jobSpec{{flow: 1}})}) != nil {
		t.Error("a run without link loads has a link table")
	}
	if notes := strings.Join(LinkTable([]Run{r}).Notes, " "); strings.Contains(notes, overCapacityNote) {
		t.Errorf("peaks of at most 1 explained as over capacity: %s", notes)
	}
	// A link over its capacity at an instant (the rate-update quantum's
	// equal share) gets the note.
	r.Links = append(r.Links, row(15, "r0/uplink", 1.25))
	if notes := strings.Join(LinkTable([]Run{r}).Notes, " "); !strings.Contains(notes, overCapacityNote) {
		t.Errorf("a peak of 1.25 not explained: %s", notes)
	}
}

// TestBusiestLinksFirstSeedIdle: a cell whose first seed recorded no link
// loads (its transfers all fell between timeline instants) takes its panel and
// table rows from the first seed that did, instead of drawing an empty panel
// (which gonum/plot refused with a panic: "w and h must both be > 0").
func TestBusiestLinksFirstSeedIdle(t *testing.T) {
	idle := makeRun(map[string]string{PolicyLabel: "fair", "seed": "1"}, []jobSpec{{flow: 20}})
	busy := makeRun(map[string]string{PolicyLabel: "fair", "seed": "2"}, []jobSpec{{flow: 20}})
	busy.Links = []results.LinkSample{{Policy: "fair", TimeUs: 0, Link: "h1/nic-in", CapacityMBps: 100, LoadMBps: 100, Utilisation: 1, Flows: 1}}
	runs := []Run{idle, busy}
	if g := GroupRuns(runs); len(g) != 1 || len(g[0].Runs) != 2 {
		t.Fatalf("want one cell of two seeds, got %d cells", len(g))
	}
	figs, err := RenderFigures(runs, FigureOptions{Format: "png"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(names(figs), BusiestLinksFigure) {
		t.Errorf("figures %s: no %s", names(figs), BusiestLinksFigure)
	}
	var b bytes.Buffer
	if err := LinkTable(runs).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if want := "fair,h1/nic-in,100,20,0.2,1,0.2\n"; !strings.Contains(b.String(), want) {
		t.Errorf("link table\n%s\nlacks\n%s", b.String(), want)
	}
}

func names(figs []RenderedFigure) string {
	var s []string
	for _, f := range figs {
		if f.Data != nil {
			s = append(s, f.Name)
		}
	}
	return strings.Join(s, ",")
}
