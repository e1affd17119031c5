package trace

import (
	"encoding/json"
	"fmt"
	"io"
)

// Limits on what one input may make a reader do. Every size read from an input
// that becomes an allocation or a loop is checked against one of these (or
// against the bytes of input left) before the work is done; hitting one is a
// named error, never a silent truncation. The README's reliability section
// lists them.
const (
	// MaxInputBytes bounds one input file after decompression. Longer input
	// is an error naming the file, not a truncated read.
	MaxInputBytes = 2 << 30
	// MaxGzipRatio and gzipRatioFloor bound how far gzip data may expand:
	// past the first gzipRatioFloor bytes of output, output longer than
	// MaxGzipRatio times the compressed bytes read is refused as a probable
	// gzip bomb. Real traces expand 10-25 times; gzip itself cannot exceed
	// about 1030.
	MaxGzipRatio   = 100
	gzipRatioFloor = 16 << 20
	// MaxTimeMs bounds every time of a trace (ms since the epoch or since the
	// workload's start): about 35,000 years, so that replay can hold any time
	// in microseconds and add durations to it without overflowing int64.
	MaxTimeMs = 1 << 50
	// MaxJobBytes bounds a job's byte counts (input, shuffle, output) where a
	// format gives only bytes (SWIM), since replay turns them into map splits:
	// one pebibyte.
	MaxJobBytes = 1 << 50
	// MaxRecordBytes bounds one JSON value of a Rumen or SLS file (a Rumen
	// job object or topology, an SLS job or rack object): encoding/json holds
	// a whole value in memory before decoding it. The largest job objects of
	// the Rumen traces at hand are under 0.5 MB (400 tasks); 64 MiB holds
	// some 50,000 tasks.
	MaxRecordBytes = 64 << 20
	// MaxRecordItems bounds the array elements and object members of one
	// such JSON value: decoded into Go structures, an element can cost 300
	// bytes or more (an empty object "{}," in a task list is a whole task),
	// so it is the item count, not the byte count, that bounds the memory a
	// record takes. Real Rumen jobs have about 40 items per task, one per
	// 20-30 bytes of JSON: 2,000,000 items are some 50,000 tasks.
	MaxRecordItems = 2_000_000
)

// maxRecordBytes and maxRecordItems are MaxRecordBytes and MaxRecordItems,
// lowered by tests.
var (
	maxRecordBytes int64 = MaxRecordBytes
	maxRecordItems int64 = MaxRecordItems
)

// errInputTooLarge is the cause of every "input longer than MaxInputBytes" error.
var errInputTooLarge = fmt.Errorf("input longer than the limit of %d bytes (decompressed)", MaxInputBytes)

// inputLimitError is bad input: a file over a size or expansion limit.
type inputLimitError struct{ msg string }

func (e inputLimitError) Error() string        { return e.msg }
func (e inputLimitError) Is(target error) bool { return target == ErrBadInput }

// capReader reads at most max bytes of r; reading past them is an error
// (errors.Is ErrBadInput) instead of the silent EOF of io.LimitReader.
type capReader struct {
	r   io.Reader
	n   int64 // bytes read so far
	max int64
}

func newCapReader(r io.Reader, max int64) *capReader { return &capReader{r: r, max: max} }

