// Command ingest reads job traces in one of the supported input formats and
// writes tracereplay's canonical trace directory (jobs.parquet, tasks.parquet).
//
//	ingest --out DIR [--force] [--format auto|swim|jhist|hadoop1|rumen|sls] [--strict]
//	       [--topology FILE] [--workers N] FILE|DIR...
//	ingest --out DIR --generate NAME [--param key=value]... [--seed N]
//	ingest shard --shard K/N --out WORK TREE; ingest merge --shards N --out DIR WORK   (shard.go)
//
// FILE "-" is standard input; gzip-compressed inputs are recognised by their
// first bytes. A DIR is walked for job histories (.jhist with their _conf.xml,
// Hadoop 1 logs, Rumen traces, SLS job files): files that cannot be read are
// skipped, named on stderr and counted in the summary (--strict makes them
// fatal). Several inputs must be of one format; their jobs are merged and
// sorted by submit time. Exit status: 0 success, 1 failure, 2 bad usage or bad
// input (the message names file, line and column). On any error no output
// directory is created or changed.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/cli"
	"github.com/tracereplay/tracereplay/internal/sigexit"
	"github.com/tracereplay/tracereplay/internal/version"
	"github.com/tracereplay/tracereplay/report/preset/workloads"
	"github.com/tracereplay/tracereplay/trace"
)

