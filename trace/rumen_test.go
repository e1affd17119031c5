package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// rumenFacts is what a generic encoding/json decode of a Rumen trace finds about
// one job object; a test oracle.
type rumenFacts struct {
	id                   string
	submit, finish       int64
	outcome              string
	maps, reduces        int
	failedAtt, killedAtt int
}

func scanRumen(t *testing.T, data []byte) []rumenFacts {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []rumenFacts
	num := func(v any) int64 {
		if n, ok := v.(json.Number); ok {
			i, _ := n.Int64()
			if i > 0 {
				return i
			}
		}
		return Unknown
	}
	for {
		var job map[string]any
		if err := dec.Decode(&job); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		f := rumenFacts{id: job["jobID"].(string), submit: num(job["submitTime"]), finish: num(job["finishTime"]), outcome: StatusIncomplete}
		if o, ok := job["outcome"].(string); ok {
			f.outcome = normStatus(o)
		}
		if f.outcome == StatusIncomplete {
			f.finish = Unknown
		}
		for _, list := range []string{"mapTasks", "reduceTasks", "otherTasks"} {
			tasks, _ := job[list].([]any)
			for _, x := range tasks {
				task := x.(map[string]any)
				switch task["taskType"] {
				case "MAP":
					f.maps++
				case "REDUCE":
					f.reduces++
				default:
					continue
				}
				atts, _ := task["attempts"].([]any)
				for _, a := range atts {
					switch a.(map[string]any)["result"] {
					case "FAILED":
						f.failedAtt++
					case "KILLED":
						f.killedAtt++
					}
				}
			}
		}
		out = append(out, f)
	}
	return out
}

func checkRumenAgainstScan(t *testing.T, path string) *Trace {
	data := readInput(t, path)
	want := scanRumen(t, data)
	tr, err := ReadRumen(filepath.Base(path), bytes.NewReader(data), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	if len(tr.Jobs) != len(want) {
		t.Fatalf("%d jobs, scan finds %d", len(tr.Jobs), len(want))
	}
	// the trace is sorted by (submit, id); match each scanned object to the
	// trace's job with the same id and copy number
	copies := map[string]int{}
	slices.SortStableFunc(want, func(a, b rumenFacts) int {
		if a.submit != b.submit {
			return int(a.submit - b.submit)
		}
		return strings.Compare(a.id, b.id)
	})
	for i, f := range want {
		copies[f.id]++
		id := f.id
		if n := copies[f.id]; n > 1 {
			id += "#" + string(rune('0'+n))
		}
		j := tr.Jobs[i]
		if j.ID != id || j.SubmitMs != f.submit || j.FinishMs != f.finish || j.Status != f.outcome ||
			int(j.NumMaps) != f.maps || int(j.NumReduces) != f.reduces ||
			int(j.FailedAttempts) != f.failedAtt || int(j.KilledAttempts) != f.killedAtt {
			t.Errorf("job %d:\ntrace %+v\nscan  %+v", i, j, f)
		}
	}
	return tr
}

func TestRumenMatchesJSONScan(t *testing.T) {
	for _, f := range []string{"testdata/rumen/truncated-trace-output", "testdata/rumen/wordcount2.json", "testdata/rumen/counters-test-trace.json.gz", "testdata/rumen/trace_1m.json.gz"} {
		t.Run(filepath.Base(f), func(t *testing.T) { checkRumenAgainstScan(t, f) })
	}
}

func TestRumenSharedSamples(t *testing.T) {
	t.Parallel()
	for _, f := range sharedFiles(t, "rumen") {
		if strings.Contains(f, "topology") {
			t.Run(filepath.Base(f), func(t *testing.T) {
				if _, err := ReadRumenTopology(f, bytes.NewReader(readInput(t, f))); err != nil {
					t.Fatal(err)
				}
			})
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) { checkRumenAgainstScan(t, f) })
	}
}

