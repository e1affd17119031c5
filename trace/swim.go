package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// maxSWIMLine bounds one line of a SWIM file; real lines are under 100 bytes.
const maxSWIMLine = 64 << 10

// swimFieldName names field k (0-based) of a SWIM line for error messages.
func swimFieldName(k int) string {
	switch k {
	case 0:
		return "job id"
	case 1:
		return "submit time (s)"
	case 2:
		return "inter-job gap (s)"
	case 3:
		return "map input bytes"
	case 4:
		return "shuffle bytes"
	case 5:
		return "reduce output bytes"
	}
	return "field"
}

// ReadSWIM reads a SWIM / Facebook workload TSV file (FORMATS.md §1): one job per
// line, TAB-separated fields job<N>, submit time (s), gap to the previous job (s),
// map input, shuffle and output bytes, then optionally input and output path.
// The 6-, 8- and 9-field variants are accepted: at least 6 fields, empty trailing
// fields ignored, a non-empty 9th or later field refused. Blank lines and a CR
// before the LF are tolerated; a last job line without its LF is refused, since
// a file cut inside its last field would parse with a wrong byte count.
//
// Each line becomes a Job with ID and Name "job<N>", User "", Queue "default",
// Status "" (SWIM records none: unknown), SubmitMs = submit time × 1000, the three byte counts, and
// InputPath from field 7. Everything SWIM does not record is Unknown: launch and
// finish times, NumMaps and NumReduces (the replay stage synthesises tasks from the
// bytes), memory, and failed/killed attempts and wasted time. The output path
// (field 8) has no place in Job and is dropped: SWIM numbers output paths
// apart from input paths (outputPath<k>, inputPath<k>), so it cannot tell
// which job wrote another's input. The trace has no tasks. Jobs sharing an
// input path read one dataset in the replay (replay/datasets.go).
//
// Errors are *ParseError values naming file:line:column: too few fields, a job id
// that is not job<N> or repeats an earlier one, a number that is not a
// non-negative decimal integer or does not fit, and a submit time smaller than
// the previous line's.
//
// Submit time versus gap: real files always satisfy
// submit[i] == submit[i-1] + gap[i] (submit[0] == gap[0]). When a line breaks this,
// the submit time (field 2) wins and the gap is only checked to be a valid
// number: field 2 is absolute, so one wrong or deleted line cannot shift every later
// job, and hand-filtered files (jobs removed) keep their true times. The reader
// writes a warning to opt.Warnings; with opt.Strict it is an error instead.
// opt.Strict also requires the ids to be job0, job1, … in file order.
func ReadSWIM(name string, r io.Reader, opt ReadOptions) (*Trace, error) {
	p := swimParser{name: name, strict: opt.Strict, warn: warner{w: opt.Warnings, file: name},
		paths: make(map[string]string), consecutive: true}
	br := bufio.NewReaderSize(newCapReader(r, MaxInputBytes), maxSWIMLine)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, &ParseError{File: name, Line: lineNo, Column: 1,
				Msg: fmt.Sprintf("line longer than %d bytes: want one SWIM job per line", maxSWIMLine)}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: read: %w", name, lineNo, err)
		}
		if len(line) > 0 {
			if perr := p.parseLine(lineNo, line); perr != nil {
				return nil, perr
			}
		}
		if err != nil { // io.EOF
			if len(bytes.TrimSpace(line)) > 0 {
				// a job line without its LF: the file may have been cut inside
				// the last field (a byte count missing digits parses fine)
				return nil, &ParseError{File: name, Line: lineNo, Column: len(line) + 1,
					Msg: "the file ends inside a line (no LF after the last job): it may be cut inside its last field; want every line to end with LF"}
			}
			break
		}
	}
	p.warn.done()
	jobs := make([]Job, 0, p.n)
	for _, c := range p.chunks {
		jobs = append(jobs, c...)
	}
	if len(jobs) == 0 {
		return nil, &ParseError{File: name, Msg: "no jobs: want at least one SWIM line (job<N> TAB submit TAB gap TAB input TAB shuffle TAB output)"}
	}
	t := &Trace{Jobs: jobs, Meta: Meta{SchemaVersion: SchemaVersion, SourceFormat: "swim", Sources: []string{name}}}
	t.Sort()
	return t, nil
}

