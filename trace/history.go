package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
)

// HistoryOptions controls the job-history readers (.jhist, Hadoop 1 history logs,
// Rumen, SLS) and the directory reader built on them.
type HistoryOptions struct {
	// Strict turns every damaged record (a record that does not parse, an event the
	// schema cannot decode, a file cut in the middle of a record) into an error.
	// Without it such records are skipped, reported through Warn, and the rest of
	// the file is kept.
	Strict bool
	// Topology maps host names to rack names. It fills the racks of preferred hosts
	// and of attempts that the input itself does not give (.jhist split locations,
	// rack-less Hadoop 1 host names). Racks the input gives win.
	Topology map[string]string
	// Warn receives every problem that did not stop the reading, in input order.
	// Nil drops them.
	Warn func(Diagnostic)
	// KeepTrackerClocks keeps a Hadoop 1 history's attempt times on their
	// TaskTrackers' clocks as recorded. Without it the hosts whose clocks are
	// clearly off the JobTracker's have their attempts moved onto the
	// JobTracker's clock (correctTrackerClocks), a warning names them, and
	// Meta.Options["tracker_clocks_corrected"] counts them.
	KeepTrackerClocks bool
}

// Diagnostic is a problem found in an input that did not stop its reading: a
// skipped record or a disagreement between a file's summary and its records.
type Diagnostic struct {
	File   string // input file, as named by the caller
	Line   int64  // 1-based line of the problem, 0 if not line-based
	Record int64  // 1-based record (event, JSON object) number, 0 if unknown
	Offset int64  // byte offset into the (decompressed) file, -1 if unknown
	Msg    string
}

// String renders the diagnostic as "file:line: msg" (with "record N: " before
// the message when both are known), "file: record N at byte B: msg" or
// "file: byte B: msg" — the form of ParseError.
func (d Diagnostic) String() string { return d.parseError(nil).Error() }

// parseError returns the *ParseError for bad input at the diagnostic's place,
// followed by the cause when there is one.
func (d Diagnostic) parseError(cause error) *ParseError {
	msg := d.Msg
	if cause != nil {
		if msg == "" {
			msg = cause.Error()
		} else {
			msg += ": " + cause.Error()
		}
	}
	var loc string
	switch {
	case d.Line > 0 && d.Record > 0:
		loc = fmt.Sprintf("record %d: ", d.Record)
	case d.Line > 0:
	case d.Record > 0 && d.Offset >= 0:
		loc = fmt.Sprintf("record %d at byte %d: ", d.Record, d.Offset)
	case d.Record > 0:
		loc = fmt.Sprintf("record %d: ", d.Record)
	case d.Offset >= 0:
		loc = fmt.Sprintf("byte %d: ", d.Offset)
	}
	return &ParseError{File: d.File, Line: int(d.Line), Msg: loc + msg}
}

// isReadFailure reports whether an error came from the underlying reader (file
// system, network, corrupt compressed data) rather than from the content.
func isReadFailure(err error) bool {
	var pathErr *fs.PathError
	var errno syscall.Errno
	return errors.As(err, &pathErr) || errors.As(err, &errno) || errors.Is(err, ErrBadInput)
}

// readErrorOr classifies an error met while reading: a read failure is returned
// wrapped with the file name (system errors stay system errors, corrupt gzip
// data stays bad input); anything else is bad content at d's place.
func readErrorOr(d Diagnostic, err error) error {
	if isReadFailure(err) {
		return fmt.Errorf("%s: read: %w", d.File, err)
	}
	return d.parseError(err)
}

// maxDiagnosticsPerFile bounds what one hostile file can make a reader keep.
const maxDiagnosticsPerFile = 200

// diagSink collects the diagnostics of one file, bounded.
type diagSink struct {
	file    string
	strict  bool
	list    []Diagnostic
	dropped int
	skipped int    // records skipped
	first   string // the first skipped record's place and reason
	noteErr *ParseError
}

func newDiagSink(file string, strict bool) *diagSink {
	return &diagSink{file: file, strict: strict}
}

// note records a problem that never fails the read (a disagreement between a
// summary and the records, a missing optional value).
// Under Strict the first note becomes the error of the read (strictErr).
func (s *diagSink) note(line, record, offset int64, format string, args ...any) {
	d := Diagnostic{File: s.file, Line: line, Record: record, Offset: offset, Msg: fmt.Sprintf(format, args...)}
	if s.strict && s.noteErr == nil {
		s.noteErr = d.parseError(nil)
	}
	if len(s.list) >= maxDiagnosticsPerFile {
		s.dropped++
		return
	}
	s.list = append(s.list, d)
}

// strictErr returns, under Strict, the first note as an error: Strict turns
// every warning into an error, inconsistencies and incomplete jobs included.
func (s *diagSink) strictErr() error {
	if s.noteErr == nil {
		return nil
	}
	return s.noteErr
}

