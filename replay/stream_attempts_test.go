package replay_test

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// attemptTrace is taskTrace(n) with attempts: each task's successful
// attempt (its start, finish and host), for every fifth map or reduce a
// failed attempt before it, for every seventh map a killed copy beside it,
// and jobs k%13 == 1 recorded as FAILED by their first map, which failed
// four attempts and never succeeded.
func attemptTrace(n int) *trace.Trace {
	tr := taskTrace(n)
	failed := map[string]bool{}
	for k := range tr.Jobs {
		if k%13 == 1 && tr.Jobs[k].Status == trace.StatusSucceeded {
			tr.Jobs[k].Status = trace.StatusFailed
			failed[tr.Jobs[k].ID] = true
		}
	}
	var as []trace.Attempt
	for i := range tr.Tasks {
		k := &tr.Tasks[i]
		add := func(n int, status string, start, finish int64) {
			a := trace.NewAttempt(k.JobID, k.TaskID, fmt.Sprintf("%s_a%d", k.TaskID, n), k.Type)
			a.Status, a.StartMs, a.FinishMs, a.Host, a.Rack = status, start, finish, k.Host, k.Rack
			as = append(as, a)
		}
		if failed[k.JobID] && k.Type == trace.Map && k.Index == 0 {
			for n := range 4 {
				add(n, trace.StatusFailed, k.StartMs+int64(n)*700, k.StartMs+int64(n)*700+500)
			}
			k.Status = trace.StatusFailed
			continue
		}
		if k.Type.IsWork() && i%5 == 0 {
			add(0, trace.StatusFailed, k.StartMs-2500, k.StartMs-1000)
		}
		add(1, trace.StatusSucceeded, k.StartMs, k.FinishMs)
		if k.Type == trace.Map && i%7 == 0 {
			add(2, trace.StatusKilled, k.StartMs+500, k.FinishMs-100)
		}
	}
	tr.Attempts = as
	tr.Sort()
	return tr
}

// TestStreamedAttemptsReplayAsHeld: a trace with attempts read as its jobs
// arrive, its attempts read job by job for the lifecycle, replays to the
// same results as the same trace read whole: in model mode with and
// without the lifecycle (recorded failures), with the observed task times
// and the lifecycle (retries, the jobs failed by a task, the observed
// speculative copies, the cluster's start from the earliest attempt),
// under network = "flow" and on a YARN cluster.
func TestStreamedAttemptsReplayAsHeld(t *testing.T) {
	t.Parallel()
	// 1,200 jobs: 8,600 tasks and 11,374 attempts, two 4,096-row batches
	// of each file crossed; the fast lane's streams read batches of 512
	// rows from an eighth of the jobs, and cross two of each file too.
	jobs, opt := 1200, trace.StreamOptions{Attempts: true}
	if testgate.IsFast() {
		jobs, opt.Batch = 1200/8, 4096/8
	}
	_, held, streamed := streamDir(t, attemptTrace(jobs), opt)
	if b := cmp.Or(opt.Batch, 4096); streamed.Stream.NumTasks() <= 2*b || streamed.Stream.NumAttempts() <= 2*b {
		t.Fatalf("%d tasks and %d attempts: two batches of %d rows not crossed", streamed.Stream.NumTasks(), streamed.Stream.NumAttempts(), b)
	}
	base := streamHardware
	yarn := `
cluster = "yarn"
racks = 2
nodes_per_rack = 8
node_memory_mb = 8192
node_vcores = 8
timeline_sample = "30s"
`
	for _, c := range []struct {
		name, hw, policy string
	}{
		{"fair model", base + `task_times = "model"`, "fair"},
		{"lifecycle model", base + "task_times = \"model\"\nlifecycle = true", "fair"},
		{"lifecycle model faults", base + "lifecycle = true\nattempt_failure_rate = 0.05\nspeculation = \"late\"", "fifo"},
		{"lifecycle trace times", base + "task_times = \"trace\"\nlifecycle = true", "fair"},
		{"lifecycle trace times fifo", base + "task_times = \"trace\"\nlifecycle = true", "fifo"},
		{"lifecycle trace flow", base + "task_times = \"trace\"\nlifecycle = true\nnetwork = \"flow\"\nmap_compute_mb_per_s = 40", "fair"},
		{"lifecycle model flow", base + "lifecycle = true\nnetwork = \"flow\"\nmap_compute_mb_per_s = 40", "fair"},
		{"yarn lifecycle trace times", yarn + "task_times = \"trace\"\nlifecycle = true", "yarn-fair"},
		{"yarn lifecycle model", yarn + "lifecycle = true", "yarn-fifo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hw, err := replay.ParseHardware([]byte(c.hw))
			if err != nil {
				t.Fatal(err)
			}
			a := replaysAsHeld(t, hw, c.policy, held, streamed, false)
			t.Logf("%d jobs, %d events", a.Summary.Jobs, a.Summary.Events)
		})
	}
}

