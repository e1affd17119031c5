package trace

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/internal/pqfile"
)

// JobStream is the jobs of a job-level trace directory (a jobs.parquet and
// no tasks.parquet or attempts.parquet), read from the file a batch of rows
// at a time whenever they are wanted (Each, Open) instead of held: a month
// at FB-2010's rates is 733,260 jobs, 185 MB in memory (252 bytes a job).
// Opened by OpenTaskStream, it reads the directory's tasks.parquet beside
// the jobs (HasTasks; taskstream.go), and with StreamOptions.Attempts its
// attempts.parquet too (HasAttempts; attemptstream.go). A Trace with Stream set has no Jobs,
// Tasks or Attempts (OpenJobStream, OpenTaskStream).
type JobStream struct {
	path    string
	version string // the file's schema version, which picks its row type
	n       int    // its jobs (rows)
	batch   int    // rows a batch of its readers (StreamOptions.Batch; 0 is 4,096)
	// checked runs the bounds check of its files (and of its tasks' and
	// attempts') once per version of each: every pass opens them anew.
	checked *pqfile.Checked
	tasks   *taskFile // the tasks.parquet read beside it (OpenTaskStream), or nil
	// attempts is the attempts.parquet read beside it (OpenTaskStream with
	// StreamOptions.Attempts), or nil.
	attempts *attemptFile
}

// Len is the number of jobs.
func (s *JobStream) Len() int { return s.n }

// Path is the jobs.parquet the jobs are read from.
func (s *JobStream) Path() string { return s.path }

// OpenJobStream opens the trace directory dir for streaming when it holds a
// jobs.parquet and neither a tasks.parquet nor an attempts.parquet; ok is
// false, with nothing read, otherwise (Read it whole then). It reads the
// jobs once, checking what Read checks (the schema version, the columns,
// every job as Trace.Validate does) and failing with Read's errors, but
// holds none of them: the Trace it returns has its Meta and Stream set, and
// no Jobs. Duplicate job ids are found from a 64-bit hash of each id (16
// bytes a job while it checks), confirmed on the ids themselves.
func OpenJobStream(dir string) (t *Trace, ok bool, err error) {
	return openJobStream(dir, 0)
}

// openJobStream is OpenJobStream with its readers' batch rows (0: 4,096).
func openJobStream(dir string, batch int) (t *Trace, ok bool, err error) {
	for _, f := range []string{TasksFile, AttemptsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return nil, false, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, false, fmt.Errorf("read trace: %w", err)
		}
	}
	t, jobErr, err := openJobs(dir, batch, nil)
	if err == nil {
		err = jobErr
	}
	if err != nil {
		return nil, false, err
	}
	return t, true, nil
}

