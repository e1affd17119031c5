package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// FormatHadoop1 is the Meta.SourceFormat of traces read from Hadoop 0.20/1.x
// JobTracker history logs.
const FormatHadoop1 = "hadoop1"

// bundleMarker starts each part of a Rumen test bundle: "\f!!FILE=<name>!!".
const bundleMarker = "\f!!FILE="

// Limits on Hadoop 1 input: one physical line and one logical record (a record
// with a multi-line stack trace spans several lines).
const (
	maxH1Line   = 64 << 20
	maxH1Record = 64 << 20
	maxConfPart = 64 << 20
)

// h1Start matches the first line of a version 0 history file or of any record.
var h1Start = regexp.MustCompile(`^(Meta|Job|Task|MapAttempt|ReduceAttempt|Jobtracker) [A-Z_]+="`)

// DetectHadoop1 reports whether a file starts like a Hadoop 0.20/1.x JobTracker
// history log: a `Meta VERSION="1" .` line, a version 0 record line, or a
// "\f!!FILE=" multi-file bundle.
func DetectHadoop1(name string, head []byte) bool {
	head = bytes.TrimLeft(head, "\r\n")
	return bytes.HasPrefix(head, []byte(bundleMarker)) || h1Start.Match(head)
}

// ReadHadoop1 reads a Hadoop 0.20/1.x JobTracker history log (version 0 or 1),
// or a "\f!!FILE=" bundle of several history logs and job configurations, in
// which case each job gets the configuration part that names its job id.
func ReadHadoop1(name string, r io.Reader, opt HistoryOptions) (*Trace, error) {
	res, err := readHadoop1(name, r, opt.Strict)
	if err != nil {
		return nil, err
	}
	return res.trace(opt, FormatHadoop1, name)
}

// lineReader reads physical lines with their numbers, bounded in length.
type lineReader struct {
	br   *bufio.Reader
	line int64
}

// next returns the next line without its line end; io.EOF after the last.
func (lr *lineReader) next() (string, error) {
	var b []byte
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(b)+len(chunk) > maxH1Line {
			lr.line++
			return "", fmt.Errorf("line longer than %d bytes", maxH1Line)
		}
		b = append(b, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !(errors.Is(err, io.EOF) && len(b) > 0) {
			return "", err
		}
		lr.line++
		return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
	}
}

// readHadoop1 reads a history log or bundle into a fileResult.
func readHadoop1(name string, r io.Reader, strict bool) (fileResult, error) {
	lr := &lineReader{br: bufio.NewReaderSize(newCapReader(r, MaxInputBytes), 64<<10)}
	diag := newDiagSink(name, strict)
	var (
		jobs  []jobOut
		confs = map[string]Conf{}
		part  *h1Part
		conf  *confPart
	)
	finishPart := func() error {
		switch {
		case part != nil:
			if err := part.end(); err != nil {
				return err
			}
			outs, err := part.jobs(len(jobs))
			if err != nil {
				return err
			}
			jobs = append(jobs, outs...)
			part = nil
		case conf != nil:
			c, err := ReadConf(conf.name, &conf.buf)
			if err != nil {
				line, msg := conf.firstLine, err.Error()
				var pe *ParseError
				if errors.As(err, &pe) {
					msg = pe.Msg
					if pe.Line > 0 {
						line += int64(pe.Line) - 1
					}
				}
				if serr := diag.skip(line, 0, -1, fmt.Errorf("configuration part %s skipped: %s", conf.name, msg)); serr != nil {
					return serr
				}
			} else if id := jobIDInName.FindString(conf.name); id != "" {
				confs[id] = c
			}
			conf = nil
		}
		return nil
	}
	sawAny := false
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fileResult{}, readErrorOr(Diagnostic{File: name, Line: lr.line, Offset: -1}, err)
		}
		if partName, ok := bundlePartName(line); ok {
			if err := finishPart(); err != nil {
				return fileResult{}, err
			}
			sawAny = true
			if strings.HasSuffix(partName, ".xml") {
				conf = &confPart{name: partName, firstLine: lr.line + 1}
			} else {
				part = newH1Part(partName, diag)
			}
			continue
		}
		if conf != nil {
			if conf.buf.Len()+len(line) > maxConfPart {
				return fileResult{}, Diagnostic{File: name, Line: lr.line, Offset: -1,
					Msg: fmt.Sprintf("configuration part larger than %d bytes", maxConfPart)}.parseError(nil)
			}
			conf.buf.WriteString(line)
			conf.buf.WriteByte('\n')
			continue
		}
		if part == nil {
			if strings.TrimSpace(line) == "" {
				continue
			}
			part = newH1Part(name, diag)
		}
		sawAny = true
		if err := part.line(line, lr.line); err != nil {
			return fileResult{}, err
		}
	}
	if err := finishPart(); err != nil {
		return fileResult{}, err
	}
	if !sawAny {
		return fileResult{}, Diagnostic{File: name, Offset: -1, Msg: "empty history file"}.parseError(nil)
	}
	if len(jobs) == 0 {
		return fileResult{}, Diagnostic{File: name, Offset: -1, Msg: "no Job record: the history names no job"}.parseError(nil)
	}
	for i := range jobs {
		if c, ok := confs[jobs[i].job.ID]; ok {
			jobs[i].conf = c
		}
	}
	if err := diag.strictErr(); err != nil {
		return fileResult{}, err
	}
	return fileResult{jobs: jobs, diags: diag.all()}, nil
}

