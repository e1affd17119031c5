package replay

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/internal/summary"
	"github.com/tracereplay/tracereplay/trace"
)

// RunWriter streams one run's results into a run directory while the run goes
// (Options.Out), so that memory holds the run's active state rather than every
// job, task, timeline sample and per-node interval of the run: job rows, task
// rows, timeline samples and node_net rows go to the Parquet writers in
// batches, each of which keeps at most one row group (trace.MaxRowsPerRowGroup
// rows, compressed) in memory. jobs.parquet is in job order: a job's row is
// written once every job before it has finished, and only the rows of jobs
// that finished while an earlier job was still running wait in memory
// (jobWait). Nodes and the summary are written by WriteRun at the end; the
// run summary's per-job sums are taken as jobs finish (runAcc).
// Files are built under temporary names and renamed into place by WriteRun;
// the bytes are those WriteRun writes for the same results held in memory.
type RunWriter struct {
	dir      string
	policy   string // the run's policy name, copied into every row
	tasks    stream[TaskResult, TaskRow]
	timeline stream[TimelineSample, TimelineRow]
	nodeNet  stream[NodeNetSample, NodeNetSample]
	queues   stream[QueueSample, QueueSample]
	links    stream[LinkSample, LinkSample]
	jobs     stream[JobResult, JobRow]
	err      error // the first write error; later rows are dropped
	done     bool  // finish ran

	// The jobs of a run that streams them (jobsOn: Run with Out and without
	// Options.Alone, which amends every result at the end).
	jobsOn  bool
	jobNext int32        // the first job (JobIndex) not yet written
	jobWait jobHeap      // finished jobs after jobNext, by JobIndex
	maxWait int          // the most jobs jobWait held at once
	run     runAcc       // the run summary's per-job sums, in finish order
	stats   *summary.Acc // the jobs' statistics and digest, in job order (Options.JobStats)
}

// NewRunWriter returns a RunWriter into dir, which it creates if needed.
func NewRunWriter(dir string) (*RunWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write results: %w", err)
	}
	w := &RunWriter{dir: dir}
	w.tasks = stream[TaskResult, TaskRow]{path: filepath.Join(dir, TasksFile), conv: (*TaskResult).Row}
	w.timeline = stream[TimelineSample, TimelineRow]{path: filepath.Join(dir, TimelineFile),
		conv: (*TimelineSample).Row, opt: trace.ParquetOptions{SortedBy: []string{"time_us"}}}
	w.nodeNet = stream[NodeNetSample, NodeNetSample]{path: filepath.Join(dir, NodeNetFile),
		conv: identity[NodeNetSample], opt: trace.ParquetOptions{SortedBy: []string{"time_us", "node"}}}
	w.queues = stream[QueueSample, QueueSample]{path: filepath.Join(dir, QueuesFile),
		conv: identity[QueueSample], opt: trace.ParquetOptions{SortedBy: []string{"time_us", "queue"}}}
	w.links = stream[LinkSample, LinkSample]{path: filepath.Join(dir, LinksFile),
		conv: identity[LinkSample], opt: trace.ParquetOptions{SortedBy: []string{"time_us"}}}
	// jobs.parquet's one row group (up to trace.MaxRowsPerRowGroup jobs) is
	// built over the whole run: its compressed pages wait on disk (40.7 MB
	// of heap for 700,000 of FB-2010's rows in memory, 3.6 MB spilled).
	w.jobs = stream[JobResult, JobRow]{path: filepath.Join(dir, JobsFile), conv: (*JobResult).Row,
		opt: trace.ParquetOptions{SortedBy: []string{"job_index"}, SpillDir: os.TempDir()}}
	return w, nil
}

func identity[T any](t *T) T { return *t }

func (w *RunWriter) addTask(t *TaskResult) {
	w.keep(w.tasks.add(t))
}

func (w *RunWriter) addSample(t *TimelineSample) {
	w.keep(w.timeline.add(t))
}

func (w *RunWriter) keep(err error) {
	if err != nil && w.err == nil {
		w.err = err
	}
}

