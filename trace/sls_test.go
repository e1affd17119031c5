package trace

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSLSSamples(t *testing.T) {
	for _, f := range []string{"testdata/sls/inputsls.json", "testdata/sls/sls_dag.json"} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tr, err := ReadSLS(f, bytes.NewReader(readInput(t, f)), HistoryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkTraceInvariants(t, tr)
			// job_1 (sls_queue_1): 3 map containers, job_2 (sls_queue_2): 2
			if len(tr.Jobs) != 2 || tr.Jobs[0].ID != "job_1" || tr.Jobs[0].NumMaps != 3 || tr.Jobs[1].NumMaps != 2 ||
				tr.Jobs[0].Queue != "sls_queue_1" || tr.Jobs[1].Queue != "sls_queue_2" {
				t.Fatalf("jobs %+v", tr.Jobs)
			}
			j := tr.Jobs[0]
			if j.SubmitMs != 0 || j.FinishMs != 95375 || j.User != "default" || j.Status != StatusSucceeded {
				t.Errorf("job_1 %+v", j)
			}
			m := tr.Tasks[0]
			if m.TaskID != "job_1_m_000000" || m.Host != "node1" || m.Rack != "/default-rack" || m.StartMs != 6664 || m.FinishMs != 23707 {
				t.Errorf("first container %+v", m)
			}
		})
	}
}

func TestReadSLSVariants(t *testing.T) {
	in := `{"am.type":"mapreduce","job.start.ms":"100","job.queue.name":"q","job.count":2,
	 "job.tasks":[{"container.host":"/r/h1","duration.ms":50,"container.memory-mb":2048},
	              {"container.host":"/r/h2","container.duration.ms":70,"container.type":"reduce","count":3}]}
	{"job.start.ms":5,"job.queue.name":"q","job.tasks":[{"container.host":"/r/h1","container.duration.ms":0}]}
	{"job.queue.name":"q","job.tasks":[{"container.duration.ms":1}]}`
	var ds []Diagnostic
	tr, err := ReadSLS("s.json", strings.NewReader(in), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	if len(tr.Jobs) != 2 || tr.Jobs[0].ID != "sls_job_1" || tr.Jobs[1].ID != "sls_job_1#2" {
		t.Fatalf("jobs %+v", tr.Jobs)
	}
	j := tr.Jobs[0]
	if j.NumMaps != 1 || j.NumReduces != 3 || j.MapMemoryMB != 2048 || j.ReduceMemoryMB != Unknown || j.SubmitMs != 100 || j.FinishMs != Unknown {
		t.Errorf("job %+v", j)
	}
	r := taskByID(t, tr, "sls_job_1_r_000002")
	if r.StartMs != 100 || r.FinishMs != 170 || r.Host != "h2" {
		t.Errorf("reduce %+v", r)
	}
	if len(ds) != 2 || !strings.Contains(ds[0].String(), "s.json: record 2") || !hasDiag(ds, "no positive duration") || !hasDiag(ds, "without a job.start.ms") {
		t.Errorf("diagnostics %v", ds)
	}
	if _, err := ReadSLS("s.json", strings.NewReader(in), HistoryOptions{Strict: true}); err == nil {
		t.Error("strict read accepted a bad job")
	}
	for _, bad := range []string{``, `[1]`, `{"job.start.ms":1,"job.queue.name":"q","job.count":-1,"job.tasks":[{}]}`,
		`{"job.start.ms":1,"job.queue.name":"q","job.tasks":[{"container.duration.ms":5,"count":100000000000}]}`} {
		if _, err := ReadSLS("s.json", strings.NewReader(bad), HistoryOptions{}); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestReadSLSNodes(t *testing.T) {
	m, err := ReadSLSNodes("nodes.json", bytes.NewReader(readInput(t, "testdata/sls/nodes.json")))
	if err != nil {
		t.Fatal(err)
	}
	// 5 racks, 19 named nodes plus one empty {} entry
	if len(m) != 19 || m["node1"] != "/rack1" {
		t.Errorf("%d nodes, node1 on %q", len(m), m["node1"])
	}
	m, err = ReadSLSNodes("n", bytes.NewReader(readInput(t, "testdata/sls/nodes-with-resources.json")))
	if err != nil || len(m) != 4 {
		t.Errorf("nodes-with-resources: %v %v", m, err)
	}
	for _, bad := range []string{``, `{"nodes":[{"node":"a"}]}`, `{"rack":"r","nodes":[{}]}`, `{"rack":"r","nodes":[{"node":"a"}]} x`} {
		if _, err := ReadSLSNodes("n", strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestSLSSharedSamples(t *testing.T) {
	for _, f := range sharedFiles(t, "sls") {
		head := readInput(t, f)
		switch {
		case DetectSLS(f, head):
			tr, err := ReadSLS(f, bytes.NewReader(head), HistoryOptions{})
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			checkTraceInvariants(t, tr)
			// against a plain decode: one job per object, its containers, start and end
			dec := json.NewDecoder(bytes.NewReader(head))
			for i := 0; ; i++ {
				var job map[string]any
				if err := dec.Decode(&job); err != nil {
					if i != len(tr.Jobs) {
						t.Errorf("%s: %d job objects, %d jobs", f, i, len(tr.Jobs))
					}
					break
				}
				j := tr.Jobs[i]
				tasks, _ := job["job.tasks"].([]any)
				if int(j.NumMaps+j.NumReduces) != len(tasks) || float64(j.SubmitMs) != job["job.start.ms"] || float64(j.FinishMs) != job["job.end.ms"] {
					t.Errorf("%s: job %d %+v, object %v", f, i, j, job)
				}
			}
		case DetectSLSNodes(f, head):
			if _, err := ReadSLSNodes(f, bytes.NewReader(head)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		case DetectSLSSynth(f, head):
			// a SYNTH spec: distributions, not a trace
		default:
			t.Errorf("%s: not detected", f)
		}
	}
}
