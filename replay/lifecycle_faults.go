package replay

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Model-mode attempt failures, stragglers and speculative execution; all off
// by default.
//
//   - attempt_failure_rate: each attempt of a map or reduce fails with this
//     probability after a uniform fraction of its duration, and the task runs
//     again on the same slot (as trace mode replays observed failures, see
//     lifecycle_attempts.go), up to Hadoop's 4 attempts (mapred.map.max.attempts;
//     the 4th always succeeds here).
//   - straggler_fraction, straggler_alpha: a task straggles with this
//     probability, its duration multiplied by a Pareto(alpha) factor (minimum
//     1, heavy-tailed; capped at 100).
//   - speculation: "none", "hadoop" or "late". When a heartbeat leaves a node
//     with a free map slot, the simulator gives it a speculative copy of one
//     running map of a job that has no pending map (as Hadoop 1's
//     JobInProgress.findNewMapTask does after the non-running maps), if a map
//     qualifies. "hadoop": Hadoop 1's TaskInProgress.hasSpeculativeTask, a map
//     running for more than 60 s (SPECULATIVE_LAG) whose progress is more
//     than 0.2 (SPECULATIVE_GAP) below its job's average map progress, the
//     first by index. "late": LATE (Zaharia et al., OSDI 2008), among maps
//     whose progress rate is at most the 25th percentile of the running maps'
//     rates (SlowTaskThreshold), the one with the longest estimated time left,
//     with at most 10% of the map slots (SpeculativeCap) running copies.
//     Progress is elapsed over duration (map progress is the input read,
//     linear in time here), so rate = 1/duration and time left = duration −
//     elapsed. The copy runs the map's duration without its straggler factor
//     and failures on the copy's node; the first to finish completes the map
//     and the other is killed, its slot freed. The map's output stays on the
//     original's node, and the policy is not told about the copy.
// Failures and straggler factors are drawn from the job's own stream at build
// time, so every policy replays the same workload.

// streamFaults is the random stream of attempt failures and stragglers.
const streamFaults = 6

// maxAttempts is Hadoop 1's default mapred.map.max.attempts.
const maxAttempts = 4

// Hadoop 1's speculation constants (TaskInProgress) and LATE's defaults.
const (
	hadoopSpeculativeLagUs = 60_000_000
	hadoopSpeculativeGap   = 0.2
	lateSlowTaskThreshold  = 0.25
	lateSpeculativeCap     = 0.1
)

// faultsOn reports whether failures or stragglers are modelled.
func (h *Hardware) faultsOn() bool { return h.AttemptFailureRate > 0 || h.StragglerFraction > 0 }

// validateFaults checks the failure, straggler and speculation keys.
func (h *Hardware) validateFaults(bad func(string, ...any)) {
	if !(h.AttemptFailureRate >= 0 && h.AttemptFailureRate < 1) {
		bad("attempt_failure_rate must be in [0, 1)")
	}
	if !(h.StragglerFraction >= 0 && h.StragglerFraction <= 1) {
		bad("straggler_fraction must be in [0, 1]")
	}
	if !(h.StragglerAlpha > 0 && h.StragglerAlpha <= 100) {
		bad("straggler_alpha must be in (0, 100]")
	}
	if !slices.Contains([]string{"none", "hadoop", "late"}, h.Speculation) {
		bad("speculation %q: want none, hadoop or late", h.Speculation)
	}
}

// faultsUs returns a task of duration d's straggler-stretched duration plus the
// time of its failed attempts, drawn from rng.
func (h *Hardware) faultsUs(rng *rand.Rand, d int64) (total int64) {
	total = d
	if h.StragglerFraction > 0 && rng.Float64() < h.StragglerFraction {
		f := math.Min(math.Pow(1-rng.Float64(), -1/h.StragglerAlpha), 100)
		total = int64(math.Round(float64(d) * f))
	}
	if h.AttemptFailureRate > 0 {
		full := total
		for a := 1; a < maxAttempts && rng.Float64() < h.AttemptFailureRate; a++ {
			total += int64(math.Round(rng.Float64() * float64(full)))
		}
	}
	return total
}

