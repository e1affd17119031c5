package replay

import "fmt"

// Slowdown of a job, as H-PFSP §IV-B defines it (after Gong and Williamson), is
// its flowtime over its flowtime "if it runs in the system without sharing
// resources with other jobs". IdealUs is only a lower bound on the latter (every
// map slot at once, no heartbeat latency, no last-wave rounding); when
// Options.Alone is set, Run also replays each job alone — same hardware, policy,
// seed, placement and task durations, submitted at its own time so that it meets
// the same heartbeat phases — and takes that flowtime.

// alone returns the workload made of replayed job k only, at its own submit
// time. Job materialisation depends only on the seed and the job's trace index,
// so the job gets the same blocks, replicas and durations as in the full run.
func (w *Workload) alone(k int) *Workload {
	ix := w.index()
	a := *w
	only := w.jobAt(ix.jobs[k], ix.submitUs[k])
	a.only = &only
	a.n, a.idx = 1, &jobIndex{}
	return &a
}

// measureAlone runs every finished job alone with a fresh policy from
// s.opt.Alone and sets its AloneUs and Slowdown = flowtime / alone.
func (s *Sim) measureAlone() error {
	for i := range s.res.Jobs {
		r := &s.res.Jobs[i]
		p, err := s.opt.Alone()
		if err != nil {
			return fmt.Errorf("alone run of job %s: %w", r.JobID, err)
		}
		a, err := Run(s.w.alone(int(r.JobIndex)), p, Options{Seed: s.opt.Seed,
			CheckInvariants: s.opt.CheckInvariants, Workload: s.opt.Workload, Context: s.opt.Context})
		if err != nil {
			return fmt.Errorf("alone run of job %s: %w", r.JobID, err)
		}
		r.AloneUs = a.Jobs[0].FlowtimeUs
		if r.AloneUs > 0 {
			r.Slowdown = float64(r.FlowtimeUs) / float64(r.AloneUs)
		}
	}
	return nil
}
