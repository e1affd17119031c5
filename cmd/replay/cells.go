package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tracereplay/tracereplay/internal/cells"
	statusline "github.com/tracereplay/tracereplay/internal/progress"
	"github.com/tracereplay/tracereplay/internal/summary"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report/preset/workloads"
	"github.com/tracereplay/tracereplay/samples"
	"github.com/tracereplay/tracereplay/trace"
)

// Cells stream: every cell is checked before any runs (its trace loaded, its
// workload built and, but for a streamed trace's, dropped), then each is run, its results written into the
// temporary results directory and dropped as soon as it is done. What a cell
// keeps until the end is its summary.Run (statistics and a digest of its job
// rows, no rows) and its manifest entry, a few KB, so that memory does not grow
// with the number of cells: only with the runs under way (--parallel).
//
// Traces from a file are loaded once and kept; a generated trace (one per
// generator, parameters and seed) is generated again when its cells run and
// dropped after them, so that an experiment of many seeds does not hold every
// seed's trace.

// job is one cell to run: a policy on a trace.
type job struct {
	cell     replay.Cell
	traceSrc string       // the trace's key (traceKey)
	trace    *trace.Trace // what the run replays; nil for a generated trace until its cell runs
	// workload is the workload prepareJobs built to check the cell (or, for
	// an observed cell, an earlier cell of its trace, hardware model and
	// seed), kept for its run when the trace is streamed (it holds nothing
	// per job then, and building it again would read the trace's files once
	// more); nil otherwise, and once the cell has run.
	workload *replay.Workload
	// What is kept of a finished cell (finishCell).
	run      summary.Run
	manifest replay.ManifestRun
	err      error
}

// traceKey names the trace a cell replays, as loadTrace caches it.
func traceKey(cl replay.Cell) string {
	t := cl.Trace
	switch {
	case t.Generator != "":
		pb, _ := json.Marshal(t.Params)
		return fmt.Sprintf("%s%s@%d", t.Generator, pb, cl.Seed)
	case t.Path == "":
		return samples.SampleTraceName
	}
	return t.Path
}

// prepareJobs checks every cell before anything runs, in the order runAll runs
// them (runOrder): its trace loads, its policy and trace mode apply
// (prepareCell) and its workload builds. The workload is dropped and built
// again when the cell runs, except a streamed trace's (trace.Trace.Stream),
// which holds nothing per job: the cell it was built for keeps it for its
// run, so that the trace's files are not read once more to build it (its
// check reads every job and task), and so does a later observed cell of the
// same trace, hardware model and seed (the observed run reads every job's
// tasks and attempts itself, so a file gone bad since is still found by
// it; a simulated cell builds its workload again, which reads them). It
// returns the jobs in cell order; cells that prepareCell skips are left
// out. The jobs a workload leaves out (replay.Workload.LeftOut) are warned
// about on stderr once per trace.
func prepareJobs(c *config, cells []replay.Cell, stdin io.Reader, inputs map[string]string, stderr io.Writer) ([]*job, error) {
	traces := map[string]*trace.Trace{}
	checked := map[string]bool{} // trace key and hardware whose workload built
	// kept is the workload of a streamed trace built for the first cell of
	// its trace key, hardware and seed, which the observed cells of the
	// three take too.
	kept := map[string]*replay.Workload{}
	warned := map[string]bool{} // trace key and job id warned about
	jobs := make([]*job, len(cells))
	order := runOrder(cells)
	for n, i := range order {
		cl := cells[i]
		tr, key, err := loadTrace(cl, c, stdin, traces, inputs)
		if err != nil {
			return nil, err
		}
		if skip, err := prepareCell(c, &cl, tr, key); err != nil || skip { // tracemode.go
			if err != nil {
				return nil, err
			}
			continue
		}
		j := &job{cell: cl, traceSrc: key, trace: tr}
		hb, _ := json.Marshal(cl.Hardware)
		ck := key + "\x00" + string(hb)
		if !checked[ck] {
			w, err := newWorkload(c, cl, tr, key)
			if err != nil {
				return nil, err
			}
			warnLeftOut(stderr, key, w.LeftOut(), warned)
			if tr.Stream != nil {
				j.workload = w
				kept[fmt.Sprintf("%s\x00%d", ck, cl.Seed)] = w
			}
			checked[ck] = true
		} else if cl.Policy == replay.ObservedPolicy {
			// The observed row reads every job's tasks and attempts
			// itself (replay.Observed): it takes the workload of its
			// trace, hardware model and seed that an earlier cell's
			// check built, if there is one, rather than build it again.
			j.workload = kept[fmt.Sprintf("%s\x00%d", ck, cl.Seed)]
		}
		if cl.Trace.Generator != "" {
			j.trace = nil
			if n+1 == len(order) || traceKey(cells[order[n+1]]) != key {
				delete(traces, key) // the last cell of this trace in run order
			}
		}
		jobs[i] = j
	}
	return slices.DeleteFunc(jobs, func(j *job) bool { return j == nil }), nil
}

