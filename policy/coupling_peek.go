package policy

import (
	"math"

	"github.com/tracereplay/tracereplay/replay"
)

// Random Peeking Scheduling for maps (Coupling paper, Alg. 3 and eq. 3).

// Launch weights α_j of eq. 3.
const (
	alphaRackAndReduce = 0.7 // input in the node's rack and a reduce of the job on the node
	alphaRack          = 0.8 // input in the node's rack, no reduce of the job on the node
	alphaElse          = 1.0
)

// peekBeta is β_j of eq. 3: 0.1 + 0.9·(1 − exp(−M_p / max(N̂_m, 1))), larger when
// the job has many pending maps for the free slots.
func peekBeta(pendingMaps int32, nm float64) float64 {
	return 0.1 + 0.9*(1-math.Exp(-float64(pendingMaps)/max(nm, 1)))
}

// peekProb is eq. 3 for a job without input on the node: the probability of
// launching a map there now, 1 − α·p̂^β·(1 − e^{−N̂}).
func peekProb(alpha, pm, beta, nm float64) float64 {
	return 1 - alpha*math.Pow(pm, beta)*(1-math.Exp(-nm))
}

// peekSample is the K nodes sampled in one heartbeat and how many of them have a
// free map slot.
type peekSample struct {
	all   []int32 // map-capable nodes
	nodes []int32 // this heartbeat's sample
	k     int     // sample size; len(all) when 0 or larger
	k2    int
	stamp uint64 // heartbeat the sample was drawn in
}

func (p *peekSample) init(s replay.Cluster, k int) {
	p.all = p.all[:0]
	for _, n := range s.Topology().Nodes {
		if n.MapSlots > 0 {
			p.all = append(p.all, n.ID)
		}
	}
	p.k = len(p.all)
	if k > 0 && k < p.k {
		p.k = k
	}
	p.nodes = p.all
	p.stamp = 0
}

// draw samples K nodes for heartbeat hb (all nodes when K = N, without drawing)
// and counts those with a free map slot.
func (p *peekSample) draw(s replay.Cluster, hb uint64) {
	if p.stamp == hb {
		return
	}
	p.stamp = hb
	if p.k < len(p.all) {
		// A partial Fisher-Yates shuffle of the persistent permutation: its
		// first k entries are a uniform sample.
		rng := s.Rand()
		for i := range p.k {
			r := i + rng.IntN(len(p.all)-i)
			p.all[i], p.all[r] = p.all[r], p.all[i]
		}
		p.nodes = p.all[:p.k]
	}
	p.k2 = 0
	for _, n := range p.nodes {
		if s.FreeMapSlots(n) > 0 {
			p.k2++
		}
	}
}

// launchProb is p_j of eq. 3 for job j, which has no input on node n.
func (c *Coupling) launchProb(s replay.Cluster, j *replay.JobView, n int32) float64 {
	c.peek.draw(s, c.hb)
	cj := c.jobs[j.Index()]
	if cj.k1Stamp != c.hb {
		cj.k1Stamp, cj.k1 = c.hb, 0
		if len(c.peek.nodes) == len(c.peek.all) {
			cj.k1 = c.localMapNodes(j) // every node sampled
		} else {
			for _, u := range c.peek.nodes {
				if j.HasLocalMap(u) {
					cj.k1++
				}
			}
		}
	}
	k := float64(len(c.peek.nodes))
	pm := float64(cj.k1) / k
	nm := float64(len(c.peek.all)) * float64(c.peek.k2) / k
	beta := c.beta
	if beta < 0 {
		beta = peekBeta(j.PendingMaps(), nm)
	}
	alpha := alphaElse
	if j.RackMap(s.Topology().Nodes[n].Rack) >= 0 {
		alpha = alphaRack
		if c.reduceOn(j, n) {
			alpha = alphaRackAndReduce
		}
	}
	return peekProb(alpha, pm, beta, nm)
}

// peekPick is Alg. 3 for one slot offered to job j: a map with input on the
// node launches; otherwise a map (rack-local if any) launches with probability
// p_j, and else the job skips this heartbeat.
func (c *Coupling) peekPick(s replay.Cluster, j *replay.JobView, n int32) int32 {
	c.notePicked()
	if t := j.LocalMap(n); t >= 0 {
		c.picked, c.pickedMap = j, t
		return t
	}
	cj := c.jobs[j.Index()]
	if cj.skipped == c.hb {
		return -1
	}
	if p := c.launchProb(s, j, n); p >= 1 || s.Rand().Float64() < p {
		t, _ := bestMap(s, j, n, replay.OffRack)
		if t >= 0 {
			c.picked, c.pickedMap = j, t
		}
		return t
	}
	cj.skipped = c.hb
	return -1
}
