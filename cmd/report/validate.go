package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/cli"
	"github.com/tracereplay/tracereplay/report"
)

func validateUsage(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("Usage: report validate [--out DIR] [--format png|svg|pdf] [--style screen|paper] [--width one|two]\n")
	b.WriteString("                       [--max-median-error X] RESULTS_DIR...\n\n")
	b.WriteString("Scores each simulated run against the run of policy \"observed\" (the schedule the trace\n")
	b.WriteString("recorded) with the same labels, matching jobs by job_id: per-job relative errors\n")
	b.WriteString("|sim - obs| / obs of flowtime, wait to the first task, map phase and reduce phase\n")
	b.WriteString("(median, p90, share of jobs under- and over-estimated), makespan ratio, map locality\n")
	b.WriteString("and starvation. Several RESULTS_DIRs are pooled: one row per run, one pooled row per\n")
	b.WriteString("policy, and one row pooling every run when policies differ. --out writes\n")
	b.WriteString("validate_errors.{md,csv}, validate_runs.{md,csv}, a scatter of simulated against\n")
	b.WriteString("observed flowtime and an error CDF.\n\n")
	b.WriteString("Exit status: 0, or 1 when a policy's (pooled) median flowtime error is above\n")
	b.WriteString("--max-median-error (a fraction, 0.1, or a percentage, 10%), or outputs were not\n")
	b.WriteString("written; 2 bad usage or results without an observed run or matching jobs.\n\nFlags:\n")
	b.WriteString(fs.FlagUsages())
	return b.String()
}

// parseFraction reads "0.1" or "10%" as 0.1.
func parseFraction(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q: want a non-negative fraction (0.1) or percentage (10%%)", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func runValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	log := newLogger(stderr)
	fs := pflag.NewFlagSet("report validate", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "write tables (Markdown, CSV) and figures to `DIR` (created if needed)")
	format := fs.String("format", "png", "figure `format`: png, svg or pdf")
	styleName := fs.String("style", "screen", "figure `style`: screen or paper")
	widthName := fs.String("width", "one", "paper figure `width`: one or two")
	maxMedian := fs.String("max-median-error", "", "exit 1 when a policy's median flowtime error is above `X` (0.1 or 10%)")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprint(stderr, cli.BadUsage("report", "report validate", err))
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, validateUsage(fs))
		return exitOK
	}
	if fs.NArg() == 0 {
		log.Error("bad usage: want at least one RESULTS_DIR")
		fmt.Fprint(stderr, validateUsage(fs))
		return exitUsage
	}
	limit := -1.0
	if *maxMedian != "" {
		v, err := parseFraction(*maxMedian)
		if err != nil {
			log.Error("bad usage: --max-median-error " + err.Error())
			return exitUsage
		}
		limit = v
	}
	if !slices.Contains(report.FigureFormats, *format) {
		log.Error(fmt.Sprintf("bad usage: --format %q: want png, svg or pdf", *format))
		return exitUsage
	}
	style, err := report.ParseFigureStyle(*styleName)
	if err != nil {
		log.Error("bad usage: --style: " + err.Error())
		return exitUsage
	}
	width, err := report.ParseFigureWidth(*widthName)
	if err != nil {
		log.Error("bad usage: --width: " + err.Error())
		return exitUsage
	}
	var pairs []report.ValidationPair
	for _, dir := range fs.Args() {
		runs, err := report.Load(dir)
		if err != nil {
			log.Error("cannot read results: " + err.Error())
			return exitUsage
		}
		source := ""
		if fs.NArg() > 1 {
			source = dir
		}
		p, err := report.PairRuns(source, runs)
		if err != nil {
			if source == "" {
				err = fmt.Errorf("%s: %w", dir, err)
			}
			log.Error("cannot validate: " + err.Error())
			return exitUsage
		}
		pairs = append(pairs, p...)
	}
	if err := ctx.Err(); err != nil {
		log.Error("interrupted: " + err.Error())
		return exitFail
	}
	v, err := report.Validate(pairs)
	if err != nil {
		log.Error("cannot validate: " + err.Error())
		return exitUsage
	}
	tables := []*report.Table{v.ErrorTable(), v.RunTable()}
	if *out != "" {
		paths, err := writeValidateOutputs(*out, tables, v, report.FigureOptions{Format: *format, Style: style, Width: width})
		if err != nil {
			log.Error("cannot write outputs: " + err.Error())
			return exitFail
		}
		for _, p := range paths {
			log.Info("wrote " + p)
		}
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := t.WriteText(stdout); err != nil {
			log.Error("cannot write the table: " + err.Error())
			return exitFail
		}
	}
	if limit >= 0 {
		if bad := v.Exceeding(limit); len(bad) > 0 {
			for _, b := range bad {
				log.Error(b)
			}
			return exitFail
		}
	}
	return exitOK
}

// writeValidateOutputs writes the tables as Markdown and CSV and the figures
// into dir, returning the paths written.
func writeValidateOutputs(dir string, tables []*report.Table, v *report.Validation, o report.FigureOptions) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for i, t := range tables {
		base := filepath.Join(dir, []string{"validate_errors", "validate_runs"}[i])
		if err := report.WriteFileAtomic(base+".md", t.WriteMarkdown); err != nil {
			return paths, err
		}
		if err := report.WriteFileAtomic(base+".csv", t.WriteCSV); err != nil {
			return paths, err
		}
		paths = append(paths, base+".md", base+".csv")
	}
	figs, err := v.WriteFigures(dir, o)
	return append(paths, figs...), err
}