// skip records a damaged record that was skipped; under Strict it returns the
// error that stops the read instead.
func (s *diagSink) skip(line, record, offset int64, err error) error {
	d := Diagnostic{File: s.file, Line: line, Record: record, Offset: offset, Msg: err.Error()}
	if s.strict {
		return d.parseError(nil)
	}
	if s.skipped++; s.skipped == 1 {
		s.first = d.String()
	}
	if len(s.list) >= maxDiagnosticsPerFile {
		s.dropped++
		return nil
	}
	s.list = append(s.list, d)
	return nil
}

// whyNone explains a file that gave no job: how many records were skipped
// and why the first was; "" when none was.
func (s *diagSink) whyNone() string {
	switch s.skipped {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(": its only record was skipped (%s)", s.first)
	}
	return fmt.Sprintf(": all %d records were skipped; the first: %s", s.skipped, s.first)
}

// all returns the diagnostics, with a closing note when some were dropped.
func (s *diagSink) all() []Diagnostic {
	if s.dropped == 0 {
		return s.list
	}
	return append(s.list, Diagnostic{File: s.file, Offset: -1,
		Msg: fmt.Sprintf("%d more problems not shown", s.dropped)})
}

// emit hands the diagnostics to opt.Warn.
func (opt HistoryOptions) emit(ds []Diagnostic) {
	if opt.Warn == nil {
		return
	}
	for _, d := range ds {
		opt.Warn(d)
	}
}

// taskKind is the type of a task as a history names it, setup and cleanup
// included (they are dropped from the trace).
type taskKind uint8

const (
	kindUnknown taskKind = iota
	kindMap
	kindReduce
	kindSetup
	kindCleanup
)

// parseTaskKind reads MAP, REDUCE, SETUP, CLEANUP (any case).
func parseTaskKind(s string) taskKind {
	switch strings.ToUpper(s) {
	case "MAP":
		return kindMap
	case "REDUCE":
		return kindReduce
	case "SETUP", "JOB_SETUP":
		return kindSetup
	case "CLEANUP", "JOB_CLEANUP", "TASK_CLEANUP":
		return kindCleanup
	}
	return kindUnknown
}

// counters holds the few counters the trace keeps; Unknown when absent.
type counters struct {
	hdfsRead           int64
	hdfsWritten        int64
	fileWritten        int64
	mapOutputMaterial  int64
	mapOutputBytes     int64
	reduceShuffleBytes int64
	mapInputBytes      int64 // MAP_INPUT_BYTES: what the map's record reader read
}

func newCounters() counters {
	return counters{Unknown, Unknown, Unknown, Unknown, Unknown, Unknown, Unknown}
}

// set stores one counter, keyed on group name and counter name (never on display
// names, which change between Hadoop versions).
func (c *counters) set(group, name string, v int64) {
	switch group {
	case "org.apache.hadoop.mapreduce.FileSystemCounter", "FileSystemCounters":
		switch name {
		case "HDFS_BYTES_READ":
			c.hdfsRead = v
		case "HDFS_BYTES_WRITTEN":
			c.hdfsWritten = v
		case "FILE_BYTES_WRITTEN":
			c.fileWritten = v
		}
	case "org.apache.hadoop.mapreduce.TaskCounter", "org.apache.hadoop.mapred.Task$Counter":
		switch name {
		case "MAP_OUTPUT_MATERIALIZED_BYTES":
			c.mapOutputMaterial = v
		case "MAP_OUTPUT_BYTES":
			c.mapOutputBytes = v
		case "REDUCE_SHUFFLE_BYTES":
			c.reduceShuffleBytes = v
		case "MAP_INPUT_BYTES":
			c.mapInputBytes = v
		}
	}
}

// known reports whether any counter was set.
func (c counters) known() bool { return c != newCounters() }

// firstKnown returns the first argument that is not Unknown.
func firstKnown(vs ...int64) int64 {
	for _, v := range vs {
		if v >= 0 {
			return v
		}
	}
	return Unknown
}

// attemptAcc accumulates one task attempt.
type attemptAcc struct {
	id            string
	status        string // SUCCEEDED, FAILED, KILLED or "" (no end record)
	start, finish int64
	shuffleFinish int64
	sortFinish    int64
	host, rack    string
	locality      string
	counters      counters
}

// taskAcc accumulates one task.
type taskAcc struct {
	id                string
	kind              taskKind
	start, finish     int64
	status            string // SUCCEEDED, FAILED, KILLED or "" (no end record)
	ended             bool
	splitHosts        []string
	splitRacks        []string
	successfulAttempt string
	counters          counters
	attempts          []*attemptAcc
	byID              map[string]*attemptAcc
	// Rumen gives byte counts per task already derived from counters.
	directInput, directOutput, directShuffle int64
}