func (c *capReader) Read(p []byte) (int, error) {
	if c.n >= c.max {
		// one byte more tells "exactly max" from "longer"
		var b [1]byte
		n, err := c.r.Read(b[:])
		if n > 0 {
			return 0, inputLimitError{fmt.Sprintf("%v", errInputTooLarge)}
		}
		return 0, err
	}
	if int64(len(p)) > c.max-c.n {
		p = p[:c.max-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// recordLimitError is a JSON value over MaxRecordBytes or MaxRecordItems. Its
// message names the limit; the readers add the file, record and byte offset.
type recordLimitError struct{ msg string }

func (e *recordLimitError) Error() string        { return e.msg }
func (e *recordLimitError) Is(target error) bool { return target == ErrBadInput }

// recordReader is the input of a json.Decoder that reads one top-level value
// at a time (jsonRecords): it fails, instead of reading on, when the decoder
// asks for more than maxRecordBytes bytes past the start of the value being
// decoded, so that encoding/json never buffers more than that.
type recordReader struct {
	r     io.Reader
	n     int64 // bytes handed to the decoder
	start int64 // offset of the value being decoded
	max   int64
}

func (c *recordReader) Read(p []byte) (int, error) {
	left := c.start + c.max - c.n
	if left <= 0 {
		// one byte more tells "exactly max" from "longer"
		var b [1]byte
		n, err := c.r.Read(b[:])
		if n > 0 {
			return 0, &recordLimitError{fmt.Sprintf("JSON value longer than the limit of %d bytes per record", c.max)}
		}
		return 0, err
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// jsonRecords decodes a stream of top-level JSON values, each bounded by
// maxRecordBytes and maxRecordItems.
type jsonRecords struct {
	rr  *recordReader
	dec *json.Decoder
}

// newJSONRecords reads r, itself bounded by MaxInputBytes.
func newJSONRecords(r io.Reader) *jsonRecords {
	rr := &recordReader{r: newCapReader(r, MaxInputBytes), max: maxRecordBytes}
	return &jsonRecords{rr: rr, dec: json.NewDecoder(rr)}
}

// offset is the byte offset of the end of the last value decoded.
func (j *jsonRecords) offset() int64 { return j.dec.InputOffset() }

// next decodes the next value into v: io.EOF at the end of the input; a
// *recordLimitError for a value over a limit (reading cannot go on past it);
// json's errors otherwise.
func (j *jsonRecords) next(v any) error {
	j.rr.start = j.dec.InputOffset()
	var raw json.RawMessage
	if err := j.dec.Decode(&raw); err != nil {
		return err
	}
	if n := jsonItems(raw); n > maxRecordItems {
		return &recordLimitError{fmt.Sprintf("JSON value of more than %d array elements and object members (the limit per record)", maxRecordItems)}
	}
	return json.Unmarshal(raw, v)
}

// jsonItems counts, outside strings, the commas and opening brackets of a JSON
// value: about its array elements and object members.
func jsonItems(b []byte) int64 {
	var n int64
	in, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in:
			switch c {
			case '\\':
				esc = true
			case '"':
				in = false
			}
		case c == '"':
			in = true
		case c == ',' || c == '[' || c == '{':
			n++
		}
	}
	return n
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ratioReader reads decompressed data, failing when it expands more than
// MaxGzipRatio times the compressed bytes consumed (past gzipRatioFloor) or
// grows past MaxInputBytes.
type ratioReader struct {
	r   io.Reader
	in  *countingReader // the compressed side
	out int64
}

func (g *ratioReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.out += int64(n)
	if g.out > MaxInputBytes {
		return n, inputLimitError{fmt.Sprintf("%v", errInputTooLarge)}
	}
	if g.out > gzipRatioFloor && g.out > MaxGzipRatio*max(g.in.n, 1) {
		return n, inputLimitError{fmt.Sprintf(
			"gzip data expands more than %d times (%d compressed bytes gave %d): refused as a probable gzip bomb",
			MaxGzipRatio, g.in.n, g.out)}
	}
	return n, err
}

// checkTimes fails when a time of a job or its tasks is beyond MaxTimeMs.
func checkTimes(j *Job, tasks []Task) error {
	for _, f := range []namedInt{{"submit", j.SubmitMs}, {"launch", j.LaunchMs}, {"finish", j.FinishMs}, {"wasted", j.WastedMs}} {
		if f.v > MaxTimeMs {
			return fmt.Errorf("job %s: %s time %d ms is beyond the limit of %d ms", j.ID, f.name, f.v, int64(MaxTimeMs))
		}
	}
	for i := range tasks {
		t := &tasks[i]
		for _, f := range []namedInt{{"start", t.StartMs}, {"finish", t.FinishMs}, {"shuffle finish", t.ShuffleFinishMs},
			{"sort finish", t.SortFinishMs}, {"wasted", t.WastedMs}} {
			if f.v > MaxTimeMs {
				return fmt.Errorf("job %s task %s: %s time %d ms is beyond the limit of %d ms", j.ID, t.TaskID, f.name, f.v, int64(MaxTimeMs))
			}
		}
	}
	return nil
}