func main() {
	os.Exit(sigexit.Run("ingest", os.Stderr, func(ctx context.Context) int {
		return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}))
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// run is the whole command, testable: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "shard" || args[0] == "merge") {
		if _, err := os.Stat(args[0]); err != nil { // not an input of that name
			if args[0] == "shard" {
				return runShard(ctx, args[1:], stdin, stdout, stderr) // shard.go
			}
			return runMergeShards(ctx, args[1:], stdout, stderr)
		}
	}
	fs := pflag.NewFlagSet("ingest", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "output trace directory (created, or replaced if ingest wrote it)")
	force := fs.Bool("force", false, "replace --out even if it holds files ingest did not write")
	format := fs.String("format", "auto", "input format: auto or "+strings.Join(trace.FormatNames(), ", "))
	strict := fs.Bool("strict", false, "turn warnings about inconsistent input into errors, and unreadable files of a DIR")
	keepClocks := fs.Bool("keep-tracker-clocks", false, "keep a Hadoop 1 history's attempt times on their TaskTrackers' clocks (by default hosts clearly off the JobTracker's clock are moved onto it, and named on stderr)")
	topology := fs.String("topology", "", "Rumen topology or SLS node file giving the racks of hosts the inputs leave rack-less")
	workers := fs.Int("workers", 0, "files of a DIR read at once (0: one per CPU)")
	generate := fs.String("generate", "", "write a synthetic trace made by this generator instead of reading FILEs")
	params := fs.StringArray("param", nil, "generator parameter key=value (repeatable)")
	seed := fs.Uint64("seed", 1, "generator seed: the same parameters and seed give the same trace")
	help := fs.BoolP("help", "h", false, "show this help")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fail := func(status int, format string, args ...any) int {
		fmt.Fprintf(stderr, "ingest: "+format+"\n", args...)
		return status
	}
	if err := fs.Parse(args); err != nil {
		fmt.Fprint(stderr, cli.BadUsage("ingest", "ingest", err))
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, usage(fs))
		return exitOK
	}
	if *showVersion {
		fmt.Fprintln(stdout, version.Tool("ingest"))
		return exitOK
	}
	if *out == "" {
		return fail(exitUsage, "--out DIR is required\n%s", usageHint())
	}
	dst, status := openOut(ctx, *out, *force, stderr)
	if dst == nil {
		return status
	}
	defer dst.close()
	inputs := fs.Args()
	if *generate != "" || fs.Changed("param") || fs.Changed("seed") {
		return runGenerate(fs, *generate, *params, *seed, dst, stdout, stderr)
	}
	if len(inputs) == 0 {
		return fail(exitUsage, "no input files (use - for standard input)\n%s", usageHint())
	}
	if n := countStdin(inputs); n > 1 {
		return fail(exitUsage, "standard input (-) given %d times", n)
	}
	if *format != "auto" {
		if _, err := trace.LookupFormat(*format); err != nil {
			return fail(exitUsage, "--format: %v", err)
		}
	}
	if *workers < 0 {
		return fail(exitUsage, "--workers %d: want 0 or more", *workers)
	}
	var topo map[string]string
	if *topology != "" {
		var err error
		if topo, err = readTopology(*topology); err != nil {
			return fail(statusOf(err), "--topology: %v", err)
		}
	}
	warnings := newWarnWriter(stderr)
	defer warnings.flush()
	opt := trace.ReadOptions{Strict: *strict, Warnings: warnings, KeepTrackerClocks: *keepClocks}
	var parts []*trace.Trace
	var f trace.Format
	var trees treeTotals
	clockHosts := 0 // TaskTracker hosts moved onto the JobTracker's clock, summed over the inputs
	for _, name := range inputs {
		if ctx.Err() != nil {
			// a signal after the output's lock was taken, before this input
			return fail(exitFail, "interrupted before reading %s; nothing written", name)
		}
		var t *trace.Trace
		var pf trace.Format
		var err error
		if isDir(name) {
			t, pf, err = readTree(ctx, name, *format, *workers, opt, stderr, &trees)
		} else {
			t, pf, err = readOne(ctx, name, stdin, *format, opt)
		}
		if ctx.Err() != nil {
			return fail(exitFail, "interrupted while reading %s; nothing written", name)
		}
		if err != nil {
			return fail(statusOf(err), "%v", err)
		}
		if len(t.Jobs) == 0 {
			continue // a directory whose histories were all skipped
		}
		if len(parts) > 0 && pf.Name != f.Name {
			return fail(exitUsage, "inputs of different formats: %s is %s, %s is %s (ingest one format at a time)",
				inputs[0], f.Name, name, pf.Name)
		}
		f = pf
		if n, err := strconv.Atoi(t.Meta.Options[trace.OptTrackerClocks]); err == nil {
			clockHosts += n
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return fail(exitUsage, "no jobs read: every job history of %s was skipped", strings.Join(inputs, " "))
	}
	t, err := trace.Merge(f, parts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	t.Meta.SchemaVersion = trace.SchemaVersion
	t.Meta.Tool = version.Tool("ingest")
	t.Meta.Options = map[string]string{"format": *format, "strict": strconv.FormatBool(*strict)}
	if *keepClocks {
		t.Meta.Options["keep_tracker_clocks"] = "true"
	}
	if clockHosts > 0 {
		// each input is corrected on its own (ReadInput, ReadTree)
		t.Meta.Options[trace.OptTrackerClocks] = strconv.Itoa(clockHosts)
	}
	t.Meta.Sources = append([]string(nil), inputs...) // directories whose files were all skipped included
	if topo != nil {
		trace.FillRacks(t, topo)
		t.Meta.Options["topology"] = *topology
	}
	return write(dst, t, trees, stdout, fail)
}

// statusOf is the exit status for an error: bad input and missing files are
// the user's to fix (2), anything else is a failure (1).
func statusOf(err error) int {
	if errors.Is(err, trace.ErrBadInput) || errors.Is(err, os.ErrNotExist) {
		return exitUsage
	}
	return exitFail
}

// readOne opens and reads one input ("-" is stdin). The readers look at no
// context, so the input is read through a contextReader: a signal stops the
// reading at its next read, not at the end of a file of many gigabytes.
func readOne(ctx context.Context, name string, stdin io.Reader, format string, opt trace.ReadOptions) (*trace.Trace, trace.Format, error) {
	r := stdin
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return nil, trace.Format{}, err
		}
		defer fh.Close()
		r = fh
	}
	return trace.ReadInput(name, contextReader{ctx, r}, format, opt)
}

// contextReader reads from r until ctx ends, and then returns ctx's error.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func countStdin(inputs []string) int {
	n := 0
	for _, in := range inputs {
		if in == "-" {
			n++
		}
	}
	return n
}