// prepareJobsCtx is prepareJobs, except that when ctx is cancelled (the
// first SIGINT or SIGTERM, internal/sigexit) before it is done, it returns
// at once with an error saying so: preparing reads the traces and checks
// the workloads (a large history takes minutes of it), writes nothing and
// looks at no context, so it is left to run in a goroutine that the
// process's exit ends. Its stderr is closed to it then, so that nothing it
// would print follows the note of the interruption. On a terminal a status
// line says what it is doing, from its first second (erased when done).
func prepareJobsCtx(ctx context.Context, c *config, cells []replay.Cell, stdin io.Reader, inputs map[string]string, stderr io.Writer) ([]*job, error) {
	if ctx.Done() == nil {
		return prepareJobs(c, cells, stdin, inputs, stderr)
	}
	gate := &gatedWriter{w: stderr}
	type prepared struct {
		jobs []*job
		err  error
	}
	done := make(chan prepared, 1)
	go func() {
		jobs, err := prepareJobs(c, cells, stdin, inputs, gate)
		done <- prepared{jobs, err}
	}()
	var tick <-chan time.Time
	if statusline.IsTerminal(stderr) {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	start := time.Now()
	for {
		select {
		case p := <-done:
			gate.close()
			return p.jobs, p.err
		case <-ctx.Done():
			gate.close()
			return nil, errors.New("interrupted while reading the traces; nothing written")
		case now := <-tick:
			gate.status("replay: reading and checking the traces · " + statusline.Clock(now.Sub(start)) + " elapsed")
		}
	}
}

// gatedWriter passes writes to w until it is closed, and drops them after.
// It may show a status line (status), which a write erases first and
// closing erases.
type gatedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
	shown  bool // a status line is on w
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	g.erase()
	return g.w.Write(p)
}

// status shows line as the terminal's status line, in place of the last.
func (g *gatedWriter) status(line string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		fmt.Fprintf(g.w, "\r%s\033[K", line)
		g.shown = true
	}
}

// erase erases the status line, if one is shown; g.mu is held.
func (g *gatedWriter) erase() {
	if g.shown {
		io.WriteString(g.w, "\r\033[K")
		g.shown = false
	}
}

func (g *gatedWriter) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.erase()
	g.closed = true
}

// runOrder is the order in which cells run: cell order, except that the cells
// of one trace run one after the other (in the order of the trace's first
// cell), so that a generated trace is needed for a short while only.
func runOrder(cells []replay.Cell) []int {
	first := map[string]int{}
	order := make([]int, len(cells))
	for i, cl := range cells {
		order[i] = i
		if _, ok := first[traceKey(cl)]; !ok {
			first[traceKey(cl)] = i
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return first[traceKey(cells[a])] - first[traceKey(cells[b])] })
	return order
}

