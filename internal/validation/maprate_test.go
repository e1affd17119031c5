package validation_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// mapCostFit is a Theil–Sen line y = a + b·x with the slope's approximate 95%
// interval (Sen 1968, as replay's calibrate computes it; lo = −∞ and hi = +∞
// when there are too few points for one).
type mapCostFit struct {
	n            int
	a, b, lo, hi float64
}

func fitMapCost(x, y []float64) mapCostFit {
	n := len(x)
	var s []float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			if x[i] != x[j] {
				s = append(s, (y[j]-y[i])/(x[j]-x[i]))
			}
		}
	}
	f := mapCostFit{n: n, lo: math.Inf(-1), hi: math.Inf(1)}
	if len(s) == 0 {
		return f
	}
	slices.Sort(s)
	med := func(v []float64) float64 {
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	f.b = med(s)
	c := 1.96 * math.Sqrt(float64(n)*float64(n-1)*float64(2*n+5)/18)
	if k := int(math.Floor((float64(len(s)) - c) / 2)); k >= 0 {
		f.lo, f.hi = s[min(k, len(s)-1)], s[max(len(s)-1-k, 0)]
	}
	r := make([]float64, n)
	for i := range n {
		r[i] = y[i] - f.b*x[i]
	}
	slices.Sort(r)
	f.a = med(r)
	return f
}

// String gives the slope as s per GB (µs per byte × 1000) with its interval,
// and the intercept in s.
func (f mapCostFit) String() string {
	if f.n < 3 {
		return fmt.Sprintf("%d maps: too few for a line", f.n)
	}
	return fmt.Sprintf("%d maps: %.4g s per GB (95%% interval %.4g to %.4g), intercept %.3f s", f.n, f.b*1e3, f.lo*1e3, f.hi*1e3, f.a/1e6)
}

// TestMapCostsOfFolds fits, on each fold's maps (each job set once, as the
// harness calibrates), the duration less the disk term, (input + output) /
// disk_mb_per_s at the reference's 100 MB/s, on input bytes, for three kinds
// of map: pass-through maps (a job without reduces, output = input within
// 1%: replay's passthrough_map_mb_per_s), the other maps of jobs without
// reduces, and the maps of jobs with reduces; and, for the last, the residual
// of that line on the map's output bytes (a per-output-byte cost: the sort,
// spill and merge of map output). docs/validation.md ("Model mode") cites
// it. It checks the mechanism replay models: in fold B, the pass-through
// maps' slope is not told apart from 0 while the other maps' is positive.
func TestMapCostsOfFolds(t *testing.T) {
	testgate.Require(t, testgate.Full, "reads every scored trace")
	dir := sharedTraces(t)
	disk := replay.DefaultHardware().DiskMBps
	folds := map[string][]*trace.Trace{}
	seen := map[string]bool{}
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil {
			t.Fatalf("%s: %v", h.path, err)
		}
		folds[h.fold] = appendJobSet(folds[h.fold], tr, seen)
	}
	for _, fold := range []string{"A", "B"} {
		var px, py, ox, oy, rx, ry, rout []float64
		for _, tr := range folds[fold] {
			reduces := map[string]int{}
			for _, k := range tr.Tasks {
				if k.Type == trace.Reduce {
					reduces[k.JobID]++
				}
			}
			for _, k := range tr.Tasks {
				if k.Type != trace.Map || k.Host == "" || k.StartMs < 0 || k.FinishMs < k.StartMs || k.InputBytes < 0 || k.OutputBytes < 0 {
					continue
				}
				x := float64(k.InputBytes)
				y := float64(k.FinishMs-k.StartMs)*1000 - float64(k.InputBytes+k.OutputBytes)/disk
				d := float64(k.OutputBytes - k.InputBytes)
				switch {
				case reduces[k.JobID] == 0 && k.InputBytes > 0 && math.Abs(d) <= 0.01*x:
					px, py = append(px, x), append(py, y)
				case reduces[k.JobID] == 0:
					ox, oy = append(ox, x), append(oy, y)
				default:
					rx, ry, rout = append(rx, x), append(ry, y), append(rout, float64(k.OutputBytes))
				}
			}
		}
		pass, other, red := fitMapCost(px, py), fitMapCost(ox, oy), fitMapCost(rx, ry)
		fmt.Printf("fold %s, duration less (input+output)/%g MB/s on input bytes:\n", fold, disk)
		fmt.Printf("  pass-through maps: %v\n", pass)
		fmt.Printf("  other maps of jobs without reduces: %v\n", other)
		fmt.Printf("  maps of jobs with reduces: %v\n", red)
		if red.n >= 3 {
			res := make([]float64, len(rx))
			for i := range rx {
				res[i] = ry[i] - red.a - red.b*rx[i]
			}
			fmt.Printf("    their residual on output bytes: %v\n", fitMapCost(rout, res))
		}
		if fold == "B" {
			if pass.n < 3 || !(pass.lo <= 0 && pass.hi >= 0) {
				t.Errorf("fold B's pass-through maps: %v; want at least 3 and a slope not told apart from 0", pass)
			}
			if !(red.lo > 0) {
				t.Errorf("fold B's maps of jobs with reduces: %v; want a positive slope", red)
			}
		}
	}
}
