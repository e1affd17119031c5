package trace

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/pqfile"
)

// Span is what a pass over a streamed trace's tasks or attempts reads of
// one: whose it is, its type, where and when it ran. StartMs and FinishMs
// are Unknown where the file holds null, Host "" where it names none.
type Span struct {
	JobID, TaskID, Host string
	Type                TaskType
	StartMs, FinishMs   int64
	// LaunchLagMs is the task's launch lag (Task.LaunchLagMs) in the spans
	// of EachTaskLagSpan, which reads its column too; Unknown in the others'.
	LaunchLagMs int64
}

// spanRow is the columns of a tasks.parquet or attempts.parquet row that a
// Span holds, in every schema version's files.
type spanRow struct {
	JobID    string `parquet:"job_id,dict"`
	TaskID   string `parquet:"task_id"`
	Type     string `parquet:"type,dict"`
	StartMs  *int64 `parquet:"start_ms,optional"`
	FinishMs *int64 `parquet:"finish_ms,optional"`
	Host     string `parquet:"host,dict"`
}

// spanLagRow is spanRow and a tasks.parquet's launch_lag_ms column (schema
// 2.2 on).
type spanLagRow struct {
	spanRow
	LaunchLagMs *int64 `parquet:"launch_lag_ms,optional"`
}

// EachTaskSpan calls fn with every task's span, in file order, with its
// position, reading only the columns a Span holds (parquet-go's row readers
// assemble every column of a row): what EachTask gives, for a fraction of
// its cost. fn must not keep sp. An error of fn stops the read and is
// returned as it is; a row that EachTask refuses gives EachTask's error.
func (s *JobStream) EachTaskSpan(fn func(i int, sp *Span) error) error {
	if s.tasks == nil {
		return nil
	}
	return eachSpan(s.tasks.path, s.checked, false, fn, func(fn func(int, *Span) error) error {
		var sp Span
		return s.EachTask(func(i int, t *Task) error {
			sp = Span{t.JobID, t.TaskID, t.Host, t.Type, t.StartMs, t.FinishMs, Unknown}
			return fn(i, &sp)
		})
	})
}

// EachTaskLagSpan is EachTaskSpan with each task's launch lag
// (Span.LaunchLagMs): seven columns. A file of a schema before 2.2, without
// the column, is read by EachTask (its lags are Unknown).
func (s *JobStream) EachTaskLagSpan(fn func(i int, sp *Span) error) error {
	if s.tasks == nil {
		return nil
	}
	return eachSpan(s.tasks.path, s.checked, true, fn, func(fn func(int, *Span) error) error {
		var sp Span
		return s.EachTask(func(i int, t *Task) error {
			sp = Span{t.JobID, t.TaskID, t.Host, t.Type, t.StartMs, t.FinishMs, t.LaunchLagMs}
			return fn(i, &sp)
		})
	})
}

// EachAttemptSpan is EachTaskSpan over the attempts (EachAttempt).
func (s *JobStream) EachAttemptSpan(fn func(i int, sp *Span) error) error {
	if s.attempts == nil {
		return nil
	}
	return eachSpan(s.attempts.path, s.checked, false, fn, func(fn func(int, *Span) error) error {
		var sp Span
		return s.EachAttempt(func(i int, a *Attempt) error {
			sp = Span{a.JobID, a.TaskID, a.Host, a.Type, a.StartMs, a.FinishMs, Unknown}
			return fn(i, &sp)
		})
	})
}

// errSpanRow is a row the span reader could not take; whole is then asked
// for its error.
var errSpanRow = errors.New("row not readable as a span")

// eachSpan reads the span columns of the file path (EachTaskSpan), and
// launch_lag_ms with lag; whole is the same pass over whole rows. A file whose columns are not the span's
// (an older schema's) is read by whole. When a row cannot be read or its
// type does not parse, whole is run (with an fn that does nothing) for the
// error it gives, so that the message names the row as the row readers do
// (by a task's or an attempt's id, which the span does not read); if whole
// finds none, the span reader's error is returned.
func eachSpan(path string, chk *pqfile.Checked, lag bool, fn func(i int, sp *Span) error, whole func(fn func(int, *Span) error) error) error {
	r, err := openSpans(path, chk, lag)
	if err != nil {
		return whole(fn)
	}
	err = r.each(fn)
	r.close()
	if err == nil {
		return nil
	}
	var fnErr fnError
	if errors.As(err, &fnErr) {
		return fnErr.err
	}
	if werr := whole(func(int, *Span) error { return nil }); werr != nil {
		return werr
	}
	return badInput{err}
}

