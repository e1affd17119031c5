package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/internal/summary"
)

// ErrParquetBounds is the error (wrapped with the reason) of a results file
// whose footer or pages claim more than its size can hold
// (results.ErrParquetBounds).
var ErrParquetBounds = results.ErrParquetBounds

// PolicyLabel is the label key that names a run's scheduling policy.
const PolicyLabel = "policy"

// Run is the results of one run (one policy on one trace, hardware model and
// seed). cmd/replay builds Runs directly from its in-memory results; Load reads
// them back from disk.
type Run struct {
	// Dir is the run directory, empty for runs that never touched the disk.
	Dir string
	// Labels are the key=value segments of Dir (e.g. policy, hw, seed). Labels
	// always holds PolicyLabel when Policy is known. Iterate it with LabelKeys.
	Labels map[string]string
	// Policy is the scheduling policy's name.
	Policy   string
	Summary  results.RunSummary
	Jobs     []results.Job
	Timeline []results.TimelineSample
	// Queues are a YARN run's queue samples (queues.parquet); nil for slot
	// runs and runs without a timeline.
	Queues []results.QueueSample
	// Links are the loaded links per timeline instant of a run under
	// network = "flow" (links.parquet); nil otherwise.
	Links []results.LinkSample
	// Alloc is set for an allocation study directory (alloc.parquet), which
	// has no policy, summary, jobs or timeline; see LoadAllocStudy.
	Alloc *AllocResults
	// TraceID and HardwareID identify the trace content and the hardware
	// model the run replayed ("sha256:…", from the results' manifest; see
	// replay/identity.go), empty when no manifest lists the run. Together
	// with the policy they decide which runs are seeds of one cell.
	TraceID, HardwareID string
}

// LabelKeys returns the keys of r.Labels in their canonical order: PolicyLabel
// first, then the others sorted.
func (r Run) LabelKeys() []string {
	keys := slices.Collect(maps.Keys(r.Labels))
	summary.SortLabelKeys(keys)
	return keys
}

// LabelMap returns r.Labels (summary.Labeled).
func (r Run) LabelMap() map[string]string { return r.Labels }

// RunDir returns r.Dir (summary.Labeled).
func (r Run) RunDir() string { return r.Dir }

// Label returns the value of label k. The policy label falls back to r.Policy, so
// that runs built in memory without Labels still sort and print by policy.
func (r Run) Label(k string) (string, bool) {
	v, ok := r.Labels[k]
	if !ok && k == PolicyLabel && r.Policy != "" {
		return r.Policy, true
	}
	return v, ok
}

