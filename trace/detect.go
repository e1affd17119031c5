package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ReadOptions are the settings every input reader takes.
type ReadOptions struct {
	// Strict turns checks that are warnings by default (inconsistencies real
	// files may have) into errors.
	Strict bool
	// Progress, when not nil, receives progress lines of long reads.
	Progress io.Writer
	// Warnings, when not nil, receives warnings as FILE:LINE:COLUMN: warning: …
	// lines (at most a few per file, then a count).
	Warnings io.Writer
	// KeepTrackerClocks is HistoryOptions.KeepTrackerClocks.
	KeepTrackerClocks bool
}

// ReaderFunc reads one input file, named name (for messages and Meta.Sources;
// "-" is stdin), already decompressed. It returns the trace in canonical order
// (Trace.Sort) with Meta.SourceFormat and Meta.Sources set; errors in the data are
// *ParseError values.
type ReaderFunc func(name string, r io.Reader, opt ReadOptions) (*Trace, error)

// Format is one kind of file the readers recognise: an input format cmd/ingest
// reads (Read is set), or a file only a directory walk (ReadTree) uses or
// ignores, such as a job configuration or a topology. One table (formatTable)
// holds them all; adding a format is its reader file and one entry there.
type Format struct {
	Name        string // name for --format
	Description string // one line for --help
	// Detect reports whether an input looks like this format, from its file name
	// (with any .gz suffix removed; "-" for stdin) and its first bytes after
	// decompression (up to HeadSize, fewer for short files).
	Detect func(name string, head []byte) bool
	// Read reads one file of this format given to ingest by name; nil for kinds
	// that are met only in a tree.
	Read ReaderFunc
	// FileLocalIDs says job ids (and paths) are only unique within one file, as
	// SWIM's job0, job1, … are: merging several files then qualifies them.
	FileLocalIDs bool
	// Kind is what ReadTree counts a file of this format as; KindNotATrace
	// files are ignored with Ignored as the reason.
	Kind    FileKind
	Ignored string
	// Files names the files of a history format in messages (".jhist",
	// "Hadoop 1 logs"); empty for the other kinds.
	Files string
	// walk reads one file of this format in a tree; nil for ignored kinds.
	walk func(path string, in io.Reader, w walkFile) (fileResult, error)
}

// walkFile is what a tree reader gets besides the file's path and content.
type walkFile struct {
	base   string // the file name without directory and .gz suffix
	head   []byte // the first bytes, as detection saw them
	strict bool
	cache  *codecCache
}

// HeadSize is how many leading bytes of an input format detection looks at.
const HeadSize = 4096

