// Package pqfile reads Parquet files for trace and the results schema: one
// reader that checks a file's claims against its size (internal/pqbounds)
// before parquet-go allocates from them, turns parquet-go's panics on corrupt
// input into errors, checks the columns the rows need, and decodes the rows in
// chunks up to the footer's row count. Errors are *Error, whose Stage tells
// callers which failure it was, so that each can word it for its users.
package pqfile

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/pqbounds"
)

// Stage is where reading a file failed.
type Stage int

// The stages of reading a file, in order.
const (
	// Footer: the file does not end as a Parquet file (Options.CheckFooter).
	Footer Stage = iota + 1
	// Bounds: the footer or pages claim more than the file's size holds.
	Bounds
	// Open: parquet-go could not open the file.
	Open
	// Panic: parquet-go panicked on the file.
	Panic
	// Columns: a column the rows need is missing or differs (Options.Columns).
	Columns
	// Rows: decoding a row failed.
	Rows
	// Count: the rows decoded are fewer than the footer announces.
	Count
)

// Error is an error of Read or OpenFile: Err is the cause; for Rows, Row is the
// number of rows decoded before it; for Count, Row is the rows decoded and
// Want the footer's row count.
type Error struct {
	Stage     Stage
	Err       error
	Row, Want int64
}

// Error returns the cause's message.
func (e *Error) Error() string {
	if e.Stage == Count {
		return fmt.Sprintf("%d rows, footer says %d", e.Row, e.Want)
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Options are the checks and settings of a read.
type Options struct {
	// CheckFooter checks the file's footer (pqbounds.CheckFooter) before its
	// claims.
	CheckFooter bool
	// Small reads with small buffers and without page index or bloom filters:
	// for files read whole, where a corrupt file must cost little.
	Small bool
	// Columns, when set, checks the schema the rows need against the file's.
	Columns func(want, got *parquet.Schema) error
	// Batch is how many rows a Reader's Next hands out at most; 0 (every
	// caller but tests, which cross batch boundaries with small files) is
	// 4,096.
	Batch int
	// Checked, when set, runs the bounds check once per version of the file
	// (Checked.Check) rather than at every open.
	Checked *Checked
}

// chunk is how many rows Read decodes at a time; allocation grows with the
// rows actually decoded, never with the row count a file claims.
const chunk = 4096

// OpenFile opens the Parquet file r of size bytes once its claims passed the
// checks of opt.
func OpenFile(r io.ReaderAt, size int64, opt Options) (pf *parquet.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			pf, err = nil, &Error{Stage: Panic, Err: fmt.Errorf("%v", p)}
		}
	}()
	return open(r, size, opt)
}

