package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// FormatRumen is the Meta.SourceFormat of traces read from Rumen JSON.
const FormatRumen = "rumen"

// DetectRumen reports whether a file starts like a Rumen job trace: a JSON object
// with LoggedJob keys.
func DetectRumen(name string, head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n")
	if len(h) == 0 || h[0] != '{' || DetectSLS(name, h) {
		return false
	}
	return bytes.Contains(h, []byte(`"jobID"`)) || bytes.Contains(h, []byte(`"mapTasks"`)) ||
		bytes.Contains(h, []byte(`"submitTime"`)) && bytes.Contains(h, []byte(`"outcome"`))
}

// DetectRumenTopology reports whether a file starts like a Rumen topology
// (LoggedNetworkTopology): an object with "name" and "children" keys.
func DetectRumenTopology(name string, head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n")
	return len(h) > 0 && h[0] == '{' && bytes.Contains(h, []byte(`"children"`)) &&
		bytes.Contains(h, []byte(`"name"`)) && !bytes.Contains(h, []byte(`"jobID"`))
}

// Rumen's LoggedJob, LoggedTask, LoggedTaskAttempt and LoggedLocation, with the
// fields the trace keeps. Pointers tell absent and null (unknown) from values.
type rumenJob struct {
	JobID         *string           `json:"jobID"`
	User          *string           `json:"user"`
	JobName       *string           `json:"jobName"`
	Queue         *string           `json:"queue"`
	SubmitTime    *int64            `json:"submitTime"`
	LaunchTime    *int64            `json:"launchTime"`
	FinishTime    *int64            `json:"finishTime"`
	Outcome       *string           `json:"outcome"`
	TotalMaps     *int64            `json:"totalMaps"`
	TotalReduces  *int64            `json:"totalReduces"`
	JobMapMB      *int64            `json:"jobMapMB"`
	JobReduceMB   *int64            `json:"jobReduceMB"`
	MapTasks      []rumenTask       `json:"mapTasks"`
	ReduceTasks   []rumenTask       `json:"reduceTasks"`
	OtherTasks    []rumenTask       `json:"otherTasks"`
	JobProperties map[string]string `json:"jobProperties"`
}

type rumenTask struct {
	TaskID             *string         `json:"taskID"`
	TaskType           *string         `json:"taskType"`
	TaskStatus         *string         `json:"taskStatus"`
	StartTime          *int64          `json:"startTime"`
	FinishTime         *int64          `json:"finishTime"`
	InputBytes         *int64          `json:"inputBytes"`
	OutputBytes        *int64          `json:"outputBytes"`
	PreferredLocations []rumenLocation `json:"preferredLocations"`
	Attempts           []rumenAttempt  `json:"attempts"`
}

type rumenLocation struct {
	Layers []*string `json:"layers"`
}

type rumenAttempt struct {
	AttemptID          *string        `json:"attemptID"`
	Result             *string        `json:"result"`
	StartTime          *int64         `json:"startTime"`
	FinishTime         *int64         `json:"finishTime"`
	ShuffleFinished    *int64         `json:"shuffleFinished"`
	SortFinished       *int64         `json:"sortFinished"`
	HostName           *string        `json:"hostName"`
	Location           *rumenLocation `json:"location"`
	HdfsBytesRead      *int64         `json:"hdfsBytesRead"`
	HdfsBytesWritten   *int64         `json:"hdfsBytesWritten"`
	FileBytesWritten   *int64         `json:"fileBytesWritten"`
	MapOutputBytes     *int64         `json:"mapOutputBytes"`
	ReduceShuffleBytes *int64         `json:"reduceShuffleBytes"`
	MapInputBytes      *int64         `json:"mapInputBytes"`
}

// ReadRumen reads a Rumen JSON job trace: LoggedJob objects written back to back
// (not a JSON array). Names keep the history-log escaping of 0.20-derived traces
// (`cluster50285\.secondleveldomain\.com`) and are unescaped; -1 and null mean
// unknown. A job object that does not decode is skipped and reported; a JSON
// syntax error ends the reading there.
func ReadRumen(name string, r io.Reader, opt HistoryOptions) (*Trace, error) {
	res, err := readRumen(name, r, opt.Strict)
	if err != nil {
		return nil, err
	}
	return res.trace(opt, FormatRumen, name)
}

