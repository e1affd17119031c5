// Package cells runs one cell of an experiment (replay.Cell: a policy on a
// trace and a hardware model, with a seed): the trace generated when the cell
// names a generator, the cell's topology and workload drawn from its seed, its
// policy built, the simulator (or, for the "observed" row, the trace's own
// schedule) run, and the result labelled with the cell's parameters. The
// replay command runs every cell through Run, and so do the tests that replay
// experiments, so that a test replays a cell exactly as the command does.
//
// It imports replay, trace and the generator registry
// (report/preset/workloads), not policy: replay cannot import policy, and
// policy's own tests run cells, so the caller passes the policy constructor
// (policy.New) in Options.
package cells

import (
	"context"
	"fmt"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report/preset/workloads"
	"github.com/tracereplay/tracereplay/trace"
)

// Options say how Run replays a cell.
type Options struct {
	// NewPolicy builds the cell's policy from its spec: policy.New, or a
	// wrapper of it. It is required unless the cell is the observed row
	// (replay.ObservedPolicy), which runs no policy.
	NewPolicy func(spec string) (replay.Policy, error)
	// Trace is the trace the cell replays. When nil, Run generates it from
	// the cell's generator, parameters and seed (workloads.Generate); a cell
	// that names no generator then needs Trace.
	Trace *trace.Trace
	// Workload, when set, is the workload Run replays: built by the caller
	// with replay.NewWorkload from Trace, the cell's hardware model, a
	// topology of it and the cell's seed, and Replay.Workload, as Run would
	// build it (so that a caller that built it to check the cell need not
	// read a streamed trace again). It is replayed once; Run builds it when
	// nil.
	Workload *replay.Workload
	// OutDir, when set, is the directory the run streams its results into
	// (replay.NewRunWriter, opened once the workload is built); Run aborts the
	// writer when the run fails, and the caller completes it (replay.WriteRun).
	OutDir string
	// Replay are the run's options. Run sets Seed to the cell's, Context to
	// its ctx and Out to the writer of OutDir; Workload also chooses the jobs
	// and task limits of the workload Run builds. TraceName names the trace in
	// errors and results.
	Replay replay.Options
}

// InputError is a cell that could not be set up from its input: its trace
// could not be generated, or its workload could not be built from the trace
// and the hardware model. Other errors are the policy's or the run's.
type InputError struct {
	Err error
}

// Error returns the underlying error's message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// Run replays cell with opts and returns its result, whose summary lists the
// cell's labels other than the policy as its parameters. The cell's hardware
// model is copied, never changed.
func Run(ctx context.Context, cell replay.Cell, opts Options) (*replay.Result, error) {
	tr := opts.Trace
	if tr == nil {
		if cell.Trace.Generator == "" {
			return nil, &InputError{fmt.Errorf("cell %s: no trace given and no generator named", cell.Dir)}
		}
		var err error
		tr, err = workloads.Generate(cell.Trace.Generator, trace.GenParams(cell.Trace.Params), cell.Seed)
		if err != nil {
			return nil, &InputError{err}
		}
	}
	var p replay.Policy
	if cell.Policy != replay.ObservedPolicy {
		if opts.NewPolicy == nil {
			return nil, fmt.Errorf("cell %s: policy %s: no policy constructor (Options.NewPolicy)", cell.Dir, cell.Policy)
		}
		var err error
		if p, err = opts.NewPolicy(cell.Policy); err != nil {
			return nil, err
		}
	}
	opt := opts.Replay
	hw := cell.Hardware
	w := opts.Workload
	if w == nil {
		var err error
		w, err = replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, cell.Seed), cell.Seed, opt.Workload)
		if err != nil {
			return nil, &InputError{fmt.Errorf("trace %s: %w", opt.TraceName, err)}
		}
	}
	var err error
	opt.Seed = cell.Seed
	if ctx != nil {
		opt.Context = ctx
	}
	if opts.OutDir != "" {
		if opt.Out, err = replay.NewRunWriter(opts.OutDir); err != nil {
			return nil, err
		}
	}
	var res *replay.Result
	if p == nil {
		res, err = replay.Observed(w, opt)
	} else {
		res, err = replay.Run(w, p, opt)
	}
	if err != nil {
		if opt.Out != nil {
			opt.Out.Abort()
		}
		return nil, err
	}
	res.Summary.Params = map[string]string{}
	for _, l := range cell.Labels {
		if l[0] != "policy" {
			res.Summary.Params[l[0]] = l[1]
		}
	}
	return res, nil
}