// bundlePartName recognises a bundle part header line "\f!!FILE=<name>!!".
func bundlePartName(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, bundleMarker)
	if !ok {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimSpace(rest), "!!"), true
}

// confPart collects a configuration part of a bundle.
type confPart struct {
	name      string
	firstLine int64
	buf       bytes.Buffer
}

// h1Part parses one history log (a file, or a part of a bundle).
type h1Part struct {
	name      string
	diag      *diagSink
	version   int // -1 until the first record says
	rec       strings.Builder
	recLine   int64 // first line of the pending record
	records   int64
	accs      map[string]*jobAcc
	order     []*jobAcc
	sawJob    map[string]bool    // jobs that have a Job record
	sawSubmit map[string]bool    // jobs whose submit time a record gives
	first     map[*jobAcc]jobPos // each job's first record
}

func newH1Part(name string, diag *diagSink) *h1Part {
	return &h1Part{name: name, diag: diag, version: -1, accs: map[string]*jobAcc{},
		sawJob: map[string]bool{}, sawSubmit: map[string]bool{}, first: map[*jobAcc]jobPos{}}
}

// line adds one physical line to the pending logical record.
func (p *h1Part) line(line string, lineNo int64) error {
	if p.version < 0 {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		p.version = 0 // a first line that is not a Meta record means version 0
		if strings.HasPrefix(line, "Meta ") {
			p.version = 1
		}
	}
	if p.rec.Len() == 0 {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		p.recLine = lineNo
	} else {
		p.rec.WriteByte('\n')
	}
	if p.rec.Len()+len(line) > maxH1Record {
		p.rec.Reset()
		return p.diag.skip(p.recLine, p.records+1, -1, fmt.Errorf("record longer than %d bytes; skipped", maxH1Record))
	}
	p.rec.WriteString(line)
	if !recordComplete(line, p.version) {
		return nil
	}
	text := p.rec.String()
	p.rec.Reset()
	p.records++
	return p.record(text)
}

// end handles a record left open at the end of the part.
func (p *h1Part) end() error {
	if p.rec.Len() == 0 {
		return nil
	}
	p.records++
	p.rec.Reset()
	return p.diag.skip(p.recLine, p.records, -1, errors.New("history ends inside a record; the record is skipped"))
}

