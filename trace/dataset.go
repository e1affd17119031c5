package trace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tracereplay/tracereplay/internal/safeout"
)

// File names inside a trace directory.
const (
	JobsFile     = "jobs.parquet"
	TasksFile    = "tasks.parquet"
	AttemptsFile = "attempts.parquet"
)

// Key/value metadata keys of trace files.
const (
	MetaSchemaVersion = "tracereplay.schema_version"
	MetaSourceFormat  = "tracereplay.source_format"
	MetaSources       = "tracereplay.sources" // JSON array of strings
	MetaOptions       = "tracereplay.options" // JSON object of strings, keys sorted
	MetaTool          = "tracereplay.tool"
)

// ErrNotTraceDir is wrapped by Write's error when the output directory exists
// and is not a trace directory ingest wrote (no ownership marker, or files the
// marker does not list); nothing has been changed then. It is
// safeout.ErrNotOwned.
var ErrNotTraceDir = safeout.ErrNotOwned

// TraceOwner marks the trace directories Write publishes.
var TraceOwner = safeout.Owner{Command: "ingest", Kind: "trace"}

// Write stores t as a trace directory: dir/jobs.parquet and, when t has tasks,
// dir/tasks.parquet and, when it has attempts, dir/attempts.parquet, all carrying the same key/value metadata (Meta, with the
// schema version always SchemaVersion).
//
// Write does not need t in canonical order: it sorts a shallow copy when t is not
// already sorted (see Trace.Sort), leaving t untouched, so the same jobs and tasks
// give byte-identical files whatever their order in memory. It then validates the
// copy (Trace.Validate) and refuses an invalid trace.
//
// The write is atomic and safe (internal/safeout): dir is locked, the files are
// built in a hidden temporary directory beside it (missing parent directories
// are created once t has been validated), which then replaces dir. An existing
// dir is replaced only if it is empty or a trace directory ingest wrote (its
// ownership marker lists every file in it); anything else is an error wrapping
// ErrNotTraceDir, so a mistyped --out never deletes unrelated files.
func Write(dir string, t *Trace) error {
	if dir == "" {
		return errors.New("write trace: empty directory name")
	}
	if err := sortedView(t).Validate(); err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	out, err := safeout.Open(dir, TraceOwner, safeout.Options{})
	if err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	defer out.Close()
	if err := out.Publish(context.Background(), func(tmp string) error { return WriteFiles(tmp, t) }); err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	return nil
}

// WriteFiles writes t's jobs.parquet and, when t has them, tasks.parquet and attempts.parquet into
// the existing directory dir, as Write does but without replacing dir: the
// caller publishes dir (safeout.Target.Publish) and names it in the error.
func WriteFiles(dir string, t *Trace) error {
	s := sortedView(t)
	if err := s.Validate(); err != nil {
		return err
	}
	meta, err := encodeMeta(&t.Meta)
	if err != nil {
		return err
	}
	jobOpt := ParquetOptions{SortedBy: []string{"submit_ms"}}
	if err := WriteParquetFile(filepath.Join(dir, JobsFile), jobRows(s.Jobs), meta, jobOpt); err != nil {
		return err
	}
	if len(s.Tasks) > 0 {
		if err := WriteParquetFile(filepath.Join(dir, TasksFile), taskRows(s.Tasks), meta); err != nil {
			return err
		}
	}
	if len(s.Attempts) > 0 {
		return WriteParquetFile(filepath.Join(dir, AttemptsFile), attemptRows(s.Attempts), meta)
	}
	return nil
}

// sortedView returns t itself when it is in canonical order, else a copy of t
// with copied and sorted Jobs, Tasks and Attempts slices.
func sortedView(t *Trace) *Trace {
	jobsSorted := slices.IsSortedFunc(t.Jobs, func(a, b Job) int { return compareJobs(&a, &b) })
	if jobsSorted {
		pos := jobPositions(t.Jobs)
		if slices.IsSortedFunc(t.Tasks, func(a, b Task) int { return compareTasks(pos, &a, &b) }) &&
			slices.IsSortedFunc(t.Attempts, func(a, b Attempt) int { return compareAttempts(pos, &a, &b) }) {
			return t
		}
	}
	s := &Trace{Jobs: slices.Clone(t.Jobs), Tasks: slices.Clone(t.Tasks), Attempts: slices.Clone(t.Attempts), Meta: t.Meta}
	s.Sort()
	return s
}

