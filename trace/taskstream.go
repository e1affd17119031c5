package trace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/tracereplay/tracereplay/internal/pqfile"
)

// Streamed tasks. A trace directory with a tasks.parquet (an ingested job
// history without attempts.parquet, a generated trace with tasks) can be read
// as its jobs arrive too: tasks.parquet is in job order (Trace.Validate), so
// a cursor that reads jobs.parquet and tasks.parquet side by side hands out
// each job with its tasks (JobStream.OpenTasks, JobCursor.Tasks), holding a
// batch of rows of each file and the Parquet readers' pages, never the
// trace's tasks.

// taskFile is the tasks.parquet a JobStream reads beside its jobs.
type taskFile struct {
	path    string
	old     bool            // schema version before 2.2: no launch_lag_ms column
	old23   bool            // schema version 2.2 or 2.3: no report_lag_ms column
	n       int             // its tasks (rows)
	batch   int             // rows a batch of its readers (JobStream.batch)
	checked *pqfile.Checked // JobStream.checked
}

// HasTasks reports whether the jobs come with tasks (a tasks.parquet,
// OpenTaskStream).
func (s *JobStream) HasTasks() bool { return s.tasks != nil }

// NumTasks is the number of tasks, 0 without a tasks.parquet.
func (s *JobStream) NumTasks() int {
	if s.tasks == nil {
		return 0
	}
	return s.tasks.n
}

// OpenTaskStream opens the trace directory dir for streaming when it holds a
// jobs.parquet and no attempts.parquet, with its tasks.parquet if it has
// one (without, it is OpenJobStream); ok is false, with nothing read, when
// dir has an attempts.parquet (Read it whole then), unless opt.Attempts is
// set: then the attempts are streamed too (JobStream.OpenAttempts,
// EachAttempt). It reads the jobs, the tasks and the attempts once,
// checking what Read checks (the schema versions, the columns, every row's
// task type, the jobs, tasks and attempts as Trace.Validate does: a task's
// or attempt's job, its integers, its preferred racks, the order) and
// failing with Read's errors in Read's order, but holds none of them: the
// tasks and the attempts are checked against the jobs by reading the files
// side by side, and one whose job is not where the order puts it costs one
// more pass over the jobs to tell one of no job from one out of order.
//
// opt.Visit, if set, is called with every job and then every task as they
// are checked, in trace order, so that a caller that needs one pass over the
// trace (its identity) need not read it again; what it was told is the
// trace's only when OpenTaskStream succeeds.
func OpenTaskStream(dir string, opt ...StreamOptions) (t *Trace, ok bool, err error) {
	var o StreamOptions
	for _, x := range opt {
		if x.Visit != nil {
			o.Visit = x.Visit
		}
		if x.JobAttempts != nil {
			o.JobAttempts = x.JobAttempts
		}
		o.Attempts = o.Attempts || x.Attempts
		if x.Batch > 0 {
			o.Batch = x.Batch
		}
	}
	hasAttempts := false
	if _, err := os.Stat(filepath.Join(dir, AttemptsFile)); err == nil {
		if !o.Attempts {
			return nil, false, nil
		}
		hasAttempts = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("read trace: %w", err)
	}
	hasTasks := true
	if _, err := os.Stat(filepath.Join(dir, TasksFile)); errors.Is(err, fs.ErrNotExist) {
		if !hasAttempts {
			return openJobStream(dir, o.Batch)
		}
		hasTasks = false
	} else if err != nil {
		return nil, false, fmt.Errorf("read trace: %w", err)
	}
	t, jobErr, err := openJobs(dir, o.Batch, o.Visit)
	if err != nil {
		return nil, false, err
	}
	var tf *taskFile
	var convErr, taskErr, attErr error
	if hasTasks {
		if tf, convErr, taskErr, err = checkTasks(dir, t.Stream, o.Visit); err != nil {
			return nil, false, err
		}
	}
	var af *attemptFile
	if hasAttempts && convErr == nil {
		// Read stops at a task row's type before it reads the attempts.
		var visit func(*Job, []Task, []Attempt)
		if jobErr == nil && taskErr == nil {
			visit = o.JobAttempts // the tasks beside them are in order
		}
		if af, attErr, err = checkAttempts(dir, t.Stream, tf, visit); err != nil {
			return nil, false, err
		}
	}
	// Read's order: the rows' types as they are converted, then
	// Trace.Validate's jobs, then its tasks, then its attempts.
	if err := cmpOr(convErr, jobErr, taskErr, attErr); err != nil {
		return nil, false, err
	}
	t.Stream.tasks, t.Stream.attempts = tf, af
	return t, true, nil
}

