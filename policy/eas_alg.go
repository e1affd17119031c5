package policy

import "math/big"

// The three algorithms of EAS (Zhao et al., IEICE 2013, §4.1) as pure functions
// over machine loads, so that each can be checked on hand-worked cases. Loads are
// indexed by node id and counted in bytes.

// mapSet is the map tasks of one job as Algs. 1 and 2 see them: the input size of
// each (its load L_m) and the nodes holding its input's replicas.
type mapSet interface {
	Len() int
	Size(i int) int64
	Hosts(i int) []int32
}

// leastLoaded returns the candidate with the lowest load; among equals the first
// listed, since Algs. 2 and 3 move their pointer only when L^t > L^mm.
func leastLoaded(loads []int64, cands []int32) int32 {
	t := cands[0]
	for _, c := range cands[1:] {
		if loads[t] > loads[c] {
			t = c
		}
	}
	return t
}

// placeMaps is Alg. 2: every map of the job, in order, goes to the least-loaded
// node holding its input, whose load then grows by the map's size. It updates
// loads and appends each map's node to out.
func placeMaps(loads []int64, maps mapSet, out []int32) []int32 {
	for i := range maps.Len() {
		t := leastLoaded(loads, maps.Hosts(i))
		out = append(out, t)
		loads[t] += maps.Size(i)
	}
	return out
}

// placeReduces is Alg. 3: every reduce, in order, goes to the least-loaded reduce
// machine, whose load then grows by the reduce's input. It updates loads and
// appends each reduce's node to out.
func placeReduces(loads []int64, machines []int32, sizes []int64, out []int32) []int32 {
	for _, b := range sizes {
		t := leastLoaded(loads, machines)
		out = append(out, t)
		loads[t] += b
	}
	return out
}

// balanceSelector is Alg. 1: it simulates Alg. 2 for every waiting job and picks
// the one after which the map machines' loads have the lowest standard deviation,
// the first among equals (line 3 replaces the best only when strictly better).
//
// The comparison is exact. With N machines, loads x before and x' after a job's
// simulated placement, S = Σx and D = Σ(x'−x), N²·Var(x') = N·Σx'² − (S+D)², which
// differs between jobs only by N·Σ(x'²−x²) − 2SD − D², a sum over the few machines
// the job touches; it is computed in big integers, so that jobs whose placements
// give equal spreads tie exactly and the earlier one wins, whatever order the
// machines are summed in.
type balanceSelector struct {
	touched []int32
	orig    []int64 // load before the simulation, valid for touched nodes
	mark    []bool
	best    big.Int
	score   big.Int
	t       big.Int
}

func newBalanceSelector(nodes int) *balanceSelector {
	return &balanceSelector{orig: make([]int64, nodes), mark: make([]bool, nodes)}
}

// choose returns the index of the job in jobs that Alg. 1 selects, given the
// current loads of the map machines (machines lists them); loads is left as it
// was. It returns -1 when jobs is empty.
func (b *balanceSelector) choose(loads []int64, machines []int32, jobs []mapSet) int {
	var sum int64
	for _, m := range machines {
		sum += loads[m]
	}
	n := big.NewInt(int64(len(machines)))
	pick := -1
	for k, job := range jobs {
		b.simulate(loads, job)
		b.spread(loads, sum, n)
		if pick < 0 || b.score.Cmp(&b.best) < 0 {
			pick = k
			b.best.Set(&b.score)
		}
		b.undo(loads)
	}
	return pick
}

// simulate runs Alg. 2 for one job on loads, remembering what it changed.
func (b *balanceSelector) simulate(loads []int64, job mapSet) {
	b.touched = b.touched[:0]
	for i := range job.Len() {
		t := leastLoaded(loads, job.Hosts(i))
		if !b.mark[t] {
			b.mark[t] = true
			b.orig[t] = loads[t]
			b.touched = append(b.touched, t)
		}
		loads[t] += job.Size(i)
	}
}

// spread sets b.score to N·Σ(x'²−x²) − 2SD − D² over the touched machines.
func (b *balanceSelector) spread(loads []int64, sum int64, n *big.Int) {
	b.score.SetInt64(0)
	var d int64
	for _, m := range b.touched {
		x, y := b.orig[m], loads[m]
		d += y - x
		b.t.SetInt64(y)
		b.t.Mul(&b.t, &b.t)
		b.score.Add(&b.score, &b.t)
		b.t.SetInt64(x)
		b.t.Mul(&b.t, &b.t)
		b.score.Sub(&b.score, &b.t)
	}
	b.score.Mul(&b.score, n)
	// 2SD + D² = D·(2S + D)
	b.t.SetInt64(sum)
	b.t.Lsh(&b.t, 1)
	var dd big.Int
	dd.SetInt64(d)
	b.t.Add(&b.t, &dd)
	b.t.Mul(&b.t, &dd)
	b.score.Sub(&b.score, &b.t)
}

func (b *balanceSelector) undo(loads []int64) {
	for _, m := range b.touched {
		loads[m] = b.orig[m]
		b.mark[m] = false
	}
}
