package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/internal/cli"
	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/internal/summary"
	"github.com/tracereplay/tracereplay/internal/version"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset"
)

func usage(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("Usage: report [summary] [--out DIR] [--format png|svg|pdf] [--style screen|paper] [--width one|two]\n")
	b.WriteString("              [--html FILE] [--arrow DIR] [--force] [--preset NAME] RESULTS_DIR\n")
	b.WriteString("       report compare --baseline DIR --candidate DIR [--fail-on RULES] ... (report compare --help)\n\n")
	b.WriteString("Prints a summary of the runs found under RESULTS_DIR (every directory holding\n")
	b.WriteString("jobs.parquet; labels from its key=value path segments): one row per run, or, when\n")
	b.WriteString("runs differ only in their seed, one row per cell with the mean and 95% confidence\n")
	b.WriteString("interval over seeds. With --out, also writes DIR/summary.md, summary.csv,\n")
	b.WriteString("summary.tex (LaTeX booktabs) and the figures flowtime_cdf, starvation and\n")
	b.WriteString("running_tasks in the chosen format and style. --html writes one self-contained\n")
	b.WriteString("HTML report (manifest, tables, figures as inline SVG); --arrow writes\n")
	b.WriteString("summary.arrow and jobs.arrow (Arrow IPC / Feather v2). --preset adds a paper's\n")
	b.WriteString("table (printed, and written as NAME.md and NAME.csv) and figures.\n\nSubcommands:\n")
	for _, sc := range subcommands() {
		fmt.Fprintf(&b, "  %-10s %s\n", sc.name, sc.synopsis)
	}
	b.WriteString("\nFlags:\n")
	b.WriteString(fs.FlagUsages())
	return b.String()
}

// summaryConfig holds the parsed flags of the summary subcommand.
type summaryConfig struct {
	results, out, html, arrow string
	force                     bool
	fig                       report.FigureOptions
	pre                       *preset.Preset
}

func runSummary(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	log := newLogger(stderr)
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c summaryConfig
	fs.StringVar(&c.out, "out", "", "write summary.md, summary.csv, summary.tex and figures to `DIR` (created, or replaced if report wrote it)")
	fs.BoolVar(&c.force, "force", false, "replace --out and --arrow even if they hold files report did not write")
	format := fs.String("format", "png", "figure `format`: png, svg or pdf")
	styleName := fs.String("style", "screen", "figure `style`: screen, or paper (serif type, column widths, grayscale-safe dashes and markers)")
	widthName := fs.String("width", "one", "paper figure `width`: one (a 3.5 in column) or two (7 in, both columns)")
	fs.StringVar(&c.html, "html", "", "write a self-contained HTML report to `FILE`")
	fs.StringVar(&c.arrow, "arrow", "", "write summary.arrow and jobs.arrow (Arrow IPC, Feather v2) to `DIR`")
	presetName := fs.String("preset", "", "add a paper's tables and figures: "+strings.Join(preset.Names(), ", "))
	policies := fs.StringSlice("policy", nil, "report only these policies, `NAME,...` (a name matches its runs with any parameters)")
	help := fs.BoolP("help", "h", false, "show this help")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		fmt.Fprint(stderr, cli.BadUsage("report", "report", err))
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, usage(fs))
		return exitOK
	}
	if *showVersion {
		fmt.Fprintln(stdout, version.Tool("report"))
		return exitOK
	}
	if fs.NArg() != 1 {
		log.Error(fmt.Sprintf("want one RESULTS_DIR, got %d arguments (see report --help)", fs.NArg()))
		fmt.Fprint(stderr, usage(fs))
		return exitUsage
	}
	c.results = fs.Arg(0)
	if !slices.Contains(report.FigureFormats, *format) {
		log.Error(fmt.Sprintf("--format %q: want png, svg or pdf", *format))
		return exitUsage
	}
	style, err := report.ParseFigureStyle(*styleName)
	if err != nil {
		log.Error("--style: " + err.Error())
		return exitUsage
	}
	width, err := report.ParseFigureWidth(*widthName)
	if err != nil {
		log.Error("--width: " + err.Error())
		return exitUsage
	}
	c.fig = report.FigureOptions{Format: *format, Style: style, Width: width}
	var ok bool
	if c.pre, ok = preset.Lookup(*presetName); !ok {
		log.Error(fmt.Sprintf("--preset %q: want one of %s", *presetName, strings.Join(preset.Names(), ", ")))
		return exitUsage
	}

	dirs, err := openOutDirs(ctx, c.force, func(note string) { log.Info("note: " + note) }, c.out, c.arrow)
	if err != nil {
		log.Error("cannot write outputs: " + err.Error())
		if errors.Is(err, safeout.ErrNotOwned) || errors.Is(err, safeout.ErrLocked) {
			return exitUsage
		}
		return exitFail
	}
	defer dirs.close()
	runs, err := report.Load(c.results)
	if err != nil {
		log.Error("cannot read results: " + err.Error())
		return exitUsage
	}
	if len(*policies) > 0 {
		if runs, err = filterPolicies(runs, *policies); err != nil {
			log.Error(err.Error())
			return exitUsage
		}
	}
	var manifest *results.RunManifest
	var manifestJSON []byte
	if c.html != "" {
		if manifest, manifestJSON, err = results.ReadManifest(c.results); err != nil {
			log.Error("cannot read results: " + err.Error())
			return exitUsage
		}
	}
	if err := ctx.Err(); err != nil {
		log.Error("interrupted: " + err.Error())
		return exitFail
	}
	table := report.SummaryTable(runs)
	var paths, skipped []string
	switch {
	case c.out != "" && filepath.Clean(c.out) == filepath.Clean(c.arrow):
		p, err := dirs.publish(c.out, outputFiles(table, runs, c.fig, c.pre, &skipped), arrowFiles(runs, c.pre))
		if err != nil {
			log.Error("cannot write outputs: " + err.Error())
			return exitFail
		}
		paths = append(paths, p...)
	default:
		if c.out != "" {
			p, err := dirs.publish(c.out, outputFiles(table, runs, c.fig, c.pre, &skipped))
			if err != nil {
				log.Error("cannot write outputs: " + err.Error())
				return exitFail
			}
			paths = append(paths, p...)
		}
		if c.arrow != "" {
			p, err := dirs.publish(c.arrow, arrowFiles(runs, c.pre))
			if err != nil {
				log.Error("cannot write Arrow files: " + err.Error())
				return exitFail
			}
			paths = append(paths, p...)
		}
	}
	if c.html != "" {
		if err := writeHTML(c.html, c.results, manifest, manifestJSON, table, runs, c.fig, c.pre); err != nil {
			log.Error("cannot write the HTML report: " + err.Error())
			return exitFail
		}
		paths = append(paths, c.html)
	}
	for _, p := range paths {
		log.Info("wrote " + p)
	}
	if err := table.WriteText(stdout); err != nil {
		log.Error("cannot write the table: " + err.Error())
		return exitFail
	}
	if err := writeSetting(stdout, log, runs); err != nil {
		log.Error("cannot write the table: " + err.Error())
		return exitFail
	}
	if c.out != "" {
		for _, s := range skipped {
			log.Info("figure not written: " + s)
		}
	}
	if c.pre != nil {
		fmt.Fprintln(stdout)
		if err := c.pre.Table(runs).WriteText(stdout); err != nil {
			log.Error("cannot write the table: " + err.Error())
			return exitFail
		}
	}
	for _, qt := range []*report.Table{report.QueueTable(runs), report.LinkTable(runs)} {
		if qt == nil {
			continue
		}
		fmt.Fprintln(stdout)
		if err := qt.WriteText(stdout); err != nil {
			log.Error("cannot write the table: " + err.Error())
			return exitFail
		}
	}
	return exitOK
}

