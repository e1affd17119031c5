package policy

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestFairOrderSort checks FairOrder.Sort (pool ranks, an insertion sort for
// a few candidates) against sorting by its definition with names compared:
// random candidates with running counts, in pools whose names do not come in
// name order, from 1 to 40 candidates (both of Sort's algorithms).
func TestFairOrderSort(t *testing.T) {
	hw := tinyHardware(t)
	topo := replay.NewTopology(&hw, 1)
	rng := rand.New(rand.NewPCG(5, 6))
	users := []string{"zed", "amy", "", "bob", "carl", "al"}
	o := NewFairOrder("user")
	o.Init()
	var all []*replay.JobView
	for i := range 60 {
		tj := &trace.Job{ID: "j", User: users[rng.IntN(len(users))]}
		j, err := replay.NewJob(int32(i), tj, 0, nil, nil, nil, topo)
		if err != nil {
			t.Fatal(err)
		}
		v := j.View()
		o.JobArrived(v)
		all = append(all, v)
	}
	for range 500 {
		n := 1 + rng.IntN(40)
		jobs := slices.Clone(all)
		rng.Shuffle(len(jobs), func(a, b int) { jobs[a], jobs[b] = jobs[b], jobs[a] })
		jobs = jobs[:n]
		run := map[*replay.JobView]int32{}
		for _, j := range jobs {
			run[j] = int32(rng.IntN(4))
		}
		running := func(j *replay.JobView) int32 { return run[j] }
		pool := func(j *replay.JobView) string { return poolOf(j, "user") }
		poolRun := map[string]int32{}
		for _, j := range jobs {
			poolRun[pool(j)] += run[j]
		}
		want := slices.Clone(jobs)
		slices.SortFunc(want, func(a, b *replay.JobView) int {
			if c := cmp.Compare(poolRun[pool(a)], poolRun[pool(b)]); c != 0 {
				return c
			}
			if c := cmp.Compare(pool(a), pool(b)); c != 0 {
				return c
			}
			if c := cmp.Compare(run[a], run[b]); c != 0 {
				return c
			}
			return cmp.Compare(a.Index(), b.Index())
		})
		o.Sort(jobs, running)
		if !slices.Equal(jobs, want) {
			t.Fatalf("%d candidates: sorted in another order", n)
		}
	}
}
