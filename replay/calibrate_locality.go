package replay

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/tracereplay/tracereplay/trace"
)

// fitLocalityFactors fits rack_local_factor and off_rack_factor, the ratios
// trace mode's trace_locality = "factors" rescales an observed map's duration
// by when the replay runs it at another distance from its input
// (tracemode.go). The defaults are Rumen's ZombieJob constants (1.5 and 3.0),
// which are not measured on any cluster; a history that records where its
// maps ran gives the ratio on its own cluster. Per job, the median observed
// duration (attempt finish − start) of its rack-local maps over the median of
// its node-local maps, each group of at least minFitSamples maps with split
// locations (the maps whose locality the trace records or ingest derived);
// the factor is the median of those ratios over the jobs, at least 1, and
// off_rack_factor at least rack_local_factor (Hardware.Validate). A job
// compares maps of one program on one cluster, so the ratio is the locality's
// cost and not a difference between jobs. Without such a job the base's
// value is kept (a note says so).
func (c *Calibration) fitLocalityFactors(tr *trace.Trace, base Hardware, observed func(*trace.Task) bool) {
	type key struct {
		job, loc string
	}
	dur := map[key][]float64{}
	var jobs []string // in trace order, for a deterministic fit
	seen := map[string]bool{}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if t.Type != trace.Map || !observed(t) || len(t.PreferredHosts) == 0 {
			continue
		}
		switch t.Locality {
		case trace.NodeLocal, trace.RackLocal, trace.OffSwitch:
		default:
			continue
		}
		if !seen[t.JobID] {
			seen[t.JobID] = true
			jobs = append(jobs, t.JobID)
		}
		k := key{t.JobID, t.Locality}
		dur[k] = append(dur[k], msUs(t.FinishMs-t.StartMs))
	}
	med := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return median(v)
	}
	ratios := func(loc string) []float64 {
		var r []float64
		for _, j := range jobs {
			node, far := dur[key{j, trace.NodeLocal}], dur[key{j, loc}]
			if len(node) < minFitSamples || len(far) < minFitSamples {
				continue
			}
			if n := med(node); n > 0 {
				r = append(r, med(far)/n)
			}
		}
		slices.Sort(r)
		return r
	}
	rack := base.RackLocalFactor
	for _, f := range []struct {
		key, loc, what string
	}{{"rack_local_factor", trace.RackLocal, "rack-local"}, {"off_rack_factor", trace.OffSwitch, "off-rack"}} {
		r := ratios(f.loc)
		if len(r) == 0 {
			c.note("%s: no job has at least %d node-local and %d %s maps with split locations and observed times; the base value is kept", f.key, minFitSamples, minFitSamples, f.what)
			if f.key == "rack_local_factor" {
				continue
			}
			if base.OffRackFactor >= rack {
				continue
			}
			// the base's off-rack factor is below the fitted rack-local one
			c.add(f.key, strconv.FormatFloat(rack, 'g', 4, 64), "raised to the fitted rack_local_factor (no job to fit it on; Hardware.Validate wants off >= rack)", 0)
			continue
		}
		v := max(median(r), 1)
		lower := "at least 1"
		if f.key == "off_rack_factor" {
			v = max(v, rack)
			lower = "at least 1 and at least rack_local_factor"
		}
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
		c.add(f.key, strconv.FormatFloat(v, 'g', 4, 64), fmt.Sprintf("median over jobs of the median %s map's observed duration over the median node-local map's (each at least %d maps with split locations; ratios from %.3g to %.3g), %s; trace_locality = \"factors\" rescales an observed map's duration by it (Rumen's constant: %g)", f.what, minFitSamples, r[0], r[len(r)-1], lower, map[bool]float64{true: mumakRackLocal, false: mumakOffRack}[f.key == "rack_local_factor"]), len(r))
		if f.key == "rack_local_factor" {
			rack = v
		}
	}
}
