package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

// TestLinkTable: links ranked by mean utilisation over the run's instants,
// worked out by hand: at 0 and 10 s, r0/uplink carries 0.5 then nothing
// (mean 0.25), h1/nic-in 1.0 then 0.5 (mean 0.75, saturated half the time).
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
	want := "fair,h1/nic-in,100,75,0.75,1,0.5\nfair,r0/uplink,100,25,0.25,0.5,0\n"
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