// finish writes the files of res not yet streamed and completes the streamed
// ones.
func (w *RunWriter) finish(res *Result, meta map[string]string) error {
	if w.done {
		return fmt.Errorf("write results %s: the run's streamed files are already complete", w.dir)
	}
	w.done = true
	if w.err != nil {
		return w.err
	}
	// jobs.parquet records the results schema's version (its status column).
	jobMeta := maps.Clone(meta)
	if jobMeta == nil {
		jobMeta = map[string]string{}
	}
	jobMeta[results.MetaSchemaVersion] = results.SchemaVersion
	// The job rows go to the writer in batches, as the streamed files' do,
	// so that no second copy of every job's row (with its optional fields'
	// allocations) is held at the end of a long run: the same bytes as
	// trace.WriteParquetFile of all the rows. A run that streamed its jobs
	// has written all but those after a job that did not finish.
	if w.jobsOn {
		for len(w.jobWait) > 0 {
			r := w.jobWait.pop()
			w.writeJob(&r)
		}
		if w.err != nil {
			return w.err
		}
	} else {
		for i := range res.Jobs {
			if err := w.jobs.add(&res.Jobs[i]); err != nil {
				return err
			}
		}
	}
	if err := w.jobs.close(jobMeta, true); err != nil {
		return err
	}
	if err := w.timeline.close(meta, true); err != nil {
		return err
	}
	if err := w.tasks.close(meta, false); err != nil {
		return err
	}
	if err := trace.WriteParquetFile(filepath.Join(w.dir, NodesFile), res.Nodes, meta,
		trace.ParquetOptions{SortedBy: []string{"node"}}); err != nil {
		return err
	}
	if err := w.nodeNet.close(meta, false); err != nil {
		return err
	}
	if err := w.queues.close(meta, false); err != nil {
		return err
	}
	if err := w.links.close(meta, false); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res.Summary, "", "  ")
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return safeout.WriteFile(filepath.Join(w.dir, SummaryFile), append(b, '\n'))
}

// Abort removes the temporary files of the streams still open; the run
// directory keeps what was already complete.
func (w *RunWriter) Abort() {
	w.jobs.abort()
	w.tasks.abort()
	w.timeline.abort()
	w.nodeNet.abort()
	w.queues.abort()
	w.links.abort()
}

// streamBatch is how many rows a stream buffers before handing them to its
// Parquet writer.
const streamBatch = 4096

// stream writes rows of T, converted to the stored R, to one Parquet file,
// opened at the first row.
type stream[T, R any] struct {
	path string
	conv func(*T) R
	opt  trace.ParquetOptions
	// rowGroup, if positive, bounds a row group below trace.MaxRowsPerRowGroup
	// (tests, to see memory bounded on small runs).
	rowGroup int

	tmp  *safeout.TempFile
	pw   *parquet.GenericWriter[R]
	buf  []T
	rows []R
}

// add buffers a copy of *t and writes the batch when full.
func (s *stream[T, R]) add(t *T) error {
	if s.buf == nil {
		s.buf = make([]T, 0, streamBatch)
		s.rows = make([]R, 0, streamBatch)
	}
	s.buf = append(s.buf, *t)
	if len(s.buf) == streamBatch {
		return s.flush()
	}
	return nil
}

// flush writes the buffered rows.
func (s *stream[T, R]) flush() error {
	if s.tmp == nil {
		t, err := safeout.CreateTemp(s.path)
		if err != nil {
			return err
		}
		s.tmp = t
		opt := s.opt
		opt.MaxRowsPerRowGroup = s.rowGroup
		s.pw = trace.NewParquetWriter[R](t.File(), nil, opt)
	}
	if len(s.buf) == 0 {
		return nil
	}
	s.rows = s.rows[:0]
	for i := range s.buf {
		s.rows = append(s.rows, s.conv(&s.buf[i]))
	}
	_, err := s.pw.Write(s.rows)
	clear(s.rows) // drop the pointers into buf
	s.buf = s.buf[:0]
	if err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	return nil
}

// close writes what is buffered and puts the file in place with meta as its
// key/value metadata (sorted by key, as trace.WriteParquetFile stores it). A
// stream that got no row writes an empty file if always, else nothing.
func (s *stream[T, R]) close(meta map[string]string, always bool) error {
	if s.tmp == nil && len(s.buf) == 0 && !always {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		s.pw.SetKeyValueMetadata(k, meta[k])
	}
	if err := s.pw.Close(); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	err := s.tmp.Commit() // removes the temporary file on an error
	s.tmp, s.pw = nil, nil
	return err
}

// abort removes the stream's temporary file, if any.
func (s *stream[T, R]) abort() {
	if s.tmp != nil {
		s.tmp.Abort()
		s.tmp, s.pw = nil, nil
	}
}

// addTask records a task row: into Options.Out when streaming, else into the
// Result (summarise names the policy).
func (s *Sim) addTask(t TaskResult) {
	if w := s.opt.Out; w != nil {
		t.Policy = w.policyName(s)
		w.addTask(&t)
		return
	}
	s.res.Tasks = append(s.res.Tasks, t)
}

// addSample records a timeline sample, as addTask does a task row.
func (s *Sim) addSample(t TimelineSample) {
	if w := s.opt.Out; w != nil {
		t.Policy = w.policyName(s)
		w.addSample(&t)
		return
	}
	s.res.Timeline = append(s.res.Timeline, t)
}

