package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// jhistToBinary re-encodes an Avro-Json .jhist file as Avro-Binary with the
// schema the file carries, the way Hadoop 3's EventWriter writes it: header,
// schema line, then the datums back to back.
func jhistToBinary(t testing.TB, jsonFile []byte) []byte {
	t.Helper()
	header, rest, _ := bytes.Cut(jsonFile, []byte("\n"))
	if string(header) != jhistJSONHeader {
		t.Fatalf("not an Avro-Json file: %q", header)
	}
	schema, body, _ := bytes.Cut(rest, []byte("\n"))
	codec, err := goavro.NewCodec(string(schema))
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(jhistBinaryHeader+"\n"), schema...)
	out = append(out, '\n')
	for {
		body = bytes.TrimLeft(body, " \t\r\n")
		if len(body) == 0 {
			return out
		}
		var native any
		native, body, err = codec.NativeFromTextual(body)
		if err != nil {
			t.Fatal(err)
		}
		if out, err = codec.BinaryFromNative(out, native); err != nil {
			t.Fatal(err)
		}
	}
}

// jhistFacts is what an independent plain-JSON scan of a .jhist file finds.
type jhistFacts struct {
	jobID                   string
	submit, launch, finish  int64
	status                  string
	maps, reduces           int
	failedAtt, killedAtt    int
	successfulAttemptHosts  map[string]string // task id → hostname of its *_ATTEMPT_FINISHED
	successfulAttemptStarts map[string]int64
}

// scanJhist reads an Avro-Json .jhist with encoding/json only, as a test oracle.
func scanJhist(t *testing.T, data []byte) jhistFacts {
	t.Helper()
	lines := bytes.SplitN(data, []byte("\n"), 3)
	dec := json.NewDecoder(bytes.NewReader(lines[2]))
	dec.UseNumber()
	f := jhistFacts{submit: -1, launch: -1, finish: -1, status: StatusIncomplete,
		successfulAttemptHosts: map[string]string{}, successfulAttemptStarts: map[string]int64{}}
	kinds := map[string]string{}
	starts := map[string]int64{}
	num := func(m map[string]any, k string) int64 {
		n, _ := m[k].(json.Number).Int64()
		return n
	}
	for {
		var ev struct {
			Type  string                    `json:"type"`
			Event map[string]map[string]any `json:"event"`
		}
		if err := dec.Decode(&ev); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		var rec map[string]any
		for _, r := range ev.Event {
			rec = r
		}
		str := func(k string) string {
			switch v := rec[k].(type) {
			case string:
				return v
			case map[string]any:
				s, _ := v["string"].(string)
				return s
			}
			return ""
		}
		if id := str("taskid"); id != "" {
			if tt := str("taskType"); tt == "MAP" || tt == "REDUCE" {
				kinds[id] = tt
			}
		}
		switch ev.Type {
		case "JOB_SUBMITTED":
			f.jobID, f.submit = str("jobid"), num(rec, "submitTime")
		case "JOB_INITED":
			f.launch = num(rec, "launchTime")
		case "JOB_FINISHED":
			f.finish, f.status = num(rec, "finishTime"), StatusSucceeded
		case "JOB_FAILED", "JOB_KILLED", "JOB_ERROR":
			f.finish, f.status = num(rec, "finishTime"), strings.TrimPrefix(ev.Type, "JOB_")
		case "MAP_ATTEMPT_STARTED", "REDUCE_ATTEMPT_STARTED":
			starts[str("attemptId")] = num(rec, "startTime")
		case "MAP_ATTEMPT_FAILED", "REDUCE_ATTEMPT_FAILED":
			f.failedAtt++
		case "MAP_ATTEMPT_KILLED", "REDUCE_ATTEMPT_KILLED":
			f.killedAtt++
		case "MAP_ATTEMPT_FINISHED", "REDUCE_ATTEMPT_FINISHED":
			f.successfulAttemptHosts[str("taskid")] = str("hostname")
			f.successfulAttemptStarts[str("taskid")] = starts[str("attemptId")]
		}
	}
	for _, k := range kinds {
		if k == "MAP" {
			f.maps++
		} else {
			f.reduces++
		}
	}
	return f
}

