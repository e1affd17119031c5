package trace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	statusline "github.com/tracereplay/tracereplay/internal/progress"
)

// TreeOptions controls ReadTree.
type TreeOptions struct {
	HistoryOptions
	// Workers is how many files are read at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, when not nil, is a terminal on which a status line is kept up
	// to date while the files are read (files read, share, elapsed time, rate,
	// ETA, jobs, skipped files), replaced at the end by a summary line.
	Progress io.Writer
	// Only, when not empty, restricts the traces read to one kind (KindJhist,
	// KindHadoop1, KindRumen or KindSLS); configurations and topologies are
	// read whatever it says.
	Only FileKind
}

// FileKind is what ReadTree found a file to be.
type FileKind string

// File kinds of a tree.
const (
	KindJhist     FileKind = FormatJhist
	KindHadoop1   FileKind = FormatHadoop1
	KindRumen     FileKind = FormatRumen
	KindSLS       FileKind = FormatSLS
	KindConf      FileKind = "conf"     // a job's _conf.xml
	KindTopology  FileKind = "topology" // a Rumen topology or SLS node file
	KindNotATrace FileKind = ""         // ignored
)

// IsHistory reports whether k is a kind of job history (not a configuration,
// a topology or an ignored file).
func (k FileKind) IsHistory() bool {
	return k != KindConf && k != KindTopology && k != KindNotATrace
}

// TreeFile is one file of a tree and what became of it.
type TreeFile struct {
	Path string
	Kind FileKind
	Jobs int    // jobs read from it
	Err  error  // why it was skipped (Kind says what it looked like), nil if read
	Note string // why a KindNotATrace file was ignored
}

// TreeSummary is what ReadTree did, file by file in path order.
type TreeSummary struct {
	Files       []TreeFile
	Diagnostics int // problems reported through Warn
}

// Count returns how many files have kind k and were read (skipped false) or
// skipped (skipped true).
func (s *TreeSummary) Count(k FileKind, skipped bool) int {
	n := 0
	for _, f := range s.Files {
		if f.Kind == k && (f.Err != nil) == skipped {
			n++
		}
	}
	return n
}

// Skipped returns the files that were skipped because they could not be read.
func (s *TreeSummary) Skipped() []TreeFile {
	var out []TreeFile
	for _, f := range s.Files {
		if f.Err != nil {
			out = append(out, f)
		}
	}
	return out
}

// detectConf accepts an XML document whose first element is <configuration>.
func detectConf(name string, head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if bytes.HasPrefix(h, []byte("<?xml")) {
		return bytes.Contains(h, []byte("<configuration"))
	}
	return bytes.HasPrefix(h, []byte("<configuration"))
}

// fileOutcome is what reading one file of a tree gave.
type fileOutcome struct {
	kind FileKind
	note string
	res  fileResult
	err  error
}