// swimParser holds the state of one ReadSWIM call.
type swimParser struct {
	name   string
	strict bool
	warn   warner
	chunks [][]Job           // jobs read so far, in blocks to avoid copying on growth
	n      int               // number of jobs read so far
	paths  map[string]string // interned input paths
	// consecutive says the ids so far were job0, job1, …, so a next id
	// job<n> is new without a lookup; ids holds the ids once that stops.
	consecutive bool
	ids         map[string]struct{}
	prev        int64 // previous submit time (s)
	prevLn      int   // line of the previous job
}

// swimChunk is the number of jobs per block of swimParser.chunks.
const swimChunk = 4096

// span is a field's byte range within its line.
type span struct{ start, end int }

// parseLine parses one line (with its LF) into a job.
func (p *swimParser) parseLine(lineNo int, line []byte) error {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) == 0 {
		return nil
	}
	var f [8]span
	n, start := 0, 0
	for i := 0; i <= len(line); i++ {
		if i < len(line) && line[i] != '\t' {
			continue
		}
		if n < len(f) {
			f[n] = span{start, i}
		} else if i > start {
			return p.errf(lineNo, start, "unexpected non-empty field %d %s: want at most 8 fields (job id, submit, gap, input, shuffle, output, input path, output path)",
				n+1, quote(line[start:i]))
		}
		n++
		start = i + 1
	}
	if n < 6 {
		return p.errf(lineNo, len(line), "%d fields: want at least 6 TAB-separated fields (job id, submit time, gap, input, shuffle, output bytes)", n)
	}
	id := line[f[0].start:f[0].end]
	if err := p.checkID(lineNo, f[0], id); err != nil {
		return err
	}
	var v [5]int64
	for k := range v {
		x, err := p.number(lineNo, k+1, f[k+1], line)
		if err != nil {
			return err
		}
		v[k] = x
	}
	for k := 2; k < 5; k++ {
		if v[k] > MaxJobBytes {
			return p.errf(lineNo, f[k+1].start, "field %d (%s) %d is beyond the limit of %d bytes (replay makes a map per block of input)",
				k+2, swimFieldName(k+1), v[k], int64(MaxJobBytes))
		}
	}
	submit, gap := v[0], v[1]
	if submit > MaxTimeMs/1000 {
		return p.errf(lineNo, f[1].start, "field 2 (%s) %d is beyond the limit of %d s", swimFieldName(1), submit, int64(MaxTimeMs/1000))
	}
	if p.n > 0 && submit < p.prev {
		return p.errf(lineNo, f[1].start, "field 2 (%s) %d is before the previous job's %d (line %d): want non-decreasing submit times",
			swimFieldName(1), submit, p.prev, p.prevLn)
	}
	if want := p.prev + gap; (gap > math.MaxInt64-p.prev) || want != submit {
		msg := fmt.Sprintf("field 3 (%s) %d disagrees with the submit times: %d (previous) + %d != %d",
			swimFieldName(2), gap, p.prev, gap, submit)
		if p.strict {
			return p.errf(lineNo, f[2].start, "%s: want submit = previous submit + gap", msg)
		}
		p.warn.warnf(lineNo, f[2].start+1, "%s; using the submit time", msg)
	}
	sid := string(id)
	if p.ids != nil {
		p.ids[sid] = struct{}{}
	}
	j := NewJob(sid)
	j.Name, j.Queue, j.Status = sid, "default", StatusUnknown
	j.SubmitMs = submit * 1000
	j.InputBytes, j.ShuffleBytes, j.OutputBytes = v[2], v[3], v[4]
	j.FailedAttempts, j.KilledAttempts, j.WastedMs = Unknown, Unknown, Unknown
	if n > 6 && f[6].end > f[6].start {
		j.InputPath = p.intern(line[f[6].start:f[6].end])
	}
	if len(p.chunks) == 0 || len(p.chunks[len(p.chunks)-1]) == swimChunk {
		p.chunks = append(p.chunks, make([]Job, 0, swimChunk))
	}
	p.chunks[len(p.chunks)-1] = append(p.chunks[len(p.chunks)-1], j)
	p.n++
	p.prev, p.prevLn = submit, lineNo
	return nil
}

