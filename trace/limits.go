package trace

import (
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