// specCand is a running map as speculation sees it.
type specCand struct {
	job, task  int32
	elapsedUs  int64
	durationUs int64
	jobAvg     float64 // its job's average map progress (finished maps count 1)
}

func (c *specCand) progress() float64 {
	if c.durationUs <= 0 {
		return 1
	}
	return math.Min(1, float64(c.elapsedUs)/float64(c.durationUs))
}

// pickSpeculative returns the candidate the speculation mode picks, or -1.
func pickSpeculative(mode string, cands []specCand) int {
	switch mode {
	case "hadoop":
		for i := range cands {
			c := &cands[i]
			if c.elapsedUs > hadoopSpeculativeLagUs && c.progress() < c.jobAvg-hadoopSpeculativeGap {
				return i
			}
		}
	case "late":
		if len(cands) == 0 {
			return -1
		}
		rates := make([]float64, len(cands))
		for i := range cands {
			rates[i] = 1 / float64(max(cands[i].durationUs, 1))
		}
		sorted := slices.Clone(rates)
		slices.Sort(sorted)
		threshold := sorted[int(lateSlowTaskThreshold*float64(len(sorted)))]
		best, bestLeft := -1, int64(-1)
		for i := range cands {
			if rates[i] > threshold {
				continue
			}
			if left := cands[i].durationUs - cands[i].elapsedUs; left > bestLeft {
				best, bestLeft = i, left
			}
		}
		return best
	}
	return -1
}

// speculate gives node n, which has a free map slot after its heartbeat, a
// speculative copy of a running map, if the speculation mode picks one.
func (s *Sim) speculate(n int32) {
	if s.nodes[n].freeMap <= 0 {
		return
	}
	if s.hw.Speculation == "late" && float64(s.specRunning+1) > lateSpeculativeCap*float64(s.hw.TotalMapSlots()) {
		return
	}
	var cands []specCand
	for _, j := range s.active {
		if j.PendingMaps > 0 || j.RunningMaps == 0 {
			continue
		}
		var sum float64
		start := len(cands)
		for i := range j.Maps {
			m := &j.Maps[i]
			switch {
			case m.State == Done:
				sum++
			case m.State == Running:
				c := specCand{job: j.Index, task: int32(i), elapsedUs: s.now - m.LaunchUs, durationUs: m.FinishUs - m.LaunchUs}
				sum += c.progress()
				if m.specNode < 0 && m.Node != n {
					cands = append(cands, c)
				}
			}
		}
		for k := start; k < len(cands); k++ {
			cands[k].jobAvg = sum / float64(len(j.Maps))
		}
	}
	k := pickSpeculative(s.hw.Speculation, cands)
	if k < 0 {
		return
	}
	j := s.jobs[cands[k].job]
	i := cands[k].task
	m := &j.Maps[i]
	d, _, _ := s.mapCost(j, i, n)
	d -= m.retryUs // the copy runs without the original's straggler factor and failures
	s.nodes[n].freeMap--
	s.running++
	s.specRunning++
	m.specNode, m.specLaunchUs = n, s.now
	if s.chk != nil {
		s.chk.specLaunch(n)
	}
	if f := s.reported(n, s.now+d); f < m.FinishUs {
		m.FinishUs = f // the copy wins: the map completes then (the original's event is stale)
		m.endUs = s.now + d
		s.schedule(f, evMapDone, j.Index, i)
	}
}

// specEnded frees map m's speculative copy's slot when the map completes.
func (s *Sim) specEnded(m *MapTask) {
	n := m.specNode
	s.nodes[n].freeMap++
	s.running--
	s.specRunning--
	s.busyMapUs += s.now - m.specLaunchUs
	if s.chk != nil {
		s.chk.specEnd(n)
	}
	s.slotFreed(n)
}