// jhistFiles lists the .jhist files of testdata and, when present, of
// ../shared/traces/jhist.
func jhistFiles(t *testing.T) []string {
	files, err := filepath.Glob("testdata/jhist/*.jhist")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata .jhist files: %v", err)
	}
	return files
}

// checkJhistAgainstScan reads one file both ways (Avro-Json and the Avro-Binary
// re-encoding) and compares with the plain-JSON scan.
func checkJhistAgainstScan(t *testing.T, path string) {
	data := readInput(t, path)
	want := scanJhist(t, data)
	name := filepath.Base(path)
	tr, err := ReadJhist(name, bytes.NewReader(data), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	if len(tr.Jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(tr.Jobs))
	}
	j := tr.Jobs[0]
	got := fmt.Sprintf("%s submit=%d launch=%d finish=%d %s maps=%d reduces=%d failed=%d killed=%d",
		j.ID, j.SubmitMs, j.LaunchMs, j.FinishMs, j.Status, j.NumMaps, j.NumReduces, j.FailedAttempts, j.KilledAttempts)
	exp := fmt.Sprintf("%s submit=%d launch=%d finish=%d %s maps=%d reduces=%d failed=%d killed=%d",
		want.jobID, want.submit, want.launch, want.finish, want.status, want.maps, want.reduces, want.failedAtt, want.killedAtt)
	if got != exp {
		t.Errorf("trace:   %s\nscanned: %s", got, exp)
	}
	for id, host := range want.successfulAttemptHosts {
		k := taskByID(t, tr, id)
		if k.Host != host || k.Status != StatusSucceeded || k.StartMs != want.successfulAttemptStarts[id] {
			t.Errorf("task %s: host %q status %q start %d; want %q SUCCEEDED %d", id, k.Host, k.Status, k.StartMs,
				host, want.successfulAttemptStarts[id])
		}
	}
	bin, err := ReadJhist(name, bytes.NewReader(jhistToBinary(t, data)), HistoryOptions{})
	if err != nil {
		t.Fatalf("Avro-Binary: %v", err)
	}
	if !reflect.DeepEqual(tr, bin) {
		t.Errorf("Avro-Binary trace differs from Avro-Json trace:\njson:   %+v\nbinary: %+v", tr.Jobs, bin.Jobs)
	}
}

func TestJhistMatchesPlainJSONScanAndBinary(t *testing.T) {
	for _, f := range jhistFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) { checkJhistAgainstScan(t, f) })
	}
}

func TestJhistSharedSamples(t *testing.T) {
	for _, f := range sharedFiles(t, "jhist") {
		if !strings.HasSuffix(f, ".jhist") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) { checkJhistAgainstScan(t, f) })
	}
}