// formatTable is every kind of file the readers recognise, in detection order:
// the first entry whose Detect accepts a file decides what it is. Topologies
// come before Rumen traces (both are JSON objects), SLS node files and SYNTH
// specs before SLS job files; SWIM, job configurations and the JSON formats
// cannot be mistaken for one another.
func formatTable() []Format {
	return []Format{
		{Name: "swim", Description: "SWIM / Facebook workload TSV (6, 8 or 9 TAB-separated fields per job)",
			Detect: detectSWIM, Read: ReadSWIM, FileLocalIDs: true,
			Kind: KindNotATrace, Ignored: "SWIM workload (its job ids are local to the file: give the file itself to ingest)"},
		{Name: FormatJhist, Description: "MapReduce JobHistory .jhist, Hadoop 0.21-3.x (Avro-Json or Avro-Binary)",
			Detect: DetectJhist, Read: readJhistFormat, Kind: KindJhist, Files: ".jhist",
			walk: func(path string, in io.Reader, w walkFile) (fileResult, error) {
				return readJhist(path, in, w.strict, w.cache)
			}},
		{Name: FormatHadoop1, Description: "Hadoop 0.20/1.x JobTracker history log or \\f!!FILE= bundle",
			Detect: DetectHadoop1, Read: readHadoop1Format, Kind: KindHadoop1, Files: "Hadoop 1 logs",
			walk: func(path string, in io.Reader, w walkFile) (fileResult, error) {
				return readHadoop1(path, in, w.strict)
			}},
		{Name: "rumen-topology", Description: "Rumen topology (fills missing racks of a tree)",
			Detect: DetectRumenTopology, Kind: KindTopology, walk: walkTopology},
		{Name: FormatRumen, Description: "Rumen JSON job trace",
			Detect: DetectRumen, Read: readRumenFormat, Kind: KindRumen, Files: "Rumen",
			walk: func(path string, in io.Reader, w walkFile) (fileResult, error) {
				return readRumen(path, in, w.strict)
			}},
		{Name: "sls-nodes", Description: "Hadoop SLS node file (fills missing racks of a tree)",
			Detect: DetectSLSNodes, Kind: KindTopology, walk: walkTopology},
		{Name: "sls-synth", Description: "Hadoop SLS SYNTH workload spec",
			Detect: DetectSLSSynth, Kind: KindNotATrace, Ignored: "SLS SYNTH workload spec (distributions, not a trace)"},
		{Name: FormatSLS, Description: "Hadoop SLS native job file",
			Detect: DetectSLS, Read: readSLSFormat, Kind: KindSLS, Files: "SLS",
			walk: func(path string, in io.Reader, w walkFile) (fileResult, error) {
				return readSLS(path, in, w.strict, maxSLSTasksPerFile)
			}},
		{Name: "conf", Description: "a job's _conf.xml (pairs with its history in a tree)",
			Detect: detectConf, Kind: KindConf,
			walk: func(path string, in io.Reader, _ walkFile) (fileResult, error) {
				c, err := ReadConf(path, in)
				return fileResult{conf: c}, err
			}},
	}
}

// walkTopology reads a topology file of a tree: an SLS node file when it looks
// like one, else a Rumen topology.
func walkTopology(path string, in io.Reader, w walkFile) (res fileResult, err error) {
	if DetectSLSNodes(w.base, w.head) {
		res.topo, err = ReadSLSNodes(path, in)
	} else {
		res.topo, err = ReadRumenTopology(path, in)
	}
	return res, err
}

// Formats returns the input formats cmd/ingest reads (the entries of the
// format table with a reader) in detection order: the first whose Detect
// accepts an input is used.
func Formats() []Format {
	var fs []Format
	for _, f := range formatTable() {
		if f.Read != nil {
			fs = append(fs, f)
		}
	}
	return fs
}

// HistoryKinds returns the kinds of job history a tree walk reads, in table
// order.
func HistoryKinds() []FileKind {
	var ks []FileKind
	for _, f := range formatTable() {
		if f.Kind.IsHistory() {
			ks = append(ks, f.Kind)
		}
	}
	return ks
}

// HistoryKind returns the kind of history --format name keeps when a
// directory is walked; ok is false when name is not one.
func HistoryKind(name string) (k FileKind, ok bool) {
	k = FileKind(name)
	return k, slices.Contains(HistoryKinds(), k)
}

// DirFormatError is the message for a --format that a directory walk does not
// read: "--format swim reads files, not directories (a directory holds jhist,
// hadoop1, rumen or sls histories)".
func DirFormatError(format string) string {
	var names []string
	for _, k := range HistoryKinds() {
		names = append(names, string(k))
	}
	return fmt.Sprintf("--format %s reads files, not directories (a directory holds %s histories)", format, orList(names))
}

// NoHistoriesMsg is the message for a directory without any job history:
// "no job histories found (.jhist, Hadoop 1 logs, Rumen or SLS files)".
func NoHistoriesMsg() string {
	var names []string
	for _, f := range formatTable() {
		if f.Kind.IsHistory() {
			names = append(names, f.Files)
		}
	}
	return fmt.Sprintf("no job histories found (%s files)", orList(names))
}

// orList joins "a, b, c or d".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// FormatNames returns the names of the known formats in table order.
func FormatNames() []string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return names
}

