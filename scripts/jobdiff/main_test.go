package main

import "testing"

// TestCompare works a case by hand: four jobs, one 10% slower, one 50% faster.
func TestCompare(t *testing.T) {
	ref := map[int32]int64{0: 1e6, 1: 2e6, 2: 4e6, 3: 8e6}
	c := map[int32]int64{0: 1e6, 1: 2.2e6, 2: 4e6, 3: 4e6}
	s, err := compare(ref, c)
	if err != nil {
		t.Fatal(err)
	}
	want := stats{jobs: 4, total: 11.2, totalDiff: 100 * (11.2 - 15) / 15, median: 4, p90: 4, diffMedian: 10, diffP90: 50, diffMax: 50}
	if s != want {
		t.Errorf("compare = %+v, want %+v", s, want)
	}
	if _, err := compare(ref, map[int32]int64{9: 1}); err == nil {
		t.Error("a job missing from the reference: no error")
	}
}
