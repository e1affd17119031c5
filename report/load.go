package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/pqbounds"
	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/replay"
)

// ErrParquetBounds is the error (wrapped with the reason) of a results file
// whose footer or pages claim more than its size can hold (pqbounds.Check):
// it is refused before parquet-go allocates from the claims.
var ErrParquetBounds = pqbounds.ErrBounds

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
	Summary  replay.RunSummary
	Jobs     []replay.JobResult
	Timeline []replay.TimelineSample
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
	return sortedLabelKeys(r.Labels)
}

// Label returns the value of label k. The policy label falls back to r.Policy, so
// that runs built in memory without Labels still sort and print by policy.
func (r Run) Label(k string) (string, bool) {
	v, ok := r.Labels[k]
	if !ok && k == PolicyLabel && r.Policy != "" {
		return r.Policy, true
	}
	return v, ok
}

func sortedLabelKeys(labels map[string]string) []string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return labelKeyLess(keys[i], keys[j]) })
	return keys
}

// labelKeyLess orders label keys with PolicyLabel first, then by name.
func labelKeyLess(a, b string) bool {
	if (a == PolicyLabel) != (b == PolicyLabel) {
		return a == PolicyLabel
	}
	return a < b
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
		if d.Name() == replay.JobsFile && !studies[filepath.Dir(path)] {
			dirs = append(dirs, filepath.Dir(path))
		}
		if d.Name() == replay.AllocFile { // sorts before jobs.parquet
			dirs = append(dirs, filepath.Dir(path))
			studies[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", root, err)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("results %s: no run directory (none holds %s or %s)", root, replay.JobsFile, replay.AllocFile)
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
	labels, err := PathLabels(dir)
	if err != nil {
		return Run{}, err
	}
	r := Run{Dir: dir, Labels: labels}
	if r.Summary, err = replay.ReadSummary(dir); err != nil {
		return Run{}, err
	}
	// Unknown times are nulls in the file (-1 in files written before they
	// were); both read back as replay.Unset.
	jobs, err := readParquet[replay.JobRow](filepath.Join(dir, replay.JobsFile))
	if err != nil {
		return Run{}, err
	}
	r.Jobs = replay.JobResults(jobs)
	// The whole cluster's rows have a null job_index (-1 in files written
	// before it was null); both read back as -1.
	tl, err := readParquet[replay.TimelineRow](filepath.Join(dir, replay.TimelineFile))
	if err != nil {
		return Run{}, err
	}
	r.Timeline = replay.TimelineSamples(tl)
	// run.json has the policy's exact name; the path segment may have '/'
	// replaced by '_'.
	r.Policy = r.Summary.Policy
	if r.Policy == "" {
		r.Policy = labels[PolicyLabel]
	}
	if r.Policy == "" {
		return Run{}, fmt.Errorf("run %s: no policy: neither a %s=NAME path segment nor a policy in %s", dir, PolicyLabel, replay.SummaryFile)
	}
	r.Labels[PolicyLabel] = r.Policy
	if err := checkJobs(filepath.Join(dir, replay.JobsFile), r.Jobs); err != nil {
		return Run{}, err
	}
	return r, nil
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

// readParquet reads every row of a Parquet file into T. parquet-go matches columns
// by name; a column that T expects but the file lacks is an error, so a results
// file from another schema is not silently read as zeros. parquet-go can panic on
// a corrupt file; that panic becomes an error naming the file.
func readParquet[T any](path string) (rows []T, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read results %s: %w", path, err)
	}
	return decodeParquet[T](path, f, st.Size())
}

func decodeParquet[T any](path string, r io.ReaderAt, size int64) (rows []T, err error) {
	defer func() {
		if p := recover(); p != nil {
			rows, err = nil, fmt.Errorf("read results %s: corrupt Parquet file: %v", path, p)
		}
	}()
	if err := pqbounds.CheckFooter(r, size); err != nil {
		return nil, fmt.Errorf("read results %s: not a Parquet file: %w", path, err)
	}
	// parquet-go allocates from the sizes and counts the file claims before it
	// reads what backs them; refuse claims the file's size cannot back.
	if err := pqbounds.Check(r, size); err != nil {
		return nil, fmt.Errorf("read results %s: corrupt Parquet file: %w", path, err)
	}
	// small buffers and no page index or bloom filters: results files are small and
	// read whole, and a corrupt file must cost little
	pf, err := parquet.OpenFile(r, size, parquet.ReadBufferSize(int(min(size, 1<<20))),
		parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("read results %s: not a Parquet file: %w", path, err)
	}
	want := parquet.SchemaOf(new(T))
	for _, col := range want.Fields() {
		if _, ok := pf.Schema().Lookup(col.Name()); !ok {
			return nil, fmt.Errorf("read results %s: column %q missing (expected the %s schema)", path, col.Name(), want.Name())
		}
	}
	rd := parquet.NewGenericReader[T](pf)
	defer rd.Close()
	// Read in chunks rather than trusting the footer's row count for one
	// allocation, and stop at that count: on a corrupt file the reader may go on
	// producing rows.
	total := pf.NumRows()
	buf := make([]T, min(total, 1024))
	for int64(len(rows)) < total {
		n, err := rd.Read(buf[:min(int64(len(buf)), total-int64(len(rows)))])
		rows = append(rows, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read results %s: row %d: %w", path, len(rows), err)
		}
		if n == 0 {
			return nil, fmt.Errorf("read results %s: row %d: reader made no progress", path, len(rows))
		}
	}
	if int64(len(rows)) != total {
		return nil, fmt.Errorf("read results %s: %d rows, but the footer announces %d", path, len(rows), total)
	}
	return rows, nil
}

// checkJobs rejects job rows that would make the statistics meaningless.
func checkJobs(path string, jobs []replay.JobResult) error {
	if len(jobs) == 0 {
		return fmt.Errorf("read results %s: no job rows", path)
	}
	for i, j := range jobs {
		switch {
		case j.FinishUs != replay.Unset && j.FlowtimeUs < 0:
			return fmt.Errorf("read results %s: row %d (job %q): column flowtime_us: negative flowtime %d for a finished job", path, i, j.JobID, j.FlowtimeUs)
		case j.StarvationUs < 0:
			return fmt.Errorf("read results %s: row %d (job %q): column starvation_us: negative starvation %d", path, i, j.JobID, j.StarvationUs)
		case j.MapsNodeLocal < 0 || j.MapsRackLocal < 0 || j.MapsOffRack < 0:
			return fmt.Errorf("read results %s: row %d (job %q): columns maps_*_local/maps_off_rack: negative map count", path, i, j.JobID)
		}
	}
	return nil
}
