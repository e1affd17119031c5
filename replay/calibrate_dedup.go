package replay

import (
	"fmt"
	"strings"

	"github.com/tracereplay/tracereplay/trace"
)

// copyBaseID is a job id without the "#n" suffix (n a positive integer) that
// trace.ReadTree and the SLS reader give the later copies of a repeated id:
// "job_1#2" → "job_1". Other ids are returned as they are.
func copyBaseID(id string) string {
	i := strings.LastIndexByte(id, '#')
	if i <= 0 || i == len(id)-1 {
		return id
	}
	for _, c := range id[i+1:] {
		if c < '0' || c > '9' {
			return id
		}
	}
	return id[:i]
}

// dedupJobs returns tr without the later copies of a job that occurs more than
// once, and the ids of the copies left out. Two jobs are the same job when
// their ids less a copy suffix (copyBaseID) and their submit times are equal:
// the same job log read from two files of one calibration input (a .jhist and
// the Rumen trace made from it, a Hadoop 1 history and a bundle holding it),
// which trace.ReadTree keeps as <id> and <id>#2. The first in tr.Jobs order is
// kept, with its tasks and attempts; the copies' tasks and attempts are left
// out, so that every fit counts each job once. tr itself is not changed; it is
// returned as it is when no job repeats.
func dedupJobs(tr *trace.Trace) (*trace.Trace, []string) {
	type key struct {
		id     string
		submit int64
	}
	kept := make(map[key]bool, len(tr.Jobs))
	drop := map[string]bool{}
	var dropped []string
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		k := key{copyBaseID(j.ID), j.SubmitMs}
		if kept[k] {
			drop[j.ID] = true
			dropped = append(dropped, j.ID)
			continue
		}
		kept[k] = true
	}
	if len(dropped) == 0 {
		return tr, nil
	}
	out := &trace.Trace{Meta: tr.Meta}
	out.Jobs = make([]trace.Job, 0, len(tr.Jobs)-len(dropped))
	for _, j := range tr.Jobs {
		if !drop[j.ID] {
			out.Jobs = append(out.Jobs, j)
		}
	}
	for _, t := range tr.Tasks {
		if !drop[t.JobID] {
			out.Tasks = append(out.Tasks, t)
		}
	}
	for _, a := range tr.Attempts {
		if !drop[a.JobID] {
			out.Attempts = append(out.Attempts, a)
		}
	}
	return out, dropped
}

// duplicatesNote is the calibration note naming the job copies left out.
func duplicatesNote(dropped []string) string {
	const show = 5
	list := strings.Join(dropped[:min(len(dropped), show)], ", ")
	if len(dropped) > show {
		list += fmt.Sprintf(" and %d more", len(dropped)-show)
	}
	return fmt.Sprintf("%d job%s occur%s more than once (same id less a #n copy suffix, same submit time: the same job log in two inputs); each is counted once, the first kept, the later copies left out of every fit: %s",
		len(dropped), map[bool]string{true: "", false: "s"}[len(dropped) == 1], map[bool]string{true: "s", false: ""}[len(dropped) == 1], list)
}
