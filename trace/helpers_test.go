package trace

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedTraces is the folder of real traces next to the repository
// (../shared/traces from the repository root).
const sharedTraces = "../../shared/traces"

// sharedFiles lists the files under ../shared/traces/<sub>, skipping the test
// when the folder is absent.
func sharedFiles(t *testing.T, sub string) []string {
	t.Helper()
	root := filepath.Join(sharedTraces, sub)
	if _, err := os.Stat(root); err != nil {
		t.Skipf("%s not present: %v", root, err)
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// readInput returns a file's contents, gunzipped when it ends in .gz.
func readInput(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if b, err = io.ReadAll(z); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return b
}

// collect returns HistoryOptions whose Warn appends to *ds.
func collect(ds *[]Diagnostic) HistoryOptions {
	return HistoryOptions{Warn: func(d Diagnostic) { *ds = append(*ds, d) }}
}

// hasDiag reports whether some diagnostic message contains sub.
func hasDiag(ds []Diagnostic, sub string) bool {
	for _, d := range ds {
		if strings.Contains(d.Msg, sub) {
			return true
		}
	}
	return false
}

// tasksOf returns the tasks of one job.
func tasksOf(tr *Trace, jobID string) []Task {
	var out []Task
	for _, t := range tr.Tasks {
		if t.JobID == jobID {
			out = append(out, t)
		}
	}
	return out
}

// taskByID finds a task.
func taskByID(t *testing.T, tr *Trace, id string) Task {
	t.Helper()
	for _, k := range tr.Tasks {
		if k.TaskID == id {
			return k
		}
	}
	t.Fatalf("task %s not in trace", id)
	return Task{}
}

// checkTraceInvariants checks what every reader promises about a trace: jobs in
// (submit, id) order with unique ids, tasks grouped in job order, maps before
// reduces, by index; counts that match the tasks; racks aligned with hosts.
func checkTraceInvariants(t *testing.T, tr *Trace) {
	t.Helper()
	if err := tr.Validate(); err != nil {
		t.Fatalf("invalid trace: %v", err)
	}
	ids := map[string]int{}
	for i, j := range tr.Jobs {
		if _, dup := ids[j.ID]; dup {
			t.Errorf("job id %s twice", j.ID)
		}
		ids[j.ID] = i
		if i > 0 {
			p := tr.Jobs[i-1]
			if p.SubmitMs > j.SubmitMs || p.SubmitMs == j.SubmitMs && CompareIDs(p.ID, j.ID) >= 0 {
				t.Errorf("jobs %s and %s out of order", p.ID, j.ID)
			}
		}
		switch j.Status {
		case StatusSucceeded, StatusFailed, StatusKilled, StatusIncomplete:
		default:
			t.Errorf("job %s: status %q", j.ID, j.Status)
		}
	}
	maps := map[string]int32{}
	reduces := map[string]int32{}
	lastJob, lastType, lastIndex := -1, Map, int32(-2)
	for _, k := range tr.Tasks {
		ji, ok := ids[k.JobID]
		if !ok {
			t.Fatalf("task %s of unknown job %s", k.TaskID, k.JobID)
		}
		if ji < lastJob || ji == lastJob && (k.Type < lastType || k.Type == lastType && k.Index < lastIndex) {
			t.Errorf("task %s out of order", k.TaskID)
		}
		lastJob, lastType, lastIndex = ji, k.Type, k.Index
		switch k.Type {
		case Map:
			maps[k.JobID]++
		case Reduce:
			reduces[k.JobID]++
		}
		if len(k.PreferredHosts) != len(k.PreferredRacks) {
			t.Errorf("task %s: %d hosts, %d racks", k.TaskID, len(k.PreferredHosts), len(k.PreferredRacks))
		}
	}
	for _, j := range tr.Jobs {
		if j.NumMaps != maps[j.ID] || j.NumReduces != reduces[j.ID] {
			t.Errorf("job %s: NumMaps/NumReduces %d/%d, tasks %d/%d", j.ID, j.NumMaps, j.NumReduces, maps[j.ID], reduces[j.ID])
		}
	}
}