func open(r io.ReaderAt, size int64, opt Options) (*parquet.File, error) {
	if opt.CheckFooter {
		if err := pqbounds.CheckFooter(r, size); err != nil {
			return nil, &Error{Stage: Footer, Err: err}
		}
	}
	check := pqbounds.Check
	if opt.Checked != nil {
		check = opt.Checked.Check
	}
	if err := check(r, size); err != nil {
		return nil, &Error{Stage: Bounds, Err: err}
	}
	var po []parquet.FileOption
	if opt.Small {
		po = append(po, parquet.ReadBufferSize(int(min(size, 1<<20))),
			parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	}
	pf, err := parquet.OpenFile(r, size, po...)
	if err != nil {
		return nil, &Error{Stage: Open, Err: err}
	}
	return pf, nil
}

// Read reads every row of the Parquet file r of size bytes into T and returns
// them with the file's key/value metadata.
func Read[T any](r io.ReaderAt, size int64, opt Options) (rows []T, meta map[string]string, err error) {
	meta, err = ReadEach(r, size, opt, nil, func(batch []T) error {
		rows = append(rows, batch...)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return rows, meta, nil
}

// ReadEach reads the rows of the Parquet file r of size bytes into T a batch
// of up to 4,096 at a time and hands each batch to each, which must not keep
// it (the next batch reuses it); it returns the file's key/value metadata.
// A caller that converts the rows to another type holds one batch of T, not
// every row. An error of each stops the read and is returned as it is.
// total, if not nil, is told the file's row count before the first batch,
// once its bounds are checked (at most a few rows per byte of the file:
// package pqbounds), so that the caller can size what it fills.
func ReadEach[T any](r io.ReaderAt, size int64, opt Options, total func(rows int64), each func([]T) error) (meta map[string]string, err error) {
	defer func() {
		if p := recover(); p != nil {
			meta, err = nil, &Error{Stage: Panic, Err: fmt.Errorf("%v", p)}
		}
	}()
	rd, err := NewReader[T](r, size, opt)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	if total != nil {
		total(rd.Rows())
	}
	for {
		batch, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rd.Meta(), nil
		}
		if err != nil {
			return nil, err
		}
		if err := each(batch); err != nil {
			return nil, err
		}
	}
}

// Reader reads the rows of one Parquet file into T a batch at a time, when
// its caller asks for them (Next): ReadEach's checks and batches, pulled
// rather than pushed, so that a caller can hold the file open and take its
// rows as it needs them.
type Reader[T any] struct {
	pf    *parquet.File
	rd    *parquet.GenericReader[T]
	meta  map[string]string
	buf   []T
	rows  int64 // the footer's row count
	batch int64 // rows a batch at most (Options.Batch)
	done  int64 // rows handed out
	err   error // io.EOF after the last row, or the error that ended the read
}

// NewReader opens the Parquet file r of size bytes for reading into T, after
// the checks of opt (and the columns T needs, if opt.Columns is set).
func NewReader[T any](r io.ReaderAt, size int64, opt Options) (rd *Reader[T], err error) {
	defer func() {
		if p := recover(); p != nil {
			rd, err = nil, &Error{Stage: Panic, Err: fmt.Errorf("%v", p)}
		}
	}()
	pf, err := open(r, size, opt)
	if err != nil {
		return nil, err
	}
	if opt.Columns != nil {
		if err := opt.Columns(parquet.SchemaOf(new(T)), pf.Schema()); err != nil {
			return nil, &Error{Stage: Columns, Err: err}
		}
	}
	meta := make(map[string]string, len(pf.Metadata().KeyValueMetadata))
	for _, kv := range pf.Metadata().KeyValueMetadata {
		meta[kv.Key] = kv.Value
	}
	rows := pf.NumRows()
	batch := int64(chunk)
	if opt.Batch > 0 {
		batch = int64(opt.Batch)
	}
	return &Reader[T]{pf: pf, rd: parquet.NewGenericReader[T](pf), meta: meta, rows: rows, batch: batch}, nil
}

// Meta is the file's key/value metadata.
func (r *Reader[T]) Meta() map[string]string { return r.meta }

// Rows is the file's row count as its footer states it (checked against the
// file's size: at most a few rows per byte, package pqbounds).
func (r *Reader[T]) Rows() int64 { return r.rows }

// Next returns the next batch of up to 4,096 rows (Options.Batch), which
// the next call reuses, or io.EOF after the last; a file that yields fewer
// rows than its footer states is an *Error of Stage Count after the rows it
// yielded.
func (r *Reader[T]) Next() (batch []T, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.err = &Error{Stage: Panic, Err: fmt.Errorf("%v", p)}
			batch, err = nil, r.err
		}
	}()
	if r.err != nil {
		return nil, r.err
	}
	if r.buf == nil {
		// Read in chunks rather than trusting the footer's row count for one
		// allocation, and stop at that count: on a corrupt file the reader may go on
		// producing rows.
		r.buf = make([]T, min(r.rows, r.batch))
	} else {
		clear(r.buf) // drop the last batch's strings and pointers
	}
	if r.done < r.rows {
		n, err := r.rd.Read(r.buf[:min(int64(len(r.buf)), r.rows-r.done)])
		r.done += int64(n)
		switch {
		case errors.Is(err, io.EOF):
			r.err = r.countErr()
		case err != nil:
			r.err = &Error{Stage: Rows, Err: err, Row: r.done}
		case n == 0:
			r.err = &Error{Stage: Rows, Err: errors.New("reader made no progress"), Row: r.done}
		}
		if n > 0 {
			return r.buf[:n], nil // an error found with them comes next
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	r.err = r.countErr()
	return nil, r.err
}

// countErr is io.EOF once the footer's row count is handed out, else the
// Count error.
func (r *Reader[T]) countErr() error {
	if r.done != r.rows {
		return &Error{Stage: Count, Row: r.done, Want: r.rows}
	}
	return io.EOF
}

// Close releases the reader's buffers; the caller closes r.
func (r *Reader[T]) Close() error { return r.rd.Close() }

// SameLeaves is an Options.Columns check: every leaf column of want must be in
// got with the same physical type and nesting (got's other columns are
// ignored).
func SameLeaves(want, got *parquet.Schema) error {
	for _, path := range want.Columns() {
		w, _ := want.Lookup(path...)
		g, ok := got.Lookup(path...)
		name := strings.Join(path, ".")
		switch {
		case !ok:
			return fmt.Errorf("column %s is missing", name)
		case w.Node.Type().Kind() != g.Node.Type().Kind():
			return fmt.Errorf("column %s has type %s, want %s", name, g.Node.Type(), w.Node.Type())
		case w.MaxRepetitionLevel != g.MaxRepetitionLevel || w.MaxDefinitionLevel != g.MaxDefinitionLevel:
			return fmt.Errorf("column %s has repetition/definition levels %d/%d, want %d/%d (optional or list where not expected)",
				name, g.MaxRepetitionLevel, g.MaxDefinitionLevel, w.MaxRepetitionLevel, w.MaxDefinitionLevel)
		}
	}
	return nil
}

// SameNames is an Options.Columns check: every top-level column of want must
// be in got by name, whatever its type or nesting (so that a column made
// nullable since a file was written still reads).
func SameNames(want, got *parquet.Schema) error {
	for _, col := range want.Fields() {
		if _, ok := got.Lookup(col.Name()); !ok {
			return fmt.Errorf("column %q missing (expected the %s schema)", col.Name(), want.Name())
		}
	}
	return nil
}
