package trace

import (
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// jhistName is what a done-file name says about its job (FORMATS §2.10):
// jobId-submitTime-user-jobName-finishTime-numMaps-numReduces-status-queue[-jobStartTime].jhist
type jhistName struct {
	jobID    string
	submitMs int64
	finishMs int64
	status   string
}

// parseJhistName parses a .jhist done-file name; ok is false for names not in
// that form (test copies, hand-named files).
func parseJhistName(name string) (n jhistName, ok bool) {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	base = strings.TrimSuffix(base, ".gz")
	base, found := strings.CutSuffix(base, ".jhist")
	if !found {
		return n, false
	}
	f := strings.Split(base, "-")
	if len(f) < 9 || !jobIDPattern.MatchString(f[0]) {
		return n, false
	}
	for i := range f {
		if u, err := url.QueryUnescape(f[i]); err == nil {
			f[i] = u
		}
	}
	var err1, err2 error
	n.jobID = f[0]
	n.submitMs, err1 = strconv.ParseInt(f[1], 10, 64)
	n.finishMs, err2 = strconv.ParseInt(f[4], 10, 64)
	n.status = f[7]
	return n, err1 == nil && err2 == nil
}

// jobIDPattern matches a whole MapReduce job id.
var jobIDPattern = regexp.MustCompile(`^job_[0-9]+_[0-9]+$`)

// jobIDInName finds the first job id in a file name (job_<ts>_<seq>).
var jobIDInName = regexp.MustCompile(`job_[0-9]+_[0-9]+`)

// checkJhistName notes where a done-file name disagrees with the file's
// contents; the contents win (FORMATS §2.8 items 4–6).
func checkJhistName(name string, j *jobAcc, diag *diagSink) {
	n, ok := parseJhistName(name)
	if !ok {
		return
	}
	if n.jobID != j.job.ID {
		diag.note(0, 0, -1, "file name says job %s, the history says %s; the history wins", n.jobID, j.job.ID)
	}
	if j.job.SubmitMs > 0 && n.submitMs != j.job.SubmitMs {
		diag.note(0, 0, -1, "file name says submit time %d, the history says %d; the history wins", n.submitMs, j.job.SubmitMs)
	}
	if !j.ended {
		diag.note(0, 0, -1, "file name says %s at %d, but the history has no job-end record", n.status, n.finishMs)
	} else if j.job.FinishMs > 0 && n.finishMs != j.job.FinishMs {
		diag.note(0, 0, -1, "file name says finish time %d, the history says %d; the history wins", n.finishMs, j.job.FinishMs)
	}
}
