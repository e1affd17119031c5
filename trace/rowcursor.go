package trace

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tracereplay/tracereplay/internal/pqfile"
)

// The rows read beside the jobs. A JobStream's tasks.parquet and
// attempts.parquet are read the same way (taskstream.go, attemptstream.go):
// a rowReader converts their rows a batch at a time, and a rowCursor hands
// them out job by job (JobCursor.Next) or one by one (EachTask, EachAttempt).

// converted is a row converted, or the error of its type.
type converted[T any] struct {
	v   T
	err error
}

// convert is v and err as a converted row.
func convert[T any](v T, err error) converted[T] { return converted[T]{v, err} }

// rowReader reads a Parquet file's rows, converted, a batch at a time.
type rowReader[T any] struct {
	f    *os.File
	next func() (converted[T], error) // the next row, or io.EOF; errors name the file
	done func() error
}

// openRowReader opens the Parquet file path of rows of type R, converted
// with conv, batch rows at a time (0: 4,096); close the reader.
func openRowReader[R, T any](path string, batch int, chk *pqfile.Checked, conv func(*R) converted[T]) (*rowReader[T], error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	next, done, err := convertedRows(f, path, size, batch, chk, conv)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &rowReader[T]{f: f, next: next, done: done}, nil
}

func (r *rowReader[T]) close() {
	r.done()
	r.f.Close()
}

// rowKind is what a rowCursor knows of its rows' type.
type rowKind[T any] struct {
	name string                    // the row's name in errors: "task", "attempt"
	ids  func(*T) (id, job string) // the row's id and its job's
	tidy func(*T)                  // applied to each row handed out, or nil
	size func(*Job) int            // the capacity of a job's rows, or nil: grown as they come
}

// rowCursor hands out the rows of a file in job order (a tasks.parquet, an
// attempts.parquet) job by job, in file order (JobCursor.Next).
type rowCursor[T any] struct {
	rows *rowReader[T]
	path string
	kind rowKind[T]
	i    int // rows read
	next T   // the next row, read ahead, when ok
	ok   bool
	eof  bool
	// reuse has of hand out each job's rows in one slice, reused from job
	// to job (valid until the next call), rather than one of their own.
	reuse bool
	buf   []T
}

// advance reads the next row ahead.
func (c *rowCursor[T]) advance() error {
	r, err := c.rows.next()
	if errors.Is(err, io.EOF) {
		c.ok, c.eof = false, true
		return nil
	}
	if err != nil {
		return err
	}
	if r.err != nil {
		return fmt.Errorf("%s: row %d: %w", c.path, c.i, r.err)
	}
	c.next, c.ok = r.v, true
	if c.kind.tidy != nil {
		c.kind.tidy(&c.next) // not &r.v: r would escape, an allocation a row
	}
	c.i++
	return nil
}

// of returns the rows of job j: the rows ahead that name it, in file order,
// in a slice of their own (a job kept does not keep another's rows); nil
// when the next row is another job's.
func (c *rowCursor[T]) of(j *Job) ([]T, error) {
	if !c.ok && !c.eof {
		if err := c.advance(); err != nil {
			return nil, err
		}
	}
	var rows []T
	if c.reuse {
		rows = c.buf[:0]
	}
	for c.ok && c.jobOfNext() == j.ID {
		if rows == nil && c.kind.size != nil {
			rows = make([]T, 0, c.kind.size(j))
		}
		rows = append(rows, c.next)
		if err := c.advance(); err != nil {
			return nil, err
		}
	}
	if c.reuse {
		c.buf = rows
		if len(rows) == 0 {
			return nil, nil
		}
	}
	return rows, nil
}

func (c *rowCursor[T]) jobOfNext() string {
	_, job := c.kind.ids(&c.next)
	return job
}

// end checks, after the last job, that no row is left.
func (c *rowCursor[T]) end() error {
	if !c.ok && !c.eof {
		if err := c.advance(); err != nil {
			return err
		}
	}
	if c.ok {
		id, job := c.kind.ids(&c.next)
		return fmt.Errorf("%s: row %d: %s %q: job %q is not in the trace after the jobs before it (was the file changed?)",
			c.path, c.i-1, c.kind.name, id, job)
	}
	return nil
}