// StreamOptions are optional settings of OpenTaskStream.
type StreamOptions struct {
	// Visit is called with each job (k nil), then each task (j nil), in
	// trace order, as they are read and checked.
	Visit func(j *Job, k *Task)
	// Attempts streams a directory's attempts.parquet too (JobStream.
	// OpenAttempts, EachAttempt) rather than leave it to Read: for a caller
	// that reads the attempts through the stream only, never Trace.Attempts.
	Attempts bool
	// JobAttempts, with Attempts, is called with each job that has
	// attempts, in trace order, with its tasks (their JobID, TaskID and
	// Type only, as JobStream.OpenAttemptKeys hands them out; nil without
	// a tasks.parquet) and its attempts, as the attempts are checked, so
	// that a caller that needs each job's attempts beside its tasks (the
	// jobs a lifecycle leaves out) need not read them again. The job and
	// the slices are valid until the next call. It is not called when the
	// jobs or tasks were found bad, nor after an attempt the check
	// refuses; what it was told is the trace's only when OpenTaskStream
	// succeeds.
	JobAttempts func(j *Job, tasks []Task, attempts []Attempt)
	// Batch is how many rows a batch of the stream's Parquet readers hand
	// out at most, for tests that cross batch boundaries with small traces;
	// 0, what every other caller passes, is 4,096.
	Batch int
}

// cmpOr is the first non-nil error.
func cmpOr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// checkTasks reads dir's tasks.parquet once beside the jobs of s, as Read
// reads and checks it. err is an error of the file (its rows, its
// metadata), which Read reports before any other; convErr is the first row
// whose type does not parse, taskErr the first task Trace.Validate refuses.
func checkTasks(dir string, s *JobStream, visit func(*Job, *Task)) (tf *taskFile, convErr, taskErr error, err error) {
	path := filepath.Join(dir, TasksFile)
	kv, err := parquetKeyValues(path, s.checked)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read trace: %w", err)
	}
	v := kv[MetaSchemaVersion]
	tf = &taskFile{path: path, old: schemaBefore(v, 2, 2), old23: schemaBefore(v, 2, 4), batch: s.batch, checked: s.checked}
	rows, err := tf.openRows()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read trace: %w", err)
	}
	defer rows.close()
	var each func(*Task)
	if visit != nil {
		each = func(k *Task) { visit(nil, k) }
	}
	n, convErr, taskErr, err := checkRows(dir, path, rows, &taskCheck{rowCheck[Task]{s: s}}, each)
	if err != nil {
		return nil, nil, nil, err
	}
	tf.n = n
	var m Meta
	if err := decodeMeta(kv, &m); err != nil {
		return nil, nil, nil, fmt.Errorf("read trace: %s: %w", path, err)
	}
	return tf, convErr, taskErr, nil
}

// taskCheck checks tasks in file order as Trace.Validate does, against the
// jobs read beside them (rowCheck).
type taskCheck struct{ rowCheck[Task] }

// check is Trace.Validate's check of task i, k, given the tasks before it.
func (v *taskCheck) check(i int, k *Task) error {
	found, known, err := v.seek(k.JobID)
	if err != nil {
		return err
	}
	if !known {
		return fmt.Errorf("task %d (%q): job %q is not in the trace", i, k.TaskID, k.JobID)
	}
	if err := checkTaskInts(k); err != nil {
		return fmt.Errorf("task %d (%q): %w", i, k.TaskID, err)
	}
	if len(k.PreferredRacks) != 0 && len(k.PreferredRacks) != len(k.PreferredHosts) {
		return fmt.Errorf("task %d (%q): %d preferred racks for %d preferred hosts: want as many or none",
			i, k.TaskID, len(k.PreferredRacks), len(k.PreferredHosts))
	}
	if !found {
		return fmt.Errorf("task %d (%q): out of order: tasks must be sorted by job, type (maps first), index (call Trace.Sort)", i, k.TaskID)
	}
	if v.prev != nil {
		switch c := compareTaskInJob(v.prev, k); {
		case c == 0:
			return fmt.Errorf("task %d (%q): duplicate %s %d of job %q", i, k.TaskID, k.Type, k.Index, k.JobID)
		case c > 0:
			return fmt.Errorf("task %d (%q): out of order: tasks must be sorted by job, type (maps first), index (call Trace.Sort)", i, k.TaskID)
		}
	}
	v.keep(k)
	return nil
}

// compareTaskInJob is compareTasks of two tasks of one job.
func compareTaskInJob(a, b *Task) int {
	switch {
	case a.Type != b.Type:
		if a.Type < b.Type {
			return -1
		}
		return 1
	case a.Index < b.Index:
		return -1
	case a.Index > b.Index:
		return 1
	}
	return 0
}

