package coupling

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/plotter"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/replay"

	"github.com/tracereplay/tracereplay/report"
)

// runHardware returns the hardware model run r recorded in its jobs.parquet
// metadata; ok is false for a run built in memory or one that recorded none.
func runHardware(r report.Run) (hw replay.Hardware, ok bool, err error) {
	if r.Dir == "" {
		return hw, false, nil
	}
	path := filepath.Join(r.Dir, results.JobsFile)
	v, ok, err := results.ParquetMeta(path, results.HardwareMetaKey)
	if err != nil || !ok {
		return hw, false, err
	}
	if err := json.Unmarshal([]byte(v), &hw); err != nil {
		return hw, false, fmt.Errorf("read results %s: metadata %s: %w", path, results.HardwareMetaKey, err)
	}
	return hw, true, nil
}

// step returns the timeline sampling interval of g's runs in microseconds: the
// recorded hardware's, else the smallest spacing of the cluster's samples, else
// one minute.
func (g *cpGroup) step() (int64, error) {
	hw, ok, err := runHardware(g.runs[0])
	if err != nil {
		return 0, err
	}
	if ok && hw.TimelineSample > 0 {
		return int64(hw.TimelineSample), nil
	}
	var step int64
	for _, r := range g.runs {
		var last int64 = -1
		for _, s := range r.Timeline {
			if s.JobIndex != -1 {
				continue
			}
			if d := s.TimeUs - last; last >= 0 && d > 0 && (step == 0 || d < step) {
				step = d
			}
			last = s.TimeUs
		}
	}
	if step == 0 {
		step = 60e6
	}
	return step, nil
}

// gridLen is the number of sampling intervals that cover every run of g, plus
// one so that each series ends at zero.
func (g *cpGroup) gridLen(step int64) int {
	var last int64
	for _, r := range g.runs {
		for _, s := range r.Timeline {
			last = max(last, s.TimeUs)
		}
	}
	return int(last/step) + 2
}

// bandOf returns the mean over runs, with its 95% half-width, of dense series
// (one per run, all of length n) at x = i·xScale.
func bandOf(series [][]float64, n int, xScale float64) report.MeanBand {
	var b report.MeanBand
	vals := make([]float64, len(series))
	for i := range n {
		for k, s := range series {
			vals[k] = s[i]
		}
		m, h := report.MeanCI95(vals)
		b.XY = append(b.XY, plotter.XY{X: float64(i) * xScale, Y: m})
		b.Half = append(b.Half, h)
	}
	return b
}

// runningBands returns, for policy p of g, the running maps and reduces of each
// job (by job index) on the grid of n intervals of step µs, x in minutes.
func (g *cpGroup) runningBands(p string, step int64, n int) (maps, reduces []report.MeanBand) {
	runs := g.byPolicy(p)
	nj := len(g.jobs)
	dm := make([][][]float64, nj) // job, run, interval
	dr := make([][][]float64, nj)
	for k := range nj {
		dm[k], dr[k] = make([][]float64, len(runs)), make([][]float64, len(runs))
		for i := range runs {
			dm[k][i], dr[k][i] = make([]float64, n), make([]float64, n)
		}
	}
	for i, r := range runs {
		for _, s := range r.Timeline {
			k, at := int(s.JobIndex), int(s.TimeUs/step)
			if k < 0 || k >= nj || at >= n {
				continue
			}
			dm[k][i][at], dr[k][i][at] = float64(s.RunningMaps), float64(s.RunningReduces)
		}
	}
	x := minutes(step)
	for k := range nj {
		maps = append(maps, bandOf(dm[k], n, x))
		reduces = append(reduces, bandOf(dr[k], n, x))
	}
	return maps, reduces
}

// cpNet is one run's network per timeline interval: the largest bytes any node
// received (in) and sent (out), and the bytes moved between nodes in total.
type cpNet struct {
	policy     string
	widthUs    int64
	makespanUs int64
	in, out    []float64
	total      int64
}

// meanPeakMB is Fig. 14's curve summarised: per interval the busiest node's
// larger direction, averaged over the intervals of the makespan, in MB.
func (n cpNet) meanPeakMB() float64 {
	var s float64
	for i := range n.in {
		s += max(n.in[i], n.out[i])
	}
	intervals := math.Ceil(float64(n.makespanUs) / float64(n.widthUs))
	return s / max(intervals, 1) / 1e6
}

// totalGB is the bytes moved between nodes in GB.
func (n cpNet) totalGB() float64 { return float64(n.total) / 1e9 }

// cpGroupNet is the network of every run of a workload.
type cpGroupNet struct {
	width replay.Duration // the interval
	runs  []cpNet
}

func (n *cpGroupNet) byPolicy(p string) []cpNet {
	var out []cpNet
	for _, r := range n.runs {
		if r.policy == p {
			out = append(out, r)
		}
	}
	return out
}

// loadGroupNet reads nodes.parquet and node_net.parquet of every run of g. It
// returns nil without an error when some run has no such files (a run built in
// memory, or one that did not sample its timeline).
func loadGroupNet(g *cpGroup) (*cpGroupNet, error) {
	step, err := g.step()
	if err != nil {
		return nil, err
	}
	net := &cpGroupNet{width: replay.Duration(step)}
	for _, r := range g.runs {
		if r.Dir == "" {
			return nil, nil
		}
		path := filepath.Join(r.Dir, results.NodeNetFile)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		samples, err := results.ReadParquet[results.NodeNetSample](path)
		if err != nil {
			return nil, err
		}
		nodes, err := results.ReadParquet[results.NodeResult](filepath.Join(r.Dir, results.NodesFile))
		if err != nil {
			return nil, err
		}
		n := cpNet{policy: r.Policy, widthUs: step, makespanUs: r.Summary.MakespanUs}
		for i, s := range samples {
			if s.TimeUs < 0 || s.InBytes < 0 || s.OutBytes < 0 {
				return nil, fmt.Errorf("read results %s: row %d: columns time_us/in_bytes/out_bytes: negative value", path, i)
			}
			k := int(s.TimeUs / step)
			for len(n.in) <= k {
				n.in, n.out = append(n.in, 0), append(n.out, 0)
			}
			n.in[k] = max(n.in[k], float64(s.InBytes))
			n.out[k] = max(n.out[k], float64(s.OutBytes))
		}
		for _, x := range nodes {
			n.total += x.NetInBytes
		}
		net.runs = append(net.runs, n)
	}
	return net, nil
}
