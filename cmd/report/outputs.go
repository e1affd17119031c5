package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset"
)

// reportOwner marks the directories report writes with --out and --arrow.
var reportOwner = safeout.Owner{Command: "report", Kind: "report"}

// outDirs are the locked output directories of a summary run: --out and
// --arrow, one target when they name the same directory.
type outDirs struct {
	ctx     context.Context
	targets map[string]*safeout.Target // by cleaned path
}

// openOutDirs locks the output directories before any result is read, so that a
// concurrent report to the same directory, or a directory report may not
// replace, fails at once. The error wraps safeout.ErrNotOwned or
// safeout.ErrLocked for those.
func openOutDirs(ctx context.Context, force bool, log func(string), dirs ...string) (*outDirs, error) {
	o := &outDirs{ctx: ctx, targets: map[string]*safeout.Target{}}
	for _, d := range dirs {
		if d == "" || o.targets[filepath.Clean(d)] != nil {
			continue
		}
		t, err := safeout.Open(d, reportOwner, safeout.Options{Force: force})
		if err != nil {
			o.close()
			return nil, err
		}
		for _, r := range t.Recovered {
			log(r)
		}
		o.targets[filepath.Clean(d)] = t
	}
	return o, nil
}

func (o *outDirs) close() {
	for _, t := range o.targets {
		t.Close()
	}
}

// filler writes some of a directory's files into tmp and returns their paths.
type filler func(tmp string) ([]string, error)

// publish replaces the output directory dir with the files fills write, built in
// a temporary directory beside it (safeout.Target.Publish): dir never holds a
// half-written file and a failure leaves it as it was. It returns the files'
// final paths.
func (o *outDirs) publish(dir string, fills ...filler) ([]string, error) {
	t := o.targets[filepath.Clean(dir)]
	if t == nil {
		return nil, fmt.Errorf("%s was not opened", dir)
	}
	var final []string
	err := t.Publish(o.ctx, func(tmp string) error {
		for _, fill := range fills {
			files, err := fill(tmp)
			if err != nil {
				return err
			}
			for _, f := range files {
				rel, err := filepath.Rel(tmp, f)
				if err != nil {
					return err
				}
				final = append(final, filepath.Join(dir, rel))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return final, nil
}

// outputFiles writes the summary as Markdown, CSV and LaTeX and the figures
// into a directory; YARN runs add the queue table (queues.md, queues.csv),
// runs under network = "flow" the busiest links (links.md, links.csv), a
// preset its table and figures. For each figure not
// written for want of data it appends why to *skipped.
func outputFiles(table *report.Table, runs []report.Run, fig report.FigureOptions, pre *preset.Preset, skipped *[]string) filler {
	return func(tmp string) ([]string, error) {
		files := []string{filepath.Join(tmp, "summary.md"), filepath.Join(tmp, "summary.csv"), filepath.Join(tmp, "summary.tex")}
		for i, write := range []func(io.Writer) error{table.WriteMarkdown, table.WriteCSV, table.WriteLaTeX} {
			if err := report.WriteFileAtomic(files[i], write); err != nil {
				return nil, err
			}
		}
		rendered, err := report.RenderFigures(runs, fig)
		if err != nil {
			return nil, err
		}
		*skipped = report.SkippedFigures(rendered)
		figs, err := report.WriteFigureFiles(rendered, tmp, fig.Format)
		if err != nil {
			return nil, err
		}
		files = append(files, figs...)
		for _, x := range []struct {
			name string
			t    *report.Table
		}{{"queues", report.QueueTable(runs)}, {"links", report.LinkTable(runs)}} {
			name, qt := x.name, x.t
			if qt == nil {
				continue
			}
			md, csv := filepath.Join(tmp, name+".md"), filepath.Join(tmp, name+".csv")
			if err := report.WriteFileAtomic(md, qt.WriteMarkdown); err != nil {
				return nil, err
			}
			if err := report.WriteFileAtomic(csv, qt.WriteCSV); err != nil {
				return nil, err
			}
			files = append(files, md, csv)
		}
		if pre != nil {
			t := pre.Table(runs)
			md, csv := filepath.Join(tmp, pre.Name+".md"), filepath.Join(tmp, pre.Name+".csv")
			if err := report.WriteFileAtomic(md, t.WriteMarkdown); err != nil {
				return nil, err
			}
			if err := report.WriteFileAtomic(csv, t.WriteCSV); err != nil {
				return nil, err
			}
			figs, err := pre.Figures(runs, tmp, fig.Format)
			if err != nil {
				return nil, err
			}
			files = append(append(files, md, csv), figs...)
		}
		return files, nil
	}
}

// arrowFiles writes summary.arrow and jobs.arrow (and NAME.arrow, the preset's
// table) into a directory.
func arrowFiles(runs []report.Run, pre *preset.Preset) filler {
	return func(tmp string) ([]string, error) {
		files, err := report.WriteArrowTables(runs, tmp)
		if err != nil {
			return nil, err
		}
		if pre != nil {
			rec := report.TableRecord(pre.Table(runs), memory.DefaultAllocator)
			defer rec.Release()
			p := filepath.Join(tmp, pre.Name+".arrow")
			if err := report.WriteArrowFile(p, rec); err != nil {
				return nil, err
			}
			files = append(files, p)
		}
		return files, nil
	}
}

// writeHTML writes the self-contained HTML report to path atomically: the
// manifest, the summary (and preset) table and every figure as inline SVG in the
// chosen style. A preset's figures are rendered into a scratch directory and
// read back.
func writeHTML(path, source string, m *results.RunManifest, mjson []byte, table *report.Table, runs []report.Run, fig report.FigureOptions, pre *preset.Preset) error {
	fig.Format = "svg"
	figs, err := report.RenderFigures(runs, fig)
	if err != nil {
		return err
	}
	rep := report.HTMLReport{Source: source, Manifest: m, ManifestJSON: mjson, Runs: len(runs),
		Tables: []report.HTMLTable{{Key: "summary", Table: table}}, Figures: figs}
	rep.Setting, rep.Notes = settingLines(runs)
	if pre != nil {
		rep.Tables = append(rep.Tables, report.HTMLTable{Key: pre.Name, Table: pre.Table(runs)})
		scratch, err := os.MkdirTemp("", "report-preset-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(scratch)
		paths, err := pre.Figures(runs, scratch, "svg")
		if err != nil {
			return err
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			name := filepath.Base(p[:len(p)-len(filepath.Ext(p))])
			rep.Figures = append(rep.Figures, report.RenderedFigure{Name: name, Caption: "Preset " + pre.Name + ": see docs/report.md.", Data: data})
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, rep); err != nil {
		return err
	}
	return report.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}