// jobs finishes the part's jobs. A job known only from task records (the Job
// record lost) is kept with a warning, an error under Strict; a job with a time
// beyond MaxTimeMs is skipped.
func (p *h1Part) jobs(serialBase int) ([]jobOut, error) {
	out := make([]jobOut, 0, len(p.order))
	for i, j := range p.order {
		pos := p.first[j]
		if !p.sawJob[j.job.ID] {
			p.diag.note(pos.line, pos.record, pos.offset, "job %s: task records but no Job record: its submit time, name, user and queue are unknown", j.job.ID)
		}
		job, tasks, attempts := j.finishAt(p.diag, pos)
		if !p.sawSubmit[job.ID] {
			// not 0: assemble then uses the launch or first task start, or
			// drops the job, and says so
			job.SubmitMs = Unknown
		}
		if err := checkTimes(&job, tasks); err != nil {
			if serr := p.diag.skip(pos.line, pos.record, pos.offset, fmt.Errorf("%w; the job is skipped", err)); serr != nil {
				return nil, serr
			}
			continue
		}
		out = append(out, jobOut{job: job, tasks: tasks, attempts: attempts, serial: int64(serialBase + i), src: p.diag.file, pos: pos, clocks: j.taskClocks()})
	}
	return out, nil
}

// record applies one logical record.
func (p *h1Part) record(text string) error {
	r, junk := parseH1Record(text, p.version != 0)
	if junk != "" {
		if err := p.diag.skip(p.recLine, p.records, -1, fmt.Errorf("%s record has unparsable text %q; its other pairs are kept",
			r.typ, clip(junk, 60))); err != nil {
			return err
		}
	}
	var err error
	switch r.typ {
	case "Meta":
		if v, ok := r.get("VERSION"); ok {
			n, perr := strconv.Atoi(v)
			if perr != nil || n < 0 {
				err = fmt.Errorf("bad VERSION %q", clip(v, 20))
			} else {
				p.version = n
			}
		}
	case "Job":
		err = p.jobRecord(&r)
	case "Task":
		err = p.taskRecord(&r)
	case "MapAttempt", "ReduceAttempt":
		err = p.attemptRecord(&r)
	}
	// Jobtracker and unknown record types carry nothing the trace keeps.
	if err != nil {
		return p.diag.skip(p.recLine, p.records, -1, fmt.Errorf("%s record: %w", r.typ, err))
	}
	return nil
}

// job returns the accumulator of a job id, creating it.
func (p *h1Part) job(id string) *jobAcc {
	if j, ok := p.accs[id]; ok {
		return j
	}
	j := newJobAcc(id)
	j.assignStarts = true // a JobTracker's history (taskAcc.launchLag)
	p.accs[id] = j
	p.order = append(p.order, j)
	p.first[j] = jobPos{line: p.recLine, record: p.records, offset: -1}
	return j
}

// h1Time reads a millisecond timestamp; absent, empty, 0 and negative values are
// Unknown.
func h1Time(r *h1Record, key string) (int64, bool, error) {
	v, ok := r.get(key)
	if !ok || v == "" {
		return Unknown, false, nil
	}
	n, err := parseInt64(v)
	if err != nil {
		return Unknown, false, fmt.Errorf("%s: %w", key, err)
	}
	if n <= 0 {
		return Unknown, true, nil
	}
	if n > MaxTimeMs {
		return Unknown, false, fmt.Errorf("%s %d ms is beyond the limit of %d ms", key, n, int64(MaxTimeMs))
	}
	return n, true, nil
}

func (p *h1Part) jobRecord(r *h1Record) error {
	id := r.str("JOBID")
	if id == "" {
		return errors.New("no JOBID")
	}
	j := p.job(id)
	p.sawJob[id] = true
	if v, ok := r.get("JOBNAME"); ok {
		j.job.Name = v
	}
	if v, ok := r.get("USER"); ok {
		j.job.User = v
	}
	if v, ok := r.get("JOB_QUEUE"); ok {
		j.job.Queue = v
	}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"SUBMIT_TIME", &j.job.SubmitMs}, {"LAUNCH_TIME", &j.job.LaunchMs}, {"FINISH_TIME", &j.job.FinishMs}} {
		t, ok, err := h1Time(r, f.key)
		if err != nil {
			return err
		}
		if ok {
			*f.dst = t
			if f.key == "SUBMIT_TIME" && t >= 0 {
				p.sawSubmit[id] = true
			}
		}
	}
	for _, f := range []struct {
		key string
		dst *int32
	}{{"TOTAL_MAPS", &j.declaredMaps}, {"TOTAL_REDUCES", &j.declaredReduces}} {
		if v, ok := r.get(f.key); ok {
			n, err := parseInt64(v)
			if err != nil {
				return fmt.Errorf("%s: %w", f.key, err)
			}
			*f.dst = int32(clampCount(n))
		}
	}
	if s := r.str("JOB_STATUS"); s != "" {
		if ns := normStatus(s); ns != "" {
			j.ended, j.endStatusRaw = true, ns
		}
	}
	if v, ok := r.get("COUNTERS"); ok {
		if err := parseCompactCounters(v, &j.counters); err != nil {
			return err
		}
	}
	return nil
}

