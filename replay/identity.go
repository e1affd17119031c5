package replay

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strconv"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/trace"
)

// Run identity: what makes two runs replicates (seeds) of one cell. A run is
// identified by the content of its trace, its hardware model and its policy
// spec, never by their names alone: two traces may share a file name, and a
// hardware name says nothing of the keys set on top of it.

// TraceSHA256 is the identity of a trace's content: "sha256:" and the SHA-256 of
// its jobs and tasks in order (encoded as JSON, empty host lists as none),
// leaving out Meta, so a raw file and the trace directory ingest made of it
// have one identity. A job's max attempts (trace schema 2.1) are left out
// when both are unknown, its out-of-band heartbeat (2.3) when unknown, its
// common configuration version (2.5) when empty, and a
// task's launch lag (2.2) and report lag (2.4) each when unknown, so that a
// trace without them keeps the identity it had before they existed. A
// streamed trace (t.Stream), with its tasks when it has them, is read for it,
// and an error reading it is returned as "".
func TraceSHA256(t *trace.Trace) string {
	h := NewTraceHash()
	err := eachJob(t, func(_ int, j *trace.Job) error { h.Visit(j, nil); return nil })
	if err != nil {
		return ""
	}
	if err := eachTask(t, func(_ int, k *trace.Task) error { h.Visit(nil, k); return nil }); err != nil {
		return ""
	}
	return h.Sum()
}

// TraceHash computes TraceSHA256 from a trace's jobs and then its tasks, in
// trace order, as something else reads them (trace.StreamOptions.Visit).
type TraceHash struct {
	h     hash.Hash
	w     *bufio.Writer
	tasks bool   // the tasks began
	buf   []byte // a task's JSON, reused from task to task
}

// NewTraceHash returns a TraceHash of no job yet.
func NewTraceHash() *TraceHash {
	h := sha256.New()
	return &TraceHash{h: h, w: bufio.NewWriter(h)}
}

var (
	unknownAttempts = []byte(`,"ConfMapMaxAttempts":-1,"ConfReduceMaxAttempts":-1}`)
	unknownOOB      = []byte(`,"ConfOutOfBandHeartbeat":-1}`)
	emptyVersion    = []byte(`,"ConfCommonVersion":""}`)
	unknownLag      = []byte(`,"LaunchLagMs":-1}`)
	unknownReport   = []byte(`,"ReportLagMs":-1}`)
)

// Visit adds job j, or when j is nil task k (after every job).
func (x *TraceHash) Visit(j *trace.Job, k *trace.Task) {
	w := x.w
	if j != nil {
		b, _ := json.Marshal(j) // a struct of strings and integers always encodes
		if j.ConfCommonVersion == "" {
			if s, ok := bytes.CutSuffix(b, emptyVersion); ok {
				b = append(s, '}')
			}
		}
		if j.ConfOutOfBandHeartbeat == trace.Unknown {
			if s, ok := bytes.CutSuffix(b, unknownOOB); ok {
				b = append(s, '}')
			}
		}
		if j.ConfMapMaxAttempts == trace.Unknown && j.ConfReduceMaxAttempts == trace.Unknown {
			if s, ok := bytes.CutSuffix(b, unknownAttempts); ok {
				b = append(s, '}')
			}
		}
		w.Write(b)
		w.WriteByte('\n')
		return
	}
	if !x.tasks {
		w.WriteString("tasks\n")
		x.tasks = true
	}
	task := *k
	if len(task.PreferredHosts) == 0 {
		task.PreferredHosts = nil
	}
	if len(task.PreferredRacks) == 0 {
		task.PreferredRacks = nil
	}
	b := appendTaskJSON(x.buf[:0], &task)
	x.buf = b
	if task.ReportLagMs == trace.Unknown {
		if s, ok := bytes.CutSuffix(b, unknownReport); ok {
			b = append(s, '}')
		}
	}
	if task.LaunchLagMs == trace.Unknown {
		if s, ok := bytes.CutSuffix(b, unknownLag); ok {
			b = append(s, '}')
		}
	}
	w.Write(b)
	w.WriteByte('\n')
}

// Sum is TraceSHA256 of what was visited.
func (x *TraceHash) Sum() string {
	if !x.tasks {
		x.w.WriteString("tasks\n")
		x.tasks = true
	}
	x.w.Flush()
	return sum(x.h)
}

