package trace

import (
	"fmt"
	"io"
)

// Entries of the format table (Formats) for the job-history readers: each
// adapts ReadOptions to HistoryOptions, printing diagnostics as warnings.

func readJhistFormat(name string, r io.Reader, opt ReadOptions) (*Trace, error) {
	return withWarnings(opt, func(h HistoryOptions) (*Trace, error) { return ReadJhist(name, r, h) })
}

func readHadoop1Format(name string, r io.Reader, opt ReadOptions) (*Trace, error) {
	return withWarnings(opt, func(h HistoryOptions) (*Trace, error) { return ReadHadoop1(name, r, h) })
}

func readRumenFormat(name string, r io.Reader, opt ReadOptions) (*Trace, error) {
	return withWarnings(opt, func(h HistoryOptions) (*Trace, error) { return ReadRumen(name, r, h) })
}

func readSLSFormat(name string, r io.Reader, opt ReadOptions) (*Trace, error) {
	return withWarnings(opt, func(h HistoryOptions) (*Trace, error) { return ReadSLS(name, r, h) })
}

// withWarnings runs a history reader with opt's strictness, its diagnostics
// going to opt.Warnings.
func withWarnings(opt ReadOptions, read func(HistoryOptions) (*Trace, error)) (*Trace, error) {
	p := NewWarningPrinter(opt.Warnings)
	defer p.Flush()
	return read(HistoryOptions{Strict: opt.Strict, Warn: p.Warn, KeepTrackerClocks: opt.KeepTrackerClocks})
}

// WarningPrinter writes diagnostics as warning lines ("file:line: warning: …",
// the form of ParseError), at most maxWarnings per file; Flush then writes how
// many were not shown, per file in order of first appearance.
type WarningPrinter struct {
	w     io.Writer
	count map[string]int
	files []string
}

// NewWarningPrinter returns a printer writing to w; a nil w discards.
func NewWarningPrinter(w io.Writer) *WarningPrinter {
	return &WarningPrinter{w: w, count: map[string]int{}}
}

// Warn writes one diagnostic (it has the signature of HistoryOptions.Warn).
func (p *WarningPrinter) Warn(d Diagnostic) {
	if p.w == nil {
		return
	}
	if _, seen := p.count[d.File]; !seen {
		p.files = append(p.files, d.File)
	}
	p.count[d.File]++
	if p.count[d.File] > maxWarnings {
		return
	}
	d.Msg = "warning: " + d.Msg
	fmt.Fprintln(p.w, d.String())
}

// Flush writes the counts of warnings not shown.
func (p *WarningPrinter) Flush() {
	if p.w == nil {
		return
	}
	for _, f := range p.files {
		if n := p.count[f]; n > maxWarnings {
			fmt.Fprintf(p.w, "%s: %d more warnings not shown\n", f, n-maxWarnings)
		}
	}
	p.files, p.count = nil, map[string]int{}
}

// ReadTopology reads a host → rack map from a Rumen topology or an SLS node
// file, whichever it is (gzip-compressed or not).
func ReadTopology(name string, r io.Reader) (map[string]string, error) {
	in, head, err := OpenInput(name, r)
	if err != nil {
		return nil, err
	}
	switch {
	case DetectRumenTopology(name, head):
		return ReadRumenTopology(name, in)
	case DetectSLSNodes(name, head):
		return ReadSLSNodes(name, in)
	}
	return nil, &ParseError{File: name, Msg: "neither a Rumen topology nor an SLS node file"}
}

// FillRacks sets the racks a trace's tasks lack (attempt racks and the racks of
// preferred hosts) from a host → rack map, and the map locality that the racks
// then decide. Racks the trace has are kept.
func FillRacks(t *Trace, topo map[string]string) {
	for i := range t.Tasks {
		fillRacks(&t.Tasks[i], topo)
	}
	for i := range t.Attempts {
		if a := &t.Attempts[i]; a.Rack == "" && a.Host != "" {
			a.Rack = topo[a.Host]
		}
	}
}
