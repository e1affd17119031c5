package main

import (
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

func task(job int32, typ string, node int32, launch, finish int64) results.TaskRow {
	return results.TaskRow{JobIndex: job, Type: typ, Node: &node, LaunchUs: &launch, FinishUs: &finish}
}

// TestReport works a case by hand: three long maps on two nodes, a short
// map and a long reduce left out of the count, the maps of jobs 2 and 7
// listed (job 7 has none).
func TestReport(t *testing.T) {
	rows := []results.TaskRow{
		task(1, "MAP", 5, 0, 600e6),
		task(2, "MAP", 3, 10e6, 700e6),
		task(2, "MAP", 5, 0, 500e6),
		task(3, "MAP", 3, 0, 499e6),
		task(7, "REDUCE", 9, 1_500_001, 2000e6),
	}
	var b strings.Builder
	report(&b, rows, filter{minUs: 500e6, typ: "MAP", top: 10, jobs: map[int32]bool{2: true, 7: true}})
	want := "3 tasks of at least 500 s on 2 nodes\n" +
		"  node 5 MAP: 2\n" +
		"  node 3 MAP: 1\n" +
		"job 2 MAP 0: node 3, launch 10.000000 s, 690.0 s\n" +
		"job 2 MAP 0: node 5, launch 0.000000 s, 500.0 s\n"
	if b.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), want)
	}
}