// filterPolicies keeps the runs of the named policies: a name matches a run's
// policy exactly or its name before the parameters ("fair" matches
// "fair:node-delay=5s"). A name that matches no run is an error listing the
// policies there are.
func filterPolicies(runs []report.Run, names []string) ([]report.Run, error) {
	var out []report.Run
	matched := map[string]bool{}
	var have []string
	for _, r := range runs {
		p, _ := r.Label(report.PolicyLabel)
		base, _, _ := strings.Cut(p, ":")
		if p != "" && !slices.Contains(have, p) {
			have = append(have, p)
		}
		for _, n := range names {
			if n == p || n == base {
				matched[n] = true
				out = append(out, r)
				break
			}
		}
	}
	for _, n := range names {
		if !matched[n] {
			slices.Sort(have)
			return nil, fmt.Errorf("--policy %s: no run of that policy; the results hold %s", n, strings.Join(have, ", "))
		}
	}
	return out, nil
}

// settingLines returns the line saying what the runs replayed (trace,
// hardware, seeds, slot utilisation) and the lines under it: the policies with
// identical results and any idle-cluster warning ("warning: ...").
func settingLines(runs []report.Run) (string, []string) {
	setting, notes, warnings := settingParts(runs)
	return setting, append(notes, warnings...)
}

// settingParts returns settingLines's setting line, its notes and its
// warnings apart.
func settingParts(runs []report.Run) (setting string, notes, warnings []string) {
	_, sims := report.SplitAllocStudies(runs)
	sr := report.SummaryRuns(sims)
	if len(sr) == 0 {
		return "", nil, nil
	}
	if same := summary.Identical(sr); len(same) > 0 {
		notes = append(notes, "Identical results: "+strings.Join(same, "; "))
	}
	return summary.Setting(sr), notes, summary.Warnings(sr)
}

// writeSetting prints the setting line and the notes under the summary table,
// and logs the warnings ("report: warning: ...", on stderr, as replay prints
// them).
func writeSetting(w io.Writer, log *slog.Logger, runs []report.Run) error {
	setting, notes, warnings := settingParts(runs)
	if setting != "" || len(notes) > 0 {
		var b strings.Builder
		b.WriteString("\n" + setting + "\n")
		for _, n := range notes {
			b.WriteString(n + "\n")
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	for _, s := range warnings {
		log.Warn(strings.TrimPrefix(s, "warning: "))
	}
	return nil
}