func readRumen(name string, r io.Reader, strict bool) (fileResult, error) {
	diag := newDiagSink(name, strict)
	dec := newJSONRecords(bufio.NewReaderSize(r, 64<<10))
	var jobs []jobOut
	for record := int64(1); ; record++ {
		offset := dec.offset()
		var rj rumenJob
		err := dec.next(&rj)
		if errors.Is(err, io.EOF) {
			break
		}
		if rl := (*recordLimitError)(nil); errors.As(err, &rl) {
			return fileResult{}, Diagnostic{File: name, Record: record, Offset: offset, Msg: "job object refused"}.parseError(err)
		}
		if err != nil && isReadFailure(err) {
			return fileResult{}, readErrorOr(Diagnostic{File: name, Record: record, Offset: offset}, err)
		}
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			if serr := diag.skip(0, record, offset, fmt.Errorf("job object skipped: field %s: %w", typeErr.Field, err)); serr != nil {
				return fileResult{}, serr
			}
			continue
		}
		if err != nil {
			if record == 1 {
				return fileResult{}, readErrorOr(Diagnostic{File: name, Record: record, Offset: offset,
					Msg: "not a Rumen JSON trace"}, err)
			}
			if serr := diag.skip(0, record, offset, fmt.Errorf("JSON syntax error, the rest of the file is skipped: %w", err)); serr != nil {
				return fileResult{}, serr
			}
			break
		}
		acc, conf, err := rj.acc()
		if err != nil {
			if serr := diag.skip(0, record, offset, err); serr != nil {
				return fileResult{}, serr
			}
			continue
		}
		pos := jobPos{record: record, offset: offset}
		job, tasks, attempts := acc.finishAt(diag, pos)
		if err := checkTimes(&job, tasks); err != nil {
			if serr := diag.skip(0, record, offset, fmt.Errorf("job object skipped: %w", err)); serr != nil {
				return fileResult{}, serr
			}
			continue
		}
		jobs = append(jobs, jobOut{job: job, tasks: tasks, attempts: attempts, serial: record, conf: conf, src: name, pos: pos, clocks: acc.taskClocks()})
	}
	if len(jobs) == 0 {
		return fileResult{}, Diagnostic{File: name, Offset: -1, Msg: "no job objects in the Rumen trace" + diag.whyNone()}.parseError(nil)
	}
	if err := diag.strictErr(); err != nil {
		return fileResult{}, err
	}
	return fileResult{jobs: jobs, diags: diag.all()}, nil
}

