package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/cli"
	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// runCalibrate is `replay calibrate --trace DIR --out hw.toml`: it fits the
// hardware model to the schedule the trace recorded (replay.Calibrate) and
// writes a commented hardware TOML file. Exit status 2 for bad usage or a
// trace without a schedule (nothing is written), 1 when the file cannot be
// written.
func runCalibrate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("replay calibrate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	tracePath := fs.String("trace", "", "trace `PATH`: a directory written by ingest, a directory of raw job histories (.jhist, Hadoop 1 logs, Rumen, SLS, with their confs, read as ingest reads it), a raw history file, or - for stdin")
	format := fs.String("format", "auto", "format of a raw --trace file, or the one kind of history read from a raw directory: auto or "+strings.Join(trace.FormatNames(), ", "))
	out := fs.String("out", "", "write the hardware model to `FILE` (- for stdout)")
	hwPath := fs.String("hardware", "", "base hardware model `FILE` whose disk rate is subtracted from task times (default: the built-in defaults)")
	network := fs.String("network", "", "fit the formulas of network model `NAME` ("+strings.Join(replay.NetworkModelNames(), ", ")+"; default: the base model's): flow fits the flow model's stage rates and writes network = \"flow\"")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: replay calibrate --trace PATH --out hw.toml [--hardware BASE.toml] [--network NAME]\n\n"+
			"Fits the hardware model (slots per node, task start-up, map and reduce compute rates, shuffle\n"+
			"rate and fetch latency, job initialisation time) to the schedule a job history recorded and\n"+
			"writes a hardware TOML file that says how each value was fitted and from how many samples.\n\nFlags:\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprint(stderr, cli.BadUsage("replay calibrate", "replay calibrate", err))
		return 2
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "replay calibrate: "+format+"\n", a...)
		return code
	}
	switch {
	case fs.NArg() > 0:
		return fail(2, "unexpected argument %q", fs.Arg(0))
	case *tracePath == "" || *out == "":
		return fail(2, "--trace and --out are both required (see replay calibrate --help)")
	}
	base := replay.DefaultHardware()
	if *hwPath != "" {
		var err error
		if base, err = replay.LoadHardware(*hwPath); err != nil {
			return fail(2, "%v", err)
		}
	}
	if *network != "" {
		n, err := replay.ParseNetworkName(*network)
		if err != nil {
			return fail(2, "--network: %v", err)
		}
		base.Network = n
		if err := base.Validate(); err != nil {
			return fail(2, "--network %s: %v", *network, err)
		}
	}
	cal, err := fitCalibration(ctx, *tracePath, *format, base, stdin, stderr)
	if errors.Is(err, errCalibrateInterrupted) {
		return fail(1, "%v", err)
	}
	if err != nil {
		return fail(2, "trace %s: %v", *tracePath, err)
	}
	if d := cal.Duplicates; len(d) > 0 {
		list := strings.Join(d[:min(len(d), 10)], ", ")
		if len(d) > 10 {
			list += fmt.Sprintf(" and %d more", len(d)-10)
		}
		fmt.Fprintf(stderr, "replay calibrate: %d duplicate job(s) counted once (same id, less a #n copy suffix, and same submit time: the same job log in two inputs); left out: %s\n", len(d), list)
	}
	if *out == "-" {
		if err := cal.WriteTOML(stdout, *tracePath); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}
	if dir := filepath.Dir(*out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(1, "%v", err)
		}
	}
	var b strings.Builder
	if err := cal.WriteTOML(&b, *tracePath); err != nil {
		return fail(1, "%v", err)
	}
	if err := safeout.WriteFile(*out, []byte(b.String())); err != nil {
		return fail(1, "%v", err)
	}
	fmt.Fprintf(stderr, "replay calibrate: wrote %s (%d values from %d jobs, %d tasks)\n", *out, len(cal.Values), cal.Jobs, cal.Tasks)
	return 0
}

// errCalibrateInterrupted is fitCalibration's error when the context ended
// (a signal) before the fit did.
var errCalibrateInterrupted = errors.New("interrupted while reading and fitting the trace; nothing written")

// fitCalibration reads the trace and fits the hardware model to it. Neither
// looks at a context, so they run in a goroutine and fitCalibration returns
// as soon as ctx ends (errCalibrateInterrupted): a signal stops calibrate at
// once, not after the whole trace was read, and nothing is written. What
// the reading writes to stderr (skipped files) stops when it returns.
func fitCalibration(ctx context.Context, path, format string, base replay.Hardware, stdin io.Reader, stderr io.Writer) (*replay.Calibration, error) {
	gate := &gatedWriter{w: stderr} // cells.go
	defer gate.close()
	type fit struct {
		cal *replay.Calibration
		err error
	}
	done := make(chan fit, 1)
	go func() {
		tr, err := readCalibrationTrace(ctx, path, format, stdin, gate)
		if err != nil {
			done <- fit{nil, err}
			return
		}
		cal, err := replay.Calibrate(tr, base)
		done <- fit{cal, err}
	}()
	select {
	case f := <-done:
		if ctx.Err() != nil {
			return nil, errCalibrateInterrupted
		}
		return f.cal, f.err
	case <-ctx.Done():
		return nil, errCalibrateInterrupted
	}
}

// readCalibrationTrace reads an ingested trace directory (one holding
// jobs.parquet), a directory of raw job histories (as ingest reads one:
// trace.ReadTree, skipped files named on stderr), a raw trace file or stdin.
func readCalibrationTrace(ctx context.Context, path, format string, stdin io.Reader, stderr io.Writer) (*trace.Trace, error) {
	if path == "-" {
		tr, _, err := trace.ReadInput("-", stdin, format, trace.ReadOptions{})
		return tr, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, trace.JobsFile)); err == nil {
			return trace.Read(path)
		}
		return readCalibrationTree(ctx, path, format, stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(path, f, format, trace.ReadOptions{})
	return tr, err
}

// readCalibrationTree reads a directory of raw job histories and their confs.
// --format other than auto keeps one kind of history; a directory without
// any history is bad input.
func readCalibrationTree(ctx context.Context, dir, format string, stderr io.Writer) (*trace.Trace, error) {
	var opt trace.TreeOptions
	if format != "auto" {
		k, ok := trace.HistoryKind(format)
		if !ok {
			return nil, fmt.Errorf("%w: %s", trace.ErrBadInput, trace.DirFormatError(format))
		}
		opt.Only = k
	}
	tr, sum, err := trace.ReadTree(ctx, dir, opt)
	if err != nil {
		return nil, err
	}
	histories := 0
	for _, f := range sum.Files {
		switch {
		case f.Err != nil:
			fmt.Fprintf(stderr, "replay calibrate: skipped: %v\n", f.Err)
		case f.Kind.IsHistory():
			histories++
		}
	}
	if histories == 0 {
		return nil, fmt.Errorf("%w: %s", trace.ErrBadInput, trace.NoHistoriesMsg())
	}
	return tr, nil
}

// withCalibrateUsage adds the calibrate subcommand under the first line
// (Usage: replay [flags]) of replay's --help.
func withCalibrateUsage(help string) string {
	first, rest, _ := strings.Cut(help, "\n")
	return first + "\n       replay calibrate --trace PATH --out hw.toml   (fit a hardware model to a recorded schedule: replay calibrate --help)\n" + rest
}
