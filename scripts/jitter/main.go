// Command jitter writes a copy of a job-level trace directory (one that
// ingest wrote from a SWIM file, say) whose jobs' submit times, recorded to
// the whole second, are spread within their second: each job gets an offset
// drawn uniformly from [0, 1000) ms by a generator seeded with -seed, the
// offsets of the jobs of one second sorted so that the jobs keep their
// order (and so their indices in replay's results).
//
//	go run ./scripts/jitter -in TRACE_DIR -out DIR [-seed N]
//
// It is an experiment's tool, not a model: docs/network-model.md ("The flow
// day's flowtime: four one-map jobs") uses it to test whether whole-second
// submit times, against heartbeats of fixed phases, put the first map of
// many jobs on the same few nodes. It refuses a trace with tasks or
// attempts (their times would have to move too) and one whose submit times
// are not all whole seconds.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

func main() {
	in := flag.String("in", "", "trace directory to read")
	out := flag.String("out", "", "trace directory to write")
	seed := flag.Uint64("seed", 1, "seed of the offsets")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: jitter -in TRACE_DIR -out DIR [-seed N]")
		os.Exit(2)
	}
	t, err := trace.Read(*in)
	if err == nil {
		err = spread(t, *seed)
	}
	if err == nil {
		err = trace.Write(*out, t)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "jitter:", err)
		os.Exit(2)
	}
}

// spread adds the offsets to t's jobs in place, in t.Jobs's order, which
// must be by submit time.
func spread(t *trace.Trace, seed uint64) error {
	if len(t.Tasks) > 0 || len(t.Attempts) > 0 {
		return errors.New("the trace has tasks or attempts: only job-level traces")
	}
	rng := rand.New(rand.NewPCG(seed, 0x6a6974746572)) // "jitter"
	jobs := t.Jobs
	for a := 0; a < len(jobs); {
		s := jobs[a].SubmitMs
		if s%1000 != 0 {
			return fmt.Errorf("job %s: submit time %d ms is not a whole second", jobs[a].ID, s)
		}
		b := a + 1
		for b < len(jobs) && jobs[b].SubmitMs == s {
			b++
		}
		if b < len(jobs) && jobs[b].SubmitMs < s {
			return fmt.Errorf("job %s: submit time %d ms before the job before it (%d ms)", jobs[b].ID, jobs[b].SubmitMs, s)
		}
		offs := make([]int64, b-a)
		for k := range offs {
			offs[k] = rng.Int64N(1000)
		}
		slices.Sort(offs)
		for k := a; k < b; k++ {
			jobs[k].SubmitMs = s + offs[k-a]
		}
		a = b
	}
	return nil
}