// jobAcc accumulates what one history says about one job.
type jobAcc struct {
	job                      Job
	ended                    bool // an end record was seen
	declaredMaps             int32
	declaredReduces          int32
	submitAlt                int64 // JobInfoChange.submitTime, cross-checked
	counters                 counters
	tasks                    map[string]*taskAcc
	order                    []*taskAcc
	endStatusRaw, queueFinal string
	// assignStarts says that a task's recorded start is the JobTracker
	// assigning its first attempt (Hadoop 1 histories and Rumen traces of
	// them), so that a task's launch lag is known (taskAcc.launchLag); a
	// .jhist's task start is when the ApplicationMaster scheduled it, before
	// any container was allocated.
	assignStarts bool
}

func newJobAcc(id string) *jobAcc {
	j := NewJob(id)
	return &jobAcc{job: j, declaredMaps: Unknown, declaredReduces: Unknown,
		submitAlt: Unknown, counters: newCounters(), tasks: map[string]*taskAcc{}}
}

// maxTasksPerJob and maxAttemptsPerTask bound what hostile input can make a reader
// hold per job; real jobs stay far below (Hadoop's own limit on tasks per job is
// configurable but defaults to unlimited; the largest known jobs have ~10^6 tasks).
const (
	maxTasksPerJob     = 10_000_000
	maxAttemptsPerTask = 10_000
)

// task returns the task with this id, creating it.
func (j *jobAcc) task(id string) (*taskAcc, error) {
	if t, ok := j.tasks[id]; ok {
		return t, nil
	}
	if len(j.order) >= maxTasksPerJob {
		return nil, fmt.Errorf("job %s has more than %d tasks", j.job.ID, maxTasksPerJob)
	}
	t := &taskAcc{id: id, start: Unknown, finish: Unknown, counters: newCounters(),
		directInput: Unknown, directOutput: Unknown, directShuffle: Unknown}
	j.tasks[id] = t
	j.order = append(j.order, t)
	return t, nil
}

// attempt returns the attempt with this id, creating it.
func (t *taskAcc) attempt(id string) (*attemptAcc, error) {
	if a, ok := t.byID[id]; ok {
		return a, nil
	}
	if len(t.attempts) >= maxAttemptsPerTask {
		return nil, fmt.Errorf("task %s has more than %d attempts", t.id, maxAttemptsPerTask)
	}
	if t.byID == nil {
		t.byID = map[string]*attemptAcc{}
	}
	a := &attemptAcc{id: id, start: Unknown, finish: Unknown, shuffleFinish: Unknown,
		sortFinish: Unknown, counters: newCounters()}
	t.byID[id] = a
	t.attempts = append(t.attempts, a)
	return a, nil
}

// normStatus maps the status spellings of all formats to the trace's.
func normStatus(s string) string {
	switch strings.ToUpper(s) {
	case "SUCCEEDED", "SUCCESS":
		return StatusSucceeded
	case "FAILED", "ERROR":
		return StatusFailed
	case "KILLED":
		return StatusKilled
	}
	return ""
}

// taskIndex returns the number at the end of a task id (task_…_m_000005 → 5).
func taskIndex(id string) (int32, bool) {
	i := strings.LastIndexByte(id, '_')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(id[i+1:], 10, 32)
	if err != nil || n < 0 {
		return 0, false
	}
	return int32(n), true
}

// kindFromID guesses a task's type from the _m_/_r_ in its id; only used when no
// record names the type.
func kindFromID(id string) taskKind {
	switch {
	case strings.Contains(id, "_m_"):
		return kindMap
	case strings.Contains(id, "_r_"):
		return kindReduce
	}
	return kindUnknown
}

// jobIDFromTask turns task_X_Y_m_N or attempt_X_Y_m_N_K into job_X_Y.
func jobIDFromTask(id string) string {
	var rest string
	switch {
	case strings.HasPrefix(id, "task_"):
		rest = id[len("task_"):]
	case strings.HasPrefix(id, "attempt_"):
		rest = id[len("attempt_"):]
	default:
		return ""
	}
	parts := strings.SplitN(rest, "_", 3)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" {
		return ""
	}
	return "job_" + parts[0] + "_" + parts[1]
}

// splitRackHost splits "/rack/host" into rack and host. A bare "host" has no
// rack; a single component "/host" is a host without rack. Deeper paths
// ("/dc/rack/host") keep everything before the last component as the rack.
func splitRackHost(s string) (rack, host string) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "/") {
		return "", s
	}
	i := strings.LastIndexByte(s, '/')
	if i == 0 {
		return "", s[1:]
	}
	return s[:i], s[i+1:]
}

// normRack returns a rack name with a leading slash ("default-rack" →
// "/default-rack"), the form Hadoop uses for rack paths; "" stays "".
func normRack(r string) string {
	if r == "" || strings.HasPrefix(r, "/") {
		return r
	}
	return "/" + r
}

// trackerHost returns the host of a tracker name: the text after an optional
// "tracker_" and before the first ':'.
func trackerHost(s string) string {
	s = strings.TrimPrefix(s, "tracker_")
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '/'); i >= 0 { // localhost/127.0.0.1 form
		s = s[:i]
	}
	return s
}

// parseInt64 parses a decimal integer, allowing surrounding spaces.
func parseInt64(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", clip(s, 30))
	}
	return n, nil
}
