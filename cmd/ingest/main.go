// Command ingest reads job traces in one of the supported input formats and
// writes tracereplay's canonical trace directory (jobs.parquet, tasks.parquet).
//
//	ingest --out DIR [--format auto|swim] [--strict] FILE...
//
// FILE "-" is standard input; gzip-compressed inputs are recognised by their
// first bytes. Several inputs must be of one format; their jobs are merged and
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
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/trace"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// run is the whole command, testable: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ingest", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "output trace directory (created or replaced)")
	format := fs.String("format", "auto", "input format: auto or "+strings.Join(trace.FormatNames(), ", "))
	strict := fs.Bool("strict", false, "turn warnings about inconsistent input into errors")
	help := fs.BoolP("help", "h", false, "show this help")
	fail := func(status int, format string, args ...any) int {
		fmt.Fprintf(stderr, "ingest: "+format+"\n", args...)
		return status
	}
	if err := fs.Parse(args); err != nil {
		return fail(exitUsage, "%v; valid flags:\n%s%s", err, fs.FlagUsages(), usageHint())
	}
	if *help {
		fmt.Fprint(stdout, usage(fs))
		return exitOK
	}
	if *out == "" {
		return fail(exitUsage, "--out DIR is required\n%s", usageHint())
	}
	inputs := fs.Args()
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
	opt := trace.ReadOptions{Strict: *strict, Warnings: stderr}
	var parts []*trace.Trace
	var f trace.Format
	for _, name := range inputs {
		if err := ctx.Err(); err != nil {
			return fail(exitFail, "%v", err)
		}
		t, pf, err := readOne(name, stdin, *format, opt)
		if err != nil {
			if errors.Is(err, trace.ErrBadInput) || errors.Is(err, os.ErrNotExist) {
				return fail(exitUsage, "%v", err)
			}
			return fail(exitFail, "%v", err)
		}
		if len(parts) > 0 && pf.Name != f.Name {
			return fail(exitUsage, "inputs of different formats: %s is %s, %s is %s (ingest one format at a time)",
				inputs[0], f.Name, name, pf.Name)
		}
		f = pf
		parts = append(parts, t)
	}
	t, err := trace.Merge(f, parts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	t.Meta.SchemaVersion = trace.SchemaVersion
	t.Meta.Tool = "tracereplay ingest " + toolVersion()
	t.Meta.Options = map[string]string{"format": *format, "strict": strconv.FormatBool(*strict)}
	if err := trace.Write(*out, t); err != nil {
		if errors.Is(err, trace.ErrNotTraceDir) {
			return fail(exitUsage, "%v", err)
		}
		return fail(exitFail, "%v", err)
	}
	summary(stdout, *out, t)
	return exitOK
}

// readOne opens and reads one input ("-" is stdin).
func readOne(name string, stdin io.Reader, format string, opt trace.ReadOptions) (*trace.Trace, trace.Format, error) {
	r := stdin
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return nil, trace.Format{}, err
		}
		defer fh.Close()
		r = fh
	}
	return trace.ReadInput(name, r, format, opt)
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

// summary prints what was written.
func summary(w io.Writer, out string, t *trace.Trace) {
	var known, input int64
	for _, j := range t.Jobs {
		if j.InputBytes != trace.Unknown {
			known++
			input += j.InputBytes
		}
	}
	fmt.Fprintf(w, "format:       %s\n", t.Meta.SourceFormat)
	fmt.Fprintf(w, "inputs:       %s\n", strings.Join(t.Meta.Sources, " "))
	fmt.Fprintf(w, "jobs:         %d\n", len(t.Jobs))
	fmt.Fprintf(w, "tasks:        %d\n", len(t.Tasks))
	if len(t.Jobs) > 0 {
		first, last := t.Jobs[0].SubmitMs, t.Jobs[len(t.Jobs)-1].SubmitMs
		fmt.Fprintf(w, "submit:       %d ms .. %d ms (span %v)\n", first, last, time.Duration(last-first)*time.Millisecond)
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

// toolVersion is the main module's version from the build info ("(devel)" for
// builds outside a module version).
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func usageHint() string { return "run 'ingest --help' for usage" }

// usage is the --help text.
func usage(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString(`Usage: ingest --out DIR [--format FORMAT] [--strict] FILE...

Reads job traces and writes a tracereplay trace directory DIR holding
jobs.parquet (and tasks.parquet when the input has task data). FILE - is
standard input; gzip input is recognised by its first bytes. Several FILEs
must share one format; their jobs are merged and sorted by submit time.

Formats (--format auto detects them from the name and first bytes):
`)
	for _, f := range trace.Formats() {
		fmt.Fprintf(&b, "  %-10s %s\n", f.Name, f.Description)
	}
	b.WriteString("\nFlags:\n")
	b.WriteString(fs.FlagUsages())
	b.WriteString("\nExit status: 0 success, 1 failure, 2 bad usage or bad input.\n")
	return b.String()
}
