// Command report summarises the results that cmd/replay wrote: a summary table on
// stdout (one row per run, or per cell with means and 95% intervals over seeds)
// and, with --out, the table as Markdown, CSV and LaTeX plus figures; --html
// writes one self-contained HTML report, --arrow Arrow IPC files for notebooks.
// report compare checks a candidate result set against a baseline for CI.
//
//	report [--out DIR] [--format png|svg|pdf] [--style screen|paper] [--width one|two]
//	       [--html FILE] [--arrow DIR] [--force] [--preset NAME] RESULTS_DIR
//	report summary [flags] RESULTS_DIR   (the same, named explicitly)
//	report compare --baseline DIR --candidate DIR [--fail-on RULES] [--fail-on-file FILE]
//	       [--allow-untested] [--markdown FILE] [--junit FILE]
//	report validate [--out DIR] [--max-median-error X] RESULTS_DIR...   (docs/validation.md)
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/internal/sigexit"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	os.Exit(sigexit.Run("report", os.Stderr, func(ctx context.Context) int {
		return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}))
}

// subcommand is one verb of report; the first argument selects it, and
// summary runs when the first argument names no subcommand.
type subcommand struct {
	name, synopsis string
	run            func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

func subcommands() []subcommand {
	return []subcommand{
		{"summary", "summary table and figures (the default)", runSummary},
		{"compare", "compare a candidate result set with a baseline; exit 1 on a regression", runCompare},
		{"validate", "score simulated runs against the observed schedule; exit 1 beyond --max-median-error", runValidate},
	}
}

// run is main without the process: it parses args, writes data to stdout and
// diagnostics to stderr, and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	args, cleanup, err := localInputs(ctx, args) // urls.go: results given as URLs, copied here
	if err != nil {
		fmt.Fprintf(stderr, "report: %v\n", err)
		return exitUsage
	}
	defer cleanup()
	if len(args) > 0 {
		for _, sc := range subcommands() {
			if args[0] == sc.name {
				return sc.run(ctx, args[1:], stdout, stderr)
			}
		}
	}
	return runSummary(ctx, args, stdout, stderr)
}

// newLogger logs to w one plain line per record, "report: [warning: ]message"
// (no level for information and errors, as ingest and replay print theirs;
// attributes, which the command does not use, follow as key=value), without
// timestamps so that diagnostics are reproducible.
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
	// Errors read as ingest's and replay's do, "report: what went wrong";
	// warnings say so as theirs do, "report: warning: ...", and debug lines
	// say their level.
	switch r.Level {
	case slog.LevelInfo, slog.LevelError:
	case slog.LevelWarn:
		b.WriteString("warning: ")
	default:
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
