package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Streamed attempts. A trace directory with an attempts.parquet (what ingest
// writes of .jhist, Hadoop 1 and Rumen histories) can be read as its jobs
// arrive too, when the caller says it reads the attempts only through the
// stream (StreamOptions.Attempts): attempts.parquet is in job order
// (Trace.Validate), so a cursor that reads it beside jobs.parquet and
// tasks.parquet hands out each job with its tasks and its attempts
// (JobStream.OpenAttempts, JobCursor.Attempts), holding a batch of rows of
// each file and the Parquet readers' pages, never the trace's attempts.

// attemptFile is the attempts.parquet a JobStream reads beside its jobs.
type attemptFile struct {
	path string
	n    int // its attempts (rows)
}

// HasAttempts reports whether the jobs come with attempts (an
// attempts.parquet opened with StreamOptions.Attempts).
func (s *JobStream) HasAttempts() bool { return s.attempts != nil }

// NumAttempts is the number of attempts, 0 without an attempts.parquet.
func (s *JobStream) NumAttempts() int {
	if s.attempts == nil {
		return 0
	}
	return s.attempts.n
}

// checkAttempts reads dir's attempts.parquet once beside the jobs of s, as
// Read reads and checks it. err is an error of the file (its rows, its
// metadata) or the first row whose type does not parse, which Read reports
// before Trace.Validate's; attErr is the first attempt Trace.Validate
// refuses.
func checkAttempts(dir string, s *JobStream) (af *attemptFile, attErr, err error) {
	path := filepath.Join(dir, AttemptsFile)
	kv, err := parquetKeyValues(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read trace: %w", err)
	}
	af = &attemptFile{path: path}
	rows, err := af.openRows()
	if err != nil {
		return nil, nil, fmt.Errorf("read trace: %w", err)
	}
	defer rows.done()
	defer rows.f.Close()
	v := &attemptCheck{s: s}
	defer v.close()
	var convErr error
	n := 0
	for ; ; n++ {
		a, err := rows.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read trace: %w", err)
		}
		if convErr != nil {
			continue // the rows are still read: a later unreadable one comes first
		}
		if a.err != nil {
			convErr = fmt.Errorf("read trace: %s: row %d: %w", path, n, a.err)
			continue
		}
		if attErr == nil {
			if err := v.check(n, &a.a); err != nil {
				attErr = fmt.Errorf("read trace %s: %w", dir, err)
				v.close()
			}
		}
	}
	af.n = n
	var m Meta
	if err := decodeMeta(kv, &m); err != nil {
		return nil, nil, fmt.Errorf("read trace: %s: %w", path, err)
	}
	if convErr != nil {
		return nil, nil, convErr
	}
	return af, attErr, nil
}

// convertedAttempt is a row of attempts.parquet converted, or the error of
// its type.
type convertedAttempt struct {
	a   Attempt
	err error
}

// attemptRowReader reads an attempts.parquet's rows a batch at a time.
type attemptRowReader struct {
	f    *os.File
	next func() (convertedAttempt, error) // the next row, or io.EOF; errors name the file
	done func() error
}

