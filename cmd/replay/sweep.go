package main

import (
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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/cli"
	"github.com/tracereplay/tracereplay/internal/store"
	"github.com/tracereplay/tracereplay/replay"
)

// A sweep is an experiment run as shards, one process each, on as many
// machines as a batch system gives (a Slurm job array, a Kubernetes Indexed
// Job, an AWS Batch array job): shard K of N runs the cells whose index in
// the spec's order is K mod N, into one results location shared by all
// shards. Each cell is published whole with its cell.json (store.Publish),
// so a shard that is killed, retried or run twice redoes only the cells it
// had not finished; `replay merge` then checks that every cell is there and
// writes the manifest. The results are those of `replay --experiment` on one
// machine, byte for byte (the manifest's timings and arguments aside).

const (
	// cellFile is the file a cell's directory gets last: its presence with a
	// matching spec hash and cell id means the cell is done.
	cellFile = "cell.json"
	// sweepFile is at the root of a sweep's results: the spec hash every
	// shard must share.
	sweepFile = "sweep.json"
)

// shardEnv are the variables --shard-from-env reads the shard index from, in
// this order: Slurm job arrays, Kubernetes Indexed Jobs, AWS Batch array jobs.
var shardEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"}

// sweepCell is one cell of a sweep: its index in the spec's order and its id.
type sweepCell struct {
	index int
	id    string
	cell  replay.Cell
}

// sweepSpec is an experiment spec expanded into its cells, with the hash that
// names it.
type sweepSpec struct {
	path  string
	exp   *replay.Experiment
	cells []sweepCell
	hash  string // sha256 of the spec's bytes and every cell id
}

// cellRecord is a cell's cell.json.
type cellRecord struct {
	SpecSHA256  string             `json:"spec_sha256"`
	CellID      string             `json:"cell_id"`
	Index       int                `json:"index"`
	Dir         string             `json:"dir"`
	Tool        string             `json:"tool"`
	Seed        uint64             `json:"seed"`
	Started     string             `json:"started"`
	WallSec     float64            `json:"wall_seconds"`
	Host        string             `json:"host,omitempty"`
	Shard       string             `json:"shard,omitempty"`
	InputsSHA   map[string]string  `json:"inputs_sha256"`
	ManifestRun replay.ManifestRun `json:"run"`
}

// sweepRecord is a sweep's sweep.json, written by the first shard to start.
type sweepRecord struct {
	Experiment string `json:"experiment"`
	SpecSHA256 string `json:"spec_sha256"`
	Cells      int    `json:"cells"`
	Shards     int    `json:"shards,omitempty"`
	Tool       string `json:"tool"`
}

// loadSweepSpec reads the spec and computes every cell's id: the SHA-256 of
// its canonical parameters (results directory, policy, seed, the trace's
// content hash, the hardware model's hash), 16 hex digits.
func loadSweepSpec(path string) (*sweepSpec, error) {
	specBytes, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError{fmt.Errorf("experiment: %w", err)}
	}
	exp, err := replay.LoadExperiment(path)
	if err != nil {
		return nil, usageError{err}
	}
	if exp.AllocStudy != nil {
		return nil, bad("experiment %s: an allocation study is one run, not cells to shard: run it with replay --experiment", path)
	}
	cells, err := exp.Cells()
	if err != nil {
		return nil, usageError{err}
	}
	if cells, err = matchingKinds(cells, io.Discard); err != nil {
		return nil, usageError{fmt.Errorf("experiment %s: %w", path, err)}
	}
	s := &sweepSpec{path: path, exp: exp}
	traceSums := map[string]string{}
	h := sha256.New()
	h.Write(specBytes)
	for i, cl := range cells {
		ts, err := traceInputSHA(cl.Trace, traceSums)
		if err != nil {
			return nil, usageError{fmt.Errorf("experiment %s, trace %s: %w", path, cl.Trace.Name, err)}
		}
		canon, _ := json.Marshal(struct {
			Dir, Policy, Trace, Hardware string
			Seed                         uint64
		}{filepath.ToSlash(cl.Dir), cl.Policy, ts, replay.HardwareSHA256(cl.Hardware), cl.Seed})
		sum := sha256.Sum256(canon)
		id := hex.EncodeToString(sum[:8])
		s.cells = append(s.cells, sweepCell{index: i, id: id, cell: cl})
		fmt.Fprintf(h, "\n%s", id)
	}
	s.hash = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// traceInputSHA is the identity of a cell's trace input: its generator and