// Load reads every run under root: each directory at or below root that holds
// jobs.parquet is a run and must also hold timeline.parquet and run.json; each
// that holds alloc.parquet is an allocation study (LoadAllocStudy). The hidden
// .NAME.tmp-* and .NAME.old-* directories an interrupted run may leave
// (internal/safeout) are skipped. Runs come back in lexical order of their paths, with their identities from the
// manifest (Run.TraceID, Run.HardwareID). Errors name the offending file. Runs
// that would be averaged as seeds of one cell (equal labels but the seed) yet
// replayed different traces or hardware, or the same seed twice, are an error
// naming two of them (CheckCells).
func Load(root string) ([]Run, error) {
	info, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("results %s: no such directory", root)
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("results %s: not a directory", root)
	}
	var dirs []string
	studies := map[string]bool{}
	// WalkDir visits entries in lexical order, so the run order is deterministic.
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && safeout.IsScratch(d.Name()) {
				return fs.SkipDir // an interrupted run's half-built or replaced output
			}
			return nil
		}
		if d.Name() == results.JobsFile && !studies[filepath.Dir(path)] {
			dirs = append(dirs, filepath.Dir(path))
		}
		if d.Name() == results.AllocFile { // sorts before jobs.parquet
			dirs = append(dirs, filepath.Dir(path))
			studies[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", root, err)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("results %s: no run directory (none holds %s or %s)", root, results.JobsFile, results.AllocFile)
	}
	runs := make([]Run, 0, len(dirs))
	for _, dir := range dirs {
		load := LoadRun
		if studies[dir] {
			load = LoadAllocStudy
		}
		r, err := load(dir)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	if err := attachIdentity(root, runs); err != nil {
		return nil, err
	}
	if err := CheckCells(runs); err != nil {
		return nil, fmt.Errorf("results %s: %w", root, err)
	}
	return runs, nil
}

// LoadRun reads one run directory. Its labels come from the key=value segments
// of dir; the policy is run.json's, else the policy label, and becomes the policy
// label.
func LoadRun(dir string) (Run, error) {
	return loadRun(dir, os.ReadFile)
}

// loadRun is LoadRun with the run's files read by readFile, which returns an
// error satisfying errors.Is(err, fs.ErrNotExist) for a file that is not
// there (os.ReadFile; the fuzz test reads from memory). Each file is read
// whole: results are decoded whole into rows, which take more memory than the
// file's bytes, and one read replaces parquet-go's many small ones.
func loadRun(dir string, readFile func(path string) ([]byte, error)) (Run, error) {
	labels, err := PathLabels(dir)
	if err != nil {
		return Run{}, err
	}
	r := Run{Dir: dir, Labels: labels}
	spath := filepath.Join(dir, results.SummaryFile)
	b, err := readFile(spath)
	if err != nil {
		return Run{}, fmt.Errorf("read run summary: %w", err)
	}
	if r.Summary, err = results.DecodeSummary(spath, b); err != nil {
		return Run{}, err
	}
	// Unknown times are nulls in the file (-1 in files written before they
	// were); both read back as results.Unset.
	// Results schema 1 has no status column; its jobs read with status "".
	jpath := filepath.Join(dir, results.JobsFile)
	if b, err = readFile(jpath); err != nil {
		return Run{}, fmt.Errorf("read results: %w", err)
	}
	jobs, err := results.DecodeJobRows(jpath, bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return Run{}, err
	}
	r.Jobs = results.Jobs(jobs)
	// The whole cluster's rows have a null job_index (-1 in files written
	// before it was null); both read back as -1.
	tl, err := readRows[results.TimelineRow](readFile, filepath.Join(dir, results.TimelineFile), false)
	if err != nil {
		return Run{}, err
	}
	r.Timeline = results.TimelineSamples(tl)
	if r.Queues, err = readRows[results.QueueSample](readFile, filepath.Join(dir, results.QueuesFile), true); err != nil {
		return Run{}, err
	}
	if r.Links, err = readRows[results.LinkSample](readFile, filepath.Join(dir, results.LinksFile), true); err != nil {
		return Run{}, err
	}
	// run.json has the policy's exact name; the path segment may have '/'
	// replaced by '_'.
	r.Policy = r.Summary.Policy
	if r.Policy == "" {
		r.Policy = labels[PolicyLabel]
	}
	if r.Policy == "" {
		return Run{}, fmt.Errorf("run %s: no policy: neither a %s=NAME path segment nor a policy in %s", dir, PolicyLabel, results.SummaryFile)
	}
	r.Labels[PolicyLabel] = r.Policy
	if err := checkJobs(jpath, r.Jobs); err != nil {
		return Run{}, err
	}
	return r, nil
}

// readRows reads the rows of the results file path with readFile; an
// optional file that is not there has no rows.
func readRows[T any](readFile func(string) ([]byte, error), path string, optional bool) ([]T, error) {
	b, err := readFile(path)
	if optional && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	return results.DecodeParquet[T](path, bytes.NewReader(b), int64(len(b)))
}

// PathLabels returns the labels encoded in the key=value segments of path (split
// at the first '='). Segments without '=' carry no label. A key given twice, or an
// empty key, is an error.
func PathLabels(path string) (map[string]string, error) {
	labels := map[string]string{}
	for _, seg := range strings.Split(filepath.ToSlash(filepath.Clean(path)), "/") {
		k, v, ok := strings.Cut(seg, "=")
		if !ok {
			continue
		}
		if k == "" {
			return nil, fmt.Errorf("run %s: path segment %q: empty label key", path, seg)
		}
		if old, dup := labels[k]; dup {
			return nil, fmt.Errorf("run %s: label %q given twice (%q and %q)", path, k, old, v)
		}
		labels[k] = v
	}
	return labels, nil
}

// checkJobs rejects job rows that would make the statistics meaningless.
func checkJobs(path string, jobs []results.Job) error {
	if len(jobs) == 0 {
		return fmt.Errorf("read results %s: no job rows", path)
	}
	for i, j := range jobs {
		switch {
		case j.FinishUs != results.Unset && j.FlowtimeUs < 0:
			return fmt.Errorf("read results %s: row %d (job %q): column flowtime_us: negative flowtime %d for a finished job", path, i, j.JobID, j.FlowtimeUs)
		case j.StarvationUs < 0:
			return fmt.Errorf("read results %s: row %d (job %q): column starvation_us: negative starvation %d", path, i, j.JobID, j.StarvationUs)
		case j.MapsNodeLocal < 0 || j.MapsRackLocal < 0 || j.MapsOffRack < 0:
			return fmt.Errorf("read results %s: row %d (job %q): columns maps_*_local/maps_off_rack: negative map count", path, i, j.JobID)
		}
	}
	return nil
}
