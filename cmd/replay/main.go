// Command replay re-schedules a trace through scheduling policies on a hardware
// model in tracereplay's deterministic discrete-event simulator and writes per-job,
// per-task and timeline results as Parquet.
//
//	replay                                   # the bundled sample through every policy
//	replay --trace DIR --hardware HW.toml --policy all --seed 7 --out runs/x
//	replay --experiment samples/experiments/NAME.toml --out runs/NAME
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/cli"
	"github.com/tracereplay/tracereplay/internal/sigexit"
	"github.com/tracereplay/tracereplay/internal/summary"
	"github.com/tracereplay/tracereplay/internal/version"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report/preset/workloads"
	"github.com/tracereplay/tracereplay/samples"
	"github.com/tracereplay/tracereplay/trace"
)

func main() {
	os.Exit(sigexit.Run("replay", os.Stderr, func(ctx context.Context) int {
		return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}))
}

// usageError is bad usage or bad input: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func bad(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

type config struct {
	tracePath, format, hwPath, out, experiment string
	policies, set                              []string
	seed                                       uint64
	tasks, check, incomplete, quiet            bool
	force                                      bool
	publish                                    func(fill func(tmp string) error) error // publish.go
	alone                                      bool
	noTimeline                                 bool // an experiment turned timeline sampling off
	parallel                                   int
	memLimitSet                                bool      // --memory-limit was given (off included)
	maxTasksPerHour, maxTasks                  int64     // replay.WorkloadOptions
	tm                                         traceMode // tracemode.go
	// traceIDs are the identities of traces hashed as they were read
	// (loadTrace), which runAll's traceIDs start from.
	traceIDs map[*trace.Trace]string
	// traceHosts are the hosts of traces' tasks seen as they were read
	// (loadTrace), which prepareCell derives their clusters from.
	traceHosts map[*trace.Trace]*replay.TraceHosts
	// traceLeftOut are the jobs left out of traces read for an observed
	// cell, found as they were checked (loadTrace), which newWorkload
	// gives an observed cell's workload.
	traceLeftOut map[*trace.Trace]*replay.LeftOutSeen
	// afterCell, when set, is called with each cell's results directory
	// once they are complete (sweep.go publishes the cell).
	afterCell func(j *job, dir string, started time.Time) error
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "calibrate" {
		return runCalibrate(ctx, args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "sweep" {
		return runSweep(ctx, args[1:], stdin, stdout, stderr) // sweep.go
	}
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(ctx, args[1:], stdout, stderr) // sweep.go
	}
	fs := pflag.NewFlagSet("replay", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.tracePath, "trace", "", "trace `DIR` written by ingest, or a raw trace file (- for stdin); default: the bundled whole FB-2009 day (samples/traces/fb2009-day.tsv, 5,894 jobs)")
	fs.StringVar(&c.format, "format", "auto", "format of a raw --trace file: auto or "+strings.Join(trace.FormatNames(), ", "))
	fs.StringVar(&c.hwPath, "hardware", "", "hardware model `FILE` (TOML); default: the bundled samples/hardware/fb-600.toml")
	fs.StringArrayVar(&c.set, "set", nil, "override a hardware key, `KEY=VALUE` (repeatable), e.g. --set replication=2")
	fs.StringSliceVar(&c.policies, "policy", []string{"all"}, "policies to run: all, or `NAME[:k=v,...]` (repeatable or comma-separated names)")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of every random stream (placement, durations, heartbeats, policies)")
	fs.StringVar(&c.out, "out", "", "write results to `DIR` (replaced atomically; only a results directory replay wrote is replaced); without it nothing is written")
	fs.BoolVar(&c.force, "force", false, "replace --out even if it holds files replay did not write")
	fs.StringVar(&c.experiment, "experiment", "", "run an experiment spec `FILE` (cartesian product of traces, hardware, sweeps, policies, seeds)")
	fs.BoolVar(&c.tasks, "tasks", false, "also write tasks.parquet with one row per task")
	fs.BoolVar(&c.check, "check-invariants", false, "verify the simulator's invariants at every event (slower)")
	fs.BoolVar(&c.incomplete, "include-incomplete", false, "also replay jobs whose history has no finish event")
	fs.BoolVar(&c.alone, "alone", false, "also replay every job alone, for slowdown against its flowtime alone (H-PFSP)")
	fs.Int64Var(&c.maxTasksPerHour, "max-tasks-per-hour", replay.DefaultMaxTasksPerHour, "refuse a trace whose jobs submitted within an hour have more tasks than `N` (a run holds about 175 bytes a task of the jobs present at once)")
	fs.Int64Var(&c.maxTasks, "max-tasks", replay.DefaultMaxTasks, "refuse a trace of more than `N` tasks")
	fs.IntVar(&c.parallel, "parallel", runtime.GOMAXPROCS(0), "runs at once (each run is single-threaded)")
	fs.BoolVar(&c.quiet, "quiet", false, "print no summary table")
	var memLimit memoryLimit // memlimit.go
	fs.Var(&memLimit, "memory-limit", "soft limit on the process's memory, as GOMEMLIMIT takes it (e.g. 280MiB, or off): the collector runs more often near it, trading CPU for peak RSS; GOMEMLIMIT in the environment wins; under a limit below the run's live heap the collector runs back to back (twice the CPU or more); unset, a run with network = flow gets 256MiB raised after each collection to 5/4 of the live heap (unless GOGC is set)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() { fmt.Fprint(stderr, withSweepUsage(withCalibrateUsage(usage(fs)))) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprint(stderr, cli.BadUsage("replay", "replay", err))
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, version.Tool("replay"))
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "replay: unexpected argument %q (the trace is given with --trace)\n", fs.Arg(0))
		return 2
	}
	if c.parallel < 1 {
		c.parallel = 1
	}
	applyMemoryLimit(memLimit)
	c.memLimitSet = fs.Changed("memory-limit")
	if c.out != "" {
		closeOut, err := openOut(ctx, &c, stderr) // publish.go
		if err != nil {
			fmt.Fprintf(stderr, "replay: %v\n", err)
			if errors.As(err, new(usageError)) {
				return 2
			}
			return 1
		}
		defer closeOut()
	}
	if err := replayMain(ctx, &c, stdin, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "replay: %v\n", err)
		var u usageError
		if errors.As(err, &u) || errors.Is(err, trace.ErrBadInput) {
			return 2
		}
		return 1
	}
	return 0
}

