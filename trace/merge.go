package trace

import (
	"fmt"
	"slices"
)

// Merge combines traces read from several inputs of format f, given in input
// order, into one trace in canonical order (Trace.Sort): jobs of all inputs are
// interleaved by submit time, as if the workloads ran side by side.
//
// When f has file-local ids (f.FileLocalIDs, e.g. SWIM's job0, job1, … and
// inputPath1, …) and there is more than one input, every job id, task id and
// input path of input k (1-based) gets the prefix "f<k>:", so that job0 of two
// files stays two jobs and inputPath1 of two files stays two inputs; Name keeps the
// original id. Otherwise ids are kept, and an id found in two inputs is an error
// naming both. Meta.Sources is the concatenation; SourceFormat is f.Name; Options
// and Tool come from the first input.
func Merge(f Format, parts []*Trace) (*Trace, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("merge: no inputs")
	}
	out := &Trace{Meta: parts[0].Meta}
	out.Meta.SourceFormat = f.Name
	out.Meta.Sources = nil
	qualify := f.FileLocalIDs && len(parts) > 1
	owner := make(map[string]int) // job id -> input index, to report duplicates
	n, m := 0, 0
	for _, p := range parts {
		n += len(p.Jobs)
		m += len(p.Tasks)
	}
	out.Jobs = make([]Job, 0, n)
	out.Tasks = make([]Task, 0, m)
	for k, p := range parts {
		prefix := ""
		if qualify {
			prefix = fmt.Sprintf("f%d:", k+1)
		}
		out.Meta.Sources = append(out.Meta.Sources, p.Meta.Sources...)
		for _, j := range p.Jobs {
			if qualify {
				j.ID = prefix + j.ID
				if j.InputPath != "" {
					j.InputPath = prefix + j.InputPath
				}
			}
			if other, dup := owner[j.ID]; dup && other != k {
				return nil, fmt.Errorf("merge: job id %q is in both %s and %s", j.ID, source(parts[other]), source(p))
			}
			owner[j.ID] = k
			out.Jobs = append(out.Jobs, j)
		}
		for _, t := range p.Tasks {
			if qualify {
				t.JobID, t.TaskID = prefix+t.JobID, prefix+t.TaskID
			}
			out.Tasks = append(out.Tasks, t)
		}
		for _, a := range p.Attempts {
			if qualify {
				a.JobID, a.TaskID, a.AttemptID = prefix+a.JobID, prefix+a.TaskID, prefix+a.AttemptID
			}
			out.Attempts = append(out.Attempts, a)
		}
	}
	out.Meta.Sources = slices.Clip(out.Meta.Sources)
	out.Sort()
	return out, nil
}

// source names the input a trace came from, for messages.
func source(t *Trace) string {
	if len(t.Meta.Sources) == 0 {
		return "an unnamed input"
	}
	return t.Meta.Sources[0]
}