// TestJhistSampleFacts checks the facts the sample list (traces/README.md) and
// FORMATS.md §2 state about each file.
func TestJhistSampleFacts(t *testing.T) {
	read := func(t *testing.T, file string) (*Trace, []Diagnostic) {
		var ds []Diagnostic
		tr, err := ReadJhist(file, bytes.NewReader(readInput(t, "testdata/jhist/"+file)), collect(&ds))
		if err != nil {
			t.Fatal(err)
		}
		return tr, ds
	}
	t.Run("0.23.9 failed job", func(t *testing.T) {
		tr, _ := read(t, "job_0.23.9-FAILED.jhist")
		j := tr.Jobs[0]
		if j.ID != "job_1399356417814_19732" || j.User != "rushabhs" || j.Queue != "unfunded" || j.Name != "Fail job" {
			t.Errorf("job %+v", j)
		}
		if j.Status != StatusFailed || j.FailedAttempts != 7 || j.KilledAttempts != 1 {
			t.Errorf("status %s failed %d killed %d, want FAILED 7 1", j.Status, j.FailedAttempts, j.KilledAttempts)
		}
		m0 := taskByID(t, tr, "task_1399356417814_19732_m_000000")
		m1 := taskByID(t, tr, "task_1399356417814_19732_m_000001")
		r0 := taskByID(t, tr, "task_1399356417814_19732_r_000000")
		if m0.Status != StatusKilled || m0.FailedAttempts != 3 || m0.KilledAttempts != 1 {
			t.Errorf("m_000000 %s %d/%d, want KILLED 3 failed 1 killed", m0.Status, m0.FailedAttempts, m0.KilledAttempts)
		}
		if m1.Status != StatusFailed || m1.FailedAttempts != 4 {
			t.Errorf("m_000001 %s %d failed, want FAILED 4", m1.Status, m1.FailedAttempts)
		}
		// attempt _3 of m_000001 ran 1400251495850..1400251500177
		if m1.StartMs != 1400251495850 || m1.FinishMs != 1400251500177 {
			t.Errorf("m_000001 keeps the last attempt's times, got %d..%d", m1.StartMs, m1.FinishMs)
		}
		if r0.Status != StatusKilled || r0.Host != "" || r0.FailedAttempts+r0.KilledAttempts != 0 {
			t.Errorf("reduce %+v", r0)
		}
		if len(m0.PreferredHosts) != 1 || m0.PreferredHosts[0] != "localhost" || m0.PreferredRacks[0] != "/default-rack" {
			t.Errorf("splits localhost,localhost,localhost → %v %v", m0.PreferredHosts, m0.PreferredRacks)
		}
	})
	t.Run("Sleep job keeps both reduces", func(t *testing.T) {
		tr, ds := read(t, "job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist")
		j := tr.Jobs[0]
		if j.NumMaps != 10 || j.NumReduces != 2 || j.Status != StatusSucceeded || j.Queue != "default" {
			t.Errorf("job %+v", j)
		}
		if !hasDiag(ds, "declares 1 reduces but has 2") {
			t.Errorf("disagreement not reported: %v", ds)
		}
		r1 := taskByID(t, tr, "task_1329348432655_0001_r_000001")
		if r1.ShuffleFinishMs <= 0 || r1.SortFinishMs < r1.ShuffleFinishMs || r1.FinishMs < r1.SortFinishMs {
			t.Errorf("reduce phases %d %d %d", r1.ShuffleFinishMs, r1.SortFinishMs, r1.FinishMs)
		}
	})
	t.Run("TeraGen map-only", func(t *testing.T) {
		tr, ds := read(t, "job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist")
		j := tr.Jobs[0]
		if j.NumMaps != 2 || j.NumReduces != 0 || j.User != "root" || j.Queue != "default" || j.ShuffleBytes != 0 {
			t.Errorf("job %+v", j)
		}
		for _, k := range tr.Tasks {
			if k.Locality != OffSwitch || k.Host != "mfs137.qa.lab" || k.Rack != "/default-rack" {
				t.Errorf("task %+v", k)
			}
		}
		// a map-only job's output is what its maps wrote to HDFS
		if j.OutputBytes <= 0 || j.OutputBytes != tr.Tasks[0].OutputBytes+tr.Tasks[1].OutputBytes {
			t.Errorf("output bytes %d, tasks %d + %d", j.OutputBytes, tr.Tasks[0].OutputBytes, tr.Tasks[1].OutputBytes)
		}
		if len(ds) != 0 {
			t.Errorf("unexpected diagnostics %v", ds)
		}
	})
	t.Run("2.4.0 tasks killed without attempts", func(t *testing.T) {
		tr, _ := read(t, "job_2.4.0-FAILED.jhist")
		j := tr.Jobs[0]
		if j.Status != StatusFailed || j.Queue != "unfunded" || j.FailedAttempts != 4 {
			t.Errorf("job %+v", j)
		}
		for _, id := range []string{"task_1400204860297_0001_m_000001", "task_1400204860297_0001_r_000000"} {
			k := taskByID(t, tr, id)
			if k.Status != StatusKilled || k.Host != "" || k.FailedAttempts != 0 || k.KilledAttempts != 0 {
				t.Errorf("%s: %+v", id, k)
			}
		}
	})
	t.Run("dr-elephant QuasiMonteCarlo", func(t *testing.T) {
		tr, _ := read(t, "job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist")
		m := taskByID(t, tr, "task_1526555215992_0001_m_000000")
		r := taskByID(t, tr, "task_1526555215992_0001_r_000000")
		if m.Locality != NodeLocal || m.Host != "172.23.244.182" || m.PreferredHosts[0] != "172.23.244.182" || m.PreferredRacks[0] != "/default-rack" {
			t.Errorf("map %+v", m)
		}
		if r.ShuffleFinishMs != 1526555658031 || r.SortFinishMs != 1526555658048 || r.FinishMs != 1526555658260 || r.Locality != "" {
			t.Errorf("reduce %+v", r)
		}
		if r.ShuffleBytes <= 0 || m.OutputBytes <= 0 || m.InputBytes <= 0 {
			t.Errorf("bytes: map in %d out %d, reduce shuffle %d", m.InputBytes, m.OutputBytes, r.ShuffleBytes)
		}
	})
}