func replayMain(ctx context.Context, c *config, stdin io.Reader, stdout, stderr io.Writer) error {
	start := time.Now()
	inputs := map[string]string{}
	var cells []replay.Cell
	if c.experiment != "" {
		if c.tracePath != "" || c.hwPath != "" || len(c.set) > 0 {
			return bad("--experiment names its traces and hardware itself: drop --trace, --hardware and --set")
		}
		exp, err := replay.LoadExperiment(c.experiment)
		if err != nil {
			return usageError{err}
		}
		if exp.AllocStudy != nil {
			return allocStudy(c, exp, stdout, start)
		}
		if cells, err = exp.Cells(); err != nil {
			return usageError{err}
		}
		if cells, err = matchingKinds(cells, stderr); err != nil {
			return usageError{fmt.Errorf("experiment %s: %w", c.experiment, err)}
		}
		c.tasks = c.tasks || exp.Tasks
		c.noTimeline = !exp.TimelineOn()
		c.alone = c.alone || exp.Alone
		if err := hashFile(inputs, c.experiment); err != nil {
			return err
		}
	} else {
		var err error
		if cells, err = plainCells(c, inputs); err != nil {
			return err
		}
	}
	for _, cl := range cells {
		if _, err := newPolicy(cl.Policy); err != nil {
			return usageError{err}
		}
	}
	if wantAdaptiveLimit(cells, c.memLimitSet, os.Getenv) { // flowlimit.go
		defer startAdaptiveLimit(flowLimitBase).stop()
	}

	jobs, err := prepareJobsCtx(ctx, c, cells, stdin, inputs, stderr) // cells.go
	if err != nil {
		return err
	}

	prog := newProgress(stderr, len(jobs))
	// With --out, each run streams its results into a temporary directory
	// beside it (buildResults), so that memory does not grow with the tasks and
	// samples written, and completes them there when it ends, so that memory
	// does not grow with the cells either (cells.go).
	runs := func(tmp string) error {
		err := runAll(ctx, jobs, c, prog, tmp)
		prog.finish()
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err != nil {
			return err
		}
		if tmp == "" {
			return nil
		}
		return fillRuns(ctx, tmp, c, jobs, inputs, start)
	}
	if c.out != "" {
		if err := buildResults(c, runs); err != nil {
			return err
		}
	} else if err := runs(""); err != nil {
		return err
	}
	{
		runs := make([]summary.Run, len(jobs))
		for i, j := range jobs {
			runs[i] = j.run
		}
		if err := printSummary(stdout, stderr, runs, c.quiet); err != nil {
			return err
		}
	}
	return nil
}