// checkID accepts job<N> (N decimal digits) not seen before; strict mode also
// wants N to be the job's position in the file.
func (p *swimParser) checkID(lineNo int, f span, id []byte) error {
	digits, ok := bytes.CutPrefix(id, []byte("job"))
	if !ok || len(digits) == 0 || len(digits) > 19 {
		return p.errf(lineNo, f.start, "field 1 (job id) %s: want job<N>", quote(id))
	}
	if !allDigits(digits) {
		return p.errf(lineNo, f.start, "field 1 (job id) %s: want job<N>", quote(id))
	}
	next := isDecimal(digits, p.n)
	if p.strict && !next {
		return p.errf(lineNo, f.start, "field 1 (job id) %s: want job%d (strict: ids job0, job1, … in order)", quote(id), p.n)
	}
	if p.consecutive && next {
		return nil
	}
	if p.consecutive { // first id out of sequence: index all earlier ids
		p.consecutive = false
		p.ids = make(map[string]struct{}, p.n+1)
		for _, c := range p.chunks {
			for i := range c {
				p.ids[c[i].ID] = struct{}{}
			}
		}
	}
	if _, dup := p.ids[string(id)]; dup {
		return p.errf(lineNo, f.start, "field 1 (job id) %s repeats an earlier job's id: want unique ids", quote(id))
	}
	return nil
}

// number parses field k (0-based) as a non-negative decimal int64.
func (p *swimParser) number(lineNo, k int, f span, line []byte) (int64, error) {
	b := line[f.start:f.end]
	if len(b) > 0 && len(b) < 19 && allDigits(b) { // fast path: cannot overflow
		var x int64
		for _, c := range b {
			x = x*10 + int64(c-'0')
		}
		return x, nil
	}
	what := fmt.Sprintf("field %d (%s)", k+1, swimFieldName(k))
	if len(b) == 0 {
		return 0, p.errf(lineNo, f.start, "%s is empty: want a non-negative integer", what)
	}
	if b[0] == '-' && len(b) > 1 && allDigits(b[1:]) {
		return 0, p.errf(lineNo, f.start, "%s %s is negative: want a non-negative integer", what, quote(b))
	}
	var x int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, p.errf(lineNo, f.start, "%s %s: want a non-negative integer", what, quote(b))
		}
		d := int64(c - '0')
		if x > (math.MaxInt64-d)/10 {
			return 0, p.errf(lineNo, f.start, "%s %s does not fit in 64 bits", what, quote(b))
		}
		x = x*10 + d
	}
	return x, nil
}

// intern returns a shared string for a repeated input path.
func (p *swimParser) intern(b []byte) string {
	if s, ok := p.paths[string(b)]; ok {
		return s
	}
	s := string(b)
	p.paths[s] = s
	return s
}

// errf returns a ParseError at the 0-based byte offset off of the line.
func (p *swimParser) errf(lineNo, off int, format string, args ...any) error {
	return &ParseError{File: p.name, Line: lineNo, Column: off + 1, Msg: fmt.Sprintf(format, args...)}
}

// isDecimal reports whether digits is the canonical decimal spelling of n (no
// leading zeros).
func isDecimal(digits []byte, n int) bool {
	var buf [20]byte
	return bytes.Equal(digits, strconv.AppendInt(buf[:0], int64(n), 10))
}

// allDigits reports whether b holds only ASCII digits.
func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}
