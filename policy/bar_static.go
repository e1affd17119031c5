package policy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/tracereplay/tracereplay/replay"
)

// staticAllocators are the algorithms of BAR's static allocation study (§V),
// under the names of their online counterparts.
func staticAllocators() map[string]func(*ParamReader) (replay.Allocator, error) {
	return map[string]func(*ParamReader) (replay.Allocator, error){
		"bar":                func(r *ParamReader) (replay.Allocator, error) { return &barAllocator{name: r.spec()}, nil },
		"maxcover-balassign": func(r *ParamReader) (replay.Allocator, error) { return &mbAllocator{name: r.spec()}, nil },
		"hds":                newGreedyAllocator(ruleHDS, 0),
		"ds0.15":             newGreedyAllocator(ruleDS, 0.15),
		"ds0.25":             newGreedyAllocator(ruleDS, 0.25),
		"gcc":                newGreedyAllocator(ruleGCC, 0.9),
	}
}

// StaticNames lists the static allocators, sorted.
func StaticNames() []string {
	var n []string
	for k := range staticAllocators() {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// NewAllocator builds the static allocator a spec names ("bar", "ds0.15:wait=5s",
// …) for replay.RunAllocStudy.
func NewAllocator(spec string) (replay.Allocator, error) {
	name, args, _ := strings.Cut(spec, ":")
	mk, ok := staticAllocators()[name]
	if !ok {
		return nil, fmt.Errorf("unknown static allocator %q; valid allocators: %s", name, strings.Join(StaticNames(), ", "))
	}
	pr, err := readParams(name, args)
	if err != nil {
		return nil, err
	}
	a, err := mk(pr)
	if err != nil {
		return nil, err
	}
	if err := pr.finish(); err != nil {
		return nil, err
	}
	return a, nil
}

// barAllocator is BAR (Alg. 3) as a replay.Allocator.
type barAllocator struct {
	name string
	s    BARSolver
	out  []int32
}

func (a *barAllocator) Name() string { return a.name }

// Allocate returns BAR's allocation, valid until the next call.
func (a *barAllocator) Allocate(p *replay.AllocProblem, rng *rand.Rand) (*replay.Allocation, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	a.out = a.s.Solve(p, rng, a.out)
	return &replay.Allocation{Server: a.out}, nil
}

// mbAllocator is MaxCover-BalAssign as a replay.Allocator.
type mbAllocator struct {
	name string
	s    MaxCoverSolver
}

func (a *mbAllocator) Name() string { return a.name }

// Allocate returns MaxCover-BalAssign's allocation, valid until the next call.
func (a *mbAllocator) Allocate(p *replay.AllocProblem, _ *rand.Rand) (*replay.Allocation, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &replay.Allocation{Server: a.s.Solve(p)}, nil
}

// greedyAllocator is a compile-time run of HDS, DS or GCC.
type greedyAllocator struct {
	name string
	s    GreedySolver
}

func (a *greedyAllocator) Name() string { return a.name }

// Allocate returns the greedy allocation with its hand-out times and order,
// valid until the next call.
func (a *greedyAllocator) Allocate(p *replay.AllocProblem, rng *rand.Rand) (*replay.Allocation, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return a.s.Solve(p, rng), nil
}

// newGreedyAllocator reads the rule's parameters: threshold (DS, fraction of
// the servers), util (GCC) and wait (DS and GCC, the idle time after a skip).
func newGreedyAllocator(rule greedyRule, def float64) func(*ParamReader) (replay.Allocator, error) {
	return func(r *ParamReader) (replay.Allocator, error) {
		a := &greedyAllocator{s: GreedySolver{rule: rule}}
		switch rule {
		case ruleDS:
			a.s.Threshold = r.Float("threshold", def)
		case ruleGCC:
			a.s.Util = r.Float("util", def)
		}
		if rule != ruleHDS {
			a.s.Wait = r.Duration("wait", 3*time.Second)
			if a.s.Wait <= 0 {
				return nil, fmt.Errorf("allocator %s: wait must be positive", r.policy)
			}
		}
		if a.s.Threshold < 0 || a.s.Util < 0 {
			return nil, fmt.Errorf("allocator %s: threshold and util must not be negative", r.policy)
		}
		a.name = r.spec()
		return a, nil
	}
}