// newWorkload builds the workload of cell cl on trace tr; an observed
// cell's is built for the observed run only (replay.WorkloadOptions.
// Observed), which only the observed cells that take it replay (kept).
func newWorkload(c *config, cl replay.Cell, tr *trace.Trace, key string) (*replay.Workload, error) {
	hw := cl.Hardware
	topo := replay.NewTopology(&hw, cl.Seed)
	opt := workloadOptions(c)
	opt.Observed = cl.Policy == replay.ObservedPolicy
	if opt.Observed {
		opt.LeftOut = c.traceLeftOut[tr] // found as tr was checked, if it was read for an observed cell
	}
	w, err := replay.NewWorkload(tr, &hw, topo, cl.Seed, opt)
	if err != nil {
		return nil, usageError{fmt.Errorf("trace %s: %w", key, err)}
	}
	return w, nil
}

// warnLeftOut says on stderr which jobs of trace key the workload leaves
// out and why, one line each, then how many, skipping the jobs warned
// about already (warned, by trace key and job id).
func warnLeftOut(stderr io.Writer, key string, left []replay.LeftOutJob, warned map[string]bool) {
	n := 0
	for _, l := range left {
		if k := key + "\x00" + l.JobID; !warned[k] {
			warned[k] = true
			fmt.Fprintf(stderr, "replay: warning: job %s left out: %s\n", l.JobID, l.Reason)
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(stderr, "replay: warning: trace %s: %d job(s) left out: the lifecycle cannot replay them from their attempts; each run's run.json lists them (jobs_left_out)\n", key, n)
	}
}

// workloadOptions are the command's choices of jobs and limits on tasks.
func workloadOptions(c *config) replay.WorkloadOptions {
	return replay.WorkloadOptions{IncludeIncomplete: c.incomplete, MaxTasksPerHour: c.maxTasksPerHour, MaxTasks: c.maxTasks}
}

// cellDoneKey is the context key of a func() that runAll calls after each
// cell's results are written and dropped (tests measure memory there).
type cellDoneKey struct{}

// runAll runs the jobs on c.parallel goroutines, one run each at a time, in the
// order of runOrder; with out set, each run streams its results into its
// directory under out and completes them there (finishCell) before the next.
// It stops at the first failed cell and returns its error.
func runAll(ctx context.Context, jobs []*job, c *config, prog *progress, out string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan *job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error // the first cell to fail; the others were then cancelled
	fail := func(j *job) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = fmt.Errorf("%s: %w", j.cell.Dir, j.err)
		}
		cancel()
	}
	ids := &traceIDs{m: map[*trace.Trace]string{}}
	for tr, id := range c.traceIDs {
		ids.m[tr] = id
	}
	cellDone, _ := ctx.Value(cellDoneKey{}).(func())
	for range min(c.parallel, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				j.err = runJob(ctx, j, c, prog, out, ids)
				j.trace, j.workload = nil, nil
				if j.err != nil {
					fail(j)
				}
				prog.runDone(j.cell.Dir)
				if cellDone != nil {
					cellDone()
				}
			}
		}()
	}
	cells := make([]replay.Cell, len(jobs))
	for i, j := range jobs {
		cells[i] = j.cell
	}
	var gen *trace.Trace // the generated trace of the cells being handed out
	var genKey string
	for _, i := range runOrder(cells) {
		if ctx.Err() != nil {
			break
		}
		j := jobs[i]
		if j.trace == nil {
			if j.traceSrc != genKey {
				gen, genKey = nil, j.traceSrc
				tr, err := workloads.Generate(j.cell.Trace.Generator, trace.GenParams(j.cell.Trace.Params), j.cell.Seed)
				if err != nil {
					j.err = usageError{err}
					fail(j)
					break
				}
				gen = tr
			}
			j.trace = gen
		}
		next <- j
	}
	close(next)
	wg.Wait()
	return first
}

