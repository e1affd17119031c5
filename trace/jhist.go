package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/linkedin/goavro/v2"
)

// FormatJhist is the Meta.SourceFormat of traces read from .jhist files.
const FormatJhist = "jhist"

// The first line of a .jhist file (EventWriter.VERSION / VERSION_BINARY).
const (
	jhistJSONHeader   = "Avro-Json"
	jhistBinaryHeader = "Avro-Binary"
)

// maxHistoryBytes bounds the (decompressed) size of one history file a reader
// holds in memory; the largest real .jhist files (jobs with ~10^5 tasks) are a
// few hundred megabytes.
const maxHistoryBytes = 2 << 30

// DetectJhist reports whether a file starts like a MapReduce JobHistory file:
// a first line "Avro-Json" or "Avro-Binary".
func DetectJhist(name string, head []byte) bool {
	for _, h := range []string{jhistJSONHeader, jhistBinaryHeader} {
		if rest, ok := bytes.CutPrefix(head, []byte(h)); ok {
			return len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r'
		}
	}
	return false
}

// ReadJhist reads one MapReduce JobHistory file (.jhist, Hadoop 0.21 to 3.x),
// Avro-Json or Avro-Binary, decoding its events with the Avro schema on the
// file's second line. The trace holds the file's job and its map and reduce
// tasks; problems that did not stop the reading go to opt.Warn.
func ReadJhist(name string, r io.Reader, opt HistoryOptions) (*Trace, error) {
	res, err := readJhist(name, r, opt.Strict, newCodecCache())
	if err != nil {
		return nil, err
	}
	return res.trace(opt, FormatJhist, name), nil
}

// fileResult is what reading one input file produced.
type fileResult struct {
	jobs  []jobOut
	diags []Diagnostic
	topo  map[string]string // host → rack, of a topology or node file
	conf  Conf              // of a _conf.xml file
}

// trace assembles a single file's result into a trace.
func (res fileResult) trace(opt HistoryOptions, format, name string) *Trace {
	diags := res.diags
	topo, topoDiags := learnTopology(opt.Topology, nil, res.jobs)
	for _, d := range topoDiags {
		d.File = name
		diags = append(diags, d)
	}
	tr := assemble(res.jobs, topo, func(d Diagnostic) {
		d.File = name
		diags = append(diags, d)
	})
	opt.emit(diags)
	tr.Meta.SourceFormat = format
	tr.Meta.Sources = []string{name}
	return tr
}

// jhistCodec is a compiled .jhist schema.
type jhistCodec struct {
	codec  *goavro.Codec
	schema *avroNode
	err    error
}

// codecCache shares compiled schemas between the files of one ingest run: the
// thousands of files of one cluster carry the same few schemas.
type codecCache struct {
	mu sync.Mutex
	m  map[string]*jhistCodec
}

// maxCachedSchemas bounds the cache; further schemas are compiled per file.
const maxCachedSchemas = 64

func newCodecCache() *codecCache { return &codecCache{m: map[string]*jhistCodec{}} }

func (c *codecCache) get(schema []byte) *jhistCodec {
	c.mu.Lock()
	jc, ok := c.m[string(schema)]
	c.mu.Unlock()
	if ok {
		return jc
	}
	jc = compileJhistSchema(schema)
	c.mu.Lock()
	if len(c.m) < maxCachedSchemas {
		c.m[string(schema)] = jc
	}
	c.mu.Unlock()
	return jc
}

func compileJhistSchema(schema []byte) (jc *jhistCodec) {
	jc = &jhistCodec{}
	node, err := parseAvroSchema(schema)
	if err != nil {
		jc.err = err
		return jc
	}
	if node.kind != avRecord || !strings.HasSuffix(node.name, "Event") || len(node.fields) < 2 {
		jc.err = fmt.Errorf("schema is not a JobHistory Event record (got %q)", node.name)
		return jc
	}
	defer func() {
		// goavro is third-party code fed with file contents; a panic in it must
		// not take the whole ingest down.
		if p := recover(); p != nil {
			jc.err = fmt.Errorf("avro library failed on this schema: %v", p)
		}
	}()
	codec, err := goavro.NewCodecWithOptions(string(schema), &goavro.CodecOption{})
	if err != nil {
		jc.err = err
		return jc
	}
	jc.codec, jc.schema = codec, node
	return jc
}

