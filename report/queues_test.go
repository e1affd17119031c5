package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

// yarnRun is a run of two jobs, one in queue a and one in b, with queue
// samples at 0, 10 and 20 s: a holds 50%, 25%, 0% (no row at 20 s), b 0%
// (no row at 0), 25%, 75% of the cluster's memory; a's guaranteed share is
// 0.6, b's 0.4.
func yarnRun() Run {
	r := makeRun(map[string]string{PolicyLabel: "yarn-capacity"}, []jobSpec{{submit: 0, flow: 20}, {submit: 5, flow: 30, starv: 2}})
	r.Jobs[0].Queue, r.Jobs[1].Queue = "root.a", "root.b"
	row := func(t int64, q string, share, g float64) results.QueueSample {
		return results.QueueSample{Policy: "yarn-capacity", TimeUs: t * sec, Queue: q, MemoryMB: int64(share * 8192), Share: share, Guaranteed: g}
	}
	r.Queues = []results.QueueSample{row(0, "root.a", 0.5, 0.6), row(10, "root.a", 0.25, 0.6), row(10, "root.b", 0.25, 0.4), row(20, "root.b", 0.75, 0.4)}
	return r
}

// TestQueueTable: the per-queue rows, worked out from yarnRun by hand: a has
// one job of 20 s, mean share (0.5 + 0.25 + 0) / 3 instants = 0.25, peak 0.5;
// b one job of 30 s with 2 s starvation, mean (0 + 0.25 + 0.75) / 3 = 0.333.
func TestQueueTable(t *testing.T) {
	if QueueTable([]Run{makeRun(map[string]string{PolicyLabel: "fifo"}, []jobSpec{{flow: 1}})}) != nil {
		t.Error("a slot run without queue samples has a queue table")
	}
	tb := QueueTable([]Run{yarnRun()})
	var b bytes.Buffer
	if err := tb.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"yarn-capacity,root.a,1,20,0,0,0.25,0.5,0.6", "yarn-capacity,root.b,1,30,0,2,0.3333333333333333,0.75,0.4"} {
		if !strings.Contains(got, want) {
			t.Errorf("queue table\n%s\nlacks %q", got, want)
		}
	}
}

// TestQueueSharesFigure: the figure is drawn for YARN runs and absent from
// slot runs' figures.
func TestQueueSharesFigure(t *testing.T) {
	figs, err := RenderFigures([]Run{yarnRun()}, FigureOptions{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range figs {
		if f.Name == QueueSharesFigure {
			found = len(f.Data) > 0
		}
	}
	if !found {
		t.Error("no queue_shares figure drawn for a YARN run")
	}
	figs, err = RenderFigures([]Run{makeRun(map[string]string{PolicyLabel: "fifo"}, []jobSpec{{flow: 1}})}, FigureOptions{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if f.Name == QueueSharesFigure {
			t.Error("a slot run has a queue_shares figure")
		}
	}
}