// TestJhistTruncatedIsIncomplete cuts a real history after its first attempt
// start: the job is kept, as incomplete, with what the events say.
func TestJhistTruncatedIsIncomplete(t *testing.T) {
	data := readInput(t, "testdata/jhist/job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist")
	i := bytes.Index(data, []byte(`{"type":"MAP_ATTEMPT_FINISHED"`))
	var ds []Diagnostic
	tr, err := ReadJhist("job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist",
		bytes.NewReader(data[:i]), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	j := tr.Jobs[0]
	if j.Status != StatusIncomplete || j.FinishMs != Unknown || j.SubmitMs != 1416424775281 || j.NumMaps != 2 {
		t.Errorf("job %+v", j)
	}
	if !hasDiag(ds, "no job-end record") || !hasDiag(ds, "file name says SUCCEEDED") {
		t.Errorf("diagnostics %v", ds)
	}
	for _, k := range tr.Tasks {
		if k.Status != "" {
			t.Errorf("task %s status %q, want empty", k.TaskID, k.Status)
		}
	}
}

func TestJhistBadInput(t *testing.T) {
	good := readInput(t, "testdata/jhist/job_2.4.0-FAILED.jhist")
	header, rest, _ := bytes.Cut(good, []byte("\n"))
	schema, events, _ := bytes.Cut(rest, []byte("\n"))
	join := func(parts ...string) []byte { return []byte(strings.Join(parts, "\n")) }
	tests := []struct {
		name, input string
		want        string // in the error
	}{
		{"empty", "", "first line"},
		{"wrong header", "Avro-Jsonx\n{}\n", "first line is \"Avro-Jsonx\""},
		{"header only", "Avro-Json\n", "schema"},
		{"schema not json", "Avro-Json\n{nope\n", ":2: bad Avro schema"},
		{"schema not Event", "Avro-Json\n\"string\"\n", "not a JobHistory Event record"},
		{"recursive schema", `Avro-Json` + "\n" + `{"type":"record","name":"Event","fields":[{"name":"type","type":"string"},{"name":"event","type":["null","Event"]}]}` + "\n", "recursive"},
		{"no events", string(join(string(header), string(schema), "")), "no job events"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJhist("x.jhist", strings.NewReader(tc.input), HistoryOptions{})
			var ie *ParseError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x.jhist") {
				t.Errorf("error %v, want a ParseError naming x.jhist and %q", err, tc.want)
			}
		})
	}
	t.Run("damaged event skipped, strict fails", func(t *testing.T) {
		lines := bytes.Split(events, []byte("\n"))
		// line 7 of the file (5th event line) loses its closing braces
		n := 0
		for i, l := range lines {
			if len(bytes.TrimSpace(l)) > 0 {
				n++
				if n == 3 {
					lines[i] = l[:len(l)/2]
					break
				}
			}
		}
		bad := join(string(header), string(schema), string(bytes.Join(lines, []byte("\n"))))
		var ds []Diagnostic
		tr, err := ReadJhist("x.jhist", bytes.NewReader(bad), collect(&ds))
		if err != nil || len(tr.Jobs) != 1 || len(ds) == 0 || !strings.Contains(ds[0].String(), "x.jhist:") ||
			!strings.Contains(ds[0].Msg, "does not decode") {
			t.Fatalf("err %v diags %v", err, ds)
		}
		_, err = ReadJhist("x.jhist", bytes.NewReader(bad), HistoryOptions{Strict: true})
		if err == nil || err.Error() != ds[0].String() {
			t.Errorf("strict: %v, want %q", err, ds[0].String())
		}
	})
}

