package trace

import (
	"fmt"
	"slices"
	"strings"
)

// avroRec is a decoded Avro record as goavro returns it. Its accessors accept
// every shape an optional field takes across Hadoop versions: absent, plain
// value, null, or a union wrapper {"<type>": value}.
type avroRec map[string]any

// unwrap returns the value inside a union wrapper {"<type>": value}; other values
// are returned as they are. Only used where a plain value or a record with more
// than one field is expected, so a one-key map is always a union.
func unwrap(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for _, x := range m {
			return x
		}
	}
	return v
}

func (r avroRec) str(k string) string {
	switch v := unwrap(r[k]).(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// long returns an integer field, or Unknown.
func (r avroRec) long(k string) int64 {
	switch v := unwrap(r[k]).(type) {
	case int64:
		return v
	case int32:
		return int64(v)
	case int:
		return int64(v)
	}
	return Unknown
}

// time returns a timestamp field; 0 and negative values (written for unknown
// times) are Unknown.
func (r avroRec) time(k string) int64 {
	if v := r.long(k); v > 0 {
		return v
	}
	return Unknown
}

// record returns a record-valued field (plain or inside a union), or nil.
func (r avroRec) record(k string) avroRec {
	v := r[k]
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if len(m) == 1 { // union wrapper around the record
		for _, x := range m {
			if inner, ok := x.(map[string]any); ok {
				return inner
			}
		}
	}
	return m
}

// jhistCounters reads a JhCounters record into c.
func jhistCounters(r avroRec, c *counters) {
	if r == nil {
		return
	}
	groups, _ := unwrap(r["groups"]).([]any)
	for _, g := range groups {
		gr, ok := g.(map[string]any)
		if !ok {
			continue
		}
		gname := avroRec(gr).str("name")
		counts, _ := unwrap(gr["counts"]).([]any)
		for _, x := range counts {
			cr, ok := x.(map[string]any)
			if !ok {
				continue
			}
			c.set(gname, avroRec(cr).str("name"), avroRec(cr).long("value"))
		}
	}
}

// event applies one decoded Event datum.
func (st *jhistState) event(native any, line, record, offset int64) error {
	ev, ok := native.(map[string]any)
	if !ok {
		return st.diag.skip(line, record, offset, fmt.Errorf("event is a %T, not a record", native))
	}
	typ := avroRec(ev).str("type")
	wrapper, ok := ev["event"].(map[string]any)
	if !ok || len(wrapper) != 1 {
		return st.diag.skip(line, record, offset, fmt.Errorf("%s event has no record", typ))
	}
	var recName string
	var rec avroRec
	for k, v := range wrapper {
		recName = k[strings.LastIndexByte(k, '.')+1:]
		m, ok := v.(map[string]any)
		if !ok {
			return st.diag.skip(line, record, offset, fmt.Errorf("%s event holds a %T, not a record", typ, v))
		}
		rec = m
	}
	if err := st.apply(typ, recName, rec); err != nil {
		return st.diag.skip(line, record, offset, err)
	}
	return nil
}

// jobFor returns the file's job, creating it for the first id seen. A .jhist file
// holds one job; events naming another job are reported and ignored.
func (st *jhistState) jobFor(id string) (*jobAcc, error) {
	if st.job == nil {
		if id == "" {
			return nil, fmt.Errorf("event before any job id is known")
		}
		st.job = newJobAcc(id)
		return st.job, nil
	}
	if id != "" && id != st.job.job.ID {
		return nil, fmt.Errorf("event of job %s in the history of job %s; ignored", id, st.job.job.ID)
	}
	return st.job, nil
}

// taskFor returns the task of a task event, creating the job and the task.
func (st *jhistState) taskFor(rec avroRec) (*taskAcc, error) {
	id := rec.str("taskid")
	if id == "" {
		return nil, fmt.Errorf("task event without a taskid")
	}
	j, err := st.jobFor(jobIDFromTask(id))
	if err != nil {
		return nil, err
	}
	t, err := j.task(id)
	if err != nil {
		return nil, err
	}
	if t.kind == kindUnknown {
		t.kind = parseTaskKind(rec.str("taskType"))
	}
	return t, nil
}

// attemptFor returns the attempt of an attempt event.
func (st *jhistState) attemptFor(rec avroRec) (*attemptAcc, error) {
	t, err := st.taskFor(rec)
	if err != nil {
		return nil, err
	}
	id := rec.str("attemptId")
	if id == "" {
		return nil, fmt.Errorf("attempt event of task %s without an attemptId", t.id)
	}
	return t.attempt(id)
}

// apply dispatches on the record type (the event type only tells apart what the
// record does not say).
func (st *jhistState) apply(typ, recName string, rec avroRec) error {
	switch recName {
	case "JobSubmitted":
		j, err := st.jobFor(rec.str("jobid"))
		if err != nil {
			return err
		}
		j.job.Name = rec.str("jobName")
		j.job.User = rec.str("userName")
		j.job.SubmitMs = rec.time("submitTime")
		if q := rec.str("jobQueueName"); q != "" {
			j.job.Queue = q
		}
	case "JobQueueChange":
		j, err := st.jobFor(rec.str("jobid"))
		if err != nil {
			return err
		}
		if q := rec.str("jobQueueName"); q != "" {
			j.queueFinal = q
		}
	case "JobInited":
		j, err := st.jobFor(rec.str("jobid"))
		if err != nil {
			return err
		}
		j.job.LaunchMs = rec.time("launchTime")
		j.declaredMaps = int32(clampCount(rec.long("totalMaps")))
		j.declaredReduces = int32(clampCount(rec.long("totalReduces")))
	case "JobInfoChange":
		j, err := st.jobFor(rec.str("jobid"))
		if err != nil {
			return err
		}
		j.submitAlt = rec.time("submitTime")
		if j.job.LaunchMs < 0 {
			j.job.LaunchMs = rec.time("launchTime")
		}
	case "JobFinished":
		j, err := st.jobFor(rec.str("jobid"))
		if err != nil {
			return err
		}
		j.ended, j.endStatusRaw = true, StatusSucceeded
		j.job.FinishMs = rec.time("finishTime")
		jhistCounters(rec.record("totalCounters"), &j.counters)
	case "JobUnsuccessfulCompletion":
		j, err := st.jobFor(rec.str("jobid"))
		if err != nil {
			return err
		}
		status := rec.str("jobStatus")
		if status == "" {
			status = strings.TrimPrefix(typ, "JOB_")
		}
		j.ended, j.endStatusRaw = true, status
		j.job.FinishMs = rec.time("finishTime")
	case "TaskStarted":
		t, err := st.taskFor(rec)
		if err != nil {
			return err
		}
		t.start = rec.time("startTime")
		t.splitHosts = splitHosts(rec.str("splitLocations"))
	case "TaskFinished":
		t, err := st.taskFor(rec)
		if err != nil {
			return err
		}
		t.ended, t.status = true, StatusSucceeded
		if s := normStatus(rec.str("status")); s != "" {
			t.status = s
		}
		t.finish = rec.time("finishTime")
		t.successfulAttempt = rec.str("successfulAttemptId")
		jhistCounters(rec.record("counters"), &t.counters)
	case "TaskFailed":
		t, err := st.taskFor(rec)
		if err != nil {
			return err
		}
		t.ended, t.status = true, StatusFailed
		if s := normStatus(rec.str("status")); s != "" {
			t.status = s
		}
		t.finish = rec.time("finishTime")
	case "TaskAttemptStarted":
		a, err := st.attemptFor(rec)
		if err != nil {
			return err
		}
		a.start = rec.time("startTime")
		if a.host == "" {
			a.host = trackerHost(rec.str("trackerName"))
		}
		a.locality = normLocality(rec.str("locality"))
	case "MapAttemptFinished", "ReduceAttemptFinished", "TaskAttemptFinished":
		a, err := st.attemptFor(rec)
		if err != nil {
			return err
		}
		a.status = normStatus(rec.str("taskStatus"))
		if a.status == "" {
			a.status = StatusSucceeded
		}
		a.finish = rec.time("finishTime")
		st.attemptPlace(a, rec)
		if recName == "ReduceAttemptFinished" {
			a.shuffleFinish = rec.time("shuffleFinishTime")
			a.sortFinish = rec.time("sortFinishTime")
		}
		jhistCounters(rec.record("counters"), &a.counters)
	case "TaskAttemptUnsuccessfulCompletion":
		a, err := st.attemptFor(rec)
		if err != nil {
			return err
		}
		a.status = normStatus(rec.str("status"))
		if a.status == "" {
			if strings.HasSuffix(typ, "_KILLED") {
				a.status = StatusKilled
			} else {
				a.status = StatusFailed
			}
		}
		a.finish = rec.time("finishTime")
		st.attemptPlace(a, rec)
	case "AMStarted":
		// The record names no job (it comes before JobSubmitted); it belongs to
		// the file's job. The first AM attempt's start is kept (a retried AM
		// starts later).
		if t := rec.time("startTime"); t > 0 && (st.amStart <= 0 || t < st.amStart) {
			st.amStart = t
		}
	}
	// JobPriorityChange, JobStatusChanged, TaskUpdated and unknown records carry
	// nothing the trace keeps.
	return nil
}

// attemptPlace sets the host and rack an attempt ended on.
func (st *jhistState) attemptPlace(a *attemptAcc, rec avroRec) {
	if h := rec.str("hostname"); h != "" {
		rack, host := splitRackHost(h)
		a.host = host
		if rack != "" {
			a.rack = rack
		}
	}
	if r := rec.str("rackname"); r != "" {
		a.rack = normRack(r)
	}
}

// splitHosts splits a comma-separated host list, dropping empty entries and
// repeats (single-node test clusters list "localhost" once per replica).
func splitHosts(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// normLocality keeps the three locality classes Hadoop writes.
func normLocality(s string) string {
	switch strings.ToUpper(s) {
	case NodeLocal, "DATA_LOCAL":
		return NodeLocal
	case RackLocal:
		return RackLocal
	case OffSwitch, "OFF_RACK":
		return OffSwitch
	}
	return ""
}

// clampCount turns a negative or absurd count into Unknown.
func clampCount(v int64) int64 {
	if v < 0 || v > 1<<31-1 {
		return Unknown
	}
	return v
}
