package main

import (
	"math"
	"testing"
)

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

// TestHourlyMeans works a case by hand: two jobs in hour 0, none in hour 1,
// one in hour 2.
func TestHourlyMeans(t *testing.T) {
	ft := map[int32]int64{0: 1e6, 1: 3e6, 2: 10e6}
	sub := map[int32]int64{0: 0, 1: 3599e6, 2: 7200e6}
	m := hourlyMeans(ft, sub)
	if len(m) != 3 || m[0] != 2 || !math.IsNaN(m[1]) || m[2] != 10 {
		t.Errorf("hourlyMeans = %v, want [2 NaN 10]", m)
	}
}