func TestRumenSampleFacts(t *testing.T) {
	read := func(t *testing.T, path string) (*Trace, []Diagnostic) {
		var ds []Diagnostic
		tr, err := ReadRumen(path, bytes.NewReader(readInput(t, path)), collect(&ds))
		if err != nil {
			t.Fatal(err)
		}
		return tr, ds
	}
	t.Run("truncated trace", func(t *testing.T) {
		tr, ds := read(t, "testdata/rumen/truncated-trace-output")
		// 23 tasks: 20 maps, 1 reduce, setup and cleanup
		if len(tr.Jobs) != 1 || len(tr.Tasks) != 23 {
			t.Fatalf("%d jobs %d tasks", len(tr.Jobs), len(tr.Tasks))
		}
		// m_000010 was cut short in its log: taskStatus null, finishTime -1
		m10 := taskByID(t, tr, "task_200904211745_0002_m_000010")
		if m10.Status != "" || !hasDiag(ds, "1 tasks have no end record (task_200904211745_0002_m_000010)") {
			t.Errorf("m_000010 %+v, diags %v", m10, ds)
		}
		// escaped dots are undone so that hosts match between splits and attempts
		m0 := taskByID(t, tr, "task_200904211745_0002_m_000000")
		if m0.PreferredHosts[0] != "cluster1236.secondleveldomain.com" || m0.PreferredRacks[0] != "/192.30.117.128" ||
			m0.Host != "cluster1218.secondleveldomain.com" || m0.Rack != "/192.30.117.128" || m0.Locality != RackLocal {
			t.Errorf("m_000000 %+v", m0)
		}
	})
	t.Run("duplicate job ids", func(t *testing.T) {
		tr, ds := read(t, "testdata/rumen/wordcount2.json")
		if len(tr.Jobs) != 2 || tr.Jobs[0].ID != "job_201009241532_0001" || tr.Jobs[1].ID != "job_201009241532_0001#2" {
			t.Fatalf("jobs %+v", tr.Jobs)
		}
		if got := tasksOf(tr, "job_201009241532_0001#2"); len(got) != 6 {
			t.Errorf("second copy has %d tasks, want 6 (4 and setup, cleanup)", len(got))
		}
		if !hasDiag(ds, "1 job ids occur more than once (job_201009241532_0001)") {
			t.Errorf("diagnostics %v", ds)
		}
		if j := tr.Jobs[0]; j.MapMemoryMB != 1024 || j.Queue != "default" || j.User != "johndoe" {
			t.Errorf("job %+v", j)
		}
	})
	t.Run("null hosts and escaped job name", func(t *testing.T) {
		tr, _ := read(t, "testdata/rumen/counters-test-trace.json.gz")
		if len(tr.Jobs) != 2 || !strings.HasSuffix(tr.Jobs[0].Name, "data.transform") {
			t.Fatalf("jobs %+v", tr.Jobs)
		}
		var killed int32
		for _, j := range tr.Jobs {
			killed += j.KilledAttempts
		}
		if killed != 3 {
			t.Errorf("%d killed attempts, want 3", killed)
		}
	})
}

func TestReadRumenTopology(t *testing.T) {
	m, err := ReadRumenTopology("topo", bytes.NewReader(readInput(t, "testdata/rumen/truncated-topology-output")))
	if err != nil {
		t.Fatal(err)
	}
	racks := map[string]bool{}
	for _, r := range m {
		racks[r] = true
	}
	if len(m) != 80 || len(racks) != 33 {
		t.Errorf("%d hosts on %d racks, want 80 on 33", len(m), len(racks))
	}
	if r := m["cluster50218.secondleveldomain.com"]; r != "/194.6.133.192" {
		t.Errorf("cluster50218 on %q", r)
	}
	// the topology fills the rack of rack-less attempt hosts
	deep := `{"name":"<root>","children":[{"name":"dc1","children":[{"name":"r1","children":[{"name":"h1","children":null}]}]},{"name":"h0","children":null}]}`
	m, err = ReadRumenTopology("deep", strings.NewReader(deep))
	if err != nil || len(m) != 1 || m["h1"] != "/dc1/r1" {
		t.Errorf("deep topology %v %v", m, err)
	}
	for _, bad := range []string{``, `[]`, `{"name":"<root>","children":[]}`, strings.Repeat(`{"name":"x","children":[`, 70) + `{"name":"h"}` + strings.Repeat(`]}`, 70)} {
		if _, err := ReadRumenTopology("bad", strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %.40q", bad)
		}
	}
}