// openRows opens the rows of tf, converted to the current schema's TaskRow
// and then to tasks; close them.
func (tf *taskFile) openRows() (*rowReader[Task], error) {
	if tf.old {
		return openRowReader(tf.path, tf.batch, tf.checked, func(r *taskRowV21) converted[Task] { row := r.row(); return convert(row.task()) })
	}
	if tf.old23 {
		return openRowReader(tf.path, tf.batch, tf.checked, func(r *taskRowV23) converted[Task] { row := r.row(); return convert(row.task()) })
	}
	return openRowReader(tf.path, tf.batch, tf.checked, func(r *TaskRow) converted[Task] { return convert(r.task()) })
}

// cursor opens a cursor on the tasks of tf; close it. It hands out tasks
// with no empty preferred hosts or racks (nil), a job's tasks in a slice
// sized for the maps and reduces the job says it has (at most 4,096).
func (tf *taskFile) cursor() (*rowCursor[Task], error) {
	rows, err := tf.openRows()
	if err != nil {
		return nil, err
	}
	return tf.cursorOn(rows), nil
}

// cursorOn is the cursor of tf that reads rows (cursor, keyCursor).
func (tf *taskFile) cursorOn(rows *rowReader[Task]) *rowCursor[Task] {
	return &rowCursor[Task]{rows: rows, path: tf.path, kind: rowKind[Task]{
		name: "task",
		ids:  func(k *Task) (id, job string) { return k.TaskID, k.JobID },
		tidy: func(k *Task) {
			if len(k.PreferredHosts) == 0 {
				k.PreferredHosts = nil
			}
			if len(k.PreferredRacks) == 0 {
				k.PreferredRacks = nil
			}
		},
		size: func(j *Job) int { return min(max(int(j.NumMaps), 0)+max(int(j.NumReduces), 0), 4096) },
	}}
}

// taskKeyRow is the columns of a tasks.parquet row that say whose task it
// is and of which type: reading them alone costs a fraction of a whole row.
type taskKeyRow struct {
	JobID string `parquet:"job_id,dict"`
	Type  string `parquet:"type,dict"`
}

// columnValues reads one leaf column of a Parquet file's row groups, in
// order, a buffer of values at a time, and no other column: parquet-go's
// row readers read every column of a row when they convert it to fewer.
// A value's bytes are the page's: valid until the next call.
type columnValues struct {
	rgs   []parquet.RowGroup
	col   int // the leaf column's index
	rg    int // the next row group
	pages parquet.Pages
	vals  parquet.ValueReader
	buf   []parquet.Value
	pos   int
	eof   bool // the page's values are all in buf
}

// next is the next value, or io.EOF after the last.
func (c *columnValues) next() (*parquet.Value, error) {
	for c.pos == len(c.buf) {
		switch {
		case c.vals != nil && !c.eof:
			n, err := c.vals.ReadValues(c.buf[:cap(c.buf)])
			c.buf, c.pos = c.buf[:n], 0
			switch {
			case errors.Is(err, io.EOF):
				c.eof = true
			case err != nil:
				return nil, err
			case n == 0:
				return nil, errors.New("reader made no progress")
			}
		case c.pages != nil:
			pg, err := c.pages.ReadPage()
			if errors.Is(err, io.EOF) {
				c.pages.Close()
				c.pages, c.vals = nil, nil
				continue
			}
			if err != nil {
				return nil, err
			}
			c.vals, c.eof = pg.Values(), false
		case c.rg < len(c.rgs):
			c.pages = c.rgs[c.rg].ColumnChunks()[c.col].Pages()
			c.rg++
		default:
			return nil, io.EOF
		}
	}
	v := &c.buf[c.pos]
	c.pos++
	return v, nil
}

func (c *columnValues) close() {
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// countCursor counts the tasks of a tasks.parquet job by job, in file
// order, reading their job_id and type columns only (JobStream.OpenCounts).
type countCursor struct {
	f         *os.File
	job, typ  columnValues
	path      string
	rows      int64  // the footer's row count
	jobID     []byte // the next row's job id and type, when ok
	typeBytes []byte
	ok        bool
	i         int // rows read
	done      bool
}

// peek reads the next row's job id and type (ok), unless after the last:
// the footer's row count, as pqfile.Reader stops.
func (c *countCursor) peek() (err error) {
	if c.ok || c.done {
		return nil
	}
	if int64(c.i) == c.rows {
		c.done = true
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = parquetError(c.path, &pqfile.Error{Stage: pqfile.Panic, Err: fmt.Errorf("%v", p)})
		}
	}()
	j, err := c.job.next()
	t, terr := c.typ.next()
	switch {
	case err == nil && terr == nil:
		c.jobID, c.typeBytes, c.ok = j.ByteArray(), t.ByteArray(), true
		return nil
	case errors.Is(err, io.EOF) && errors.Is(terr, io.EOF):
		return parquetError(c.path, &pqfile.Error{Stage: pqfile.Count, Row: int64(c.i), Want: c.rows})
	case err == nil || errors.Is(err, io.EOF):
		err = terr // the type column's error
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = errors.New("columns job_id and type differ in length")
	}
	return parquetError(c.path, &pqfile.Error{Stage: pqfile.Rows, Err: err, Row: int64(c.i)})
}

