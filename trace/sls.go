package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FormatSLS is the Meta.SourceFormat of traces read from SLS native job files.
const FormatSLS = "sls"

// maxSLSTasksPerFile bounds the containers one SLS file may instantiate (job.count
// and count replicate jobs and containers, so a few bytes can ask for any
// number): a million tasks take some 300 MB in memory.
const maxSLSTasksPerFile = 1_000_000

// DetectSLS reports whether a file starts like an SLS native job file: a JSON
// object with SLS job keys.
func DetectSLS(name string, head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n")
	return len(h) > 0 && h[0] == '{' && (bytes.Contains(h, []byte(`"job.tasks"`)) ||
		bytes.Contains(h, []byte(`"job.start.ms"`)) || bytes.Contains(h, []byte(`"job.queue.name"`)))
}

// DetectSLSNodes reports whether a file starts like an SLS node file: objects
// {"rack": …, "nodes": […]}.
func DetectSLSNodes(name string, head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n")
	return len(h) > 0 && h[0] == '{' && bytes.Contains(h, []byte(`"nodes"`)) && bytes.Contains(h, []byte(`"rack"`))
}

// DetectSLSSynth reports whether a file is an SLS SYNTH workload spec: job
// classes and distributions to sample jobs from, not a trace.
func DetectSLSSynth(name string, head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n")
	return len(h) > 0 && h[0] == '{' && bytes.Contains(h, []byte(`"workloads"`))
}

// slsInt is an SLS integer: SLS parses values with Long.parseLong(toString()), so
// numbers and numeric strings are both accepted.
type slsInt struct {
	v   int64
	set bool
}

func (s *slsInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	t := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not an integer", clip(string(b), 30))
	}
	s.v, s.set = v, true
	return nil
}

type slsJob struct {
	Start slsInt         `json:"job.start.ms"`
	End   slsInt         `json:"job.end.ms"`
	Queue *string        `json:"job.queue.name"`
	ID    *string        `json:"job.id"`
	User  *string        `json:"job.user"`
	Count slsInt         `json:"job.count"`
	Tasks []slsContainer `json:"job.tasks"`
}

type slsContainer struct {
	Host        *string `json:"container.host"`
	Start       slsInt  `json:"container.start.ms"`
	End         slsInt  `json:"container.end.ms"`
	Duration    slsInt  `json:"container.duration.ms"`
	OldDuration slsInt  `json:"duration.ms"`
	Type        *string `json:"container.type"`
	Count       slsInt  `json:"count"`
	Memory      slsInt  `json:"container.memory-mb"`
}

// ReadSLS reads an SLS native job file (FORMATS §5.1): concatenated job objects
// with times in ms from the simulation start. job.count and count replicate jobs
// and containers; a replicated job's copies are named <id>#2, <id>#3, …; jobs
// without job.id are named sls_job_<n> by their position. A container given only
// by its duration is placed at its job's start (SLS starts it when its job's AM
// gets it; the trace keeps the duration). Every job is SUCCEEDED: SLS replays
// all of them.
func ReadSLS(name string, r io.Reader, opt HistoryOptions) (*Trace, error) {
	res, err := readSLS(name, r, opt.Strict, maxSLSTasksPerFile)
	if err != nil {
		return nil, err
	}
	return res.trace(opt, FormatSLS, name)
}

// readSLS reads an SLS job file instantiating at most maxTasks containers.
func readSLS(name string, r io.Reader, strict bool, maxTasks int) (fileResult, error) {
	diag := newDiagSink(name, strict)
	dec := newJSONRecords(bufio.NewReader(r))
	var jobs []jobOut
	total := 0
	for record := int64(1); ; record++ {
		offset := dec.offset()
		var sj slsJob
		err := dec.next(&sj)
		if errors.Is(err, io.EOF) {
			break
		}
		if rl := (*recordLimitError)(nil); errors.As(err, &rl) {
			return fileResult{}, Diagnostic{File: name, Record: record, Offset: offset, Msg: "job object refused"}.parseError(err)
		}
		if err != nil && isReadFailure(err) {
			return fileResult{}, readErrorOr(Diagnostic{File: name, Record: record, Offset: offset}, err)
		}
		if err != nil {
			var se *json.SyntaxError
			if record == 1 || errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
				if record == 1 {
					return fileResult{}, readErrorOr(Diagnostic{File: name, Record: record, Offset: offset,
						Msg: "not an SLS job file"}, err)
				}
				if serr := diag.skip(0, record, offset, fmt.Errorf("JSON syntax error, the rest of the file is skipped: %w", err)); serr != nil {
					return fileResult{}, serr
				}
				break
			}
			if serr := diag.skip(0, record, offset, fmt.Errorf("job object skipped: %w", err)); serr != nil {
				return fileResult{}, serr
			}
			continue
		}
		outs, n, err := sj.jobs(record, maxTasks, maxTasks-total)
		if err != nil {
			if serr := diag.skip(0, record, offset, err); serr != nil {
				return fileResult{}, serr
			}
			continue
		}
		total += n
		for i := range outs {
			outs[i].src, outs[i].pos = name, jobPos{record: record, offset: offset}
		}
		jobs = append(jobs, outs...)
	}
	if len(jobs) == 0 {
		return fileResult{}, Diagnostic{File: name, Offset: -1, Msg: "no jobs in the SLS job file" + diag.whyNone()}.parseError(nil)
	}
	if err := diag.strictErr(); err != nil {
		return fileResult{}, err
	}
	return fileResult{jobs: jobs, diags: diag.all()}, nil
}

