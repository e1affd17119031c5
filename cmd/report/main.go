// Command report summarises the results that cmd/replay wrote: a per-run table on
// stdout and, with --out, the table as Markdown and CSV plus figures.
//
//	report [--out DIR] [--format png|svg|pdf] [--preset NAME] RESULTS_DIR
//	report summary [flags] RESULTS_DIR   (the same, named explicitly)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/report"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// subcommand is one verb of report; the first argument selects it, and
// summary runs when the first argument names no subcommand.
type subcommand struct {
	name, synopsis string
	run            func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

func subcommands() []subcommand {
	return []subcommand{
		{"summary", "per-run summary table and figures (the default)", runSummary},
	}
}

// run is main without the process: it parses args, writes data to stdout and
// diagnostics to stderr, and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		for _, sc := range subcommands() {
			if args[0] == sc.name {
				return sc.run(ctx, args[1:], stdout, stderr)
			}
		}
	}
	return runSummary(ctx, args, stdout, stderr)
}

// newLogger logs to w one plain line per record, "report: [LEVEL: ]message
// key=value...", without timestamps so that diagnostics are reproducible.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(&lineHandler{w: w})
}

// lineHandler is a minimal slog.Handler for a command-line tool's stderr.
type lineHandler struct {
	w     io.Writer
	attrs []slog.Attr
}

func (h *lineHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("report: ")
	if r.Level != slog.LevelInfo {
		b.WriteString(strings.ToLower(r.Level.String()) + ": ")
	}
	b.WriteString(r.Message)
	attr := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%s", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		attr(a)
	}
	r.Attrs(attr)
	b.WriteString("\n")
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &lineHandler{w: h.w, attrs: append(slices.Clone(h.attrs), attrs...)}
}

// WithGroup is not used by this command; groups are flattened.
func (h *lineHandler) WithGroup(string) slog.Handler { return h }

func usage(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("Usage: report [summary] [--out DIR] [--format png|svg|pdf] [--preset NAME] RESULTS_DIR\n\n")
	b.WriteString("Prints one row per run found under RESULTS_DIR (every directory holding\n")
	b.WriteString("jobs.parquet; labels from its key=value path segments). With --out, also writes\n")
	b.WriteString("DIR/summary.md, DIR/summary.csv and the figures flowtime_cdf, starvation and\n")
	b.WriteString("running_tasks in the chosen format. --preset adds a paper's table (printed, and\n")
	b.WriteString("written as NAME.md and NAME.csv) and figures in the paper's form.\n\nSubcommands:\n")
	for _, sc := range subcommands() {
		fmt.Fprintf(&b, "  %-10s %s\n", sc.name, sc.synopsis)
	}
	b.WriteString("\nFlags:\n")
	b.WriteString(fs.FlagUsages())
	return b.String()
}

func runSummary(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	log := newLogger(stderr)
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "write summary.md, summary.csv and figures to `DIR` (created if needed)")
	format := fs.String("format", "png", "figure `format`: png, svg or pdf")
	presetName := fs.String("preset", "", "add a paper's tables and figures: "+strings.Join(presetNames(), ", "))
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		log.Error("bad usage: " + err.Error())
		fmt.Fprint(stderr, usage(fs))
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, usage(fs))
		return exitOK
	}
	if fs.NArg() != 1 {
		log.Error(fmt.Sprintf("bad usage: want one RESULTS_DIR, got %d arguments", fs.NArg()))
		fmt.Fprint(stderr, usage(fs))
		return exitUsage
	}
	if !slices.Contains(report.FigureFormats, *format) {
		log.Error(fmt.Sprintf("bad usage: --format %q: want png, svg or pdf", *format))
		return exitUsage
	}

	pre, ok := lookupPreset(*presetName)
	if !ok {
		log.Error(fmt.Sprintf("bad usage: --preset %q: want one of %s", *presetName, strings.Join(presetNames(), ", ")))
		return exitUsage
	}

	runs, err := report.Load(fs.Arg(0))
	if err != nil {
		log.Error("cannot read results: " + err.Error())
		return exitUsage
	}
	if err := ctx.Err(); err != nil {
		log.Error("interrupted: " + err.Error())
		return exitFail
	}
	table := report.SummaryTable(runs)
	if *out != "" {
		paths, err := writeOutputs(*out, table, runs, *format, pre)
		if err != nil {
			log.Error("cannot write outputs: " + err.Error())
			return exitFail
		}
		for _, p := range paths {
			log.Info("wrote", "path", p)
		}
	}
	if err := table.WriteText(stdout); err != nil {
		log.Error("cannot write the table: " + err.Error())
		return exitFail
	}
	if pre != nil {
		fmt.Fprintln(stdout)
		if err := pre.table(runs).WriteText(stdout); err != nil {
			log.Error("cannot write the table: " + err.Error())
			return exitFail
		}
	}
	return exitOK
}

// writeOutputs renders every output into a fresh temporary directory beside dir,
// then renames that directory to dir, or, when dir already exists, renames each
// file into it, so that dir never holds a half-written file and a failure leaves
// it as it was. A preset adds its table and figures. It returns the final paths.
func writeOutputs(dir string, table *report.Table, runs []report.Run, format string, pre *preset) ([]string, error) {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	files := []string{filepath.Join(tmp, "summary.md"), filepath.Join(tmp, "summary.csv")}
	if err := report.WriteFileAtomic(files[0], table.WriteMarkdown); err != nil {
		return nil, err
	}
	if err := report.WriteFileAtomic(files[1], table.WriteCSV); err != nil {
		return nil, err
	}
	figs, err := report.WriteFigures(runs, tmp, format)
	if err != nil {
		return nil, err
	}
	files = append(files, figs...)
	if pre != nil {
		t := pre.table(runs)
		md, csv := filepath.Join(tmp, pre.name+".md"), filepath.Join(tmp, pre.name+".csv")
		if err := report.WriteFileAtomic(md, t.WriteMarkdown); err != nil {
			return nil, err
		}
		if err := report.WriteFileAtomic(csv, t.WriteCSV); err != nil {
			return nil, err
		}
		figs, err := pre.figures(runs, tmp, format)
		if err != nil {
			return nil, err
		}
		files = append(append(files, md, csv), figs...)
	}

	final := make([]string, len(files))
	for i, f := range files {
		final[i] = filepath.Join(dir, filepath.Base(f))
	}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.Rename(tmp, dir); err != nil {
			return nil, err
		}
		return final, nil
	case err != nil:
		return nil, err
	case !info.IsDir():
		return nil, fmt.Errorf("%s exists and is not a directory", dir)
	}
	for i, f := range files {
		if err := os.Rename(f, final[i]); err != nil {
			return nil, err
		}
	}
	return final, nil
}