// plainCells builds the cells of a run without an experiment spec: one per policy.
func plainCells(c *config, inputs map[string]string) ([]replay.Cell, error) {
	var hw replay.Hardware
	var err error
	hwName := samples.SampleHardwareName
	if c.hwPath == "" {
		hw, err = replay.ParseHardware(samples.SampleHardware)
		hashBytes(inputs, hwName+" (embedded)", samples.SampleHardware)
	} else {
		hwName = c.hwPath
		hw, err = replay.LoadHardware(c.hwPath)
		if err == nil {
			err = hashFile(inputs, c.hwPath)
		}
	}
	if err != nil {
		return nil, usageError{err}
	}
	set := map[string]any{}
	for _, kv := range c.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, bad("--set %q: want KEY=VALUE", kv)
		}
		set[k] = parseValue(v)
	}
	if hw, err = hw.WithSettings(set); err != nil {
		return nil, usageError{fmt.Errorf("--set: %w", err)}
	}
	names, err := policyNames(c, hw.Cluster) // tracemode.go: policyList and the observed row
	if err != nil {
		return nil, err
	}
	for _, p := range names {
		if pol, err := newPolicy(p); err == nil && pol != nil {
			if err := replay.CheckPolicyKind(&hw, pol); err != nil {
				return nil, usageError{err}
			}
		}
	}
	tr := replay.ExpTrace{Name: "sample", Path: c.tracePath, Format: c.format}
	if c.tracePath != "" {
		tr.Name = strings.TrimSuffix(filepath.Base(c.tracePath), filepath.Ext(c.tracePath))
	}
	var cells []replay.Cell
	for _, p := range names {
		cells = append(cells, replay.Cell{Trace: tr, Hardware: hw, HWName: hwName, Policy: p, Seed: c.seed,
			Labels: [][2]string{{"policy", p}}, Dir: "policy=" + strings.ReplaceAll(p, "/", "_")})
	}
	return cells, nil
}

// parseValue reads a --set value as TOML would: integer, float, bool, else string.
func parseValue(v string) any {
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return v
}