// openRows opens the rows of af; close them (done, then f).
func (af *attemptFile) openRows() (*attemptRowReader, error) {
	f, size, err := openSized(af.path)
	if err != nil {
		return nil, err
	}
	next, done, err := convertedRows(f, af.path, size, func(r *AttemptRow) convertedAttempt {
		a, err := r.attempt()
		return convertedAttempt{a, err}
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return &attemptRowReader{f: f, next: next, done: done}, nil
}

// attemptCheck checks attempts in file order as Trace.Validate does,
// against the jobs of s read beside them: an attempt's job is the job of the
// attempt before it or a later one.
type attemptCheck struct {
	s    *JobStream
	c    *JobCursor // the jobs, at the last attempt's job
	cur  *Job
	prev *Attempt // the last attempt, of job cur
}

func (v *attemptCheck) close() {
	if v.c != nil {
		v.c.Close()
		v.c = nil
	}
}

// check is Trace.Validate's check of attempt i, a, given the attempts
// before it.
func (v *attemptCheck) check(i int, a *Attempt) error {
	if v.c == nil {
		c, err := v.s.Open()
		if err != nil {
			return err
		}
		v.c = c
	}
	found := v.cur != nil && v.cur.ID == a.JobID
	for !found {
		j, err := v.c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		v.cur, v.prev = j, nil
		found = j.ID == a.JobID
	}
	if !found {
		// Not at or after the last attempt's job: before it, or nowhere.
		known := false
		if err := v.s.Each(func(_ int, j *Job) error {
			if j.ID == a.JobID {
				known = true
				return errStop
			}
			return nil
		}); err != nil && !errors.Is(err, errStop) {
			return err
		}
		if !known {
			return fmt.Errorf("attempt %d (%q): job %q is not in the trace", i, a.AttemptID, a.JobID)
		}
	}
	if a.AttemptID == "" || a.TaskID == "" {
		return fmt.Errorf("attempt %d of job %q: empty attempt or task id", i, a.JobID)
	}
	if err := checkInts([]namedInt{{"start_ms", a.StartMs}, {"finish_ms", a.FinishMs},
		{"shuffle_finish_ms", a.ShuffleFinishMs}, {"sort_finish_ms", a.SortFinishMs}}); err != nil {
		return fmt.Errorf("attempt %d (%q): %w", i, a.AttemptID, err)
	}
	if !found {
		return fmt.Errorf("attempt %d (%q): out of order: attempts must be sorted by job, type, task, start, id (call Trace.Sort)", i, a.AttemptID)
	}
	if v.prev != nil {
		// Two attempts of one job: compareAttempts past the job's position.
		switch c := compareAttempts(nil, v.prev, a); {
		case c == 0:
			return fmt.Errorf("attempt %d (%q): duplicate attempt of job %q", i, a.AttemptID, a.JobID)
		case c > 0:
			return fmt.Errorf("attempt %d (%q): out of order: attempts must be sorted by job, type, task, start, id (call Trace.Sort)", i, a.AttemptID)
		}
	}
	ac := *a
	v.prev = &ac
	return nil
}

// attemptCursor hands out the attempts of an attempts.parquet job by job,
// in file order (JobCursor.Next).
type attemptCursor struct {
	rows *attemptRowReader
	path string
	i    int     // rows read
	next Attempt // the next attempt, read ahead, when ok
	ok   bool
	eof  bool
}

// advance reads the next attempt ahead.
func (c *attemptCursor) advance() error {
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
	c.next, c.ok = r.a, true
	c.i++
	return nil
}

// of returns the attempts of job j: the attempts ahead that name it, in
// file order, in a slice of their own; nil when the next attempt is another
// job's.
func (c *attemptCursor) of(j *Job) ([]Attempt, error) {
	if !c.ok && !c.eof {
		if err := c.advance(); err != nil {
			return nil, err
		}
	}
	var as []Attempt
	for c.ok && c.next.JobID == j.ID {
		as = append(as, c.next)
		if err := c.advance(); err != nil {
			return nil, err
		}
	}
	return as, nil
}

// end checks, after the last job, that no attempt is left.
func (c *attemptCursor) end() error {
	if !c.ok && !c.eof {
		if err := c.advance(); err != nil {
			return err
		}
	}
	if c.ok {
		return fmt.Errorf("%s: row %d: attempt %q: job %q is not in the trace after the jobs before it (was the file changed?)",
			c.path, c.i-1, c.next.AttemptID, c.next.JobID)
	}
	return nil
}

func (c *attemptCursor) close() {
	c.rows.done()
	c.rows.f.Close()
}

// OpenAttempts opens a cursor on the jobs that also hands out each job's
// tasks (JobCursor.Tasks) and attempts (JobCursor.Attempts); without an
// attempts.parquet it is OpenTasks. Close it.
func (s *JobStream) OpenAttempts() (*JobCursor, error) {
	c, err := s.OpenTasks()
	if err != nil || s.attempts == nil {
		return c, err
	}
	rows, err := s.attempts.openRows()
	if err != nil {
		c.Close()
		return nil, badInput{err}
	}
	c.attempts = &attemptCursor{rows: rows, path: s.attempts.path}
	return c, nil
}

// Attempts is the attempts of the job Next returned last, in trace order,
// in a slice of their own; nil when it has none or the cursor was not
// opened with OpenAttempts.
func (c *JobCursor) Attempts() []Attempt { return c.curAttempts }

// EachAttempt calls fn with every attempt, in file order, with its
// position; fn may keep a. An error of fn stops the read and is returned as
// it is.
func (s *JobStream) EachAttempt(fn func(i int, a *Attempt) error) error {
	if s.attempts == nil {
		return nil
	}
	rows, err := s.attempts.openRows()
	if err != nil {
		return badInput{err}
	}
	c := &attemptCursor{rows: rows, path: s.attempts.path}
	defer c.close()
	for i := 0; ; i++ {
		if err := c.advance(); err != nil {
			return badInput{err}
		}
		if !c.ok {
			return nil
		}
		a := c.next
		if err := fn(i, &a); err != nil {
			return err
		}
	}
}