// ReadTree reads every job history under root (a directory, or one file) into
// one trace: .jhist (Avro-Json or Avro-Binary) with their _conf.xml, Hadoop 1
// history logs and bundles with theirs, Rumen traces, SLS job files; Rumen
// topologies and SLS node files found in the tree fill missing racks. Files are
// recognised by their content, gzip-compressed or not, whatever their names;
// other files are ignored. Files are read concurrently by opt.Workers workers,
// and the result does not depend on their number or timing: jobs are ordered by
// submit time then id, diagnostics and the summary by path.
//
// A file that cannot be read is skipped and named in the summary with its
// reason, unless opt.Strict, in which case the first such file in path order
// is the error. Each job gets the configuration file named after its job id
// (<jobId>_conf.xml, or <jtHost>_<jtStart>_<jobId>_conf.xml for Hadoop 1),
// preferring one in the history's own directory.
func ReadTree(ctx context.Context, root string, opt TreeOptions) (*Trace, *TreeSummary, error) {
	paths, err := listTree(root)
	if err != nil {
		return nil, nil, err
	}
	outcomes, err := readTreeFiles(ctx, paths, opt)
	if err != nil {
		return nil, nil, err
	}
	sum := &TreeSummary{Files: make([]TreeFile, len(paths))}
	var diags []Diagnostic
	for i, p := range paths {
		o := outcomes[i]
		sum.Files[i] = TreeFile{Path: p, Kind: o.kind, Err: o.err, Note: o.note, Jobs: len(o.res.jobs)}
		diags = append(diags, o.res.diags...)
		if o.err != nil && opt.Strict {
			sum.Files = sum.Files[:i+1]
			return nil, sum, o.err
		}
	}
	var outs []jobOut
	formats := map[FileKind]bool{}
	for i := range paths {
		for _, jo := range outcomes[i].res.jobs {
			jo.file = i
			outs = append(outs, jo)
			formats[outcomes[i].kind] = true
		}
	}
	diags = append(diags, pairConfs(paths, outcomes, outs)...)
	var topoFiles []map[string]string
	for _, o := range outcomes {
		if o.kind == KindTopology && o.err == nil {
			topoFiles = append(topoFiles, o.res.topo)
		}
	}
	topo, topoDiags := learnTopology(opt.Topology, topoFiles, outs)
	diags = append(diags, topoDiags...)
	var clockMsg, clockMeta string
	if !opt.KeepTrackerClocks {
		if fixed := correctTrackerClocks(outs); len(fixed) > 0 {
			clockMsg, clockMeta = trackerClockDiag(fixed)
		}
	}
	tr := assemble(outs, topo, func(d Diagnostic) {
		if d.File == "" { // not about one job of one file
			d.File = root
		}
		diags = append(diags, d)
	})
	if opt.Strict {
		// Strict turns every warning into an error, those about the tree as a
		// whole (conf pairing, racks, repeated job ids) included
		for _, d := range diags {
			return nil, sum, d.parseError(nil)
		}
	}
	var names []string
	for k := range formats {
		names = append(names, string(k))
	}
	slices.Sort(names)
	tr.Meta.SourceFormat = strings.Join(names, "+")
	tr.Meta.Sources = []string{root}
	if clockMsg != "" {
		// a correction, not a problem of the input: no error under Strict
		diags = append(diags, Diagnostic{File: root, Offset: -1, Msg: clockMsg})
		tr.Meta.Options = map[string]string{OptTrackerClocks: clockMeta}
	}
	sum.Diagnostics = len(diags)
	opt.emit(diags)
	return tr, sum, nil
}

// listTree returns the regular files under root in lexical path order; root may
// be a file.
func listTree(root string) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{root}, nil
	}
	var paths []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		} else if d.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				paths = append(paths, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	return paths, nil
}

// readTreeFiles reads the files with a bounded pool of workers. Files are handed
// out in path order; under Strict, once a file fails, files after it are not
// started, so the first failing file in path order is always found.
func readTreeFiles(ctx context.Context, paths []string, opt TreeOptions) ([]fileOutcome, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(paths), 1))
	outcomes := make([]fileOutcome, len(paths))
	cache := newCodecCache()
	var (
		next     atomic.Int64
		done     atomic.Int64
		jobs     atomic.Int64
		skipped  atomic.Int64
		firstErr atomic.Int64
		progMu   sync.Mutex
		wg       sync.WaitGroup
	)
	firstErr.Store(int64(len(paths)))
	prog := newProgress(opt.Progress, len(paths))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(paths)) || ctx.Err() != nil || i > firstErr.Load() {
					return
				}
				o := readTreeFile(paths[i], opt.Strict, opt.Only, cache)
				outcomes[i] = o
				if o.err != nil {
					skipped.Add(1)
					if opt.Strict {
						for cur := firstErr.Load(); i < cur && !firstErr.CompareAndSwap(cur, i); cur = firstErr.Load() {
						}
					}
				}
				jobs.Add(int64(len(o.res.jobs)))
				n := done.Add(1)
				progMu.Lock()
				prog.update(int(n), jobs.Load(), skipped.Load())
				progMu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prog.finish(int(done.Load()), jobs.Load(), skipped.Load())
	return outcomes, nil
}

// readTreeFile detects and reads one file.
func readTreeFile(path string, strict bool, only FileKind, cache *codecCache) (o fileOutcome) {
	f, err := os.Open(path)
	if err != nil {
		return fileOutcome{err: err}
	}
	defer f.Close()
	in, head, err := OpenInput(path, f)
	if err != nil {
		return fileOutcome{err: err}
	}
	base := strings.TrimSuffix(filepath.Base(path), ".gz")
	var tf *Format
	for _, c := range formatTable() {
		if c.Detect(base, head) {
			tf = &c
			break
		}
	}
	if tf == nil {
		return fileOutcome{note: "not a job history, trace, topology or job configuration"}
	}
	o = fileOutcome{kind: tf.Kind, note: tf.Ignored}
	if only != "" && tf.Kind.IsHistory() && tf.Kind != only {
		return fileOutcome{note: fmt.Sprintf("%s, not %s", tf.Kind, only)}
	}
	if tf.walk != nil {
		o.res, o.err = tf.walk(path, in, walkFile{base: base, head: head, strict: strict, cache: cache})
	}
	return o
}