// parameters, or the SHA-256 of the file (of jobs.parquet and tasks.parquet
// for an ingested trace directory), computed once per path.
func traceInputSHA(t replay.ExpTrace, cache map[string]string) (string, error) {
	if t.Generator != "" {
		return replay.GeneratorSHA256(t.Generator, t.Params), nil
	}
	if s, ok := cache[t.Path]; ok {
		return s, nil
	}
	st, err := os.Stat(t.Path)
	if err != nil {
		return "", err
	}
	files := []string{t.Path}
	if st.IsDir() {
		files = []string{filepath.Join(t.Path, "jobs.parquet"), filepath.Join(t.Path, "tasks.parquet")}
	}
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) && st.IsDir() {
			continue
		}
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(h, "%s %x\n", filepath.Base(f), sum)
	}
	s := hex.EncodeToString(h.Sum(nil))
	cache[t.Path] = s
	return s, nil
}

// parseShard reads --shard K/N.
func parseShard(s string) (k, n int, err error) {
	ks, ns, ok := strings.Cut(s, "/")
	if !ok || ns == "" {
		return 0, 0, bad("--shard %q: want K/N, e.g. --shard 0/3 (the shard count N is required)", s)
	}
	if k, err = strconv.Atoi(ks); err != nil {
		return 0, 0, bad("--shard %q: K is not a number", s)
	}
	if n, err = strconv.Atoi(ns); err != nil || n < 1 {
		return 0, 0, bad("--shard %q: N must be a positive number", s)
	}
	if k < 0 || k >= n {
		return 0, 0, bad("--shard %s: K must be in 0..%d (shards are numbered from 0)", s, n-1)
	}
	return k, n, nil
}

// shardFromEnv reads the shard index from the batch system's variable.
func shardFromEnv(n int) (int, string, error) {
	for _, v := range shardEnv {
		s, ok := os.LookupEnv(v)
		if !ok || s == "" {
			continue
		}
		k, err := strconv.Atoi(s)
		if err != nil {
			return 0, v, bad("--shard-from-env: %s=%q is not a number", v, s)
		}
		if k < 0 || k >= n {
			return 0, v, bad("--shard-from-env: %s=%d is not in 0..%d (--shards %d): submit the array as --array=0-%d", v, k, n-1, n, n-1)
		}
		return k, v, nil
	}
	return 0, "", bad("--shard-from-env: none of %s is set", strings.Join(shardEnv, ", "))
}

// sweepConfig is what `replay sweep` was asked.
type sweepConfig struct {
	experiment, shard, cells, out string
	shards                        int
	fromEnv, list, force, quiet   bool
	parallel                      int
	memLimit                      memoryLimit // --memory-limit (memlimit.go)
	memLimitSet                   bool        // --memory-limit was given (off included)
}