func TestRumenBadInput(t *testing.T) {
	tests := []struct{ name, in, err, diag string }{
		{"not json", `Meta VERSION="1" .`, "not a Rumen JSON trace", ""},
		{"empty", ``, "no job objects", ""},
		{"no job id", `{"user":"u"}`, "no job objects", ""},
		{"wrong type then good", `{"jobID":"job_1_1","submitTime":"soon"} {"jobID":"job_1_2","submitTime":5,"outcome":"SUCCESS"}`, "", "field submitTime"},
		{"syntax error after a job", `{"jobID":"job_1_2","submitTime":5,"outcome":"SUCCESS"} {"jobID": x}`, "", "JSON syntax error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ds []Diagnostic
			tr, err := ReadRumen("r.json", strings.NewReader(tc.in), collect(&ds))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || len(tr.Jobs) != 1 || !hasDiag(ds, tc.diag) {
				t.Errorf("err %v jobs %d diags %v", err, len(tr.Jobs), ds)
			}
			if _, err := ReadRumen("r.json", strings.NewReader(tc.in), HistoryOptions{Strict: true}); err == nil {
				t.Error("strict read accepted the damaged object")
			}
		})
	}
}

// TestRumenMapInputBytes: a map attempt whose HDFS_BYTES_READ counter is absent
// (hdfsBytesRead -1: Hadoop leaves out a counter never incremented) takes its
// input from MAP_INPUT_BYTES (mapInputBytes), what its record reader read:
// folder-input-trace's job 10005 records 0 for each of its 200 maps. HDFS
// bytes come first when both are known; neither leaves the input unknown.
func TestRumenMapInputBytes(t *testing.T) {
	att := func(n int, hdfs, in int64) string {
		return fmt.Sprintf(`{"attemptID":"attempt_1_0001_m_00000%d_0","result":"SUCCESS","startTime":1000,"finishTime":3000,"hostName":"/r1/h1","hdfsBytesRead":%d,"mapInputBytes":%d}`, n, hdfs, in)
	}
	task := func(n int, a string) string {
		return fmt.Sprintf(`{"taskID":"task_1_0001_m_00000%d","taskType":"MAP","startTime":1000,"finishTime":3000,"taskStatus":"SUCCESS","inputBytes":-1,"attempts":[%s]}`, n, a)
	}
	in := `{"jobID":"job_1_0001","submitTime":500,"launchTime":600,"finishTime":4000,"outcome":"SUCCESS","totalMaps":3,"totalReduces":0,"mapTasks":[` +
		task(0, att(0, -1, 0)) + "," + task(1, att(1, 5, 7)) + "," + task(2, att(2, -1, -1)) + `]}`
	tr, err := ReadRumen("r.json", strings.NewReader(in), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, k := range tr.Tasks {
		if k.Type == Map {
			got = append(got, k.InputBytes)
		}
	}
	if want := []int64{0, 5, Unknown}; !slices.Equal(got, want) {
		t.Errorf("map input bytes %v, want %v", got, want)
	}
	var c counters = newCounters()
	c.set("org.apache.hadoop.mapred.Task$Counter", "MAP_INPUT_BYTES", 9)
	if c.mapInputBytes != 9 {
		t.Errorf("Hadoop 1 history counter MAP_INPUT_BYTES: %d, want 9", c.mapInputBytes)
	}
}

// TestReadRumenTopologyNumericHosts reads Mumak's topology whose hosts are
// named by IP address (testdata/rumen/topo-with-numeric-ips.json): numeric
// host names are hosts like any other, their escaped dots undone.
func TestReadRumenTopologyNumericHosts(t *testing.T) {
	m, err := ReadRumenTopology("topo", bytes.NewReader(readInput(t, "testdata/rumen/topo-with-numeric-ips.json")))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"node1817.megatron.com": "/194.6.129.64", "194.6.129.67": "/194.6.129.64",
		"192.30.63.69": "/192.30.63.64", "192.30.63.81": "/192.30.63.64",
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("topology %v, want %v", m, want)
	}
}