// TestJhistBinaryHostileCounts feeds Avro-Binary datums whose array and string
// lengths claim far more than the file holds: they must fail fast, not allocate.
func TestJhistBinaryHostileCounts(t *testing.T) {
	schema := `{"type":"record","name":"Event","namespace":"x","fields":[{"name":"type","type":{"type":"enum","name":"EventType","symbols":["A"]}},{"name":"event","type":[{"type":"record","name":"R","fields":[{"name":"jobid","type":"string"},{"name":"xs","type":{"type":"array","items":"long"}}]}]}]}`
	zig := func(v int64) []byte {
		u := uint64(v<<1) ^ uint64(v>>63)
		var b []byte
		for u >= 0x80 {
			b = append(b, byte(u)|0x80)
			u >>= 7
		}
		return append(b, byte(u))
	}
	rec := func(parts ...[]byte) string { return string(bytes.Join(parts, nil)) }
	tests := []struct{ name, datum, want string }{
		{"huge array count", rec(zig(0), zig(0), zig(1), []byte("j"), zig(1<<31-1)), "cannot fit"},
		{"negative block huge size", rec(zig(0), zig(0), zig(1), []byte("j"), zig(-5), zig(1<<40)), "block size"},
		{"huge string", rec(zig(0), zig(0), zig(1<<40)), "string length"},
		{"bad union branch", rec(zig(0), zig(3)), "union branch 3"},
		{"bad enum", rec(zig(9)), "enum index 9"},
		{"long varint", rec(bytes.Repeat([]byte{0xff}, 12)), "varint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := jhistBinaryHeader + "\n" + schema + "\n" + tc.datum
			_, err := ReadJhist("h.jhist", strings.NewReader(in), HistoryOptions{Strict: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseAvroSchema(t *testing.T) {
	tests := []struct {
		name, schema, err string
		minSize           int
	}{
		{"primitive", `"long"`, "", 1},
		{"record", `{"type":"record","name":"R","fields":[{"name":"a","type":"double"},{"name":"b","type":"null"}]}`, "", 8},
		{"named reference", `{"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":{"type":"enum","name":"E","symbols":["X"]}},{"name":"b","type":"E"},{"name":"c","type":"n.E"}]}`, "", 3},
		{"type wrapper", `{"type":{"type":"array","items":"string"}}`, "", 1},
		{"undefined", `{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}`, "undefined type", 0},
		{"recursive", `{"type":"record","name":"R","fields":[{"name":"a","type":"R"}]}`, "recursive", 0},
		{"duplicate", `["null",{"type":"enum","name":"E","symbols":["A"]},{"type":"enum","name":"E","symbols":["B"]}]`, "twice", 0},
		{"empty union", `[]`, "empty union", 0},
		{"deep", strings.Repeat(`{"type":"array","items":`, 40) + `"int"` + strings.Repeat(`}`, 40), "deeper", 0},
		{"bad fixed", `{"type":"fixed","name":"F","size":-1}`, "bad size", 0},
		{"no symbols", `{"type":"enum","name":"E","symbols":[]}`, "no symbols", 0},
		{"array of null", `{"type":"array","items":"null"}`, "occupies no bytes", 0},
		{"array of empty record", `{"type":"array","items":{"type":"record","name":"R","fields":[]}}`, "occupies no bytes", 0},
		{"map of null", `{"type":"map","values":"null"}`, "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := parseAvroSchema([]byte(tc.schema))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n.minSize != tc.minSize {
				t.Errorf("minSize %d, want %d", n.minSize, tc.minSize)
			}
		})
	}
}

func TestParseJhistName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
		want jhistName
	}{
		{"job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist", true,
			jhistName{"job_1416424547277_0002", 1416424775281, 1416424785433, "SUCCEEDED"}},
		{"dir/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist.gz", true,
			jhistName{"job_1329348432655_0001", 1329348443227, 1329348468601, "SUCCEEDED"}},
		{"job_1_2-3-a%2Db-n%2Fx-4-1-1-KILLED-root.q.jhist", true, jhistName{"job_1_2", 3, 4, "KILLED"}},
		{"job_2.4.0-FAILED.jhist", false, jhistName{}},
		{"job_1_2-x-u-n-4-1-1-FAILED-q.jhist", false, jhistName{}},
		{"job_1_2_conf.xml", false, jhistName{}},
	}
	for _, tc := range tests {
		got, ok := parseJhistName(tc.name)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
