package summary

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/internal/results"
)

// Acc accumulates a run's Stats and Digest from its job rows given one at a
// time, in job order, so that a run that streams its rows need not hold them:
// it keeps two floats per job (the finished jobs' flowtimes and the
// starvation times, for the percentiles) and running sums. Compute and Digest
// are an Acc given every row; the results are the same to the bit. The zero
// value is ready to use.
type Acc struct {
	jobs          int
	flow, starv   []float64
	slowSum       float64 // Mean's sum, in job order
	slowN         int
	node, rack    int64
	off           int64
	first, last   int64
	seen          bool
	digest        hash.Hash
	digestStarted bool
	noDigest      bool // Compute's: the statistics only
}

// Add counts job j, the next in job order.
func (a *Acc) Add(j *results.Job) {
	if !a.seen {
		a.first, a.last, a.seen = math.MaxInt64, math.MinInt64, true
	}
	a.jobs++
	if j.FinishUs != results.Unset {
		a.flow = append(a.flow, Seconds(j.FlowtimeUs))
		a.last = max(a.last, j.FinishUs)
		if j.Slowdown > 0 {
			a.slowSum += j.Slowdown
			a.slowN++
		}
	}
	if j.Reduces > 0 {
		a.starv = append(a.starv, Seconds(j.StarvationUs))
	}
	a.node += int64(j.MapsNodeLocal)
	a.rack += int64(j.MapsRackLocal)
	a.off += int64(j.MapsOffRack)
	a.first = min(a.first, j.SubmitUs)
	if a.noDigest {
		return
	}
	if a.digest == nil {
		a.digest = sha256.New()
	}
	c := *j
	c.Policy = ""
	fmt.Fprintf(a.digest, "%#v\n", c)
	a.digestStarted = true
}

// Stats returns the statistics of the jobs added (Compute).
func (a *Acc) Stats() Stats {
	s := Stats{Jobs: a.jobs}
	slices.Sort(a.flow)
	slices.Sort(a.starv)
	flow, starv := a.flow, a.starv
	s.Unfinished = a.jobs - len(flow)
	s.FlowtimeMean = Mean(flow)
	s.FlowtimeP50 = Percentile(flow, 0.50)
	s.FlowtimeP95 = Percentile(flow, 0.95)
	s.FlowtimeP99 = Percentile(flow, 0.99)

	s.SlowdownMean = math.NaN()
	if a.slowN > 0 {
		s.SlowdownMean = a.slowSum / float64(a.slowN)
	}

	s.StarvationJobs = len(starv)
	s.StarvationMean = Mean(starv)
	s.StarvationP95 = Percentile(starv, 0.95)

	whole := a.node + a.rack + a.off
	s.NodeLocalPct = percent(a.node, whole)
	s.RackLocalPct = percent(a.rack, whole)
	s.OffRackPct = percent(a.off, whole)

	s.Makespan = math.NaN()
	if a.seen && a.last != math.MinInt64 {
		s.Makespan = Seconds(a.last - a.first)
	}
	return s
}

// Digest returns the digest of the jobs added (Digest): "" for none.
func (a *Acc) Digest() string {
	if !a.digestStarted {
		return ""
	}
	return hex.EncodeToString(a.digest.Sum(nil))
}