func runSweep(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("replay sweep", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var sc sweepConfig
	fs.StringVar(&sc.experiment, "experiment", "", "experiment spec `FILE` (required)")
	fs.BoolVar(&sc.list, "list", false, "print the spec's hash and its cells (index, id, directory) in their fixed order, and exit")
	fs.StringVar(&sc.shard, "shard", "", "run the cells whose index mod N is K (`K/N`, K from 0)")
	fs.BoolVar(&sc.fromEnv, "shard-from-env", false, "take K from "+strings.Join(shardEnv, ", ")+" (the first set); N from --shards")
	fs.IntVar(&sc.shards, "shards", 0, "the shard count `N` with --shard-from-env (never taken from the environment: a retried array task would see a count of 1)")
	fs.StringVar(&sc.cells, "cells", "", "run these cells only (`ID,...` from --list or from merge's report)")
	fs.StringVar(&sc.out, "out", "", "results `URL`: a directory, file:///dir, s3://bucket/prefix?region=…[&endpoint=…], gs://bucket/prefix, mem://")
	fs.BoolVar(&sc.force, "force", false, "redo cells whose cell.json matches (they are skipped otherwise)")
	fs.IntVar(&sc.parallel, "parallel", runtime.GOMAXPROCS(0), "runs at once (each run is single-threaded)")
	fs.BoolVar(&sc.quiet, "quiet", false, "print no line per cell")
	fs.Var(&sc.memLimit, "memory-limit", "soft limit on the process's memory, as replay's --memory-limit (e.g. 280MiB, or off); unset, a shard with a network = flow cell gets replay's adaptive limit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprint(stderr, cli.BadUsage("replay sweep", "replay sweep", err))
		return 2
	}
	sc.memLimitSet = fs.Changed("memory-limit")
	err := sweepMain(ctx, &sc, fs, stdin, stdout, stderr)
	return exitCode(stderr, "replay sweep", err)
}

// exitCode prints err and returns the exit status: 2 for bad usage or input, 1
// for any other failure.
func exitCode(stderr io.Writer, cmd string, err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
	if errors.As(err, new(usageError)) || errors.Is(err, store.ErrUnreachable) {
		return 2
	}
	return 1
}

func sweepMain(ctx context.Context, sc *sweepConfig, fs *pflag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	if sc.experiment == "" {
		return bad("--experiment SPEC is required")
	}
	// The shard is checked before the spec is read: a bad array submission
	// fails at once.
	k, n := 0, 1
	var err error
	selectors := 0
	for _, set := range []bool{sc.shard != "", sc.fromEnv, sc.cells != ""} {
		if set {
			selectors++
		}
	}
	if selectors > 1 {
		return bad("--shard, --shard-from-env and --cells choose the cells to run: give one of them")
	}
	if sc.shards != 0 && !sc.fromEnv {
		return bad("--shards N goes with --shard-from-env (with --shard, give K/N)")
	}
	shardName := ""
	switch {
	case sc.shard != "":
		if k, n, err = parseShard(sc.shard); err != nil {
			return err
		}
		shardName = sc.shard
	case sc.fromEnv:
		if sc.shards < 1 {
			return bad("--shard-from-env needs --shards N, the shard count (it is never taken from the environment)")
		}
		n = sc.shards
		var v string
		if k, v, err = shardFromEnv(n); err != nil {
			return err
		}
		shardName = fmt.Sprintf("%d/%d", k, n)
		fmt.Fprintf(stderr, "replay sweep: shard %s (%s)\n", shardName, v)
	}
	spec, err := loadSweepSpec(sc.experiment)
	if err != nil {
		return err
	}
	if sc.list {
		fmt.Fprintf(stdout, "# experiment %s\n# spec_sha256 %s\n# cells %d\n", spec.exp.Name, spec.hash, len(spec.cells))
		for _, c := range spec.cells {
			fmt.Fprintf(stdout, "%d\t%s\t%s\n", c.index, c.id, filepath.ToSlash(c.cell.Dir))
		}
		return nil
	}
	if sc.out == "" {
		return bad("--out URL is required (the results location every shard shares)")
	}
	var chosen []sweepCell
	if sc.cells != "" {
		byID := map[string]sweepCell{}
		for _, c := range spec.cells {
			byID[c.id] = c
		}
		for _, id := range strings.Split(sc.cells, ",") {
			c, ok := byID[strings.TrimSpace(id)]
			if !ok {
				return bad("--cells: no cell %q in %s (replay sweep --experiment %s --list shows them)", id, sc.experiment, sc.experiment)
			}
			if !slices.ContainsFunc(chosen, func(x sweepCell) bool { return x.id == c.id }) {
				chosen = append(chosen, c)
			}
		}
		slices.SortFunc(chosen, func(a, b sweepCell) int { return a.index - b.index })
		shardName = "cells " + sc.cells
	} else {
		for _, c := range spec.cells {
			if c.index%n == k {
				chosen = append(chosen, c)
			}
		}
	}

	st, err := store.Open(ctx, sc.out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer st.Close()
	if err := claimSweep(ctx, st, spec, n); err != nil {
		return err
	}

	// A cell whose cell.json matches is done.
	var todo []sweepCell
	skipped := 0
	for _, c := range chosen {
		if !sc.force {
			if rec, err := readCell(ctx, st, c); err == nil && rec.SpecSHA256 == spec.hash && rec.CellID == c.id && rec.Tool == toolName() {
				skipped++
				if !sc.quiet {
					fmt.Fprintf(stderr, "replay sweep: skip %s %s (cell.json matches)\n", c.id, filepath.ToSlash(c.cell.Dir))
				}
				continue
			} else if err != nil && !errors.Is(err, store.ErrNotExist) {
				return err
			}
		}
		todo = append(todo, c)
	}
	// The collector's settings as replay sets them (memlimit.go,
	// flowlimit.go): they never change a result.
	applyMemoryLimit(sc.memLimit)
	cells := make([]replay.Cell, len(todo))
	for i, c := range todo {
		cells[i] = c.cell
	}
	if wantAdaptiveLimit(cells, sc.memLimitSet, os.Getenv) {
		defer startAdaptiveLimit(flowLimitBase).stop()
	}
	if err := runSweepCells(ctx, sc, spec, st, todo, shardName, stdin, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "replay sweep: %s of %s: %d cells: %d run, %d skipped\n", describeShard(shardName), sc.experiment, len(chosen), len(todo), skipped)
	return nil
}

func describeShard(s string) string {
	if s == "" {
		return "all cells"
	}
	if strings.HasPrefix(s, "cells ") {
		return s
	}
	return "shard " + s
}

func toolName() string { return "tracereplay " + replay.Version }

// claimSweep writes sweep.json unless a shard did already, and refuses a
// location whose sweep.json names another spec hash (the spec, or a trace,
// changed between shards) or that holds results that are not a sweep's.
func claimSweep(ctx context.Context, st store.Store, spec *sweepSpec, n int) error {
	rec := sweepRecord{Experiment: spec.exp.Name, SpecSHA256: spec.hash, Cells: len(spec.cells), Shards: n, Tool: toolName()}
	b, _ := json.MarshalIndent(rec, "", "  ")
	if _, err := st.Get(ctx, sweepFile); errors.Is(err, store.ErrNotExist) {
		if _, err := st.Get(ctx, replay.ManifestFile); err == nil {
			return bad("--out %s holds results of replay --experiment, not a sweep: give another location", st)
		}
	}
	got, err := st.PutNew(ctx, sweepFile, append(b, '\n'))
	if err != nil {
		return fmt.Errorf("--out %s: %s: %w", st, sweepFile, err)
	}
	return checkSweepRecord(st, got, spec)
}

func checkSweepRecord(st store.Store, b []byte, spec *sweepSpec) error {
	var have sweepRecord
	if err := json.Unmarshal(b, &have); err != nil {
		return bad("--out %s: %s: %v", st, sweepFile, err)
	}
	if have.SpecSHA256 != spec.hash {
		return bad("--out %s: spec hash mismatch: the results there are of spec %s (experiment %q, %d cells), %s is now %s (%d cells): the spec or one of its traces changed between shards; give another --out, or restore the spec",
			st, short(have.SpecSHA256), have.Experiment, have.Cells, spec.path, short(spec.hash), len(spec.cells))
	}
	return nil
}

func short(h string) string { return h[:min(len(h), 16)] }

// readCell reads a cell's cell.json.
func readCell(ctx context.Context, st store.Store, c sweepCell) (*cellRecord, error) {
	key := store.JoinKey(filepath.ToSlash(c.cell.Dir), cellFile)
	b, err := st.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	var rec cellRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", st, key, err)
	}
	return &rec, nil
}

// runSweepCells runs cells with the command's cell runner (cells.go) into a
// staging directory and publishes each, cell.json last, as soon as it ends.
func runSweepCells(ctx context.Context, sc *sweepConfig, spec *sweepSpec, st store.Store, todo []sweepCell, shardName string, stdin io.Reader, stderr io.Writer) error {
	if len(todo) == 0 {
		return nil
	}
	c := &config{experiment: sc.experiment, parallel: max(sc.parallel, 1), quiet: true,
		maxTasksPerHour: replay.DefaultMaxTasksPerHour, maxTasks: replay.DefaultMaxTasks}
	c.tasks = spec.exp.Tasks
	c.noTimeline = !spec.exp.TimelineOn()
	c.alone = spec.exp.Alone
	inputs := map[string]string{}
	if err := hashFile(inputs, sc.experiment); err != nil {
		return err
	}
	cells := make([]replay.Cell, len(todo))
	byDir := map[string]sweepCell{}
	for i, t := range todo {
		cells[i] = t.cell
		byDir[t.cell.Dir] = t
	}
	for _, cl := range cells {
		if _, err := newPolicy(cl.Policy); err != nil {
			return usageError{err}
		}
	}
	jobs, err := prepareJobsCtx(ctx, c, cells, stdin, inputs, stderr)
	if err != nil {
		return err
	}
	staging, cleanup, err := st.Staging()
	if err != nil {
		return fmt.Errorf("--out %s: staging: %w", st, err)
	}
	defer cleanup()
	host, _ := os.Hostname()
	c.afterCell = func(j *job, dir string, started time.Time) error {
		t := byDir[j.cell.Dir]
		rec := cellRecord{SpecSHA256: spec.hash, CellID: t.id, Index: t.index, Dir: filepath.ToSlash(j.cell.Dir),
			Tool: toolName(), Seed: j.cell.Seed, Started: started.UTC().Format(time.RFC3339),
			WallSec: time.Since(started).Seconds(), Host: host, Shard: shardName, InputsSHA: inputs, ManifestRun: j.manifest}
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, cellFile), append(b, '\n'), 0o644); err != nil {
			return err
		}
		if err := st.Publish(ctx, dir, filepath.ToSlash(j.cell.Dir), cellFile); err != nil {
			return fmt.Errorf("--out %s: %w", st, err)
		}
		if !sc.quiet {
			fmt.Fprintf(stderr, "replay sweep: done %s %s\n", t.id, filepath.ToSlash(j.cell.Dir))
		}
		return nil
	}
	prog := newProgress(stderr, len(jobs))
	err = runAll(ctx, jobs, c, prog, staging)
	prog.finish()
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted; the cells published so far are complete, the others are not written")
	}
	return err
}