// appendTaskJSON appends what json.Marshal(k) gives, byte for byte, to b,
// without reflection: TraceHash encodes every task of a trace, and
// json.Marshal's reflection was most of that (TestTaskJSONAsMarshal holds
// the two equal, field for field). A string of printable ASCII that
// json.Marshal writes as it is (no quote, backslash, or <, > and &, which it
// escapes for HTML) is written here too; any other string is json.Marshal's.
func appendTaskJSON(b []byte, k *trace.Task) []byte {
	b = append(b, `{"JobID":`...)
	b = appendJSONString(b, k.JobID)
	b = append(b, `,"TaskID":`...)
	b = appendJSONString(b, k.TaskID)
	b = append(b, `,"Type":`...)
	b = strconv.AppendUint(b, uint64(k.Type), 10)
	b = append(b, `,"Index":`...)
	b = strconv.AppendInt(b, int64(k.Index), 10)
	b = append(b, `,"InputBytes":`...)
	b = strconv.AppendInt(b, k.InputBytes, 10)
	b = append(b, `,"OutputBytes":`...)
	b = strconv.AppendInt(b, k.OutputBytes, 10)
	b = append(b, `,"ShuffleBytes":`...)
	b = strconv.AppendInt(b, k.ShuffleBytes, 10)
	b = append(b, `,"PreferredHosts":`...)
	b = appendJSONStrings(b, k.PreferredHosts)
	b = append(b, `,"PreferredRacks":`...)
	b = appendJSONStrings(b, k.PreferredRacks)
	b = append(b, `,"Status":`...)
	b = appendJSONString(b, k.Status)
	b = append(b, `,"StartMs":`...)
	b = strconv.AppendInt(b, k.StartMs, 10)
	b = append(b, `,"FinishMs":`...)
	b = strconv.AppendInt(b, k.FinishMs, 10)
	b = append(b, `,"ShuffleFinishMs":`...)
	b = strconv.AppendInt(b, k.ShuffleFinishMs, 10)
	b = append(b, `,"SortFinishMs":`...)
	b = strconv.AppendInt(b, k.SortFinishMs, 10)
	b = append(b, `,"Host":`...)
	b = appendJSONString(b, k.Host)
	b = append(b, `,"Rack":`...)
	b = appendJSONString(b, k.Rack)
	b = append(b, `,"Locality":`...)
	b = appendJSONString(b, k.Locality)
	b = append(b, `,"FailedAttempts":`...)
	b = strconv.AppendInt(b, int64(k.FailedAttempts), 10)
	b = append(b, `,"KilledAttempts":`...)
	b = strconv.AppendInt(b, int64(k.KilledAttempts), 10)
	b = append(b, `,"WastedMs":`...)
	b = strconv.AppendInt(b, k.WastedMs, 10)
	b = append(b, `,"LaunchLagMs":`...)
	b = strconv.AppendInt(b, k.LaunchLagMs, 10)
	b = append(b, `,"ReportLagMs":`...)
	b = strconv.AppendInt(b, k.ReportLagMs, 10)
	return append(b, '}')
}

// appendJSONStrings appends json.Marshal's encoding of a string list (null
// when nil) to b.
func appendJSONStrings(b []byte, l []string) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONString appends json.Marshal's encoding of s to b.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// eachTask calls fn with every task of t in trace order, held or streamed.
func eachTask(t *trace.Trace, fn func(i int, k *trace.Task) error) error {
	if t.Stream != nil {
		return t.Stream.EachTask(fn)
	}
	for i := range t.Tasks {
		if err := fn(i, &t.Tasks[i]); err != nil {
			return err
		}
	}
	return nil
}

// GeneratorSHA256 is the identity of a generated trace: the generator and its
// parameters, not the seed (each seed draws another trace from the same
// distribution, and seeds are what a cell's runs differ in).
func GeneratorSHA256(generator string, params map[string]any) string {
	b, err := json.Marshal(params) // map keys sorted
	if err != nil {
		b = fmt.Appendf(nil, "%v", params)
	}
	h := sha256.New()
	fmt.Fprintf(h, "generator %s\n%s\n", generator, b)
	return sum(h)
}

// HardwareSHA256 is the canonical identity of a hardware model: the SHA-256 of
// its JSON (Hardware.FieldJSON, Go field names) with keys sorted and zero
// values (0, "", false, empty lists) left out, so that a field added to
// Hardware later with a zero default does not change the identity of older
// models.
func HardwareSHA256(hw Hardware) string {
	b, err := hw.FieldJSON()
	if err != nil {
		return ""
	}
	return results.HardwareJSON(b).SHA256()
}

func sum(h hash.Hash) string { return "sha256:" + hex.EncodeToString(h.Sum(nil)) }
