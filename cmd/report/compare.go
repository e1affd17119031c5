package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/cli"
	"github.com/tracereplay/tracereplay/report"
)

func compareUsage(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("Usage: report compare --baseline DIR --candidate DIR [--fail-on RULES] [--fail-on-file FILE]\n")
	b.WriteString("                      [--allow-untested] [--markdown FILE] [--junit FILE]\n\n")
	b.WriteString("Lines up the cells (runs with equal labels apart from the seed: policy, trace, hw,\n")
	b.WriteString("sweep values) of two result sets, checks that each cell replayed the same trace\n")
	b.WriteString("content on the same hardware model on both sides (manifest.json), and prints, per\n")
	b.WriteString("cell and metric, baseline and candidate mean ± 95% CI over seeds, the change and\n")
	b.WriteString("its 95% CI. Metrics: ")
	var names []string
	for _, m := range report.CompareMetrics() {
		names = append(names, m.Name)
	}
	b.WriteString(strings.Join(names, ", ") + ".\n\n")
	b.WriteString("A rule METRIC>CHANGE or METRIC<CHANGE fails when the change is beyond CHANGE and\n")
	b.WriteString("significant over the seeds (paired t test when both sides ran the same seeds,\n")
	b.WriteString("else Welch's t). CHANGE: +5% (relative to the baseline), -2pt (points, locality),\n")
	b.WriteString("+30s (time metrics), +0.1 (slowdown). Example:\n")
	b.WriteString("  --fail-on 'flowtime.p95>+5%,starvation.mean>+10%,locality<-2pt'\n")
	b.WriteString("--fail-on-file reads a TOML file: fail_on = [\"flowtime.p95>+5%\", ...].\n")
	b.WriteString("With one seed on a side nothing can be tested: a change beyond a limit then fails\n")
	b.WriteString("as untested unless --allow-untested.\n\n")
	b.WriteString("Exit status: 0 no regression, 1 a regression or an untested change beyond a limit\n")
	b.WriteString("(or outputs not written), 2 bad usage, unreadable results, or result sets that do\n")
	b.WriteString("not match (cells present on one side only, different traces or hardware).\n\nFlags:\n")
	b.WriteString(fs.FlagUsages())
	return b.String()
}

func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	log := newLogger(stderr)
	fs := pflag.NewFlagSet("report compare", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseline := fs.String("baseline", "", "baseline results `DIR` (e.g. the main branch's)")
	candidate := fs.String("candidate", "", "candidate results `DIR` (e.g. the pull request's)")
	failOn := fs.String("fail-on", "", "comma-separated threshold `RULES`, e.g. 'flowtime.p95>+5%,locality<-2pt'")
	failOnFile := fs.String("fail-on-file", "", "read threshold rules from a TOML `FILE` (fail_on = [...])")
	markdown := fs.String("markdown", "", "also write a Markdown summary to `FILE` (for a CI job summary page)")
	junit := fs.String("junit", "", "also write JUnit XML to `FILE`, one test case per cell and rule")
	allowUntested := fs.Bool("allow-untested", false, "let a change beyond a limit pass when it cannot be tested (one seed on a side)")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprint(stderr, cli.BadUsage("report", "report compare", err))
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, compareUsage(fs))
		return exitOK
	}
	switch {
	case fs.NArg() > 0:
		log.Error(fmt.Sprintf("bad usage: unexpected argument %q (results are given with --baseline and --candidate)", fs.Arg(0)))
		return exitUsage
	case *baseline == "" || *candidate == "":
		log.Error("bad usage: --baseline and --candidate are both required")
		fmt.Fprint(stderr, compareUsage(fs))
		return exitUsage
	}
	thresholds, err := report.ParseThresholds(*failOn)
	if err != nil {
		log.Error("bad usage: --fail-on: " + err.Error())
		return exitUsage
	}
	if *failOnFile != "" {
		more, err := report.LoadThresholdFile(*failOnFile)
		if err != nil {
			log.Error("bad usage: --fail-on-file: " + err.Error())
			return exitUsage
		}
		thresholds = append(thresholds, more...)
	}
	base, err := report.Load(*baseline)
	if err != nil {
		log.Error("cannot read the baseline: " + err.Error())
		return exitUsage
	}
	cand, err := report.Load(*candidate)
	if err != nil {
		log.Error("cannot read the candidate: " + err.Error())
		return exitUsage
	}
	if err := ctx.Err(); err != nil {
		log.Error("interrupted: " + err.Error())
		return exitFail
	}
	cmp, err := report.Compare(base, cand, thresholds, report.CompareOptions{AllowUntested: *allowUntested})
	if err != nil {
		log.Error("cannot compare: " + err.Error())
		return exitUsage
	}
	if *markdown != "" {
		if err := writeFile(*markdown, func(w io.Writer) error { return cmp.WriteMarkdown(w, *baseline, *candidate) }); err != nil {
			log.Error("cannot write the Markdown summary: " + err.Error())
			return exitFail
		}
	}
	if *junit != "" {
		if err := writeFile(*junit, cmp.WriteJUnit); err != nil {
			log.Error("cannot write the JUnit file: " + err.Error())
			return exitFail
		}
	}
	if err := cmp.WriteText(stdout); err != nil {
		log.Error("cannot write the comparison: " + err.Error())
		return exitFail
	}
	if n, u := cmp.Regressions(), cmp.Failures()-cmp.Regressions(); n+u > 0 {
		msg := fmt.Sprintf("%d regression%s", n, map[bool]string{true: "", false: "s"}[n == 1])
		if u > 0 {
			msg += fmt.Sprintf(" and %d untested change%s beyond a limit (one seed on a side: run more seeds, or pass --allow-untested)", u, map[bool]string{true: "", false: "s"}[u == 1])
		}
		log.Error(msg)
		return exitFail
	}
	return exitOK
}

// writeFile writes a file atomically, creating its directory if needed.
func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return report.WriteFileAtomic(path, write)
}