func policyList(specs []string, kind replay.ClusterKind) ([]string, error) {
	var out []string
	for _, s := range specs {
		if s == "all" {
			out = append(out, policy.AllFor(kind)...)
			continue
		}
		if _, err := policy.New(s); err != nil {
			return nil, usageError{err}
		}
		out = append(out, s)
	}
	seen := map[string]bool{}
	var uniq []string
	for _, p := range out {
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	return uniq, nil
}

// loadTrace reads (once) the trace a cell names: the embedded sample, an ingested
// trace directory, a raw trace file or a generator.
func loadTrace(cl replay.Cell, c *config, stdin io.Reader, cache map[string]*trace.Trace, inputs map[string]string) (*trace.Trace, string, error) {
	t := cl.Trace
	key := t.Path
	if t.Generator != "" {
		pb, _ := json.Marshal(t.Params)
		key = fmt.Sprintf("%s%s@%d", t.Generator, pb, cl.Seed)
	}
	if tr, ok := cache[key]; ok {
		return tr, key, nil
	}
	var tr *trace.Trace
	var err error
	switch {
	case t.Generator != "":
		tr, err = workloads.Generate(t.Generator, trace.GenParams(t.Params), cl.Seed)
		if err != nil {
			err = usageError{err}
		}
	case t.Path == "":
		key = samples.SampleTraceName
		tr, _, err = trace.ReadInput(key, bytes.NewReader(samples.SampleTrace), "auto", trace.ReadOptions{})
		if err == nil {
			hashBytes(inputs, key+" (embedded)", samples.SampleTrace)
		}
	case t.Path == "-":
		tr, _, err = trace.ReadInput("-", stdin, t.Format, trace.ReadOptions{})
	default:
		var st os.FileInfo
		if st, err = os.Stat(t.Path); err != nil {
			return nil, key, usageError{fmt.Errorf("trace: %w", err)}
		}
		if st.IsDir() {
			// A trace directory is read as its jobs arrive, with their
			// tasks and attempts, once per run (the observed row too:
			// replay.Observed reads it job by job), unless --alone,
			// which replays every job by position again: the workload
			// reads the attempts through the stream
			// (replay.NewWorkload), never Trace.Attempts.
			ok := false
			if !c.alone {
				// Its identity is hashed as it is checked: one pass
				// over its tasks less (traceIDs).
				// So are the hosts a cluster derived from it takes
				// (prepareCell): one pass over its tasks less
				// (replay.TraceHardwareSeen).
				h, hosts := replay.NewTraceHash(), replay.NewTraceHosts()
				visit := func(j *trace.Job, k *trace.Task) {
					h.Visit(j, k)
					hosts.Visit(j, k)
				}
				opt := trace.StreamOptions{Visit: visit, Attempts: true}
				// So are the jobs an observed cell's workload
				// leaves out (newWorkload): one pass over its
				// tasks and attempts less (replay.LeftOutSeen).
				var seen *replay.LeftOutSeen
				if cl.Policy == replay.ObservedPolicy {
					seen = replay.NewLeftOutSeen()
					opt.JobAttempts = seen.Visit
				}
				tr, ok, err = trace.OpenTaskStream(t.Path, opt)
				if ok && err == nil && seen != nil {
					if c.traceLeftOut == nil {
						c.traceLeftOut = map[*trace.Trace]*replay.LeftOutSeen{}
					}
					c.traceLeftOut[tr] = seen
				}
				if ok && err == nil {
					if c.traceIDs == nil {
						c.traceIDs = map[*trace.Trace]string{}
					}
					if c.traceHosts == nil {
						c.traceHosts = map[*trace.Trace]*replay.TraceHosts{}
					}
					c.traceIDs[tr] = h.Sum()
					c.traceHosts[tr] = hosts
				}
			}
			if !ok && err == nil {
				tr, err = trace.Read(t.Path)
			}
			for _, f := range []string{"jobs.parquet", "tasks.parquet"} {
				if _, e := os.Stat(filepath.Join(t.Path, f)); e == nil && err == nil {
					err = hashFile(inputs, filepath.Join(t.Path, f))
				}
			}
		} else {
			var f *os.File
			if f, err = os.Open(t.Path); err == nil {
				format := t.Format
				if format == "" {
					format = "auto"
				}
				tr, _, err = trace.ReadInput(t.Path, f, format, trace.ReadOptions{})
				f.Close()
				if err == nil {
					err = hashFile(inputs, t.Path)
				}
			}
		}
	}
	if err != nil {
		var u usageError
		if !errors.As(err, &u) {
			err = usageError{err}
		}
		return nil, key, err
	}
	cache[key] = tr
	return tr, key, nil
}

func hashFile(inputs map[string]string, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return usageError{err}
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return usageError{err}
	}
	inputs[path] = hex.EncodeToString(h.Sum(nil))
	return nil
}

// hashBytes records the SHA-256 of an input's bytes under name; the embedded
// sample trace and hardware model are recorded as "NAME (embedded)", so the
// manifest of a run on them still names what it read.
func hashBytes(inputs map[string]string, name string, b []byte) {
	sum := sha256.Sum256(b)
	inputs[name] = hex.EncodeToString(sum[:])
}

// matchingKinds drops the cells of an experiment whose policy schedules the
// other kind of cluster than their hardware model (slot policies on
// cluster = "yarn", YARN policies on slot models), saying how many on
// stderr, so that one spec can compare the slot and the YARN model of the
// same cluster. A spec left with no cell is an error.
func matchingKinds(cells []replay.Cell, stderr io.Writer) ([]replay.Cell, error) {
	kept := cells[:0:0]
	for _, cl := range cells {
		p, err := newPolicy(cl.Policy)
		if err != nil {
			return nil, err
		}
		if p == nil || replay.CheckPolicyKind(&cl.Hardware, p) == nil {
			kept = append(kept, cl)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no cell: every policy schedules the other kind of cluster than its hardware model (YARN policies need cluster = \"yarn\")")
	}
	if n := len(cells) - len(kept); n > 0 {
		fmt.Fprintf(stderr, "replay: %d of %d cells left out: their policy schedules the other kind of cluster than their hardware model\n", n, len(cells))
	}
	return kept, nil
}
