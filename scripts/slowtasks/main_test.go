package main

import (
	"strings"
	"testing"
	"time"
)

func task(job int32, typ string, node int32, launch, finish int64) taskTimes {
	return taskTimes{JobIndex: job, Type: typ, Node: &node, LaunchUs: &launch, FinishUs: &finish}
}

// TestTally works a case by hand: three long maps on two nodes, a short map
// and a long reduce left out of the count, the maps of jobs 2 and 7 listed
// (job 7 has none), a task that never ran left out.
func TestTally(t *testing.T) {
	rows := []taskTimes{
		task(1, "MAP", 5, 0, 600e6),
		task(2, "MAP", 5, 0, 500e6),
		task(2, "MAP", 3, 10e6, 700e6),
		task(3, "MAP", 3, 0, 499e6),
		task(7, "REDUCE", 9, 1_500_001, 2000e6),
		{JobIndex: 2, Type: "MAP"},
	}
	tl := &tally{minUs: 500e6, typ: "MAP", jobs: map[int32]bool{2: true, 7: true}, count: map[place]int{}}
	for i := range rows {
		tl.add(&rows[i])
	}
	var b strings.Builder
	tl.print(&b, 10)
	want := "3 tasks of at least 500 s on 2 nodes\n" +
		"  node 5 MAP: 2\n" +
		"  node 3 MAP: 1\n" +
		"job 2 MAP 0: node 3, launch 10.000000 s, 690.0 s\n" +
		"job 2 MAP 0: node 5, launch 0.000000 s, 500.0 s\n"
	if b.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestRunRefuses checks the flags and directories it must refuse.
func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		args      []string
		typ, jobs string
		top       int
	}{
		"no directory":  {nil, "MAP", "", 10},
		"unknown type":  {[]string{dir}, "map", "", 10},
		"negative top":  {[]string{dir}, "MAP", "", -1},
		"bad job index": {[]string{dir}, "MAP", "7,x", 10},
		"no tasks file": {[]string{dir}, "MAP", "", 10},
	} {
		if err := run(&strings.Builder{}, c.args, time.Second, c.typ, c.top, c.jobs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
