package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/tracereplay/tracereplay/replay"
)

// FuzzLoadRun fuzzes the results reader: a run directory's run.json,
// jobs.parquet and timeline.parquet as replay writes them. No content may make
// LoadRun panic or hang; an error names the file, and a run it accepts has a
// policy and jobs that pass checkJobs.
func FuzzLoadRun(f *testing.F) {
	var jobs, timeline bytes.Buffer
	if err := parquet.Write(&jobs, seqRun(map[string]string{"policy": "x"}, 3, 1).Jobs); err != nil {
		f.Fatal(err)
	}
	if err := parquet.Write(&timeline, []replay.TimelineSample{{}}); err != nil {
		f.Fatal(err)
	}
	summary, err := json.Marshal(replay.RunSummary{Policy: "fifo", Trace: "t"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(summary, jobs.Bytes(), timeline.Bytes())
	f.Add([]byte(`{}`), jobs.Bytes(), timeline.Bytes())
	f.Add(summary, []byte("PAR1PAR1"), timeline.Bytes())
	f.Add([]byte(`{"policy":1}`), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, summary, jobs, timeline []byte) {
		dir := filepath.Join(t.TempDir(), "policy=p")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{replay.SummaryFile: summary, replay.JobsFile: jobs, replay.TimelineFile: timeline} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r, err := LoadRun(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the run's file: %v", err)
			}
			return
		}
		if r.Policy == "" {
			t.Fatal("accepted a run without a policy")
		}
	})
}
