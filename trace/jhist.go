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
	return res.trace(opt, FormatJhist, name)
}

// fileResult is what reading one input file produced.
type fileResult struct {
	jobs  []jobOut
	diags []Diagnostic
	topo  map[string]string // host → rack, of a topology or node file
	conf  Conf              // of a _conf.xml file
}

// trace assembles a single file's result into a trace. Under opt.Strict a
// problem found while assembling (a job without any time, racks that disagree)
// is the error.
func (res fileResult) trace(opt HistoryOptions, format, name string) (*Trace, error) {
	diags := res.diags
	var strictErr error
	add := func(d Diagnostic) {
		d.File = name
		if opt.Strict && strictErr == nil {
			strictErr = d.parseError(nil)
		}
		diags = append(diags, d)
	}
	topo, topoDiags := learnTopology(opt.Topology, nil, res.jobs)
	for _, d := range topoDiags {
		add(d)
	}
	var clockMsg, clockMeta string
	if !opt.KeepTrackerClocks {
		if fixed := correctTrackerClocks(res.jobs); len(fixed) > 0 {
			clockMsg, clockMeta = trackerClockDiag(fixed)
		}
	}
	tr := assemble(res.jobs, topo, add)
	if strictErr != nil {
		return nil, strictErr
	}
	if len(tr.Jobs) == 0 {
		// every job was dropped (none has a time): say why
		msg := "no job left"
		if len(diags) > len(res.diags) {
			if d := diags[len(res.diags)]; d.Line > 0 || d.Record > 0 || d.Offset >= 0 {
				msg += ": " + d.String() // with the job's place
			} else {
				msg += ": " + d.Msg
			}
		}
		if len(res.diags) > 0 {
			msg += " (the first problem of the file: " + res.diags[0].String() + ")"
		}
		return nil, Diagnostic{File: name, Offset: -1, Msg: msg}.parseError(nil)
	}
	if clockMsg != "" {
		// a correction, not a problem of the input: no error under Strict
		diags = append(diags, Diagnostic{File: name, Offset: -1, Msg: clockMsg})
		tr.Meta.Options = map[string]string{OptTrackerClocks: clockMeta}
	}
	opt.emit(diags)
	tr.Meta.SourceFormat = format
	tr.Meta.Sources = []string{name}
	return tr, nil
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
	st := &jhistState{diag: newDiagSink(name, strict)}
	w := &eventWindow{name: name, r: newCapReader(br, MaxInputBytes), base: int64(len(header) + len(schema) + 2)}
	if header == jhistJSONHeader {
		err = st.decodeJSON(jc, w)
	} else {
		err = st.decodeBinary(jc, w)
	}
	if err != nil {
		return fileResult{}, err
	}
	if st.job == nil {
		return fileResult{}, Diagnostic{File: name, Offset: -1,
			Msg: "no job events: the history names no job" + st.diag.whyNone()}.parseError(nil)
	}
	checkJhistName(name, st.job, st.diag)
	if st.amStart > 0 {
		st.job.job.AMStartMs = st.amStart
	}
	job, tasks, attempts := st.job.finish(st.diag)
	if err := checkTimes(&job, tasks); err != nil {
		return fileResult{}, Diagnostic{File: name, Offset: -1}.parseError(err)
	}
	if err := st.diag.strictErr(); err != nil {
		return fileResult{}, err
	}
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