// fnError carries an error of eachSpan's fn through spanReader.each.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// spanReader reads the span columns of one file.
type spanReader struct {
	path string
	rows int64
	cols []columnValues // job_id, task_id, type, start_ms, finish_ms, host, and launch_lag_ms with the lag
	done func()
}

// openSpans opens the span columns of path, and launch_lag_ms with lag;
// close the reader.
func openSpans(path string, chk *pqfile.Checked, lag bool) (*spanReader, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	pf, err := pqfile.OpenFile(f, size, pqfile.Options{Checked: chk})
	if err == nil {
		want := parquet.SchemaOf(new(spanRow))
		if lag {
			want = parquet.SchemaOf(new(spanLagRow))
		}
		err = pqfile.SameLeaves(want, pf.Schema())
		if err != nil {
			err = &pqfile.Error{Stage: pqfile.Columns, Err: err}
		}
	}
	if err != nil {
		f.Close()
		return nil, parquetError(path, err)
	}
	r := &spanReader{path: path, rows: pf.NumRows(), done: func() { f.Close() }}
	rgs := pf.RowGroups()
	names := []string{"job_id", "task_id", "type", "start_ms", "finish_ms", "host"}
	if lag {
		names = append(names, "launch_lag_ms")
	}
	for _, name := range names {
		l, _ := pf.Schema().Lookup(name)
		r.cols = append(r.cols, columnValues{rgs: rgs, col: l.ColumnIndex, buf: make([]parquet.Value, 0, 1024)})
	}
	return r, nil
}

func (r *spanReader) close() {
	for i := range r.cols {
		r.cols[i].close()
	}
	r.done()
}

// each calls fn with each row's span. A job id and a host are made into a
// string once for a run of rows that repeat it (hosts: once per host), a
// task id once for the attempts of one task in a row.
func (r *spanReader) each(fn func(i int, sp *Span) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = parquetError(r.path, &pqfile.Error{Stage: pqfile.Panic, Err: fmt.Errorf("%v", p)})
		}
	}()
	hosts := map[string]string{}
	sp := Span{LaunchLagMs: Unknown}
	var v [7]*parquet.Value
	for i := int64(0); i < r.rows; i++ {
		for c := range r.cols {
			x, err := r.cols[c].next()
			if errors.Is(err, io.EOF) {
				return parquetError(r.path, &pqfile.Error{Stage: pqfile.Count, Row: i, Want: r.rows})
			}
			if err != nil {
				return parquetError(r.path, &pqfile.Error{Stage: pqfile.Rows, Err: err, Row: i})
			}
			v[c] = x
		}
		if b := v[0].ByteArray(); string(b) != sp.JobID {
			sp.JobID = string(b)
		}
		if b := v[1].ByteArray(); string(b) != sp.TaskID {
			sp.TaskID = string(b)
		}
		typ, ok := ParseTaskType(string(v[2].ByteArray()))
		if !ok {
			return fmt.Errorf("%s: row %d: %w", r.path, i, errSpanRow)
		}
		sp.Type = typ
		sp.StartMs, sp.FinishMs = spanInt(v[3]), spanInt(v[4])
		if b := v[5].ByteArray(); string(b) != sp.Host {
			h, ok := hosts[string(b)]
			if !ok {
				h = string(b)
				hosts[h] = h
			}
			sp.Host = h
		}
		if len(r.cols) > 6 {
			sp.LaunchLagMs = spanInt(v[6])
		}
		if err := fn(int(i), &sp); err != nil {
			return fnError{err}
		}
	}
	return nil
}

// spanInt is an optional int64 column's value, Unknown for null.
func spanInt(v *parquet.Value) int64 {
	if v.IsNull() {
		return Unknown
	}
	return v.Int64()
}