// readJhist reads one .jhist stream into a fileResult.
func readJhist(name string, r io.Reader, strict bool, cache *codecCache) (fileResult, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	header, err := readLimitedLine(br, 64)
	if err != nil || (header != jhistJSONHeader && header != jhistBinaryHeader) {
		return fileResult{}, readErrorOr(Diagnostic{File: name, Line: 1, Offset: -1,
			Msg: fmt.Sprintf("first line is %q, expected %q or %q", clip(header, 40), jhistJSONHeader, jhistBinaryHeader)}, err)
	}
	schema, err := readLimitedLine(br, maxSchemaBytes)
	if err != nil {
		return fileResult{}, readErrorOr(Diagnostic{File: name, Line: 2, Offset: -1,
			Msg: "cannot read the schema line"}, err)
	}
	jc := cache.get([]byte(schema))
	if jc.err != nil {
		return fileResult{}, Diagnostic{File: name, Line: 2, Offset: -1,
			Msg: "bad Avro schema"}.parseError(jc.err)
	}
	body, err := io.ReadAll(io.LimitReader(br, maxHistoryBytes+1))
	if err != nil {
		return fileResult{}, readErrorOr(Diagnostic{File: name, Offset: -1, Msg: "read failed"}, err)
	}
	if len(body) > maxHistoryBytes {
		return fileResult{}, Diagnostic{File: name, Offset: -1,
			Msg: fmt.Sprintf("history larger than %d bytes", maxHistoryBytes)}.parseError(nil)
	}
	st := &jhistState{diag: newDiagSink(name, strict)}
	bodyOffset := int64(len(header) + len(schema) + 2)
	if header == jhistJSONHeader {
		err = st.decodeJSON(jc, body)
	} else {
		err = st.decodeBinary(jc, body, bodyOffset)
	}
	if err != nil {
		return fileResult{}, err
	}
	if st.job == nil {
		return fileResult{}, Diagnostic{File: name, Offset: -1,
			Msg: "no job events: the history names no job"}.parseError(nil)
	}
	checkJhistName(name, st.job, st.diag)
	if st.amStart > 0 {
		st.job.job.AMStartMs = st.amStart
	}
	job, tasks, attempts := st.job.finish(st.diag)
	return fileResult{jobs: []jobOut{{job: job, tasks: tasks, attempts: attempts}}, diags: st.diag.all()}, nil
}

// readLimitedLine reads one line without its line end, failing past max bytes.
func readLimitedLine(br *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > max+2 {
			return "", fmt.Errorf("line longer than %d bytes", max)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(b) > 0 {
			break
		}
		return string(b), err
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// jhistState accumulates the events of one .jhist file.
type jhistState struct {
	diag    *diagSink
	job     *jobAcc
	amStart int64 // earliest AMStarted startTime, 0 if none
}

// decodeJSON decodes the Avro-Json events: JSON values separated by whitespace.
// An event that does not decode is skipped up to the next line.
func (st *jhistState) decodeJSON(jc *jhistCodec, body []byte) error {
	line := int64(3)
	record := int64(0)
	pos := 0
	for {
		// skip whitespace, counting lines
		for pos < len(body) && isJSONSpace(body[pos]) {
			if body[pos] == '\n' {
				line++
			}
			pos++
		}
		if pos >= len(body) {
			return nil
		}
		record++
		native, rest, err := nativeFromTextual(jc.codec, body[pos:])
		if err == nil && len(rest) >= len(body)-pos {
			err = errors.New("decoder consumed nothing")
		}
		if err == nil {
			consumed := len(body) - pos - len(rest)
			line += int64(bytes.Count(body[pos:pos+consumed], []byte{'\n'}))
			pos += consumed
			err = st.event(native, line, record, -1)
			if err != nil {
				return err
			}
			continue
		}
		if serr := st.diag.skip(line, record, -1, fmt.Errorf("event does not decode with the file's schema: %w", err)); serr != nil {
			return serr
		}
		nl := bytes.IndexByte(body[pos:], '\n')
		if nl < 0 {
			return nil
		}
		pos += nl // the newline is counted by the whitespace loop
	}
}

func isJSONSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\r' || b == '\t' }

// decodeBinary decodes the Avro-Binary events: datums back to back until EOF. A
// datum that does not decode ends the reading, since binary data has no place
// to resume at.
func (st *jhistState) decodeBinary(jc *jhistCodec, body []byte, base int64) error {
	record := int64(0)
	for off := 0; off < len(body); {
		record++
		end, err := avroSkip(jc.schema, body, off)
		if err == nil && end == off {
			err = errors.New("the schema lets an event occupy no bytes")
		}
		if err == nil {
			var native any
			var rest []byte
			native, rest, err = nativeFromBinary(jc.codec, body[off:end])
			if err == nil && len(rest) != 0 {
				err = fmt.Errorf("decoder stopped %d bytes before the datum's end", len(rest))
			}
			if err == nil {
				if err = st.event(native, 0, record, base+int64(off)); err != nil {
					return err
				}
				off = end
				continue
			}
		}
		return st.diag.skip(0, record, base+int64(off),
			fmt.Errorf("event does not decode with the file's schema (%w); the rest of the file (%d bytes) is skipped", err, len(body)-off))
	}
	return nil
}

// nativeFromTextual and nativeFromBinary call goavro, turning a panic of the
// library on hostile input into an error.
func nativeFromTextual(c *goavro.Codec, b []byte) (v any, rest []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, rest, err = nil, nil, fmt.Errorf("avro library failed: %v", p)
		}
	}()
	return c.NativeFromTextual(b)
}

func nativeFromBinary(c *goavro.Codec, b []byte) (v any, rest []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, rest, err = nil, nil, fmt.Errorf("avro library failed: %v", p)
		}
	}()
	return c.NativeFromBinary(b)
}
