package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report"
)

// publishDir builds a directory's files with fill in a fresh temporary directory
// beside dir, then renames that directory to dir or, when dir already exists,
// renames each file into it, so that dir never holds a half-written file and a
// failure leaves it as it was. fill returns the paths it wrote (inside tmp);
// publishDir returns their final paths.
func publishDir(dir string, fill func(tmp string) ([]string, error)) ([]string, error) {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return nil, fmt.Errorf("%s exists and is not a directory", dir)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	files, err := fill(tmp)
	if err != nil {
		return nil, err
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

// writeOutputs writes the summary as Markdown, CSV and LaTeX and the figures
// into dir (publishDir); a preset adds its table and figures. It returns the
// final paths and, for each figure not written for want of data, why.
func writeOutputs(dir string, table *report.Table, runs []report.Run, fig report.FigureOptions, pre *preset) ([]string, []string, error) {
	var skipped []string
	paths, err := publishDir(dir, func(tmp string) ([]string, error) {
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
		skipped = report.SkippedFigures(rendered)
		figs, err := report.WriteFigureFiles(rendered, tmp, fig.Format)
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
			figs, err := pre.figures(runs, tmp, fig.Format)
			if err != nil {
				return nil, err
			}
			files = append(append(files, md, csv), figs...)
		}
		return files, nil
	})
	return paths, skipped, err
}

// writeArrow writes summary.arrow and jobs.arrow (and NAME.arrow, the preset's
// table) into dir (publishDir).
func writeArrow(dir string, runs []report.Run, pre *preset) ([]string, error) {
	return publishDir(dir, func(tmp string) ([]string, error) {
		files, err := report.WriteArrowTables(runs, tmp)
		if err != nil {
			return nil, err
		}
		if pre != nil {
			rec := report.TableRecord(pre.table(runs), memory.DefaultAllocator)
			defer rec.Release()
			p := filepath.Join(tmp, pre.name+".arrow")
			if err := report.WriteArrowFile(p, rec); err != nil {
				return nil, err
			}
			files = append(files, p)
		}
		return files, nil
	})
}

// writeHTML writes the self-contained HTML report to path atomically: the
// manifest, the summary (and preset) table and every figure as inline SVG in the
// chosen style. A preset's figures are rendered into a scratch directory and
// read back.
func writeHTML(path, source string, m *replay.Manifest, mjson []byte, table *report.Table, runs []report.Run, fig report.FigureOptions, pre *preset) error {
	fig.Format = "svg"
	figs, err := report.RenderFigures(runs, fig)
	if err != nil {
		return err
	}
	rep := report.HTMLReport{Source: source, Manifest: m, ManifestJSON: mjson, Runs: len(runs),
		Tables: []report.HTMLTable{{Key: "summary", Table: table}}, Figures: figs}
	rep.Setting, rep.Notes = settingLines(runs)
	if pre != nil {
		rep.Tables = append(rep.Tables, report.HTMLTable{Key: pre.name, Table: pre.table(runs)})
		scratch, err := os.MkdirTemp("", "report-preset-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(scratch)
		paths, err := pre.figures(runs, scratch, "svg")
		if err != nil {
			return err
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			name := filepath.Base(p[:len(p)-len(filepath.Ext(p))])
			rep.Figures = append(rep.Figures, report.RenderedFigure{Name: name, Caption: "Preset " + pre.name + ": see docs/report.md.", Data: data})
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