// LookupFormat returns the format called name; the error lists the valid names.
func LookupFormat(name string) (Format, error) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("unknown format %q: want auto or one of %s", name, strings.Join(FormatNames(), ", "))
}

// DetectFormat returns the first format of the table that accepts the input.
func DetectFormat(name string, head []byte) (Format, error) {
	base := strings.TrimSuffix(name, ".gz")
	for _, f := range Formats() {
		if f.Detect(base, head) {
			return f, nil
		}
	}
	return Format{}, &ParseError{File: name, Msg: fmt.Sprintf(
		"cannot detect the input format from the name and first bytes: name one with --format (%s)",
		strings.Join(FormatNames(), ", "))}
}

// OpenInput prepares r for reading: when it starts with the gzip magic bytes it
// is decompressed (whatever the file name). The reader it returns fails (bad
// input naming the limit) past MaxInputBytes, and gzip data that expands more
// than MaxGzipRatio times is refused as soon as that shows. It returns the reader to parse, with
// nothing consumed, and up to HeadSize of its first bytes for DetectFormat.
func OpenInput(name string, r io.Reader) (io.Reader, []byte, error) {
	in := &countingReader{r: r}
	br := bufio.NewReaderSize(in, HeadSize)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: read: %w", name, err)
	}
	if bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("bad gzip header: %v", err)}
		}
		br = bufio.NewReaderSize(&gzipErrors{r: &ratioReader{r: zr, in: in}}, HeadSize)
	} else {
		br = bufio.NewReaderSize(newCapReader(br, MaxInputBytes), HeadSize)
	}
	head, err := br.Peek(HeadSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return br, head, nil
}

// gzipErrors marks decompression errors as bad input and says how far the
// data decompressed before them.
type gzipErrors struct {
	r   io.Reader
	out int64 // decompressed bytes delivered so far
}

func (g *gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.out += int64(n)
	var limit inputLimitError
	if err != nil && !errors.Is(err, io.EOF) && !errors.As(err, &limit) {
		err = gzipError{err: err, at: g.out}
	}
	return n, err
}

// gzipError is corrupt or truncated gzip data, met after at bytes of
// decompressed data.
type gzipError struct {
	err error
	at  int64
}

func (e gzipError) Error() string {
	if errors.Is(e.err, io.ErrUnexpectedEOF) {
		return fmt.Sprintf("corrupt gzip data: it ends after %d decompressed bytes, inside a compressed block or before the gzip trailer (the file is cut short): %v", e.at, e.err)
	}
	return fmt.Sprintf("corrupt gzip data after %d decompressed bytes: %v", e.at, e.err)
}
func (e gzipError) Unwrap() error        { return e.err }
func (e gzipError) Is(target error) bool { return target == ErrBadInput }

// ReadInput reads one input file: decompresses it if gzipped, detects its format
// when format is "auto" (else looks the name up), and runs the format's reader.
func ReadInput(name string, r io.Reader, format string, opt ReadOptions) (*Trace, Format, error) {
	in, head, err := OpenInput(name, r)
	if err != nil {
		return nil, Format{}, err
	}
	var f Format
	if format == "auto" {
		f, err = DetectFormat(name, head)
	} else {
		f, err = LookupFormat(format)
	}
	if err != nil {
		return nil, Format{}, err
	}
	t, err := f.Read(name, in, opt)
	if err != nil {
		return nil, f, err
	}
	return t, f, nil
}

// detectSWIM accepts a first line of at least 6 TAB-separated fields starting
// job<N>, then five decimal integers.
func detectSWIM(_ string, head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	fields := bytes.Split(line, []byte{'\t'})
	if len(fields) < 6 {
		return false
	}
	id, ok := bytes.CutPrefix(fields[0], []byte("job"))
	if !ok || len(id) == 0 || !allDigits(id) {
		return false
	}
	for _, f := range fields[1:6] {
		if len(f) == 0 || !allDigits(f) {
			return false
		}
	}
	return true
}
