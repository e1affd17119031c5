package trace

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestLifecycleFacts checks what the readers keep for the job lifecycle on
// real histories: setup and cleanup tasks with their observed times and slot
// kind, every attempt, the AM start of a .jhist, and the conf facts.
func TestLifecycleFacts(t *testing.T) {
	read := func(t *testing.T, path string) *Trace {
		t.Helper()
		tr, _, err := ReadTree(context.Background(), filepath.Join("testdata", path), TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	t.Run("rumen setup and cleanup", func(t *testing.T) {
		tr := read(t, "rumen/truncated-trace-output")
		var setup, cleanup []Task
		for _, k := range tr.Tasks {
			switch k.Type {
			case Setup:
				setup = append(setup, k)
			case Cleanup:
				cleanup = append(cleanup, k)
			}
		}
		if len(setup) != 1 || len(cleanup) != 1 {
			t.Fatalf("%d setup, %d cleanup tasks, want 1 and 1", len(setup), len(cleanup))
		}
		s, c := setup[0], cleanup[0]
		if s.StartMs <= 0 || s.FinishMs < s.StartMs || s.Host == "" || s.Status != StatusSucceeded {
			t.Errorf("setup %+v", s)
		}
		if c.StartMs < s.FinishMs || c.FinishMs < c.StartMs {
			t.Errorf("cleanup %d..%d before setup end %d", c.StartMs, c.FinishMs, s.FinishMs)
		}
		if s.InputBytes != Unknown || s.OutputBytes != Unknown {
			t.Errorf("setup has bytes %d %d", s.InputBytes, s.OutputBytes)
		}
		// every task has its attempts; each attempt's task is in the trace
		ids := map[string]TaskType{}
		for _, k := range tr.Tasks {
			ids[k.TaskID] = k.Type
		}
		seen := map[string]bool{}
		for _, a := range tr.Attempts {
			typ, ok := ids[a.TaskID]
			if !ok || typ != a.Type || !strings.HasPrefix(a.AttemptID, "attempt_") {
				t.Errorf("attempt %+v: task type %v %v", a, typ, ok)
			}
			seen[a.TaskID] = true
		}
		if len(seen) != len(tr.Tasks) {
			t.Errorf("attempts cover %d of %d tasks", len(seen), len(tr.Tasks))
		}
	})
	t.Run("hadoop1 failed attempts kept", func(t *testing.T) {
		tr := read(t, "hadoop1/v20-single-input-log.gz")
		var failed, wasted int32
		for _, j := range tr.Jobs {
			failed += j.FailedAttempts + j.KilledAttempts
		}
		for _, a := range tr.Attempts {
			if a.Type.IsWork() && (a.Status == StatusFailed || a.Status == StatusKilled) {
				wasted++
			}
		}
		if failed != wasted {
			t.Errorf("jobs count %d failed or killed attempts, attempts.parquet has %d", failed, wasted)
		}
		if len(tr.Attempts) < len(tr.Tasks) {
			t.Errorf("%d attempts for %d tasks", len(tr.Attempts), len(tr.Tasks))
		}
	})
	t.Run("jhist AM start, no setup", func(t *testing.T) {
		tr := read(t, "jhist")
		var am int
		for _, j := range tr.Jobs {
			if j.AMStartMs > 0 {
				am++
				if j.AMStartMs < j.SubmitMs-60_000 || j.FinishMs >= 0 && j.AMStartMs > j.FinishMs {
					t.Errorf("job %s: AM start %d outside submit %d .. finish %d", j.ID, j.AMStartMs, j.SubmitMs, j.FinishMs)
				}
			}
			// YARN confs carry mapreduce.tasktracker.*.maximum defaults, which mean nothing there
			if j.ConfMapSlots != Unknown || j.ConfReduceSlots != Unknown {
				t.Errorf("job %s: conf slots %d/%d from a YARN conf", j.ID, j.ConfMapSlots, j.ConfReduceSlots)
			}
		}
		if am == 0 {
			t.Error("no job has an AM start")
		}
		for _, k := range tr.Tasks {
			if !k.Type.IsWork() {
				t.Errorf("jhist task %s is %s", k.TaskID, k.Type)
			}
		}
	})
	t.Run("conf slots and scheduler", func(t *testing.T) {
		j := NewJob("job_1_1")
		Conf{"mapred.tasktracker.map.tasks.maximum": " 4 ", "mapred.tasktracker.reduce.tasks.maximum": "2",
			"mapred.jobtracker.taskScheduler":      "org.apache.hadoop.mapred.CapacityTaskScheduler",
			"yarn.resourcemanager.scheduler.class": "Fifo"}.applyTo(&j)
		if j.ConfMapSlots != 4 || j.ConfReduceSlots != 2 || j.Scheduler != "org.apache.hadoop.mapred.CapacityTaskScheduler" {
			t.Errorf("job %+v", j)
		}
		j = NewJob("job_1_2")
		Conf{"mapred.tasktracker.map.tasks.maximum": "0", "yarn.resourcemanager.scheduler.class": "Fifo"}.applyTo(&j)
		if j.ConfMapSlots != Unknown || j.Scheduler != "Fifo" {
			t.Errorf("job %+v", j)
		}
		// A job that ran on YARN was scheduled by the ResourceManager, whatever
		// JobTracker setting its conf still carries.
		j = NewJob("job_1_3")
		Conf{"mapreduce.framework.name": "yarn",
			"mapred.jobtracker.taskScheduler":      "org.apache.hadoop.mapred.JobQueueTaskScheduler",
			"yarn.resourcemanager.scheduler.class": "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"}.applyTo(&j)
		if !strings.HasSuffix(j.Scheduler, ".CapacityScheduler") {
			t.Errorf("YARN job's scheduler %q, want the ResourceManager's CapacityScheduler", j.Scheduler)
		}
	})
}

// TestSpeculativeDerived: an attempt is speculative when it starts while an
// earlier-started attempt of its task has not finished; a retry after a
// failure is not; an attempt without a start never is.
func TestSpeculativeDerived(t *testing.T) {
	task := &taskAcc{id: "task_1_1_m_000000"}
	for _, a := range []struct {
		id            string
		status        string
		start, finish int64
	}{
		{"attempt_1_1_m_000000_0", StatusFailed, 0, 100},
		{"attempt_1_1_m_000000_1", StatusSucceeded, 100, 200}, // a retry: _0 ended at 100
		{"attempt_1_1_m_000000_2", StatusKilled, 150, 210},    // beside _1
		{"attempt_1_1_m_000000_3", StatusKilled, Unknown, Unknown},
		{"attempt_1_1_m_000000_4", StatusKilled, 300, Unknown}, // after all ended
	} {
		x, err := task.attempt(a.id)
		if err != nil {
			t.Fatal(err)
		}
		x.status, x.start, x.finish = a.status, a.start, a.finish
	}
	got := task.appendAttempts(nil, "job_1_1", kindMap, nil)
	want := []bool{false, false, true, false, false}
	for i, a := range got {
		if a.Speculative != want[i] || a.Type != Map || a.JobID != "job_1_1" || a.TaskID != task.id {
			t.Errorf("attempt %s: %+v, want speculative %v", a.AttemptID, a, want[i])
		}
	}
}
