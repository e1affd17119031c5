package policy

import (
	"math"
	"slices"
)

// slackJob is one job in H-PFSP's slack system (§II-C): w its estimated remaining
// execution time, v its remaining processing time under the virtual processor
// sharing (PS) scheduler, s its slack. Times are normalised: microseconds of the
// whole cluster taken as one processor (eqs. 3, 4, 10).
type slackJob struct {
	id      int32 // submit order; ties in v put the earlier job first
	w, v, s float64
	pos     int  // position in the virtual PS queue, -1 when not in it
	done    bool // finished in reality: its slack is +Inf
}

// slackSystem is the virtual PS queue, ordered by v (ties by submit order), with
// the slack of each job kept by the paper's incremental updates. Eq. (6), with
// positions k = 1..m:
//
//	s_k = Σ_{j<k} v_j + (m−k+1)·v_k − Σ_{j≤k} w_j
//
// holds after every operation (eq6 recomputes it for tests).
type slackSystem struct {
	q []*slackJob
	// eps is the v under which a job counts as finished under PS.
	eps float64
	// ver counts the operations that may have changed a slack, a v, a w or
	// the order: frontMin's result stays valid while it does not change.
	ver uint64
}

// before reports whether a is ahead of b in the queue order.
func before(a, b *slackJob) bool { return a.v < b.v || a.v == b.v && a.id < b.id }

// renumber refreshes the positions of q[from:to].
func (ss *slackSystem) renumber(from, to int) {
	for k := from; k < to; k++ {
		ss.q[k].pos = k
	}
}

// eq6 returns the slack of every queued job computed from scratch by eq. (6),
// +Inf for jobs already finished in reality.
func (ss *slackSystem) eq6() []float64 {
	m := len(ss.q)
	out := make([]float64, m)
	var sv, sw float64
	for k, j := range ss.q {
		sw += j.w
		out[k] = sv + float64(m-k)*j.v - sw
		if j.done {
			out[k] = math.Inf(1)
		}
		sv += j.v
	}
	return out
}

// insert puts j (its v and w set) into the queue: a newly arrived job (v = w,
// eq. 18) or one that re-enters after a re-estimate. With m the queue length
// before, a job k ahead of j gains v_k (one more job shares the processor until
// it finishes); a job behind gains v_j − w_j (0 for an arrival); j's own slack
// is eq. (6) at its position.
func (ss *slackSystem) insert(j *slackJob) {
	ss.ver++
	p, _ := slices.BinarySearchFunc(ss.q, j, func(a, b *slackJob) int {
		if before(a, b) {
			return -1
		}
		return 1
	})
	var sv, sw float64
	for _, k := range ss.q[:p] {
		k.s += k.v
		sv += k.v
		sw += k.w
	}
	for _, k := range ss.q[p:] {
		k.s += j.v - j.w
	}
	m := len(ss.q) + 1
	j.s = sv + float64(m-p)*j.v - sw - j.w
	if j.done {
		j.s = math.Inf(1)
	}
	ss.q = slices.Insert(ss.q, p, j)
	ss.renumber(p, len(ss.q))
}

// remove takes the job at position p out of the queue: jobs ahead of it lose
// their v (one job fewer shares the processor), jobs behind lose v_p and no
// longer count w_p.
func (ss *slackSystem) remove(p int) {
	ss.ver++
	r := ss.q[p]
	for _, k := range ss.q[:p] {
		k.s -= k.v
	}
	for _, k := range ss.q[p+1:] {
		k.s += r.w - r.v
	}
	ss.q = slices.Delete(ss.q, p, p+1)
	ss.renumber(p, len(ss.q))
	r.pos = -1
}

// served is the normalised service one job received in an update interval.
type served struct {
	job *slackJob
	d   float64 // Δt̂_i: slot time of the job's tasks over the number of slots (eq. 10)
}

// progress applies an interval in which each listed job i executed for d_i
// (eqs. 7-9): w_i −= d_i; every queued job ahead of i loses d_i of slack (a job
// not in the queue counts as behind every queued job); the virtual PS serves
// Σ d_i shared equally by the m queued jobs (eq. 8). A job whose v reaches 0
// leaves the queue at that instant and the rest of the service is shared by the
// others, so eq. (6) holds exactly afterwards.
func (ss *slackSystem) progress(sv []served) {
	ss.ver++
	m := len(ss.q)
	behind := make([]float64, m+1) // behind[k]: service of jobs behind position k
	var total float64
	for _, x := range sv {
		x.job.w -= x.d // eq. (7)
		total += x.d
		if x.job.pos >= 0 {
			behind[x.job.pos] += x.d
		} else {
			behind[m] += x.d
		}
	}
	acc := behind[m]
	for k := m - 1; k >= 0; k-- {
		ss.q[k].s -= acc // eq. (9): the service of jobs behind k
		acc += behind[k]
	}
	for total > 0 && len(ss.q) > 0 {
		n := float64(len(ss.q))
		step := total / n
		if front := ss.q[0].v; front <= step {
			step = front
		}
		for _, k := range ss.q {
			k.v -= step // eq. (8)
		}
		total -= step * n
		if ss.q[0].v > ss.eps {
			break
		}
		for len(ss.q) > 0 && ss.q[0].v <= ss.eps {
			ss.remove(0)
		}
	}
}