// addNodeNet records a node_net row, as addTask does a task row.
func (s *Sim) addNodeNet(t NodeNetSample) {
	t.Policy = s.policyName()
	keepRow(s, t, func(w *RunWriter) *stream[NodeNetSample, NodeNetSample] { return &w.nodeNet }, &s.res.NodeNet)
}

// addQueue records a queues.parquet row, as addTask does a task row.
func (s *Sim) addQueue(t QueueSample) {
	t.Policy = s.policyName()
	keepRow(s, t, func(w *RunWriter) *stream[QueueSample, QueueSample] { return &w.queues }, &s.res.Queues)
}

// addLink records a links.parquet row, as addTask does a task row.
func (s *Sim) addLink(t LinkSample) {
	t.Policy = s.policyName()
	keepRow(s, t, func(w *RunWriter) *stream[LinkSample, LinkSample] { return &w.links }, &s.res.Links)
}

// keepRow records a row stored as it is: into its stream of Options.Out
// when the run streams, else into the Result's slice kept.
func keepRow[T any](s *Sim, row T, of func(*RunWriter) *stream[T, T], kept *[]T) {
	if w := s.opt.Out; w != nil {
		w.keep(of(w).add(&row))
		return
	}
	*kept = append(*kept, row)
}

// policyName is the run's policy name, asked of the policy once.
func (w *RunWriter) policyName(s *Sim) string {
	if w.policy == "" {
		w.policy = s.pol.Name()
	}
	return w.policy
}

// jobSink is where the run's job results go as jobs finish: the writer of
// Options.Out, unless the run replays every job alone at the end
// (Options.Alone), which amends the results after the run; nil otherwise
// (Result.Jobs).
func (s *Sim) jobSink() func(*JobResult) {
	w := s.opt.Out
	if w == nil || s.opt.Alone != nil {
		return nil
	}
	w.jobsOn = true
	w.run.init()
	if s.opt.JobStats {
		w.stats = &summary.Acc{}
	}
	return func(r *JobResult) {
		r.Policy = w.policyName(s)
		w.addJob(r)
	}
}

// startJobs has the writer stream the job results of a run that is not
// the simulator's (Observed) as jobSink does a simulated run's: sink takes
// each one, names its policy and writes it (addJob); stats keeps their
// statistics (Options.JobStats).
func (w *RunWriter) startJobs(policy string, stats bool) (sink func(*JobResult)) {
	w.jobsOn, w.policy = true, policy
	w.run.init()
	if stats {
		w.stats = &summary.Acc{}
	}
	return func(r *JobResult) {
		r.Policy = policy
		w.addJob(r)
	}
}

// addJob takes finished job r's result: counted in the run's sums, then
// written when every job before it has been, else kept in jobWait until
// then.
func (w *RunWriter) addJob(r *JobResult) {
	w.run.add(r)
	if r.JobIndex != w.jobNext {
		w.jobWait.push(*r)
		w.maxWait = max(w.maxWait, len(w.jobWait))
		return
	}
	w.writeJob(r)
	for len(w.jobWait) > 0 && w.jobWait[0].JobIndex == w.jobNext {
		x := w.jobWait.pop()
		w.writeJob(&x)
	}
}

// writeJob writes r, the next job row, and counts it in the statistics.
func (w *RunWriter) writeJob(r *JobResult) {
	if w.stats != nil {
		w.stats.Add(r)
	}
	w.keep(w.jobs.add(r))
	w.jobNext = r.JobIndex + 1
}

// jobHeap is a min-heap of job results by JobIndex.
type jobHeap []JobResult

func (h *jobHeap) push(r JobResult) {
	*h = append(*h, r)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p].JobIndex <= a[i].JobIndex {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *jobHeap) pop() JobResult {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a[n] = JobResult{} // drop its strings
	a = a[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1].JobIndex < a[c].JobIndex {
			c++
		}
		if a[i].JobIndex <= a[c].JobIndex {
			break
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
	*h = a
	return top
}

// JobStats returns the statistics and the digest of the run's jobs
// (summary.Compute, summary.Digest of Jobs). A run that streamed its jobs to
// Options.Out holds none: they were taken as the jobs were written, when
// Options.JobStats was set, and are an error otherwise.
func (r *Result) JobStats() (summary.Stats, string, error) {
	if w := r.out; w != nil && w.jobsOn {
		if w.stats == nil {
			return summary.Stats{}, "", fmt.Errorf("the run streamed its jobs to %s without Options.JobStats", w.dir)
		}
		return w.stats.Stats(), w.stats.Digest(), nil
	}
	return summary.Compute(r.Jobs), summary.Digest(r.Jobs), nil
}