// runMerge is `replay merge`: checks that every cell of the spec is in the
// results location with a matching cell.json, and writes the manifest.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("replay merge", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var spec, out string
	var shards int
	fs.StringVar(&spec, "experiment", "", "experiment spec `FILE` the shards ran (required)")
	fs.StringVar(&out, "out", "", "the shards' results `URL` (required)")
	fs.IntVar(&shards, "shards", 0, "the shard count `N`, for the --array= list of shards to resubmit (default: the count the first shard recorded)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprint(stderr, cli.BadUsage("replay merge", "replay merge", err))
		return 2
	}
	return exitCode(stderr, "replay merge", mergeMain(ctx, spec, out, shards, fs, stdout, stderr))
}

func mergeMain(ctx context.Context, specPath, out string, shards int, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	start := time.Now()
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	if specPath == "" || out == "" {
		return bad("--experiment SPEC and --out URL are required")
	}
	if shards < 0 {
		return bad("--shards %d: want a positive count", shards)
	}
	spec, err := loadSweepSpec(specPath)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer st.Close()
	b, err := st.Get(ctx, sweepFile)
	if errors.Is(err, store.ErrNotExist) {
		return bad("--out %s: no %s: no shard of a sweep wrote there", st, sweepFile)
	} else if err != nil {
		return fmt.Errorf("--out %s: %w", st, err)
	}
	if err := checkSweepRecord(st, b, spec); err != nil {
		return err
	}
	if shards == 0 {
		var rec sweepRecord
		json.Unmarshal(b, &rec)
		shards = max(rec.Shards, 1)
	}
	m := replay.Manifest{Tool: toolName(), GoVersion: runtime.Version(), Args: os.Args[1:],
		Inputs: map[string]string{}, Experiment: specPath}
	var missing []sweepCell
	for _, c := range spec.cells {
		rec, err := readCell(ctx, st, c)
		if err != nil && !errors.Is(err, store.ErrNotExist) {
			return err
		}
		if err != nil || rec.SpecSHA256 != spec.hash || rec.CellID != c.id {
			missing = append(missing, c)
			continue
		}
		// The hardware model as the spec builds it: its JSON leaves out
		// default keys (Hardware.MarshalJSON), which reading cell.json
		// back does not restore. The cell id vouches that it is the same.
		run := rec.ManifestRun
		run.Hardware = c.cell.Hardware
		m.Runs = append(m.Runs, run)
		for k, v := range rec.InputsSHA {
			m.Inputs[k] = v
		}
		m.WallSec += rec.WallSec
	}
	if len(missing) > 0 {
		// An earlier merge's manifest would list cells that are gone.
		if err := st.Delete(ctx, replay.ManifestFile); err != nil {
			return err
		}
		ids := make([]string, len(missing))
		arr := map[int]bool{}
		for i, c := range missing {
			ids[i] = c.id
			arr[c.index%shards] = true
			fmt.Fprintf(stderr, "replay merge: missing cell %d %s %s\n", c.index, c.id, filepath.ToSlash(c.cell.Dir))
		}
		ks := make([]string, 0, len(arr))
		for _, k := range slices.Sorted(func(yield func(int) bool) {
			for k := range arr {
				if !yield(k) {
					return
				}
			}
		}) {
			ks = append(ks, strconv.Itoa(k))
		}
		fmt.Fprintf(stderr, "replay merge: %d of %d cells missing; resubmit shards --array=%s (of %d), or run: replay sweep --experiment %s --out %s --cells %s\n",
			len(missing), len(spec.cells), strings.Join(ks, ","), shards, specPath, out, strings.Join(ids, ","))
		return errMissing
	}
	if err := store.CleanStaging(st); err != nil {
		return fmt.Errorf("--out %s: %w", st, err)
	}
	mb, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return err
	}
	if err := st.Put(ctx, replay.ManifestFile, append(mb, '\n')); err != nil {
		return fmt.Errorf("--out %s: %w", st, err)
	}
	fmt.Fprintf(stdout, "replay merge: %d cells of %s complete; wrote %s/%s (%.1f s)\n", len(spec.cells), spec.exp.Name, out, replay.ManifestFile, time.Since(start).Seconds())
	return nil
}

// errMissing is merge's failure when cells are missing (exit 1; the cells
// were already named).
var errMissing = errors.New("cells missing: no manifest written")

// withSweepUsage adds the sweep and merge forms to replay's usage line.
func withSweepUsage(help string) string {
	first, rest, _ := strings.Cut(help, "\n")
	return first + "\n       replay sweep --experiment SPEC (--list | --shard K/N | --shard-from-env --shards N | --cells ID,...) --out URL   (run an experiment's cells as shards: replay sweep --help)" +
		"\n       replay merge --experiment SPEC --out URL   (check every cell of a sweep and write its manifest)\n" + rest
}
