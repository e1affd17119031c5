package trace

import (
	"errors"
	"fmt"
	"io"
)

// ErrBadInput matches (with errors.Is) every error caused by the content of an
// input rather than by the system: *ParseError values and corrupt compressed
// data. cmd/ingest exits with status 2 for them.
var ErrBadInput = errors.New("bad input")

// ParseError is bad input at a known place of an input file. Readers return it
// (possibly wrapped) for every error in the data itself, so that the message names
// the file, line and column and says what was expected.
type ParseError struct {
	File   string // file name as given ("-" for stdin)
	Line   int    // 1-based line (or record) number; 0 if not known
	Column int    // 1-based byte column; 0 if not known
	Msg    string // what was wrong and what was expected
}

// Error formats the error as FILE:LINE:COLUMN: MSG, leaving out unknown parts.
func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	default:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
}

// Is makes errors.Is(err, ErrBadInput) true for parse errors.
func (e *ParseError) Is(target error) bool { return target == ErrBadInput }

// quote returns b as a Go-quoted string, cut to 40 bytes so that hostile input
// cannot blow up an error message.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		return fmt.Sprintf("%q…", b[:max])
	}
	return fmt.Sprintf("%q", b)
}

// maxWarnings is how many warnings a reader prints for one file before it only
// counts them.
const maxWarnings = 10

// warner writes a reader's warnings, at most maxWarnings per file, and a count of
// the rest at the end.
type warner struct {
	w    io.Writer
	file string
	n    int
}

// warnf reports a warning at line and column (0 when unknown).
func (w *warner) warnf(line, col int, format string, args ...any) {
	w.n++
	if w.w == nil || w.n > maxWarnings {
		return
	}
	e := ParseError{File: w.file, Line: line, Column: col, Msg: "warning: " + fmt.Sprintf(format, args...)}
	fmt.Fprintln(w.w, e.Error())
}

// done writes how many warnings were not shown.
func (w *warner) done() {
	if w.w != nil && w.n > maxWarnings {
		fmt.Fprintf(w.w, "%s: %d more warnings not shown\n", w.file, w.n-maxWarnings)
	}
}
