package trace

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/pqfile"
)

// Streamed keys. A pass that needs of each job's tasks and attempts only
// whose they are and how each attempt ended (the jobs a lifecycle leaves
// out) reads those columns of tasks.parquet and attempts.parquet beside the
// jobs (JobStream.OpenAttemptKeys), rather than whole rows: parquet-go's
// row readers assemble every column of a row, the preferred hosts' lists
// too, when a caller converts it to fewer.

// taskIDRow is the columns of a tasks.parquet row that OpenAttemptKeys
// reads, in every schema version's files.
type taskIDRow struct {
	JobID  string `parquet:"job_id,dict"`
	TaskID string `parquet:"task_id"`
	Type   string `parquet:"type,dict"`
}

// attemptKeyRow is the columns of an attempts.parquet row that
// OpenAttemptKeys reads.
type attemptKeyRow struct {
	JobID     string `parquet:"job_id,dict"`
	TaskID    string `parquet:"task_id"`
	AttemptID string `parquet:"attempt_id"`
	Type      string `parquet:"type,dict"`
	Status    string `parquet:"status,dict"`
	StartMs   *int64 `parquet:"start_ms,optional"`
	FinishMs  *int64 `parquet:"finish_ms,optional"`
}

// OpenAttemptKeys is OpenAttempts reading only what says whose each task
// and attempt is and how the attempt ended: JobCursor.Tasks hands out tasks
// with their JobID, TaskID and Type, JobCursor.Attempts attempts with their
// JobID, TaskID, AttemptID, Type, Status, StartMs and FinishMs; their
// other fields are zero (not Unknown). Each job's tasks and attempts are
// handed out in slices reused from job to job: valid until the next Next.
// A file whose columns are not those (another schema's) is read as
// OpenAttempts reads it, whole rows. A row whose type does not parse gives
// OpenAttempts' error. Close it.
func (s *JobStream) OpenAttemptKeys() (*JobCursor, error) {
	c, err := s.Open()
	if err != nil {
		return nil, err
	}
	if s.tasks != nil {
		if _, err := openBeside(c, &c.tasks, s.tasks.keyCursor); err != nil {
			return nil, err
		}
	}
	if s.attempts != nil {
		if _, err := openBeside(c, &c.attempts, s.attempts.keyCursor); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// keyCursor is cursor reading the columns of taskIDRow only, or whole rows
// when the file does not hold them as taskIDRow says.
func (tf *taskFile) keyCursor() (*rowCursor[Task], error) {
	var sameJob, sameTask stringOf
	rows, err := openColumnRows(tf.path, tf.checked, []string{"job_id", "task_id", "type"}, new(taskIDRow), func(v []*parquet.Value) converted[Task] {
		typ, ok := ParseTaskType(string(v[2].ByteArray()))
		if !ok {
			return converted[Task]{err: fmt.Errorf("task %q: type %q: want MAP, REDUCE, SETUP or CLEANUP", v[1].ByteArray(), v[2].ByteArray())}
		}
		return converted[Task]{v: Task{JobID: sameJob.of(v[0]), TaskID: sameTask.of(v[1]), Type: typ}}
	})
	if err != nil {
		return tf.cursor() // whole rows
	}
	c := tf.cursorOn(rows)
	c.reuse = true
	return c, nil
}

// keyCursor is cursor reading the columns of attemptKeyRow only, or whole
// rows when the file does not hold them as attemptKeyRow says.
func (af *attemptFile) keyCursor() (*rowCursor[Attempt], error) {
	var sameJob, sameTask stringOf
	names := []string{"job_id", "task_id", "attempt_id", "type", "status", "start_ms", "finish_ms"}
	rows, err := openColumnRows(af.path, af.checked, names, new(attemptKeyRow), func(v []*parquet.Value) converted[Attempt] {
		typ, ok := ParseTaskType(string(v[3].ByteArray()))
		if !ok {
			return converted[Attempt]{err: fmt.Errorf("attempt %q: type %q: want MAP, REDUCE, SETUP or CLEANUP", v[2].ByteArray(), v[3].ByteArray())}
		}
		a := Attempt{JobID: sameJob.of(v[0]), TaskID: sameTask.of(v[1]), AttemptID: string(v[2].ByteArray()), Type: typ,
			StartMs: spanInt(v[5]), FinishMs: spanInt(v[6])}
		switch st := v[4].ByteArray(); string(st) { // the statuses ingest writes, without an allocation each
		case StatusSucceeded:
			a.Status = StatusSucceeded
		case StatusFailed:
			a.Status = StatusFailed
		case StatusKilled:
			a.Status = StatusKilled
		case "":
		default:
			a.Status = string(st)
		}
		return converted[Attempt]{v: a}
	})
	if err != nil {
		return af.cursor() // whole rows
	}
	c := af.cursorOn(rows)
	c.reuse = true
	return c, nil
}

// stringOf makes a column's value into a string once for a run of rows
// that repeat it (a job's id, an attempt's task id).
type stringOf struct{ last string }

func (s *stringOf) of(v *parquet.Value) string {
	if b := v.ByteArray(); string(b) != s.last {
		s.last = string(b)
	}
	return s.last
}

// openColumnRows opens the columns names of the Parquet file path, which
// must hold the leaves of the row type of want as want does
// (pqfile.SameLeaves), and reads them a buffer of values at a time: each
// row's values, in the order of names, are converted with conv. Close the
// reader. Errors name the file.
func openColumnRows[R, T any](path string, chk *pqfile.Checked, names []string, want *R, conv func(v []*parquet.Value) converted[T]) (*rowReader[T], error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	pf, err := pqfile.OpenFile(f, size, pqfile.Options{Checked: chk})
	if err == nil {
		if err = pqfile.SameLeaves(parquet.SchemaOf(want), pf.Schema()); err != nil {
			err = &pqfile.Error{Stage: pqfile.Columns, Err: err}
		}
	}
	if err != nil {
		f.Close()
		return nil, parquetError(path, err)
	}
	rgs := pf.RowGroups()
	var cols []columnValues
	for _, name := range names {
		l, _ := pf.Schema().Lookup(name)
		cols = append(cols, columnValues{rgs: rgs, col: l.ColumnIndex, buf: make([]parquet.Value, 0, 1024)})
	}
	rows, i := pf.NumRows(), int64(0)
	v := make([]*parquet.Value, len(cols))
	next := func() (row converted[T], err error) {
		if i == rows {
			return row, io.EOF
		}
		defer func() {
			if p := recover(); p != nil {
				err = parquetError(path, &pqfile.Error{Stage: pqfile.Panic, Err: fmt.Errorf("%v", p)})
			}
		}()
		for c := range cols {
			x, err := cols[c].next()
			if errors.Is(err, io.EOF) {
				return row, parquetError(path, &pqfile.Error{Stage: pqfile.Count, Row: i, Want: rows})
			}
			if err != nil {
				return row, parquetError(path, &pqfile.Error{Stage: pqfile.Rows, Err: err, Row: i})
			}
			v[c] = x
		}
		i++
		return conv(v), nil
	}
	done := func() error {
		for c := range cols {
			cols[c].close()
		}
		return nil
	}
	return &rowReader[T]{f: f, next: next, done: done}, nil
}