// TestStreamedAttemptsLeftOutAsHeld: with the observed task times and the
// lifecycle, the workload of a trace with streamed attempts leaves out the
// jobs a held one's does (badJobEdits), in trace order, for the same
// reasons, and the rest replays to the same results; a job with an
// attempt outside its lifetime and a task without a successful attempt is
// left out for the attempt.
func TestStreamedAttemptsLeftOutAsHeld(t *testing.T) {
	t.Parallel()
	hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\ntask_times = \"trace\"\nlifecycle = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	skew, noAtt, noSucc := badJobEdits[0], badJobEdits[1], badJobEdits[2]
	for _, c := range []struct {
		name string
		edit func(tr *trace.Trace)
		want []string // the reasons, in trace order
	}{
		{"lifetime", func(tr *trace.Trace) { skew.edit(tr, 201) }, []string{"outside the job's lifetime"}},
		{"no success", func(tr *trace.Trace) { noSucc.edit(tr, 151) }, []string{"has attempts but no successful one"}},
		{"all three", func(tr *trace.Trace) { skew.edit(tr, 201); noSucc.edit(tr, 76); noAtt.edit(tr, 151) },
			[]string{"has attempts but no successful one", "has no attempt", "outside the job's lifetime"}},
		{"both in one job", func(tr *trace.Trace) { noSucc.edit(tr, 201); skew.edit(tr, 201) }, []string{"outside the job's lifetime"}},
		{"fits", func(*trace.Trace) {}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == nil && testgate.IsFast() {
				// Covered in the fast lane by TestStreamedAttemptsReplayAsHeld's
				// "lifecycle trace times", whose workloads (trace times, the
				// lifecycle) are built from attemptTrace held and streamed.
				t.Skip("a trace that fits: TestStreamedAttemptsReplayAsHeld builds its workloads in the fast lane")
			}
			tr := attemptTrace(300)
			c.edit(tr)
			tr.Sort()
			_, held, streamed := streamDir(t, tr, trace.StreamOptions{Attempts: true})
			wh, eh := replay.NewWorkload(held, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
			ws, es := replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
			if eh != nil || es != nil {
				t.Fatalf("held: %v\nstreamed: %v", eh, es)
			}
			lh, ls := wh.LeftOut(), ws.LeftOut()
			if !reflect.DeepEqual(lh, ls) || len(lh) != len(c.want) || wh.Len() != ws.Len() {
				t.Fatalf("left out: held %v\nstreamed %v\nwant %q", lh, ls, c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(lh[i].Reason, w) {
					t.Fatalf("left out %v, want %q", lh, c.want)
				}
			}
			a := replaysAsHeld(t, hw, "fair", held, streamed, false)
			if !reflect.DeepEqual(a.Summary.JobsLeftOut, lh) {
				t.Errorf("run.json's jobs left out %v, want %v", a.Summary.JobsLeftOut, lh)
			}
			t.Log(lh)
		})
	}
}

// TestStreamedAttemptsGoneBad: an attempts.parquet that goes bad after the
// trace was opened (an unknown type two thirds in) fails the workload of a
// lifecycle run, which reads the attempts, with an error naming the file
// and the row that is bad input; a run without the lifecycle does not read
// them.
func TestStreamedAttemptsGoneBad(t *testing.T) {
	tr := attemptTrace(600)
	dir, _, streamed := streamDir(t, tr, trace.StreamOptions{Attempts: true})
	path := filepath.Join(dir, trace.AttemptsFile)
	bad := 2 * len(tr.Attempts) / 3
	rewriteRow(t, path, func(rows []trace.AttemptRow) { rows[bad].Type = "SHUFFLE" })
	for _, times := range []string{"model", "trace"} {
		hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\nlifecycle = true\ntask_times = \"" + times + "\"\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		want := fmt.Sprintf("%s: row %d: attempt %q: type \"SHUFFLE\"", path, bad, tr.Attempts[bad].AttemptID)
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, trace.ErrBadInput) {
			t.Fatalf("task_times %s: %v\nwant bad input with %q", times, err, want)
		}
	}
	hw, _ := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\n"))
	if _, err := replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{}); err != nil {
		t.Fatalf("without the lifecycle: %v", err)
	}
}
