package replay

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"

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
	tasks bool // the tasks began
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
	b, _ := json.Marshal(&task) // strings, string lists and integers always encode
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
