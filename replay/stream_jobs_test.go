package replay_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/internal/summary"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// mixedTrace is n jobs one every 2 s whose sizes cycle from 40 blocks down
// to 1, so that later, smaller jobs finish before earlier, larger ones.
func mixedTrace(n int) *trace.Trace {
	tr := &trace.Trace{}
	for k := range n {
		j := trace.NewJob(fmt.Sprintf("job%05d", k))
		j.SubmitMs, j.Status = int64(k)*2000, trace.StatusSucceeded
		blocks := int64(40 - 13*(k%4))
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = blocks<<27, blocks<<25, 1<<24
		j.Name, j.User, j.Queue = fmt.Sprintf("name%d", k%7), "u", "default"
		tr.Jobs = append(tr.Jobs, j)
	}
	return tr
}

// TestStreamedJobsIdentical: a run that streams its job results to the
// writer as jobs finish (in job order, holding only the jobs that finished
// before an earlier one) writes the same bytes, in every file and run.json,
// as the same run holding every result and written at the end; and its
// streamed statistics and digest are those of the held results. Both with
// and without the job lifecycle, under fair and fifo.
func TestStreamedJobsIdentical(t *testing.T) {
	for _, c := range []struct{ policy, hw string }{
		{"fair", ""},
		{"fifo", ""},
		{"fair", "lifecycle = true\n"},
	} {
		t.Run(c.policy+map[bool]string{true: "-lifecycle"}[c.hw != ""], func(t *testing.T) {
			hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 6\nmap_slots = 2\nreduce_slots = 1\nshuffle = \"topology\"\ntimeline_sample = \"10s\"\n" + c.hw))
			if err != nil {
				t.Fatal(err)
			}
			tr := mixedTrace(300)
			run := func(dir string, stream bool) (*replay.Result, *replay.RunWriter) {
				w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p, err := policy.New(c.policy)
				if err != nil {
					t.Fatal(err)
				}
				opt := replay.Options{Seed: 1, Timeline: true, RecordTasks: true, JobStats: true}
				var out *replay.RunWriter
				if stream {
					if out, err = replay.NewRunWriter(dir); err != nil {
						t.Fatal(err)
					}
					opt.Out = out
				}
				res, err := replay.Run(w, p, opt)
				if err != nil {
					t.Fatal(err)
				}
				res.Wall = 0
				if err := replay.WriteRun(dir, res, map[string]string{"k": "v"}); err != nil {
					t.Fatal(err)
				}
				return res, out
			}
			held, streamed := filepath.Join(t.TempDir(), "held"), filepath.Join(t.TempDir(), "streamed")
			hres, _ := run(held, false)
			sres, out := run(streamed, true)
			if len(sres.Jobs) != 0 {
				t.Errorf("the streamed run held %d job results", len(sres.Jobs))
			}
			if len(hres.Jobs) != 300 {
				t.Fatalf("the held run has %d job results, want 300", len(hres.Jobs))
			}
			if replay.MaxJobsWaiting(out) == 0 {
				t.Error("no job finished before an earlier one: the reordering is not exercised")
			}
			t.Logf("at most %d finished jobs waited for an earlier one", replay.MaxJobsWaiting(out))
			files, err := os.ReadDir(held)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				a, err := os.ReadFile(filepath.Join(held, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(streamed, f.Name()))
				if err != nil {
					t.Errorf("%s: %v", f.Name(), err)
					continue
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s differs between the held and the streamed run", f.Name())
				}
			}
			if !reflect.DeepEqual(hres.Summary, sres.Summary) {
				t.Errorf("summaries differ:\nheld     %+v\nstreamed %+v", hres.Summary, sres.Summary)
			}
			st, dg, err := sres.JobStats()
			if err != nil {
				t.Fatal(err)
			}
			want := summary.Compute(hres.Jobs)
			if fmt.Sprintf("%#v", st) != fmt.Sprintf("%#v", want) || dg != summary.Digest(hres.Jobs) || dg == "" {
				t.Errorf("streamed statistics %+v digest %s, want %+v %s", st, dg, want, summary.Digest(hres.Jobs))
			}
		})
	}
}
