package trace

import (
	"strings"
	"testing"
)

// TestAssembleRepairs checks what the readers do with histories the trace
// cannot hold as they are: jobs without submit time, task ids without a task
// number, two tasks with one index, and a renamed copy whose new id is taken.
func TestAssembleRepairs(t *testing.T) {
	in := `{"jobID":"job_1_1","launchTime":50,"outcome":"SUCCESS","mapTasks":[
	   {"taskID":"task_1_1_m_000001","taskType":"MAP","taskStatus":"SUCCESS"},
	   {"taskID":"task_1_1_m_x","taskType":"MAP","taskStatus":"SUCCESS"},
	   {"taskID":"task_1_1_m_1","taskType":"MAP","taskStatus":"SUCCESS"}]}
	{"jobID":"job_1_2","outcome":"SUCCESS","mapTasks":[{"taskID":"task_1_2_m_0","taskType":"MAP","startTime":70,"attempts":[{"result":"SUCCESS","startTime":80,"finishTime":90}]}]}
	{"jobID":"job_1_3","outcome":"SUCCESS"}
	{"jobID":"job_1_4","submitTime":5,"outcome":"KILLED"}
	{"jobID":"job_1_4#2","submitTime":5,"outcome":"KILLED"}
	{"jobID":"job_1_4","submitTime":5,"outcome":"KILLED"}`
	var ds []Diagnostic
	tr, err := ReadRumen("r", strings.NewReader(in), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	var ids []string
	for _, j := range tr.Jobs {
		ids = append(ids, j.ID)
	}
	// job_1_3 has no time at all and is dropped; job_1_1 takes its launch time,
	// job_1_2 the start of its only attempt (the task's observed start)
	if got := strings.Join(ids, " "); got != "job_1_4 job_1_4#2 job_1_4#3 job_1_1 job_1_2" {
		t.Errorf("jobs %s", got)
	}
	if tr.Jobs[3].SubmitMs != 50 || tr.Jobs[4].SubmitMs != 80 {
		t.Errorf("fallback submit times %d %d", tr.Jobs[3].SubmitMs, tr.Jobs[4].SubmitMs)
	}
	m := tasksOf(tr, "job_1_1")
	if len(m) != 2 || m[0].TaskID != "task_1_1_m_000001" || m[1].TaskID != "task_1_1_m_x" || m[1].Index != 2 || tr.Jobs[3].NumMaps != 2 {
		t.Errorf("tasks %+v", m)
	}
	for _, want := range []string{"job_1_3 has no submit, launch or task start time; dropped",
		"job_1_1 has no submit time", "1 task ids end in no task number", "are both MAP 1; the second is dropped",
		"1 job ids occur more than once (job_1_4)"} {
		if !hasDiag(ds, want) {
			t.Errorf("no diagnostic %q in %v", want, ds)
		}
	}
}

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{File: "f", Line: 3, Offset: -1, Msg: "m"}, "f:3: m"},
		{Diagnostic{File: "f", Line: 3, Record: 2, Offset: -1, Msg: "m"}, "f:3: record 2: m"},
		{Diagnostic{File: "f", Record: 2, Offset: 40, Msg: "m"}, "f: record 2 at byte 40: m"},
		{Diagnostic{File: "f", Record: 2, Offset: -1, Msg: "m"}, "f: record 2: m"},
		{Diagnostic{File: "f", Offset: 7, Msg: "m"}, "f: byte 7: m"},
		{Diagnostic{File: "f", Offset: -1, Msg: "m"}, "f: m"},
	}
	for _, tc := range tests {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
}