// epochFrom is the submit time (ms) from which a trace's times are taken as
// Unix epoch milliseconds rather than an offset from the trace's start:
// 2000-01-01 UTC, about 30 years of offsets.
const epochFrom = 946684800000

// submitTime formats a submit time: a UTC date and time for an epoch trace
// (Hadoop histories), else milliseconds from the trace's start (SWIM, SLS).
func submitTime(ms int64) string {
	if ms >= epochFrom {
		return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000 UTC")
	}
	return fmt.Sprintf("%d ms", ms)
}

// summary prints what was written.
func summary(w io.Writer, out string, t *trace.Trace, trees treeTotals) {
	var known, input int64
	for _, j := range t.Jobs {
		if j.InputBytes != trace.Unknown {
			known++
			input += j.InputBytes
		}
	}
	fmt.Fprintf(w, "format:       %s\n", t.Meta.SourceFormat)
	if g, ok := t.Meta.Options["generator"]; ok && len(t.Meta.Sources) == 0 {
		fmt.Fprintf(w, "generator:    %s, seed %s\n", g, t.Meta.Options["seed"])
	} else {
		fmt.Fprintf(w, "inputs:       %s\n", strings.Join(t.Meta.Sources, " "))
	}
	if trees.dirs > 0 {
		fmt.Fprintf(w, "files:        %s\n", trees)
	}
	fmt.Fprintf(w, "jobs:         %d\n", len(t.Jobs))
	fmt.Fprintf(w, "tasks:        %d\n", len(t.Tasks))
	if len(t.Jobs) > 0 {
		first, last := t.Jobs[0].SubmitMs, t.Jobs[len(t.Jobs)-1].SubmitMs
		fmt.Fprintf(w, "submit:       %s .. %s (span %v)\n", submitTime(first), submitTime(last), time.Duration(last-first)*time.Millisecond)
	}
	fmt.Fprintf(w, "input bytes:  %d (%s)", input, humanBytes(input))
	if unknown := int64(len(t.Jobs)) - known; unknown > 0 {
		fmt.Fprintf(w, ", %d jobs unknown", unknown)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "out:          %s\n", out)
}

// humanBytes formats n with a binary unit.
func humanBytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

func usageHint() string { return "run 'ingest --help' for usage" }

// usage is the --help text.
func usage(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString(`Usage: ingest --out DIR [--format FORMAT] [--strict] [--topology FILE] FILE|DIR...
       ingest --out DIR --generate NAME [--param key=value]... [--seed N]

Reads job traces and writes a tracereplay trace directory DIR holding
jobs.parquet (and tasks.parquet when the input has task data). FILE - is
standard input; gzip input is recognised by its first bytes. Several FILEs
must share one format; their jobs are merged and sorted by submit time.

A DIR (a JobHistoryServer done/ tree, a Hadoop 1 history folder, ...) is
walked: job histories are recognised by content, each job gets the
<jobId>_conf.xml next to it, topology files fill missing racks, and files
that cannot be read are skipped, named on stderr and counted in the summary
(--strict makes them fatal).

A Hadoop 1 history (or a Rumen trace of one) times its jobs and tasks by the
JobTracker's clock and its attempts by each TaskTracker's. Hosts whose
clocks are clearly off (their attempts start a steady 5 s or more away from
their tasks' assignments) have their attempts moved onto the JobTracker's
clock, durations kept; a warning names them and the trace's options count
them. Each FILE or DIR is corrected on its own. --keep-tracker-clocks keeps
the recorded times.

Formats (--format auto detects them from the name and first bytes):
`)
	for _, f := range trace.Formats() {
		fmt.Fprintf(&b, "  %-10s %s\n", f.Name, f.Description)
	}
	b.WriteString("\nGenerators (--generate; parameters with --param key=value):\n")
	for _, g := range workloads.Generators() {
		fmt.Fprintf(&b, "  %-10s %s\n", g.Name, g.Doc)
	}
	b.WriteString("\nFlags:\n")
	b.WriteString(fs.FlagUsages())
	b.WriteString("\nExit status: 0 success, 1 failure, 2 bad usage or bad input.\n")
	return b.String()
}