// openJobs reads dir's jobs.parquet once, as OpenJobStream does, and
// returns the trace streaming it. err is an error of the file (its rows, its
// metadata), which Read reports before any other; jobErr is the first job
// Trace.Validate refuses, which Read reports after the other files' errors.
// visit, if not nil, is called with every job as it is read; batch is the
// rows a batch of the stream's readers (StreamOptions.Batch).
func openJobs(dir string, batch int, visit func(*Job, *Task)) (t *Trace, jobErr, err error) {
	s := &JobStream{path: filepath.Join(dir, JobsFile), batch: batch, checked: new(pqfile.Checked)}
	kv, err := parquetKeyValues(s.path, s.checked)
	if err != nil {
		return nil, nil, fmt.Errorf("read trace: %w", err)
	}
	s.version = kv[MetaSchemaVersion]
	s.n = -1      // Each counts the rows
	var bad error // the first job Validate refuses for other than a duplicate id
	badAt := -1
	type idHash struct {
		h uint64
		i int32
	}
	var ids []idHash
	seed := maphash.MakeSeed()
	var prev Job
	n := 0
	err = s.Each(func(i int, j *Job) error {
		n++
		if visit != nil {
			visit(j, nil)
		}
		if badAt < 0 {
			switch {
			case j.ID == "":
				bad, badAt = fmt.Errorf("job %d: empty job id", i), i
			default:
				ids = append(ids, idHash{maphash.String(seed, j.ID), int32(i)})
				if err := checkJobInts(j); err != nil {
					bad, badAt = fmt.Errorf("job %q: %w", j.ID, err), i
				} else if i > 0 && compareJobs(&prev, j) > 0 {
					bad, badAt = fmt.Errorf("job %q: out of order: jobs must be sorted by submit time then id (call Trace.Sort)", j.ID), i
				}
			}
		}
		prev = *j
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read trace: %w", err)
	}
	s.n = n
	t = &Trace{Stream: s}
	if err := decodeMeta(kv, &t.Meta); err != nil {
		return nil, nil, fmt.Errorf("read trace: %s: %w", s.path, err)
	}
	// The first job whose id an earlier job has, among those up to the
	// first other error (a duplicate is reported before a job's other
	// faults, an empty id before it).
	slices.SortFunc(ids, func(a, b idHash) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	want := map[int]bool{} // jobs whose id hash another's
	for k := 1; k < len(ids); k++ {
		if ids[k].h == ids[k-1].h {
			want[int(ids[k-1].i)], want[int(ids[k].i)] = true, true
		}
	}
	ids = nil
	if len(want) > 0 {
		seen := map[string]bool{}
		dup := -1
		var dupID string
		err := s.Each(func(i int, j *Job) error {
			if !want[i] {
				return nil
			}
			if seen[j.ID] {
				dup, dupID = i, j.ID
				return errStop
			}
			seen[j.ID] = true
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return nil, nil, fmt.Errorf("read trace: %w", err)
		}
		if dup >= 0 && (badAt < 0 || dup <= badAt) {
			return t, fmt.Errorf("read trace %s: job %d: duplicate job id %q", dir, dup, dupID), nil
		}
	}
	if bad != nil {
		return t, fmt.Errorf("read trace %s: %w", dir, bad), nil
	}
	return t, nil, nil
}

// errStop ends an Each early.
var errStop = errors.New("stop")

// Each calls fn with every job, in file order, with its position; fn may keep
// j. An error of fn stops the read and is returned as it is.
func (s *JobStream) Each(fn func(i int, j *Job) error) error {
	c, err := s.Open()
	if err != nil {
		return err
	}
	defer c.Close()
	for i := 0; ; i++ {
		j, err := c.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(i, j); err != nil {
			return err
		}
	}
}

// JobCursor reads a JobStream's jobs in file order, one batch of rows
// (4,096) at a time (JobStream.Open).
type JobCursor struct {
	f     *os.File
	next  func() (*Job, error)
	done  func() error
	tasks *rowCursor[Task] // the job's tasks beside it (OpenTasks), or nil
	cur   []Task           // the tasks of the job Next returned last
	// counts counts the job's tasks beside it (OpenCounts), or is nil;
	// work and all are the last job's counts.
	counts    *countCursor
	work, all int
	// attempts hands out the job's attempts beside it (OpenAttempts), or
	// is nil; curAttempts are the last job's.
	attempts    *rowCursor[Attempt]
	curAttempts []Attempt
}

// Open opens a cursor on the jobs; Close it.
func (s *JobStream) Open() (*JobCursor, error) {
	f, size, err := openSized(s.path)
	if err != nil {
		return nil, err
	}
	c := &JobCursor{f: f}
	switch v := s.version; {
	case v == "2" || v == "2.0":
		err = openRows(c, s.path, size, s.batch, s.checked, func(r *jobRowV2) Job { row := r.row(); return row.job() })
	case strings.HasPrefix(v, "1.") || v == "1":
		err = openRows(c, s.path, size, s.batch, s.checked, func(r *jobRowV1) Job { row := r.row(); return row.job() })
	case schemaBefore(v, 2, 3):
		err = openRows(c, s.path, size, s.batch, s.checked, func(r *jobRowV22) Job { row := r.row(); return row.job() })
	case schemaBefore(v, 2, 5):
		err = openRows(c, s.path, size, s.batch, s.checked, func(r *jobRowV24) Job { row := r.row(); return row.job() })
	default:
		err = openRows(c, s.path, size, s.batch, s.checked, (*JobRow).job)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

// openRows sets c to read rows of type R and convert each with conv.
func openRows[R any](c *JobCursor, path string, size int64, batch int, chk *pqfile.Checked, conv func(*R) Job) error {
	next, done, err := convertedRows(c.f, path, size, batch, chk, conv)
	if err != nil {
		return err
	}
	c.next = func() (*Job, error) {
		j := new(Job) // one allocation a job: a job kept does not keep its batch
		var err error
		*j, err = next()
		if err != nil {
			return nil, err
		}
		return j, nil
	}
	c.done = done
	return nil
}

// convertedRows reads the rows of type R of the Parquet file f (size bytes,
// named path in errors) batch by batch and converts each with conv: next
// returns the next converted row, or io.EOF after the last; errors name the
// file. done closes the reader (not f). batch is the rows of a batch
// (pqfile.Options.Batch: 0 is 4,096).
func convertedRows[R, T any](f io.ReaderAt, path string, size int64, batch int, chk *pqfile.Checked, conv func(*R) T) (next func() (T, error), done func() error, err error) {
	rd, err := pqfile.NewReader[R](f, size, pqfile.Options{Columns: pqfile.SameLeaves, Batch: batch, Checked: chk})
	if err != nil {
		return nil, nil, parquetError(path, err)
	}
	var rows []R
	pos := 0
	next = func() (T, error) {
		if pos == len(rows) {
			var err error
			if rows, err = rd.Next(); err != nil {
				var zero T
				if errors.Is(err, io.EOF) {
					return zero, io.EOF
				}
				return zero, parquetError(path, err)
			}
			pos = 0
		}
		v := conv(&rows[pos])
		pos++
		return v, nil
	}
	return next, rd.Close, nil
}

// Next returns the next job, or io.EOF after the last; errors name the file
// and the row, and are bad input (errors.Is(err, ErrBadInput)). A cursor
// opened with OpenTasks reads the job's tasks with it (Tasks).
func (c *JobCursor) Next() (*Job, error) {
	c.cur, c.work, c.all, c.curAttempts = nil, 0, 0, nil
	j, err := c.next()
	switch {
	case c.attempts != nil && errors.Is(err, io.EOF):
		if c.tasks != nil {
			if e := c.tasks.end(); e != nil {
				err = e
			}
		}
		if e := c.attempts.end(); e != nil && errors.Is(err, io.EOF) {
			err = e
		}
	case c.attempts != nil && err == nil:
		if c.tasks != nil {
			c.cur, err = c.tasks.of(j)
		}
		if err == nil {
			c.curAttempts, err = c.attempts.of(j)
		}
	case c.tasks != nil && errors.Is(err, io.EOF):
		if e := c.tasks.end(); e != nil {
			err = e
		}
	case c.tasks != nil && err == nil:
		c.cur, err = c.tasks.of(j)
	case c.counts != nil && errors.Is(err, io.EOF):
		if e := c.counts.peek(); e != nil {
			err = e
		} else if c.counts.ok {
			err = fmt.Errorf("%s: row %d: job %q is not in the trace after the jobs before it (was the file changed?)", c.counts.path, c.counts.i, c.counts.jobID)
		}
	case c.counts != nil && err == nil:
		c.work, c.all, err = c.counts.of(j.ID)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, badInput{err}
	}
	return j, err
}

// Close closes the files.
func (c *JobCursor) Close() error {
	if c.attempts != nil {
		c.attempts.close()
		c.attempts = nil
	}
	if c.tasks != nil {
		c.tasks.close()
		c.tasks = nil
	}
	if c.counts != nil {
		c.counts.close()
		c.counts = nil
	}
	c.done()
	return c.f.Close()
}

// NumJobs is the number of jobs of t, held or streamed.
func (t *Trace) NumJobs() int {
	if t.Stream != nil {
		return t.Stream.Len()
	}
	return len(t.Jobs)
}