func (c *rowCursor[T]) close() { c.rows.close() }

// openBeside opens, with open, the cursor *rc that c reads beside its jobs;
// when it does not open, it closes c.
func openBeside[T any](c *JobCursor, rc **rowCursor[T], open func() (*rowCursor[T], error)) (*JobCursor, error) {
	r, err := open()
	if err != nil {
		c.Close()
		return nil, badInput{err}
	}
	*rc = r
	return c, nil
}

// eachRow calls fn with every row of the cursor open opens, in file order,
// with its position; fn may keep its row. An error of fn stops the read and
// is returned as it is.
func eachRow[T any](open func() (*rowCursor[T], error), fn func(i int, v *T) error) error {
	c, err := open()
	if err != nil {
		return badInput{err}
	}
	defer c.close()
	for i := 0; ; i++ {
		if err := c.advance(); err != nil {
			return badInput{err}
		}
		if !c.ok {
			return nil
		}
		v := c.next
		if err := fn(i, &v); err != nil {
			return err
		}
	}
}

// checkRows reads the rows of the file path of trace directory dir to the
// end, as Read reads and checks them, calling each (if set) with each row
// converted and then v.check with it. err is an error of the file, which
// Read reports before any other; convErr is the first row whose type does
// not parse (the rows after it are still read: a later unreadable one
// comes first), rowErr the first row v refuses, after which v is closed
// and no longer called; n is the rows read.
func checkRows[T any](dir, path string, rows *rowReader[T], v interface {
	check(i int, row *T) error
	close()
}, each func(*T)) (n int, convErr, rowErr, err error) {
	defer v.close()
	row := new(T) // the row checked: v.check and each see it through an interface and a func, so a local would escape
	for ; ; n++ {
		r, err := rows.next()
		if errors.Is(err, io.EOF) {
			return n, convErr, rowErr, nil
		}
		if err != nil {
			return 0, nil, nil, fmt.Errorf("read trace: %w", err)
		}
		if convErr != nil {
			continue
		}
		if r.err != nil {
			convErr = fmt.Errorf("read trace: %s: row %d: %w", path, n, r.err)
			continue
		}
		*row = r.v
		if each != nil {
			each(row)
		}
		if rowErr == nil {
			if err := v.check(n, row); err != nil {
				rowErr = fmt.Errorf("read trace %s: %w", dir, err)
				v.close()
			}
		}
		if each != nil {
			row = new(T) // each may keep the row it was given
		}
	}
}

// rowCheck follows, for rows in job order (a tasks.parquet, an
// attempts.parquet) checked as Trace.Validate checks them, the jobs of s
// read beside them: a row's job is the job of the row before it or a later
// one.
type rowCheck[T any] struct {
	s    *JobStream
	open func() (*JobCursor, error) // opens c; nil: s.Open
	c    *JobCursor                 // the jobs, at the last row's job
	cur  *Job
	prev *T // the last row, of job cur
}

func (v *rowCheck[T]) close() {
	if v.c != nil {
		v.c.Close()
		v.c = nil
	}
}

// seek moves to job id, the last row's job or a later one: found when it
// is there (prev is nil when it is a later one). Otherwise known reports
// whether s has job id at all (before the last row's job: out of order).
func (v *rowCheck[T]) seek(id string) (found, known bool, err error) {
	if v.c == nil {
		open := v.s.Open
		if v.open != nil {
			open = v.open
		}
		c, err := open()
		if err != nil {
			return false, false, err
		}
		v.c = c
	}
	found = v.cur != nil && v.cur.ID == id
	for !found {
		j, err := v.c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, false, err
		}
		v.cur, v.prev = j, nil
		found = j.ID == id
	}
	if found {
		return true, true, nil
	}
	// Not at or after the last row's job: before it, or nowhere.
	if err := v.s.Each(func(_ int, j *Job) error {
		if j.ID == id {
			known = true
			return errStop
		}
		return nil
	}); err != nil && !errors.Is(err, errStop) {
		return false, false, err
	}
	return false, known, nil
}

// keep records row as the last row, in a copy of its own.
func (v *rowCheck[T]) keep(row *T) {
	c := *row
	v.prev = &c
}