// Read loads the trace directory dir written by Write: jobs.parquet, and
// tasks.parquet and attempts.parquet if present. It checks the schema version
// of each file (a newer major version is refused; version 1 files, which lack
// the newer jobs columns, read with those Unknown), the column types, and the
// trace's invariants (Trace.Validate); errors name the offending file.
func Read(dir string) (*Trace, error) {
	jobsPath := filepath.Join(dir, JobsFile)
	jobs, jmeta, err := readJobs(jobsPath)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	t := &Trace{Jobs: jobs}
	if err := decodeMeta(jmeta, &t.Meta); err != nil {
		return nil, fmt.Errorf("read trace: %s: %w", jobsPath, err)
	}
	tasksPath := filepath.Join(dir, TasksFile)
	if _, err := os.Stat(tasksPath); err == nil {
		trows, tmeta, err := readTaskRows(tasksPath)
		if err != nil {
			return nil, fmt.Errorf("read trace: %w", err)
		}
		var tm Meta
		if err := decodeMeta(tmeta, &tm); err != nil {
			return nil, fmt.Errorf("read trace: %s: %w", tasksPath, err)
		}
		t.Tasks = make([]Task, len(trows))
		for i := range trows {
			if t.Tasks[i], err = trows[i].task(); err != nil {
				return nil, fmt.Errorf("read trace: %s: row %d: %w", tasksPath, i, err)
			}
			if len(t.Tasks[i].PreferredHosts) == 0 {
				t.Tasks[i].PreferredHosts = nil
			}
			if len(t.Tasks[i].PreferredRacks) == 0 {
				t.Tasks[i].PreferredRacks = nil
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	attemptsPath := filepath.Join(dir, AttemptsFile)
	if _, err := os.Stat(attemptsPath); err == nil {
		arows, ameta, err := ReadParquetFile[AttemptRow](attemptsPath)
		if err != nil {
			return nil, fmt.Errorf("read trace: %w", err)
		}
		var am Meta
		if err := decodeMeta(ameta, &am); err != nil {
			return nil, fmt.Errorf("read trace: %s: %w", attemptsPath, err)
		}
		t.Attempts = make([]Attempt, len(arows))
		for i := range arows {
			if t.Attempts[i], err = arows[i].attempt(); err != nil {
				return nil, fmt.Errorf("read trace: %s: row %d: %w", attemptsPath, i, err)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("read trace %s: %w", dir, err)
	}
	return t, nil
}

// encodeMeta turns m into the key/value metadata of a trace file.
func encodeMeta(m *Meta) (map[string]string, error) {
	sources := m.Sources
	if sources == nil {
		sources = []string{}
	}
	src, err := json.Marshal(sources)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", MetaSources, err)
	}
	options := m.Options
	if options == nil {
		options = map[string]string{}
	}
	opt, err := json.Marshal(options) // encoding/json sorts map keys
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", MetaOptions, err)
	}
	return map[string]string{
		MetaSchemaVersion: SchemaVersion,
		MetaSourceFormat:  m.SourceFormat,
		MetaSources:       string(src),
		MetaOptions:       string(opt),
		MetaTool:          m.Tool,
	}, nil
}

// decodeMeta fills m from a trace file's key/value metadata, refusing a missing
// or incompatible schema version. Empty Sources and Options come back as nil.
func decodeMeta(kv map[string]string, m *Meta) error {
	v, ok := kv[MetaSchemaVersion]
	if !ok {
		return fmt.Errorf("no %s in the file metadata: not a tracereplay trace file", MetaSchemaVersion)
	}
	if err := checkSchemaVersion(v); err != nil {
		return err
	}
	*m = Meta{SchemaVersion: v, SourceFormat: kv[MetaSourceFormat], Tool: kv[MetaTool]}
	if s := kv[MetaSources]; s != "" {
		if err := json.Unmarshal([]byte(s), &m.Sources); err != nil {
			return fmt.Errorf("%s: want a JSON array of strings: %w", MetaSources, err)
		}
	}
	if s := kv[MetaOptions]; s != "" {
		if err := json.Unmarshal([]byte(s), &m.Options); err != nil {
			return fmt.Errorf("%s: want a JSON object of strings: %w", MetaOptions, err)
		}
	}
	if len(m.Sources) == 0 {
		m.Sources = nil
	}
	if len(m.Options) == 0 {
		m.Options = nil
	}
	return nil
}

// readJobs reads the jobs of a jobs.parquet of this schema version, of
// version 2.3 or 2.4, which lack the column version 2.5 added, of version
// 2.1 or 2.2, which also lack the column version 2.3 added, of version 2,
// which also lacks those version 2.1 added, or of version 1, which also
// lacks those version 2 added. The rows are converted a batch at a time
// (pqfile.ReadEach), so that reading holds the jobs and one batch of rows,
// never a row per job beside them: a job-level trace of a month (733,260
// jobs) would otherwise hold about 200 MB of rows, with their optional
// fields' allocations, besides its jobs.
func readJobs(path string) ([]Job, map[string]string, error) {
	kv, err := parquetKeyValues(path, nil)
	if err != nil {
		return nil, nil, err
	}
	var jobs []Job
	size := func(n int64) { jobs = make([]Job, 0, n) }
	var meta map[string]string
	switch v := kv[MetaSchemaVersion]; {
	case v == "2" || v == "2.0":
		meta, err = eachParquetRow(path, size, func(r *jobRowV2) { row := r.row(); jobs = append(jobs, row.job()) })
	case strings.HasPrefix(v, "1.") || v == "1":
		meta, err = eachParquetRow(path, size, func(r *jobRowV1) { row := r.row(); jobs = append(jobs, row.job()) })
	case schemaBefore(v, 2, 3):
		meta, err = eachParquetRow(path, size, func(r *jobRowV22) { row := r.row(); jobs = append(jobs, row.job()) })
	case schemaBefore(v, 2, 5):
		meta, err = eachParquetRow(path, size, func(r *jobRowV24) { row := r.row(); jobs = append(jobs, row.job()) })
	default:
		meta, err = eachParquetRow(path, size, func(r *JobRow) { jobs = append(jobs, r.job()) })
	}
	if err != nil {
		return nil, nil, err
	}
	return jobs, meta, nil
}

// readTaskRows reads the rows of a tasks.parquet of this schema version, of
// version 2.2 or 2.3, which lacks the report_lag_ms column, or of version 2.1
// or older, which lacks launch_lag_ms too (null then).
func readTaskRows(path string) ([]TaskRow, map[string]string, error) {
	kv, err := parquetKeyValues(path, nil)
	if err != nil {
		return nil, nil, err
	}
	v := kv[MetaSchemaVersion]
	if !schemaBefore(v, 2, 4) {
		return ReadParquetFile[TaskRow](path)
	}
	var rows []TaskRow
	size := func(n int64) { rows = make([]TaskRow, 0, n) }
	var meta map[string]string
	if schemaBefore(v, 2, 2) {
		meta, err = eachParquetRow(path, size, func(r *taskRowV21) { rows = append(rows, r.row()) })
	} else {
		meta, err = eachParquetRow(path, size, func(r *taskRowV23) { rows = append(rows, r.row()) })
	}
	if err != nil {
		return nil, nil, err
	}
	return rows, meta, nil
}

// schemaBefore reports whether schema version v ("MAJOR" or "MAJOR.MINOR")
// is older than major.minor; a version that does not parse is not (Read's
// checkSchemaVersion refuses it).
func schemaBefore(v string, major, minor int) bool {
	ma, mi, _ := strings.Cut(v, ".")
	vmaj, err := strconv.Atoi(ma)
	if err != nil {
		return false
	}
	vmin := 0
	if mi != "" {
		if vmin, err = strconv.Atoi(mi); err != nil {
			return false
		}
	}
	return vmaj < major || vmaj == major && vmin < minor
}

// minSchemaMajor is the oldest schema major version Read still reads.
const minSchemaMajor = 1

// checkSchemaVersion accepts "MAJOR" or "MAJOR.MINOR" with a major from
// minSchemaMajor to this build's.
func checkSchemaVersion(v string) error {
	majorStr, _, _ := strings.Cut(v, ".")
	major, err := strconv.Atoi(majorStr)
	if err != nil || major < 0 {
		return fmt.Errorf("%s %q: want MAJOR or MAJOR.MINOR", MetaSchemaVersion, v)
	}
	ours, _ := strconv.Atoi(strings.SplitN(SchemaVersion, ".", 2)[0])
	switch {
	case major > ours:
		return fmt.Errorf("schema version %s is newer than this tracereplay reads (%s): upgrade tracereplay", v, SchemaVersion)
	case major < minSchemaMajor:
		return fmt.Errorf("schema version %s is older than this tracereplay reads (%s): ingest the source again", v, SchemaVersion)
	}
	return nil
}
