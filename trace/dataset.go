package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
// and holds files other than a trace's; nothing has been changed then.
var ErrNotTraceDir = errors.New("not a trace directory")

// Write stores t as a trace directory: dir/jobs.parquet and, when t has tasks,
// dir/tasks.parquet and, when it has attempts, dir/attempts.parquet, all carrying the same key/value metadata (Meta, with the
// schema version always SchemaVersion).
//
// Write does not need t in canonical order: it sorts a shallow copy when t is not
// already sorted (see Trace.Sort), leaving t untouched, so the same jobs and tasks
// give byte-identical files whatever their order in memory. It then validates the
// copy (Trace.Validate) and refuses an invalid trace.
//
// The write is atomic: the files are built in a hidden temporary directory beside
// dir (missing parent directories are created once t has been validated), which
// then replaces dir. An existing dir is replaced only if it is empty or
// holds nothing but jobs.parquet, tasks.parquet and attempts.parquet; anything else is an error, so a
// mistyped --out never deletes unrelated files.
func Write(dir string, t *Trace) error {
	if dir == "" {
		return errors.New("write trace: empty directory name")
	}
	s := sortedView(t)
	if err := s.Validate(); err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	meta, err := encodeMeta(&t.Meta)
	if err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	if err := checkReplaceable(dir); err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	dir = filepath.Clean(dir)
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp) // a no-op once tmp has been renamed to dir
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	jobOpt := ParquetOptions{SortedBy: []string{"submit_ms"}}
	if err := WriteParquetFile(filepath.Join(tmp, JobsFile), jobRows(s.Jobs), meta, jobOpt); err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
	}
	if len(s.Tasks) > 0 {
		if err := WriteParquetFile(filepath.Join(tmp, TasksFile), taskRows(s.Tasks), meta); err != nil {
			return fmt.Errorf("write trace %s: %w", dir, err)
		}
	}
	if len(s.Attempts) > 0 {
		if err := WriteParquetFile(filepath.Join(tmp, AttemptsFile), attemptRows(s.Attempts), meta); err != nil {
			return fmt.Errorf("write trace %s: %w", dir, err)
		}
	}
	if err := replaceDir(tmp, dir); err != nil {
		return fmt.Errorf("write trace %s: %w", dir, err)
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

// checkReplaceable accepts a dir that does not exist, is empty, or holds only
// trace files.
func checkReplaceable(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%w: %s exists and is not a directory", ErrNotTraceDir, dir)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot replace: %w", err)
	}
	for _, e := range entries {
		if n := e.Name(); (n != JobsFile && n != TasksFile && n != AttemptsFile) || !e.Type().IsRegular() {
			return fmt.Errorf("%w: refusing to replace an existing directory that holds %q, not only %s, %s and %s",
				ErrNotTraceDir, n, JobsFile, TasksFile, AttemptsFile)
		}
	}
	return nil
}

// replaceDir renames tmp to dir, moving an existing dir aside first and deleting
// it once the new one is in place.
func replaceDir(tmp, dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, dir)
	}
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	old, err := os.MkdirTemp(parent, "."+base+".old-*")
	if err != nil {
		return err
	}
	aside := filepath.Join(old, base)
	if err := os.Rename(dir, aside); err != nil {
		os.Remove(old)
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(aside, dir); rerr != nil {
			return fmt.Errorf("%w (and restoring the old directory failed: %v; it is at %s)", err, rerr, aside)
		}
		os.Remove(old)
		return err
	}
	return os.RemoveAll(old)
}

// Read loads the trace directory dir written by Write: jobs.parquet, and
// tasks.parquet and attempts.parquet if present. It checks the schema version
// of each file (a newer major version is refused; version 1 files, which lack
// the newer jobs columns, read with those Unknown), the column types, and the
// trace's invariants (Trace.Validate); errors name the offending file.
func Read(dir string) (*Trace, error) {
	jobsPath := filepath.Join(dir, JobsFile)
	jrows, jmeta, err := readJobRows(jobsPath)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	t := &Trace{Jobs: make([]Job, len(jrows))}
	if err := decodeMeta(jmeta, &t.Meta); err != nil {
		return nil, fmt.Errorf("read trace: %s: %w", jobsPath, err)
	}
	for i := range jrows {
		t.Jobs[i] = jrows[i].job()
	}
	tasksPath := filepath.Join(dir, TasksFile)
	if _, err := os.Stat(tasksPath); err == nil {
		trows, tmeta, err := ReadParquetFile[TaskRow](tasksPath)
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

// readJobRows reads a jobs.parquet of this schema version or of version 1,
// which lacks the columns version 2 added.
func readJobRows(path string) ([]JobRow, map[string]string, error) {
	kv, err := parquetKeyValues(path)
	if err != nil {
		return nil, nil, err
	}
	if major, _, _ := strings.Cut(kv[MetaSchemaVersion], "."); major != "1" {
		return ReadParquetFile[JobRow](path)
	}
	old, meta, err := ReadParquetFile[jobRowV1](path)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]JobRow, len(old))
	for i := range old {
		rows[i] = old[i].row()
	}
	return rows, meta, nil
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
