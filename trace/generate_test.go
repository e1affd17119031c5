package trace

import (
	"fmt"
	"testing"
)

// TestGeneratedTaskIDs: the paper generators name tasks as Hadoop does, by job,
// kind and six-digit index (job_01_m_000000).
func TestGeneratedTaskIDs(t *testing.T) {
	for _, gen := range []string{"eas-table1", "coupling-twojobs"} {
		tr, err := Generate(gen, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Tasks[0].TaskID != "job_01_m_000000" {
			t.Errorf("%s: first task %s, want job_01_m_000000", gen, tr.Tasks[0].TaskID)
		}
		for _, k := range tr.Tasks {
			kind := map[TaskType]string{Map: "m", Reduce: "r"}[k.Type]
			if want := fmt.Sprintf("%s_%s_%06d", k.JobID, kind, k.Index); k.TaskID != want {
				t.Fatalf("%s: task %s, want %s", gen, k.TaskID, want)
			}
		}
	}
}
