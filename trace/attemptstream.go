package trace

import (
	"fmt"
	"path/filepath"

	"github.com/tracereplay/tracereplay/internal/pqfile"
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
	path    string
	n       int             // its attempts (rows)
	batch   int             // rows a batch of its readers (JobStream.batch)
	checked *pqfile.Checked // JobStream.checked
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
// refuses. visit, if set, is called with each job that has attempts, its
// tasks (the key columns of tf, read beside the jobs; nil when tf is) and
// its attempts (StreamOptions.JobAttempts); the caller sets it only when
// the jobs and tf's tasks were found good.
func checkAttempts(dir string, s *JobStream, tf *taskFile, visit func(*Job, []Task, []Attempt)) (af *attemptFile, attErr, err error) {
	path := filepath.Join(dir, AttemptsFile)
	kv, err := parquetKeyValues(path, s.checked)
	if err != nil {
		return nil, nil, fmt.Errorf("read trace: %w", err)
	}
	af = &attemptFile{path: path, batch: s.batch, checked: s.checked}
	rows, err := af.openRows()
	if err != nil {
		return nil, nil, fmt.Errorf("read trace: %w", err)
	}
	defer rows.close()
	v := &attemptCheck{rowCheck: rowCheck[Attempt]{s: s}, visit: visit}
	if visit != nil && tf != nil {
		// The jobs the check follows hand out their tasks' keys too.
		v.open = func() (*JobCursor, error) {
			c, err := s.Open()
			if err != nil {
				return nil, err
			}
			return openBeside(c, &c.tasks, tf.keyCursor)
		}
	}
	n, convErr, attErr, err := checkRows(dir, path, rows, v, nil)
	if err != nil {
		return nil, nil, err
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

// openRows opens the rows of af; close them.
func (af *attemptFile) openRows() (*rowReader[Attempt], error) {
	return openRowReader(af.path, af.batch, af.checked, func(r *AttemptRow) converted[Attempt] { return convert(r.attempt()) })
}

// cursor opens a cursor on the attempts of af; close it.
func (af *attemptFile) cursor() (*rowCursor[Attempt], error) {
	rows, err := af.openRows()
	if err != nil {
		return nil, err
	}
	return af.cursorOn(rows), nil
}

// cursorOn is the cursor of af that reads rows (cursor, keyCursor).
func (af *attemptFile) cursorOn(rows *rowReader[Attempt]) *rowCursor[Attempt] {
	return &rowCursor[Attempt]{rows: rows, path: af.path, kind: rowKind[Attempt]{
		name: "attempt",
		ids:  func(a *Attempt) (id, job string) { return a.AttemptID, a.JobID },
	}}
}

// attemptCheck checks attempts in file order as Trace.Validate does,
// against the jobs read beside them (rowCheck), and hands each job's
// attempts to visit, if set, with the job and its tasks.
type attemptCheck struct {
	rowCheck[Attempt]
	visit func(*Job, []Task, []Attempt)
	group []Attempt // the attempts of job cur checked so far, when visit is set
}

// check is Trace.Validate's check of attempt i, a, given the attempts
// before it. The attempts of the job before a's go to visit first, while
// the jobs read beside are at that job (with its tasks); an attempt found
// bad ends the visits.
func (v *attemptCheck) check(i int, a *Attempt) error {
	if v.visit != nil && len(v.group) > 0 && a.JobID != v.cur.ID {
		v.flush()
	}
	if err := v.checkOne(i, a); err != nil {
		v.visit, v.group = nil, nil
		return err
	}
	if v.visit != nil {
		v.group = append(v.group, *a)
	}
	return nil
}

// flush hands the attempts of job cur to visit.
func (v *attemptCheck) flush() {
	v.visit(v.cur, v.c.Tasks(), v.group)
	clear(v.group) // drop the job's strings
	v.group = v.group[:0]
}

// close hands the last job's attempts to visit, if any, and closes the
// jobs.
func (v *attemptCheck) close() {
	if v.visit != nil && len(v.group) > 0 {
		v.flush()
	}
	v.visit = nil
	v.rowCheck.close()
}

// checkOne is check without the visits.
func (v *attemptCheck) checkOne(i int, a *Attempt) error {
	found, known, err := v.seek(a.JobID)
	if err != nil {
		return err
	}
	if !known {
		return fmt.Errorf("attempt %d (%q): job %q is not in the trace", i, a.AttemptID, a.JobID)
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
	v.keep(a)
	return nil
}

// OpenAttempts opens a cursor on the jobs that also hands out each job's
// tasks (JobCursor.Tasks) and attempts (JobCursor.Attempts); without an
// attempts.parquet it is OpenTasks. Close it.
func (s *JobStream) OpenAttempts() (*JobCursor, error) {
	c, err := s.OpenTasks()
	if err != nil || s.attempts == nil {
		return c, err
	}
	return openBeside(c, &c.attempts, s.attempts.cursor)
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
	return eachRow(s.attempts.cursor, fn)
}
