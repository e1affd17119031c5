package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tracereplay/tracereplay/internal/progress"
	"github.com/tracereplay/tracereplay/trace"
)

// treeTotals counts the files of the directory inputs for the summary.
type treeTotals struct {
	dirs    int
	read    map[trace.FileKind]int
	skipped int
	ignored int
}

// kindOrder is the order of file kinds in the summary.
func kindOrder() []trace.FileKind {
	return append(trace.HistoryKinds(), trace.KindConf, trace.KindTopology)
}

// String renders "12 read (jhist 5, conf 5, topology 2), 1 skipped, 3 ignored".
func (tt treeTotals) String() string {
	var kinds []string
	total := 0
	for _, k := range kindOrder() {
		if n := tt.read[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
			total += n
		}
	}
	return fmt.Sprintf("%d read (%s), %d skipped, %d ignored", total, strings.Join(kinds, ", "), tt.skipped, tt.ignored)
}

// isDir reports whether an input names a directory.
func isDir(name string) bool {
	if name == "-" {
		return false
	}
	st, err := os.Stat(name)
	return err == nil && st.IsDir()
}

// readTree reads a directory input. Skipped files are named on stderr and
// counted in tt; a directory without any job history is bad input.
func readTree(ctx context.Context, dir, format string, workers int, opt trace.ReadOptions, stderr io.Writer, tt *treeTotals) (*trace.Trace, trace.Format, error) {
	topt := trace.TreeOptions{Workers: workers}
	topt.Strict = opt.Strict
	topt.KeepTrackerClocks = opt.KeepTrackerClocks
	if format != "auto" {
		k, ok := trace.HistoryKind(format)
		if !ok {
			return nil, trace.Format{}, &trace.ParseError{File: dir, Msg: trace.DirFormatError(format)}
		}
		topt.Only = k
	}
	warn := trace.NewWarningPrinter(opt.Warnings)
	topt.Warn = warn.Warn
	if progress.IsTerminal(stderr) {
		topt.Progress = stderr
	}
	t, sum, err := trace.ReadTree(ctx, dir, topt)
	warn.Flush()
	if err != nil {
		return nil, trace.Format{}, err
	}
	if tt.read == nil {
		tt.read = map[trace.FileKind]int{}
	}
	tt.dirs++
	traces := 0
	for _, f := range sum.Files {
		switch {
		case f.Err != nil:
			tt.skipped++
			fmt.Fprintf(stderr, "ingest: skipped: %v\n", f.Err)
		case f.Kind == trace.KindNotATrace:
			tt.ignored++
		default:
			tt.read[f.Kind]++
		}
		if f.Kind.IsHistory() {
			traces++
		}
	}
	if traces == 0 {
		msg := trace.NoHistoriesMsg()
		if topt.Only != "" {
			msg = fmt.Sprintf("no %s files found (--format %s leaves the other kinds out)", topt.Only, topt.Only)
		}
		return nil, trace.Format{}, &trace.ParseError{File: dir, Msg: msg}
	}
	return t, trace.Format{Name: t.Meta.SourceFormat}, nil
}

// readTopology reads the --topology file.
func readTopology(name string) (map[string]string, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return trace.ReadTopology(name, fh)
}