// of counts the tasks ahead that name job id: the maps and reduces before
// its first other task (work), and all of them.
func (c *countCursor) of(id string) (work, all int, err error) {
	for {
		if err := c.peek(); err != nil {
			return 0, 0, err
		}
		if !c.ok || string(c.jobID) != id {
			return work, all, nil
		}
		typ, ok := ParseTaskType(string(c.typeBytes))
		if !ok {
			return 0, 0, fmt.Errorf("%s: row %d: type %q: want MAP, REDUCE, SETUP or CLEANUP", c.path, c.i, c.typeBytes)
		}
		if typ.IsWork() && work == all {
			work++
		}
		all++
		c.ok = false
		c.i++
	}
}

func (c *countCursor) close() {
	c.job.close()
	c.typ.close()
	c.f.Close()
}

// OpenCounts opens a cursor on the jobs that also counts each job's tasks
// (JobCursor.TaskCounts), reading only their job_id and type columns;
// without a tasks.parquet it is Open. Close it.
func (s *JobStream) OpenCounts() (*JobCursor, error) {
	c, err := s.Open()
	if err != nil || s.tasks == nil {
		return c, err
	}
	cc, err := openCounts(s.tasks.path, s.checked)
	if err != nil {
		c.Close()
		return nil, badInput{err}
	}
	c.counts = cc
	return c, nil
}

// openCounts opens the job_id and type columns of the tasks.parquet path.
func openCounts(path string, chk *pqfile.Checked) (*countCursor, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	pf, err := pqfile.OpenFile(f, size, pqfile.Options{Checked: chk})
	if err == nil {
		err = pqfile.SameLeaves(parquet.SchemaOf(new(taskKeyRow)), pf.Schema())
		if err != nil {
			err = &pqfile.Error{Stage: pqfile.Columns, Err: err}
		}
	}
	if err != nil {
		f.Close()
		return nil, parquetError(path, err)
	}
	jl, _ := pf.Schema().Lookup("job_id")
	tl, _ := pf.Schema().Lookup("type")
	rgs := pf.RowGroups()
	return &countCursor{f: f, path: path, rows: pf.NumRows(),
		job: columnValues{rgs: rgs, col: jl.ColumnIndex, buf: make([]parquet.Value, 0, 1024)},
		typ: columnValues{rgs: rgs, col: tl.ColumnIndex, buf: make([]parquet.Value, 0, 1024)}}, nil
}

// TaskCounts is, for a cursor opened with OpenCounts, the tasks of the job
// Next returned last: its maps and reduces ahead of its first setup or
// cleanup task (work), and all of them; 0, 0 otherwise.
func (c *JobCursor) TaskCounts() (work, all int) { return c.work, c.all }

// OpenTasks opens a cursor on the jobs that also hands out each job's tasks
// (JobCursor.Tasks); without a tasks.parquet it is Open. Close it.
func (s *JobStream) OpenTasks() (*JobCursor, error) {
	c, err := s.Open()
	if err != nil || s.tasks == nil {
		return c, err
	}
	return openBeside(c, &c.tasks, s.tasks.cursor)
}

// Tasks is the tasks of the job Next returned last, in trace order (maps,
// reduces, setup, cleanup), in a slice of their own; nil when it has none
// or the cursor was not opened with OpenTasks.
func (c *JobCursor) Tasks() []Task { return c.cur }

// EachTask calls fn with every task, in file order, with its position; fn
// may keep t. An error of fn stops the read and is returned as it is.
func (s *JobStream) EachTask(fn func(i int, t *Task) error) error {
	if s.tasks == nil {
		return nil
	}
	return eachRow(s.tasks.cursor, fn)
}

// badInput marks an error of a streamed trace's content, found as it is
// read: errors.Is(err, ErrBadInput) holds, and the message is err's.
type badInput struct{ err error }

func (e badInput) Error() string        { return e.err.Error() }
func (e badInput) Unwrap() error        { return e.err }
func (e badInput) Is(target error) bool { return target == ErrBadInput }