// runJob runs one cell (cells.Run) and keeps only its summary (finishCell).
func runJob(ctx context.Context, j *job, c *config, prog *progress, out string, ids *traceIDs) error {
	started := time.Now()
	// Without an output directory the timeline, node_net and task rows would
	// only be gathered in memory and dropped (the summary table needs none of
	// them): FB-2010 through fifo on fb-3000 held 1.47 GB of them.
	opt := replay.Options{
		RecordTasks: c.tasks && out != "", Timeline: !c.noTimeline && out != "", CheckInvariants: c.check,
		TraceName: j.traceSrc, HardwareName: j.cell.HWName,
		Workload: workloadOptions(c),
		// A run with --out streams its jobs' rows: the summary table's
		// statistics are then taken as they are written.
		JobStats: !c.quiet && out != "",
		Progress: func(done, total int) { prog.jobs(j.cell.Dir, done, total) },
	}
	if c.alone {
		opt.Alone = func() (replay.Policy, error) { return policy.New(j.cell.Policy) }
	}
	var outDir string
	if out != "" {
		outDir = filepath.Join(out, j.cell.Dir)
	}
	res, err := cells.Run(ctx, j.cell, cells.Options{NewPolicy: policy.New, Trace: j.trace, Workload: j.workload, OutDir: outDir, Replay: opt})
	if err != nil {
		var in *cells.InputError
		if errors.As(err, &in) {
			return usageError{in.Err}
		}
		return err
	}
	if err := finishCell(j, res, out, c.quiet, ids); err != nil {
		return err
	}
	if c.afterCell != nil && out != "" {
		return c.afterCell(j, filepath.Join(out, j.cell.Dir), started)
	}
	return nil
}

// finishCell writes a finished cell's results into its directory under out
// (when out is set) and keeps what the summary table (unless quiet) and the
// manifest need.
func finishCell(j *job, res *replay.Result, out string, quiet bool, ids *traceIDs) error {
	if out != "" {
		hw, _ := j.cell.Hardware.FieldJSON() // the frozen format report reads back
		meta := map[string]string{
			"tracereplay.tool":     "tracereplay " + replay.Version,
			"tracereplay.policy":   j.cell.Policy,
			"tracereplay.seed":     strconv.FormatUint(j.cell.Seed, 10),
			"tracereplay.trace":    j.traceSrc,
			"tracereplay.hardware": string(hw),
		}
		if err := replay.WriteRun(filepath.Join(out, j.cell.Dir), res, meta); err != nil {
			return err
		}
		sec := res.Wall.Seconds()
		j.manifest = replay.ManifestRun{Dir: filepath.ToSlash(j.cell.Dir), Policy: j.cell.Policy, Trace: j.traceSrc,
			Hardware: j.cell.Hardware, Seed: j.cell.Seed, Jobs: res.Summary.Jobs, Events: res.Summary.Events,
			WallSec: sec, EventsPerSec: float64(res.Summary.Events) / max(sec, 1e-9),
			TraceSHA256: ids.of(j), HardwareSHA256: replay.HardwareSHA256(j.cell.Hardware)}
	}
	labels := map[string]string{}
	for _, l := range j.cell.Labels {
		labels[l[0]] = l[1]
	}
	j.run = summary.Run{Dir: j.cell.Dir, Labels: labels, Policy: j.cell.Policy, Summary: res.Summary,
		Stats: &summary.Stats{}, Cluster: summary.ClusterSize(&j.cell.Hardware)}
	if !quiet { // the table and the identical runs are printed
		st, digest, err := res.JobStats()
		if err != nil {
			return err
		}
		*j.run.Stats, j.run.JobsDigest = st, digest
	}
	return nil
}

// traceIDs are the identities of the traces replayed (traceID), each hashed
// once.
type traceIDs struct {
	mu sync.Mutex
	m  map[*trace.Trace]string
}

// of is the identity of the trace job j replays: its generator and parameters
// for a generated trace (each seed draws another trace of the same cell), else
// the hash of its content (replay.TraceSHA256).
func (ids *traceIDs) of(j *job) string {
	if g := j.cell.Trace.Generator; g != "" {
		return replay.GeneratorSHA256(g, j.cell.Trace.Params)
	}
	if j.trace == nil {
		return ""
	}
	ids.mu.Lock()
	defer ids.mu.Unlock()
	id, ok := ids.m[j.trace]
	if !ok {
		id = replay.TraceSHA256(j.trace)
		ids.m[j.trace] = id
	}
	return id
}
