package replay

import "github.com/tracereplay/tracereplay/internal/allocstudy"

// The static task allocation problem of BAR and its study's runner are package
// internal/allocstudy; these aliases keep the names the policies use.

// AllocProblem is the static task allocation problem of BAR §III
// (allocstudy.Problem).
type AllocProblem = allocstudy.Problem

// Allocation is a total allocation: the server of every task
// (allocstudy.Allocation).
type Allocation = allocstudy.Allocation

// Outcome is what an allocation achieves under the problem's cost model
// (allocstudy.Outcome).
type Outcome = allocstudy.Outcome

// Allocator computes an allocation for a problem (allocstudy.Allocator).
type Allocator = allocstudy.Allocator