// pairConfs gives each history job without a configuration the conf file named
// after its job id: one in the history's directory if there is one, else the
// first in path order. A job whose own id has no conf tries the id in its
// history file's name (copies renamed by hand).
func pairConfs(paths []string, outcomes []fileOutcome, outs []jobOut) []Diagnostic {
	confs := map[string][]int{} // job id → indices of conf files, in path order
	for i, o := range outcomes {
		if o.kind == KindConf && o.err == nil {
			if id := jobIDInName.FindString(filepath.Base(paths[i])); id != "" {
				confs[id] = append(confs[id], i)
			}
		}
	}
	var diags []Diagnostic
	for k := range outs {
		o := &outs[k]
		if o.conf != nil {
			continue
		}
		hist := paths[o.file]
		cands := confs[o.job.ID]
		if len(cands) == 0 {
			if id := jobIDInName.FindString(filepath.Base(hist)); id != "" && id != o.job.ID {
				cands = confs[id]
			}
		}
		if len(cands) == 0 {
			continue
		}
		pick := cands[0]
		for _, c := range cands {
			if filepath.Dir(paths[c]) == filepath.Dir(hist) {
				pick = c
				break
			}
		}
		if len(cands) > 1 {
			diags = append(diags, Diagnostic{File: hist, Offset: -1, Msg: fmt.Sprintf(
				"%d configuration files name job %s; using %s", len(cands), o.job.ID, paths[pick])})
		}
		o.conf = outcomes[pick].res.conf
	}
	return diags
}

// learnTopology builds the host → rack map that fills missing racks: the
// caller's topology wins, then topology and node files in path order, then what
// the jobs themselves show (attempt hosts with racks, splits with racks), in
// file order. Hosts seen on more than one rack are reported once.
func learnTopology(given map[string]string, files []map[string]string, outs []jobOut) (map[string]string, []Diagnostic) {
	m := make(map[string]string, len(given))
	for h, r := range given {
		m[h] = r
	}
	var diags []Diagnostic
	conflicts := 0
	var example string
	add := func(h, r string) {
		if h == "" || r == "" {
			return
		}
		if old, ok := m[h]; !ok {
			m[h] = r
		} else if old != r && given[h] == "" {
			if conflicts == 0 {
				example = fmt.Sprintf("%s on %s and %s", h, old, r)
			}
			conflicts++
		}
	}
	for _, topo := range files {
		hosts := make([]string, 0, len(topo))
		for h := range topo {
			hosts = append(hosts, h)
		}
		slices.Sort(hosts)
		for _, h := range hosts {
			add(h, topo[h])
		}
	}
	for _, o := range outs {
		for _, t := range o.tasks {
			add(t.Host, t.Rack)
			for k, h := range t.PreferredHosts {
				add(h, t.PreferredRacks[k])
			}
		}
	}
	if conflicts > 0 {
		diags = append(diags, Diagnostic{Offset: -1, Msg: fmt.Sprintf(
			"%d hosts appear on more than one rack (first: %s); the first rack seen is used to fill missing racks", conflicts, example)})
	}
	return m, diags
}

// progress keeps a status line up to date on a terminal while the files are
// read (progress.Line: files read, share, elapsed time, rate, ETA, then jobs
// and skipped files), and replaces it at the end by a summary line.
type progress struct {
	term  *statusline.Terminal
	total int
	start time.Time
	now   func() time.Time
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{total: total, now: time.Now}
	if w != nil {
		p.term = statusline.NewTerminal(w)
	}
	p.start = p.now()
	return p
}

// line is the status line after done files.
func (p *progress) line(now time.Time, done int, jobs, skipped int64) string {
	return statusline.Line("ingest", "files", done, p.total, float64(done), now.Sub(p.start)) +
		fmt.Sprintf(" · %d jobs, %d skipped", jobs, skipped)
}

func (p *progress) update(done int, jobs, skipped int64) {
	if p.term == nil || p.total == 0 {
		return
	}
	now := p.now()
	p.term.Show(now, p.line(now, done, jobs, skipped), done == p.total)
}

func (p *progress) finish(done int, jobs, skipped int64) {
	if p.term == nil {
		return
	}
	p.term.End(fmt.Sprintf("ingest: %d/%d files read, %d jobs, %d skipped in %s", done, p.total, jobs, skipped, statusline.Clock(p.now().Sub(p.start))))
}