// reestimate sets job j's remaining time to wNew (eqs. 11-13: Δw = w̃ − w,
// w = w̃, v = v + Δw), moves it to its new place in the queue and updates the
// slacks of the jobs it passes and its own (eqs. 14-17). A job is in the queue
// while its v is positive: one whose v drops to 0 or below leaves it, keeping
// that v; one outside whose v becomes positive again (its size was
// underestimated: PS would still be serving it) re-enters.
func (ss *slackSystem) reestimate(j *slackJob, wNew float64) {
	ss.ver++
	dw := wNew - j.w
	vNew := j.v + dw
	if j.pos < 0 {
		j.w, j.v = wNew, vNew
		if vNew > ss.eps && !j.done {
			ss.insert(j)
		}
		return
	}
	// A v below 0 moves the job to the front with that v, then out, which keeps
	// eq. (6) exact for the rest.
	ss.move(j, vNew, wNew)
	if vNew <= ss.eps {
		ss.remove(j.pos)
	}
}

// move gives queued job j the values v', w' and restores eq. (6) by touching
// only the jobs between its old and new positions (eqs. 14-17). With 1-based
// positions P (old) and P' (new) and m jobs:
//
//	moving back (P < P'): s_k += v_k − v_j + w_j for the jobs it passes (eq. 14);
//	moving ahead (P' < P): s_k += v'_j − v_k − w'_j for the jobs it passes (eq. 16);
//	s_j += ±Σ_passed (v_k − w_k) + (m−P'+1)·v'_j − (m−P+1)·v_j − w'_j + w_j
//	(+ when moving back, − when moving ahead; eqs. 15, 17).
func (ss *slackSystem) move(j *slackJob, vNew, wNew float64) {
	ss.ver++
	m := len(ss.q)
	p := j.pos
	probe := &slackJob{id: j.id, v: vNew}
	np := p
	for np+1 < m && before(ss.q[np+1], probe) {
		np++
	}
	for np > 0 && before(probe, ss.q[np-1]) {
		np--
	}
	var passed float64
	switch {
	case np > p:
		for _, k := range ss.q[p+1 : np+1] {
			k.s += k.v - j.v + j.w // eq. (14)
			passed += k.v - k.w
		}
	case np < p:
		for _, k := range ss.q[np:p] {
			k.s += vNew - k.v - wNew // eq. (16)
			passed -= k.v - k.w
		}
	}
	j.s += passed + float64(m-np)*vNew - float64(m-p)*j.v - wNew + j.w // eqs. (15), (17)
	j.v, j.w = vNew, wNew
	if np != p {
		ss.q = slices.Delete(ss.q, p, p+1)
		ss.q = slices.Insert(ss.q, np, j)
		ss.renumber(min(p, np), max(p, np)+1)
	}
}

// finish marks j as finished in reality: its remaining time becomes 0 (a last
// re-estimate) and, if PS would still be serving it, its slack becomes +Inf so
// that it no longer holds any job back.
func (ss *slackSystem) finish(j *slackJob) {
	ss.ver++
	ss.reestimate(j, 0)
	j.done = true
	if j.pos >= 0 {
		j.s = math.Inf(1)
	}
}

// frontMin returns, for each queue position k, the least slack of the jobs
// ahead of it (+Inf for the first).
func (ss *slackSystem) frontMin(buf []float64) []float64 {
	buf = buf[:0]
	lo := math.Inf(1)
	for _, k := range ss.q {
		buf = append(buf, lo)
		lo = min(lo, k.s)
	}
	return buf
}

// completable is Alg. 4: j may be served to completion without making any job
// ahead of it in the PS queue late, i.e. w_j ≤ s_k for every such k. A job no
// longer in the queue (PS has finished it) has no job ahead and is completable.
func completable(j *slackJob, front []float64) bool {
	return j.pos < 0 || j.w <= front[j.pos]
}