// jobs instantiates one SLS job object (job.count copies).
func (sj *slsJob) jobs(record int64, limit, budget int) ([]jobOut, int, error) {
	if !sj.Start.set || sj.Start.v < 0 {
		return nil, 0, errors.New("job without a job.start.ms >= 0; skipped")
	}
	if sj.Queue == nil || *sj.Queue == "" {
		return nil, 0, errors.New("job without job.queue.name; skipped")
	}
	if len(sj.Tasks) == 0 {
		return nil, 0, errors.New("job without job.tasks; skipped")
	}
	copies := int64(1)
	if sj.Count.set {
		copies = sj.Count.v
		if copies < 1 {
			return nil, 0, fmt.Errorf("job.count %d; skipped", copies)
		}
	}
	base := fmt.Sprintf("sls_job_%d", record)
	if sj.ID != nil && *sj.ID != "" {
		base = *sj.ID
	}
	var outs []jobOut
	used := 0
	for k := int64(0); k < copies; k++ {
		id := base
		if k > 0 {
			id = fmt.Sprintf("%s#%d", base, k+1)
		}
		job, tasks, err := sj.instance(id, limit, budget-used)
		if err == nil {
			err = checkTimes(&job, tasks)
		}
		if err != nil {
			return nil, 0, err
		}
		used += len(tasks)
		outs = append(outs, jobOut{job: job, tasks: tasks, serial: record})
	}
	return outs, used, nil
}

// instance builds one copy of an SLS job.
func (sj *slsJob) instance(id string, limit, budget int) (Job, []Task, error) {
	j := NewJob(id)
	j.Queue = *sj.Queue
	j.User = "default"
	if sj.User != nil && *sj.User != "" {
		j.User = *sj.User
	}
	j.Status = StatusSucceeded
	j.SubmitMs = sj.Start.v
	if sj.End.set && sj.End.v >= 0 {
		j.FinishMs = sj.End.v
	}
	var tasks []Task
	var next [2]int32
	for ci, c := range sj.Tasks {
		typ := Map
		if c.Type != nil && strings.EqualFold(*c.Type, "reduce") {
			typ = Reduce
		}
		start, finish := int64(Unknown), int64(Unknown)
		switch {
		case c.Start.set && c.End.set:
			start, finish = c.Start.v, c.End.v
		case c.Duration.set:
			start, finish = sj.Start.v, sj.Start.v+c.Duration.v
		case c.OldDuration.set:
			start, finish = sj.Start.v, sj.Start.v+c.OldDuration.v
		}
		if start < 0 || finish <= start {
			return Job{}, nil, fmt.Errorf("job %s container %d: no positive duration (start %d, end %d)", id, ci+1, start, finish)
		}
		n := int64(1)
		if c.Count.set {
			n = c.Count.v
		}
		if n < 1 {
			return Job{}, nil, fmt.Errorf("job %s container %d: count %d: want at least 1", id, ci+1, n)
		}
		if n > int64(budget-len(tasks)) {
			return Job{}, nil, fmt.Errorf("job %s container %d: count %d exceeds the %d containers left of the limit of %d per SLS file",
				id, ci+1, n, budget-len(tasks), limit)
		}
		rack, host := "", ""
		if c.Host != nil {
			rack, host = splitRackHost(*c.Host)
		}
		for range n {
			idx := next[typ]
			next[typ]++
			letter := "m"
			if typ == Reduce {
				letter = "r"
			}
			t := NewTask(id, fmt.Sprintf("%s_%s_%06d", id, letter, idx), typ, idx)
			t.Status = StatusSucceeded
			t.StartMs, t.FinishMs = start, finish
			t.Host, t.Rack = host, rack
			tasks = append(tasks, t)
		}
		if c.Memory.set && c.Memory.v > 0 && c.Memory.v <= 1<<31-1 {
			mem := int32(c.Memory.v)
			if typ == Map && mem > j.MapMemoryMB {
				j.MapMemoryMB = mem
			}
			if typ == Reduce && mem > j.ReduceMemoryMB {
				j.ReduceMemoryMB = mem
			}
		}
	}
	j.NumMaps, j.NumReduces = next[Map], next[Reduce]
	return j, tasks, nil
}

type slsRack struct {
	Rack  *string `json:"rack"`
	Nodes []struct {
		Node *string `json:"node"`
	} `json:"nodes"`
}

// ReadSLSNodes reads an SLS node file (concatenated {"rack": …, "nodes": […]}
// objects) into a host → rack map; empty node entries are skipped.
func ReadSLSNodes(name string, r io.Reader) (map[string]string, error) {
	dec := newJSONRecords(bufio.NewReader(r))
	m := map[string]string{}
	for record := int64(1); ; record++ {
		offset := dec.offset()
		var rk slsRack
		err := dec.next(&rk)
		if errors.Is(err, io.EOF) {
			break
		}
		if rl := (*recordLimitError)(nil); errors.As(err, &rl) {
			return nil, Diagnostic{File: name, Record: record, Offset: offset, Msg: "rack object refused"}.parseError(err)
		}
		if err != nil {
			return nil, readErrorOr(Diagnostic{File: name, Record: record, Offset: offset,
				Msg: "not an SLS node file"}, err)
		}
		if rk.Rack == nil || *rk.Rack == "" {
			return nil, Diagnostic{File: name, Record: record, Offset: offset,
				Msg: "rack object without a rack name"}.parseError(nil)
		}
		for _, n := range rk.Nodes {
			if n.Node != nil && *n.Node != "" {
				if _, dup := m[*n.Node]; !dup {
					m[*n.Node] = normRack(*rk.Rack)
				}
			}
		}
	}
	if len(m) == 0 {
		return nil, Diagnostic{File: name, Offset: -1, Msg: "node file names no nodes"}.parseError(nil)
	}
	return m, nil
}