// taskOf returns the task named by TASKID, creating its job and the task.
func (p *h1Part) taskOf(r *h1Record) (*taskAcc, error) {
	id := r.str("TASKID")
	if id == "" {
		return nil, errors.New("no TASKID")
	}
	jobID := jobIDFromTask(id)
	if jobID == "" {
		return nil, fmt.Errorf("TASKID %q is not a task id", clip(id, 60))
	}
	t, err := p.job(jobID).task(id)
	if err != nil {
		return nil, err
	}
	if k := parseTaskKind(r.str("TASK_TYPE")); k != kindUnknown && (t.kind == kindUnknown || r.typ == "Task") {
		t.kind = k
	}
	return t, nil
}

func (p *h1Part) taskRecord(r *h1Record) error {
	t, err := p.taskOf(r)
	if err != nil {
		return err
	}
	if v, ok, err := h1Time(r, "START_TIME"); err != nil {
		return err
	} else if ok {
		t.start = v
	}
	if v, ok := r.get("SPLITS"); ok {
		t.splitHosts, t.splitRacks = parseSplits(v)
	}
	if s, ok := r.get("TASK_STATUS"); ok {
		t.ended, t.status = true, normStatus(s)
		if v, ok, err := h1Time(r, "FINISH_TIME"); err != nil {
			return err
		} else if ok {
			t.finish = v
		}
	}
	if v, ok := r.get("COUNTERS"); ok {
		if err := parseCompactCounters(v, &t.counters); err != nil {
			return err
		}
	}
	return nil
}

// parseSplits reads SPLITS: comma-separated /rack/host entries (or bare hosts).
func parseSplits(s string) (hosts, racks []string) {
	for _, e := range strings.Split(s, ",") {
		rack, host := splitRackHost(e)
		if host == "" {
			continue
		}
		if i := slices.Index(hosts, host); i >= 0 {
			if racks[i] == "" {
				racks[i] = rack
			}
			continue
		}
		hosts = append(hosts, host)
		racks = append(racks, rack)
	}
	return hosts, racks
}

func (p *h1Part) attemptRecord(r *h1Record) error {
	t, err := p.taskOf(r)
	if err != nil {
		return err
	}
	id := r.str("TASK_ATTEMPT_ID")
	if id == "" {
		return errors.New("no TASK_ATTEMPT_ID")
	}
	a, err := t.attempt(id)
	if err != nil {
		return err
	}
	if v, ok, err := h1Time(r, "START_TIME"); err != nil {
		return err
	} else if ok {
		a.start = v
	}
	if tr := r.str("TRACKER_NAME"); tr != "" && a.host == "" {
		a.host = trackerHost(tr)
	}
	if l := normLocality(r.str("LOCALITY")); l != "" {
		a.locality = l
	}
	if s, ok := r.get("TASK_STATUS"); ok {
		a.status = normStatus(s)
		for _, f := range []struct {
			key string
			dst *int64
		}{{"FINISH_TIME", &a.finish}, {"SHUFFLE_FINISHED", &a.shuffleFinish}, {"SORT_FINISHED", &a.sortFinish}} {
			v, ok, err := h1Time(r, f.key)
			if err != nil {
				return err
			}
			if ok {
				*f.dst = v
			}
		}
		if h := r.str("HOSTNAME"); h != "" {
			rack, host := splitRackHost(h)
			a.host = host
			if rack != "" {
				a.rack = rack
			}
		}
		if v, ok := r.get("COUNTERS"); ok {
			if err := parseCompactCounters(v, &a.counters); err != nil {
				return err
			}
		}
	}
	return nil
}