// unescapeHistory undoes the history-log escaping kept in Rumen names: \x → x.
func unescapeHistory(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func rstr(p *string) string {
	if p == nil {
		return ""
	}
	return unescapeHistory(*p)
}

// rtime returns a Rumen time or count; -1, null and absent are Unknown.
func rnum(p *int64) int64 {
	if p == nil || *p < 0 {
		return Unknown
	}
	return *p
}

func rtime(p *int64) int64 {
	if p == nil || *p <= 0 {
		return Unknown
	}
	return *p
}

// JobTrackerJobID reports whether a job id was given by a Hadoop 1
// JobTracker, whose identifier is its start time as yyyyMMddHHmm (12 digits:
// job_200910281128_10000), rather than by a YARN ResourceManager, whose
// cluster timestamp is its start in ms since the epoch (13 digits:
// job_1369942127770_1205). Rumen builds a LoggedTask's startTime from
// either kind of history: a JobTracker's Task START_TIME (the first
// attempt's assignment) or a .jhist's TASK_STARTED startTime, which the
// ApplicationMaster's TaskImpl logs when it schedules the task
// (InitialScheduleTransition: getLaunchTime() is the scheduled time while
// no attempt has launched), before any container is allocated.
func JobTrackerJobID(id string) bool {
	rest, ok := strings.CutPrefix(id, "job_")
	if !ok {
		return false
	}
	cluster, seq, ok := strings.Cut(rest, "_")
	if !ok || len(cluster) != 12 || seq == "" {
		return false
	}
	for _, c := range cluster + seq {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// acc turns a decoded LoggedJob into a job accumulator.
func (rj *rumenJob) acc() (*jobAcc, Conf, error) {
	id := rstr(rj.JobID)
	if id == "" {
		return nil, nil, errors.New("job object without a jobID; skipped")
	}
	j := newJobAcc(id)
	j.assignStarts = JobTrackerJobID(id)
	j.job.User = rstr(rj.User)
	j.job.Name = rstr(rj.JobName)
	j.job.Queue = rstr(rj.Queue)
	j.job.SubmitMs = rtime(rj.SubmitTime)
	j.job.LaunchMs = rtime(rj.LaunchTime)
	j.job.FinishMs = rtime(rj.FinishTime)
	if rj.Outcome != nil {
		if s := normStatus(*rj.Outcome); s != "" {
			j.ended, j.endStatusRaw = true, s
		}
	}
	j.declaredMaps = int32(clampCount(rnum(rj.TotalMaps)))
	j.declaredReduces = int32(clampCount(rnum(rj.TotalReduces)))
	if v := rnum(rj.JobMapMB); v > 0 && v <= 1<<31-1 {
		j.job.MapMemoryMB = int32(v)
	}
	if v := rnum(rj.JobReduceMB); v > 0 && v <= 1<<31-1 {
		j.job.ReduceMemoryMB = int32(v)
	}
	for _, list := range []struct {
		tasks []rumenTask
		kind  taskKind
	}{{rj.MapTasks, kindMap}, {rj.ReduceTasks, kindReduce}, {rj.OtherTasks, kindUnknown}} {
		for i := range list.tasks {
			if err := list.tasks[i].addTo(j, list.kind); err != nil {
				return nil, nil, err
			}
		}
	}
	var conf Conf
	if len(rj.JobProperties) > 0 {
		conf = Conf(rj.JobProperties)
	}
	return j, conf, nil
}

// layersPlace returns rack and host of a LoggedLocation: layers [rack, host].
func layersPlace(l *rumenLocation) (rack, host string) {
	if l == nil || len(l.Layers) == 0 {
		return "", ""
	}
	host = rstr(l.Layers[len(l.Layers)-1])
	if len(l.Layers) > 1 {
		parts := make([]string, 0, len(l.Layers)-1)
		for _, p := range l.Layers[:len(l.Layers)-1] {
			parts = append(parts, strings.Trim(rstr(p), "/"))
		}
		rack = normRack(strings.Join(parts, "/"))
	}
	return rack, host
}

func (rt *rumenTask) addTo(j *jobAcc, listKind taskKind) error {
	id := rstr(rt.TaskID)
	if id == "" {
		return fmt.Errorf("job %s has a task without a taskID", j.job.ID)
	}
	t, err := j.task(id)
	if err != nil {
		return err
	}
	t.kind = listKind
	if rt.TaskType != nil {
		if k := parseTaskKind(*rt.TaskType); k != kindUnknown {
			t.kind = k
		}
	}
	t.start, t.finish = rtime(rt.StartTime), rtime(rt.FinishTime)
	if rt.TaskStatus != nil {
		t.ended, t.status = true, normStatus(*rt.TaskStatus)
	}
	for i := range rt.PreferredLocations {
		rack, host := layersPlace(&rt.PreferredLocations[i])
		if host == "" {
			continue
		}
		t.splitHosts = append(t.splitHosts, host)
		t.splitRacks = append(t.splitRacks, rack)
	}
	in, out := rnum(rt.InputBytes), rnum(rt.OutputBytes)
	if t.kind == kindReduce {
		t.directShuffle, t.directOutput = in, out
	} else {
		t.directInput, t.directOutput = in, out
	}
	for i := range rt.Attempts {
		ra := &rt.Attempts[i]
		aid := rstr(ra.AttemptID)
		if aid == "" {
			aid = fmt.Sprintf("%s#attempt%d", id, i)
		}
		a, err := t.attempt(aid)
		if err != nil {
			return err
		}
		if ra.Result != nil {
			a.status = normStatus(*ra.Result)
		}
		a.start, a.finish = rtime(ra.StartTime), rtime(ra.FinishTime)
		a.shuffleFinish, a.sortFinish = rtime(ra.ShuffleFinished), rtime(ra.SortFinished)
		a.rack, a.host = layersPlace(ra.Location)
		if a.host == "" {
			a.rack, a.host = splitRackHost(rstr(ra.HostName))
		}
		a.counters = counters{
			hdfsRead: rnum(ra.HdfsBytesRead), hdfsWritten: rnum(ra.HdfsBytesWritten),
			fileWritten: rnum(ra.FileBytesWritten), mapOutputMaterial: Unknown,
			mapOutputBytes: rnum(ra.MapOutputBytes), reduceShuffleBytes: rnum(ra.ReduceShuffleBytes),
			mapInputBytes: rnum(ra.MapInputBytes),
		}
	}
	return nil
}

// rumenTopoNode is a LoggedNetworkTopology node.
type rumenTopoNode struct {
	Name     *string         `json:"name"`
	Children []rumenTopoNode `json:"children"`
}

// maxTopologyDepth bounds the nesting of a topology tree (root, racks, hosts).
const maxTopologyDepth = 64

// ReadRumenTopology reads a Rumen topology (LoggedNetworkTopology) and returns
// its host → rack map: leaves are hosts, their parents racks (rack paths of
// deeper trees are joined with '/'). Escaped dots are unescaped.
func ReadRumenTopology(name string, r io.Reader) (map[string]string, error) {
	var root rumenTopoNode
	dec := newJSONRecords(bufio.NewReader(r))
	if err := dec.next(&root); err != nil {
		if rl := (*recordLimitError)(nil); errors.As(err, &rl) {
			return nil, Diagnostic{File: name, Offset: 0, Msg: "topology refused"}.parseError(err)
		}
		return nil, readErrorOr(Diagnostic{File: name, Offset: dec.offset(),
			Msg: "not a Rumen topology"}, err)
	}
	m := map[string]string{}
	var walk func(n *rumenTopoNode, path []string, depth int) error
	walk = func(n *rumenTopoNode, path []string, depth int) error {
		if depth > maxTopologyDepth {
			return fmt.Errorf("topology deeper than %d levels", maxTopologyDepth)
		}
		if len(n.Children) == 0 {
			if depth >= 2 && n.Name != nil {
				if _, dup := m[rstr(n.Name)]; !dup {
					m[rstr(n.Name)] = normRack(strings.Join(path[1:], "/"))
				}
			}
			return nil
		}
		path = append(path, strings.Trim(rstr(n.Name), "/"))
		for i := range n.Children {
			if err := walk(&n.Children[i], path, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(&root, nil, 0); err != nil {
		return nil, Diagnostic{File: name, Offset: -1, Msg: err.Error()}.parseError(nil)
	}
	if len(m) == 0 {
		return nil, Diagnostic{File: name, Offset: -1, Msg: "topology names no hosts"}.parseError(nil)
	}
	return m, nil
}
