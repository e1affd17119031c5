package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// The events of a .jhist file are decoded as they stream in: the reader holds
// one window of input, at most maxEventBytes past the start of the event being
// decoded (plus one read chunk), whatever the size of the file.

// windowChunk is how much a window reads at least at a time.
const windowChunk = 64 << 10

// eventWindow is the part of a stream not yet consumed.
type eventWindow struct {
	name string
	r    io.Reader
	buf  []byte
	pos  int   // start of the unconsumed data in buf
	base int64 // offset in the file of buf[0]
	eof  bool
}

// rest returns the unconsumed data at hand.
func (w *eventWindow) rest() []byte { return w.buf[w.pos:] }

// offset returns the file offset of the unconsumed data.
func (w *eventWindow) offset() int64 { return w.base + int64(w.pos) }

// fill reads more input after the unconsumed data (at least doubling the room
// for it); at the end of the input it sets eof. A read failure is returned as
// the reader's error, naming the file.
func (w *eventWindow) fill() error {
	if w.eof {
		return nil
	}
	if w.pos > 0 {
		n := copy(w.buf, w.buf[w.pos:])
		w.base += int64(w.pos)
		w.buf, w.pos = w.buf[:n], 0
	}
	if room := max(windowChunk, len(w.buf)); cap(w.buf)-len(w.buf) < room {
		nb := make([]byte, len(w.buf), len(w.buf)+room)
		copy(nb, w.buf)
		w.buf = nb
	}
	for {
		n, err := w.r.Read(w.buf[len(w.buf):cap(w.buf)])
		w.buf = w.buf[:len(w.buf)+n]
		if errors.Is(err, io.EOF) {
			w.eof = true
			return nil
		}
		if err != nil {
			return readErrorOr(Diagnostic{File: w.name, Offset: w.base + int64(len(w.buf))}, err)
		}
		if n > 0 {
			return nil
		}
	}
}

// decodeJSON decodes the Avro-Json events: JSON values separated by whitespace.
// An event that does not decode is skipped up to the next line.
func (st *jhistState) decodeJSON(jc *jhistCodec, w *eventWindow) error {
	line := int64(3)
	record := int64(0)
	for {
		// skip whitespace, counting lines
		for {
			b := w.rest()
			i := 0
			for i < len(b) && isJSONSpace(b[i]) {
				if b[i] == '\n' {
					line++
				}
				i++
			}
			w.pos += i
			if i < len(b) {
				break
			}
			if w.eof {
				return nil
			}
			if err := w.fill(); err != nil {
				return err
			}
		}
		record++
		end, complete := 0, false
		for {
			b := w.rest()
			end, complete = jsonValueEnd(b)
			if complete || w.eof || len(b) >= maxEventBytes {
				break
			}
			if err := w.fill(); err != nil {
				return err
			}
		}
		b := w.rest()
		var err error
		if !complete && !w.eof || end > maxEventBytes {
			err = fmt.Errorf("event longer than the limit of %d bytes", maxEventBytes)
		} else {
			native, rest, derr := nativeFromTextual(jc.codec, b[:end])
			consumed := end - len(rest)
			if derr == nil && consumed <= 0 {
				derr = errors.New("decoder consumed nothing")
			}
			if derr == nil {
				startLine := line
				line += int64(bytes.Count(b[:consumed], []byte{'\n'}))
				w.pos += consumed
				if err := st.event(native, startLine, record, -1); err != nil {
					return err
				}
				continue
			}
			err = fmt.Errorf("event does not decode with the file's schema: %w", derr)
		}
		if serr := st.diag.skip(line, record, -1, err); serr != nil {
			return serr
		}
		if err := w.skipLine(); err != nil {
			return err
		}
	}
}

// skipLine consumes input up to (not including) the next newline, or all of it.
func (w *eventWindow) skipLine() error {
	for {
		if i := bytes.IndexByte(w.rest(), '\n'); i >= 0 {
			w.pos += i
			return nil
		}
		w.pos = len(w.buf)
		if w.eof {
			return nil
		}
		if err := w.fill(); err != nil {
			return err
		}
	}
}

// jsonValueEnd returns the end of the JSON value at the start of b (which
// starts with no whitespace), by brackets and strings only, and whether the
// value is complete in b. Content errors are left to the decoder.
func jsonValueEnd(b []byte) (int, bool) {
	depth := 0
	inStr, esc := false, false
	for i, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if depth == 0 {
					return i + 1, true
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return i + 1, true
			}
		default:
			if depth == 0 && (isJSONSpace(c) || c == ',') {
				return i, true // end of a bare literal
			}
		}
	}
	return len(b), false
}

func isJSONSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\r' || b == '\t' }

// decodeBinary decodes the Avro-Binary events: datums back to back until EOF. A
// datum that does not decode ends the reading, since binary data has no place
// to resume at.
func (st *jhistState) decodeBinary(jc *jhistCodec, w *eventWindow) error {
	record := int64(0)
	for {
		if len(w.rest()) == 0 {
			if w.eof {
				return nil
			}
			if err := w.fill(); err != nil {
				return err
			}
			continue
		}
		record++
		off := w.offset()
		var end int
		var err error
		for {
			b := w.rest()
			end, err = avroSkip(jc.schema, b, 0)
			if err == nil || !errors.Is(err, errShortDatum) || w.eof {
				break
			}
			if len(b) >= maxEventBytes {
				err = fmt.Errorf("event longer than the limit of %d bytes (%w)", maxEventBytes, err)
				break
			}
			if ferr := w.fill(); ferr != nil {
				return ferr
			}
		}
		if err == nil && end == 0 {
			err = errors.New("the schema lets an event occupy no bytes")
		}
		if err == nil && end > maxEventBytes {
			err = fmt.Errorf("event of %d bytes, longer than the limit of %d", end, maxEventBytes)
		}
		if err == nil {
			var native any
			var rest []byte
			native, rest, err = nativeFromBinary(jc.codec, w.rest()[:end])
			if err == nil && len(rest) != 0 {
				err = fmt.Errorf("decoder stopped %d bytes before the datum's end", len(rest))
			}
			if err == nil {
				w.pos += end
				if err = st.event(native, 0, record, off); err != nil {
					return err
				}
				continue
			}
		}
		return st.diag.skip(0, record, off,
			fmt.Errorf("event does not decode with the file's schema (%w); the rest of the file is skipped", err))
	}
}
