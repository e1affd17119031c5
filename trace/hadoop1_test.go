package trace

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// h1Facts is what a line-by-line regular-expression scan of a Hadoop 1 history
// finds about one job; a test oracle independent of the reader.
type h1Facts struct {
	submit, finish        int64
	status                string
	maps, reduces         map[string]bool
	failedAtt, killedAtt  int
	successfulAttemptHost map[string]string
}

var (
	reJobSubmit = regexp.MustCompile(`^Job JOBID="(job_\d+_\d+)" .*SUBMIT_TIME="(\d+)"`)
	reJobFinish = regexp.MustCompile(`^Job JOBID="(job_\d+_\d+)" FINISH_TIME="(\d+)" JOB_STATUS="(\w+)"`)
	reTask      = regexp.MustCompile(`^Task TASKID="task_(\d+_\d+)_[mr]_\d+" TASK_TYPE="(MAP|REDUCE)"`)
	reTaskID    = regexp.MustCompile(`^Task TASKID="([^"]+)"`)
	reAttEnd    = regexp.MustCompile(`^(?:Map|Reduce)Attempt TASK_TYPE="(MAP|REDUCE)" TASKID="task_(\d+_\d+)_[^"]+" .*TASK_STATUS="(\w+)"`)
	reAttOK     = regexp.MustCompile(`^(?:Map|Reduce)Attempt TASK_TYPE="(?:MAP|REDUCE)" TASKID="([^"]+)" .*TASK_STATUS="SUCCESS" .*HOSTNAME="/[^"]*/([^"/]+)"`)
)

func scanHadoop1(data []byte) map[string]*h1Facts {
	jobs := map[string]*h1Facts{}
	job := func(id string) *h1Facts {
		if jobs[id] == nil {
			jobs[id] = &h1Facts{status: StatusIncomplete, maps: map[string]bool{}, reduces: map[string]bool{},
				successfulAttemptHost: map[string]string{}}
		}
		return jobs[id]
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m := reJobSubmit.FindStringSubmatch(line); m != nil {
			job(m[1]).submit, _ = strconv.ParseInt(m[2], 10, 64)
		}
		if m := reJobFinish.FindStringSubmatch(line); m != nil {
			f := job(m[1])
			f.finish, _ = strconv.ParseInt(m[2], 10, 64)
			f.status = normStatus(m[3])
		}
		if m := reTask.FindStringSubmatch(line); m != nil {
			id := reTaskID.FindStringSubmatch(line)[1]
			if m[2] == "MAP" {
				job("job_" + m[1]).maps[id] = true
			} else {
				job("job_" + m[1]).reduces[id] = true
			}
		}
		if m := reAttEnd.FindStringSubmatch(line); m != nil {
			switch m[3] {
			case "FAILED":
				job("job_"+m[2]).failedAtt++
			case "KILLED":
				job("job_"+m[2]).killedAtt++
			}
		}
		if m := reAttOK.FindStringSubmatch(line); m != nil {
			id := strings.ReplaceAll(m[1], `\.`, ".")
			job(jobIDFromTask(id)).successfulAttemptHost[id] = strings.ReplaceAll(m[2], `\.`, ".")
		}
	}
	return jobs
}

func checkHadoop1AgainstScan(t *testing.T, path string) *Trace {
	data := readInput(t, path)
	want := scanHadoop1(data)
	tr, err := ReadHadoop1(filepath.Base(path), bytes.NewReader(data), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	if len(tr.Jobs) != len(want) {
		t.Errorf("%d jobs, scan finds %d", len(tr.Jobs), len(want))
	}
	for _, j := range tr.Jobs {
		f := want[j.ID]
		if f == nil {
			t.Errorf("job %s not found by the scan", j.ID)
			continue
		}
		got := fmt.Sprintf("submit=%d finish=%d %s maps=%d reduces=%d failed=%d killed=%d",
			j.SubmitMs, j.FinishMs, j.Status, j.NumMaps, j.NumReduces, j.FailedAttempts, j.KilledAttempts)
		exp := fmt.Sprintf("submit=%d finish=%d %s maps=%d reduces=%d failed=%d killed=%d",
			f.submit, f.finish, f.status, len(f.maps), len(f.reduces), f.failedAtt, f.killedAtt)
		if got != exp {
			t.Errorf("%s\ntrace:   %s\nscanned: %s", j.ID, got, exp)
		}
		for id, host := range f.successfulAttemptHost {
			if k := taskByID(t, tr, id); k.Host != host || k.Rack == "" {
				t.Errorf("task %s on %q rack %q, want %q", id, k.Host, k.Rack, host)
			}
		}
	}
	return tr
}

func TestHadoop1MatchesLineScan(t *testing.T) {
	all, _ := filepath.Glob("testdata/hadoop1/*")
	var files []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".xml") { // histories, gzipped or not; not the job confs
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { checkHadoop1AgainstScan(t, f) })
	}
}

func TestHadoop1SharedSamples(t *testing.T) {
	for _, f := range sharedFiles(t, "hadoop1") {
		if strings.HasSuffix(f, ".xml") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) { checkHadoop1AgainstScan(t, f) })
	}
}

// TestHadoop1SampleFacts checks what traces/README.md and FORMATS.md §3 state
// about the samples.
func TestHadoop1SampleFacts(t *testing.T) {
	t.Run("v20 single input log", func(t *testing.T) {
		tr, err := ReadHadoop1("v20", bytes.NewReader(readInput(t, "testdata/hadoop1/v20-single-input-log.gz")), HistoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		j := tr.Jobs[0]
		if j.ID != "job_200904211745_0002" || j.Name != "word count" || j.User != "hadoopqa" || j.NumMaps != 20 || j.NumReduces != 1 {
			t.Errorf("job %+v", j)
		}
		// the FAILED attempt's record spans several lines (multi-line ERROR)
		m2 := taskByID(t, tr, "task_200904211745_0002_m_000002")
		if m2.FailedAttempts != 1 || m2.WastedMs != 1240336777673-1240336754665 {
			t.Errorf("m_000002: %d failed, %d ms wasted", m2.FailedAttempts, m2.WastedMs)
		}
		// SPLITS carry racks: /192\.30\.126\.128/cluster1369\.secondleveldomain\.com,…
		m10 := taskByID(t, tr, "task_200904211745_0002_m_000010")
		if m10.PreferredHosts[0] != "cluster1369.secondleveldomain.com" || m10.PreferredRacks[0] != "/192.30.126.128" {
			t.Errorf("splits %v %v", m10.PreferredHosts, m10.PreferredRacks)
		}
		r := taskByID(t, tr, "task_200904211745_0002_r_000000")
		if r.ShuffleBytes <= 0 || r.ShuffleFinishMs <= r.StartMs || r.SortFinishMs < r.ShuffleFinishMs {
			t.Errorf("reduce %+v", r)
		}
	})
	t.Run("counters format", func(t *testing.T) {
		tr, err := ReadHadoop1("c", bytes.NewReader(readInput(t,
			"testdata/hadoop1/megacluster.megacorp.com_1265616107882_job_201002080801_40864_job_name-DAILY%2F20100210%5D.gz")), HistoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		j := tr.Jobs[0]
		if j.Name != "[DOTS-PROD-job_name-DAILY/20100210] - data.transform" || j.User != "geek1" || j.KilledAttempts != 2 {
			t.Errorf("job %+v", j)
		}
		// r_000000 COUNTERS: …[(REDUCE_SHUFFLE_BYTES)(Reduce shuffle bytes)(219)]…
		if r := taskByID(t, tr, "task_201002080801_40864_r_000000"); r.ShuffleBytes != 219 || r.OutputBytes != 335 {
			t.Errorf("r_000000 shuffle %d output %d, want 219 335", r.ShuffleBytes, r.OutputBytes)
		}
		if m := taskByID(t, tr, "task_201002080801_40864_m_000000"); m.InputBytes != 1377 || m.OutputBytes != 1113 {
			t.Errorf("m_000000 input %d output %d, want 1377 1113", m.InputBytes, m.OutputBytes)
		}
	})
	t.Run("bundle", func(t *testing.T) {
		files := sharedFiles(t, "hadoop1")
		i := slices.IndexFunc(files, func(f string) bool { return strings.HasSuffix(f, "sample-job-tracker-logs.gz") })
		if i < 0 {
			t.Skip("bundle not present")
		}
		tr, err := ReadHadoop1("bundle", bytes.NewReader(readInput(t, files[i])), HistoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var maps, reduces int32
		for _, j := range tr.Jobs {
			maps += j.NumMaps
			reduces += j.NumReduces
		}
		// 210 tasks: 154 MAP, 49 REDUCE, 3 SETUP, 4 CLEANUP; job 0001 only a cleanup task
		if len(tr.Jobs) != 4 || maps != 154 || reduces != 49 || tr.Jobs[0].Status != StatusKilled || tr.Jobs[0].NumMaps != 0 {
			t.Errorf("%d jobs, %d maps, %d reduces, first %+v", len(tr.Jobs), maps, reduces, tr.Jobs[0])
		}
		if j := tr.Jobs[3]; j.ID != "job_200904211745_0004" || j.NumMaps != 131 || j.NumReduces != 47 {
			t.Errorf("job 0004 %+v", j)
		}
	})
}

func TestParseH1Record(t *testing.T) {
	tests := []struct {
		name, in string
		escaped  bool
		typ      string
		pairs    []h1Pair
		junk     string
	}{
		{"meta", `Meta VERSION="1" .`, true, "Meta", []h1Pair{{"VERSION", "1"}}, ""},
		{"escapes", `Job JOBNAME="a\.b\=c\\d\"e" USER="u" .`, true, "Job", []h1Pair{{"JOBNAME", `a.b=c\d"e`}, {"USER", "u"}}, ""},
		{"empty value", `MapAttempt HTTP_PORT="" ERROR="" .`, true, "MapAttempt", []h1Pair{{"HTTP_PORT", ""}, {"ERROR", ""}}, ""},
		{"multi-line value", "MapAttempt ERROR=\"x\\.\n\tat y\\.z\n\" .", true, "MapAttempt", []h1Pair{{"ERROR", "x.\n\tat y.z\n"}}, ""},
		{"cut key", `Task TASKID="task_200904211745_0002_m_000010" TASK_TY .`, true, "Task",
			[]h1Pair{{"TASKID", "task_200904211745_0002_m_000010"}}, "TASK_TY"},
		{"unterminated value", `Task TASKID="t" ERROR="abc .`, true, "Task", []h1Pair{{"TASKID", "t"}}, `ERROR="abc`},
		{"version 0 unescaped", `Job JOBID="job_1_1" JOBNAME="a.b\c"`, false, "Job", []h1Pair{{"JOBID", "job_1_1"}, {"JOBNAME", `a.b\c`}}, ""},
		{"unknown key kept", `Job FOO_BAR="1" .`, true, "Job", []h1Pair{{"FOO_BAR", "1"}}, ""},
		{"no pairs", `Jobtracker .`, true, "Jobtracker", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, junk := parseH1Record(tc.in, tc.escaped)
			if r.typ != tc.typ || !reflect.DeepEqual(r.pairs, tc.pairs) || junk != tc.junk {
				t.Errorf("got %q %q junk %q, want %q %q junk %q", r.typ, r.pairs, junk, tc.typ, tc.pairs, tc.junk)
			}
		})
	}
}

func TestRecordComplete(t *testing.T) {
	tests := []struct {
		line    string
		version int
		want    bool
	}{
		{`Meta VERSION="1" .`, 1, true},
		{`Job JOBID="x" .  `, 1, true},
		{`java\.io\.IOException: Task process exit with nonzero status of 15\.`, 1, false},
		{`	at org\.apache\.hadoop\.mapred\.TaskRunner\.run(TaskRunner\.java:424)`, 1, false},
		{`" .`, 1, true},
		{`Job JOBID="x" JOBNAME="y"`, 0, true},
		{`Job JOBID="x" ERROR="a`, 0, false},
		{`Job ERROR="a\"`, 0, false},
	}
	for _, tc := range tests {
		if got := recordComplete(tc.line, tc.version); got != tc.want {
			t.Errorf("%q (v%d): %v, want %v", tc.line, tc.version, got, tc.want)
		}
	}
}

func TestParseCompactCounters(t *testing.T) {
	tests := []struct {
		name, in string
		want     counters
		err      string
	}{
		{"escaped form", `{(FileSystemCounters)(FileSystemCounters)[(HDFS_BYTES_READ)(HDFS_BYTES_READ)(53639)][(FILE_BYTES_WRITTEN)(FILE_BYTES_WRITTEN)(37170)]}{(org.apache.hadoop.mapred.Task$Counter)(Map-Reduce Framework)[(REDUCE_SHUFFLE_BYTES)(Reduce shuffle bytes)(219)]}`,
			counters{53639, Unknown, 37170, Unknown, Unknown, 219, Unknown}, ""},
		{"escaped parentheses and brackets", `{(JobInProgress$Counter)(Job Counters )[(FALLOW)(waiting after reserving slots \(ms\))(5)]}{(g)(g)[(SortFilter-#1\[id\]:Modified)(x)(1)]}{(FileSystemCounters)(f)[(HDFS_BYTES_WRITTEN)(h)(7)]}`,
			counters{Unknown, 7, Unknown, Unknown, Unknown, Unknown, Unknown}, ""},
		{"empty group", `{(FileSystemCounters)(FileSystemCounters)}`, newCounters(), ""},
		{"empty", ``, newCounters(), ""},
		{"version 0", `File Systems.HDFS bytes read:100,File Systems.Local bytes written:20,Map-Reduce Framework.Map output bytes:30,Job Counters .Launched map tasks:2`,
			counters{100, Unknown, 20, Unknown, 30, Unknown, Unknown}, ""},
		{"bad value", `{(FileSystemCounters)(f)[(HDFS_BYTES_READ)(h)(12x)]}`, newCounters(), "not an integer"},
		{"unterminated", `{(FileSystemCounters)(f)[(HDFS_BYTES_READ)(h)(12`, newCounters(), "unterminated"},
		{"missing brace", `{(a)(b)[(c)(d)(1)]`, newCounters(), "expected '}'"},
		{"version 0 garbage", `nonsense`, newCounters(), "Group.Counter:value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCounters()
			err := parseCompactCounters(tc.in, &c)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || c != tc.want {
				t.Errorf("got %+v %v, want %+v", c, err, tc.want)
			}
		})
	}
}

// A small version 1 history in the exact form Hadoop writes, used to test the
// edge cases the samples do not all show.
const h1Small = `Meta VERSION="1" .
Job JOBID="job_1_0001" JOBNAME="j\.1" USER="u" SUBMIT_TIME="1000" JOBCONF="x" JOB_QUEUE="q" .
Job JOBID="job_1_0001" LAUNCH_TIME="1100" TOTAL_MAPS="2" TOTAL_REDUCES="0" JOB_STATUS="PREP" .
Task TASKID="task_1_0001_m_000002" TASK_TYPE="SETUP" START_TIME="1150" SPLITS="" .
Task TASKID="task_1_0001_m_000000" TASK_TYPE="MAP" START_TIME="1200" SPLITS="/r1/h1,/r2/h2" .
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_0" START_TIME="1210" TRACKER_NAME="tracker_h3:localhost/127\.0\.0\.1:1" HTTP_PORT="" .
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_0" TASK_STATUS="KILLED" FINISH_TIME="1260" HOSTNAME="h3" ERROR="" .
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_1" START_TIME="1220" TRACKER_NAME="tracker_h2:localhost/127\.0\.0\.1:1" HTTP_PORT="50060" LOCALITY="NODE_LOCAL" .
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_1" TASK_STATUS="SUCCESS" FINISH_TIME="1250" HOSTNAME="/r2/h2" STATE_STRING="" COUNTERS="{(FileSystemCounters)(FileSystemCounters)[(HDFS_BYTES_READ)(HDFS_BYTES_READ)(10)][(HDFS_BYTES_WRITTEN)(HDFS_BYTES_WRITTEN)(20)]}" .
Task TASKID="task_1_0001_m_000000" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="1255" .
Task TASKID="task_1_0001_m_000001" TASK_TY .
Job JOBID="job_1_0001" FINISH_TIME="1300" JOB_STATUS="SUCCESS" FINISHED_MAPS="2" FINISHED_REDUCES="0" .
`

func TestHadoop1EdgeCases(t *testing.T) {
	var ds []Diagnostic
	tr, err := ReadHadoop1("small", strings.NewReader(h1Small), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	j := tr.Jobs[0]
	if j.Name != "j.1" || j.Queue != "q" || j.NumMaps != 2 || j.Status != StatusSucceeded || j.KilledAttempts != 1 || j.WastedMs != 50 {
		t.Errorf("job %+v", j)
	}
	m0 := taskByID(t, tr, "task_1_0001_m_000000")
	want := Task{JobID: "job_1_0001", TaskID: "task_1_0001_m_000000", Type: Map, Index: 0,
		InputBytes: 10, OutputBytes: 20, ShuffleBytes: Unknown, // a map-only job's map output is its HDFS output
		PreferredHosts: []string{"h1", "h2"}, PreferredRacks: []string{"/r1", "/r2"},
		Status: StatusSucceeded, StartMs: 1220, FinishMs: 1250, ShuffleFinishMs: Unknown, SortFinishMs: Unknown,
		Host: "h2", Rack: "/r2", Locality: NodeLocal, KilledAttempts: 1, WastedMs: 50,
		LaunchLagMs: Unknown, // its successful attempt is not its first
		ReportLagMs: 5}       // the task's recorded finish, 1255, less the attempt's
	if !reflect.DeepEqual(m0, want) {
		t.Errorf("m_000000\n got %+v\nwant %+v", m0, want)
	}
	// the record cut in the middle of a key: the task is kept, typed by its id,
	// without status; the cut is reported with its line
	m1 := taskByID(t, tr, "task_1_0001_m_000001")
	if m1.Type != Map || m1.Status != "" {
		t.Errorf("cut task %+v", m1)
	}
	if !hasDiag(ds, `unparsable text "TASK_TY"`) || ds[0].Line != 11 || !hasDiag(ds, "typed by their id") {
		t.Errorf("diagnostics %v", ds)
	}
	_, err = ReadHadoop1("small", strings.NewReader(h1Small), HistoryOptions{Strict: true})
	if err == nil || !strings.HasPrefix(err.Error(), "small:11") {
		t.Errorf("strict: %v, want an error at small:11", err)
	}
}

func TestHadoop1Version0(t *testing.T) {
	// version 0: no Meta line, values not escaped, records end with the last quote
	v0 := "Job JOBID=\"job_2_0001\" JOBNAME=\"a.b\" USER=\"u\" SUBMIT_TIME=\"10\" JOBCONF=\"x\"\n" +
		"Job JOBID=\"job_2_0001\" LAUNCH_TIME=\"11\" TOTAL_MAPS=\"1\" TOTAL_REDUCES=\"1\"\n" +
		"Task TASKID=\"tip_2_0001_m_000000\" TASK_TYPE=\"MAP\" START_TIME=\"12\" SPLITS=\"h1,h2\"\n" +
		"Task TASKID=\"task_2_0001_m_000000\" TASK_TYPE=\"MAP\" START_TIME=\"12\" SPLITS=\"h1,h2\"\n" +
		"MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_2_0001_m_000000\" TASK_ATTEMPT_ID=\"attempt_2_0001_m_000000_0\" START_TIME=\"13\" HOSTNAME=\"h1\"\n" +
		"MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_2_0001_m_000000\" TASK_ATTEMPT_ID=\"attempt_2_0001_m_000000_0\" TASK_STATUS=\"SUCCESS\" FINISH_TIME=\"20\" HOSTNAME=\"h1\" COUNTERS=\"File Systems.HDFS bytes read:5,Map-Reduce Framework.Map output bytes:6\"\n" +
		"Task TASKID=\"task_2_0001_m_000000\" TASK_TYPE=\"MAP\" TASK_STATUS=\"SUCCESS\" FINISH_TIME=\"21\"\n" +
		"Task TASKID=\"task_2_0001_r_000000\" TASK_TYPE=\"REDUCE\" START_TIME=\"22\" SPLITS=\"\"\n" +
		"ReduceAttempt TASK_TYPE=\"REDUCE\" TASKID=\"task_2_0001_r_000000\" TASK_ATTEMPT_ID=\"attempt_2_0001_r_000000_0\" START_TIME=\"23\" HOSTNAME=\"h2\"\n" +
		"ReduceAttempt TASK_TYPE=\"REDUCE\" TASKID=\"task_2_0001_r_000000\" TASK_ATTEMPT_ID=\"attempt_2_0001_r_000000_0\" TASK_STATUS=\"FAILED\" FINISH_TIME=\"30\" HOSTNAME=\"h2\" ERROR=\"java.io.IOException: x\n" +
		"\tat y.z(Z.java:1)\n" +
		"\"\n" +
		"Task TASKID=\"task_2_0001_r_000000\" TASK_TYPE=\"REDUCE\" TASK_STATUS=\"FAILED\" FINISH_TIME=\"31\"\n" +
		"Job JOBID=\"job_2_0001\" FINISH_TIME=\"40\" JOB_STATUS=\"FAILED\"\n"
	var ds []Diagnostic
	tr, err := ReadHadoop1("v0", strings.NewReader(v0), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	if len(tr.Jobs) != 1 {
		t.Fatalf("jobs %+v", tr.Jobs)
	}
	j := tr.Jobs[0]
	if j.Name != "a.b" || j.Status != StatusFailed || j.SubmitMs != 10 || j.FinishMs != 40 || j.NumMaps != 1 || j.NumReduces != 1 || j.FailedAttempts != 1 {
		t.Errorf("job %+v (diags %v)", j, ds)
	}
	m := taskByID(t, tr, "task_2_0001_m_000000")
	if m.InputBytes != 5 || m.OutputBytes != 6 || m.Host != "h1" || m.Locality != NodeLocal {
		t.Errorf("map %+v", m)
	}
	if r := taskByID(t, tr, "task_2_0001_r_000000"); r.Status != StatusFailed || r.WastedMs != 7 {
		t.Errorf("reduce %+v", r)
	}
	if !hasDiag(ds, `"tip_2_0001_m_000000" is not a task id`) {
		t.Errorf("diagnostics %v", ds)
	}
}

func TestHadoop1Bundle(t *testing.T) {
	conf := "<?xml version=\"1.0\"?><configuration>\n<property><name>mapred.job.queue.name</name><value>fromconf</value></property>\n" +
		"<property><name>mapred.job.map.memory.mb</name><value>1536</value></property>\n</configuration>\n"
	bundle := "\f!!FILE=jt_1_job_1_0001_u_j!!\n" + h1Small + "\n" +
		"\f!!FILE=jt_1_job_1_0001_conf.xml!!\n" + conf +
		"\f!!FILE=jt_1_job_3_0001_conf.xml!!\n<configuration>\n<property>\n" + // broken conf part
		"\f!!FILE=jt_1_job_3_0001_u_k!!\n" + strings.ReplaceAll(strings.ReplaceAll(h1Small, "job_1_0001", "job_3_0001"), "_1_0001_", "_3_0001_")
	var ds []Diagnostic
	tr, err := ReadHadoop1("bundle", strings.NewReader(bundle), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 2 || tr.Jobs[0].ID != "job_1_0001" || tr.Jobs[1].ID != "job_3_0001" {
		t.Fatalf("jobs %+v", tr.Jobs)
	}
	// the history's own JOB_QUEUE wins, the conf fills the memory
	if j := tr.Jobs[0]; j.Queue != "q" || j.MapMemoryMB != 1536 {
		t.Errorf("job 1 %+v", j)
	}
	if !hasDiag(ds, "configuration part jt_1_job_3_0001_conf.xml skipped") {
		t.Errorf("diagnostics %v", ds)
	}
	if !DetectHadoop1("bundle", []byte(bundle)) {
		t.Error("bundle not detected")
	}
}

// TestHadoop1BundleCommonVersion reads a JobTracker's history with its conf
// part: the conf's hadoop.common.configuration.version fills
// conf_common_version; a job whose conf has none keeps "".
func TestHadoop1BundleCommonVersion(t *testing.T) {
	conf := "<?xml version=\"1.0\"?><configuration>\n" +
		"<property><name>hadoop.common.configuration.version</name><value>0.21.0</value></property>\n" +
		"<property><name>mapreduce.jobtracker.taskscheduler</name><value>org.apache.hadoop.mapred.CapacityTaskScheduler</value></property>\n" +
		"</configuration>\n"
	conf1 := "<?xml version=\"1.0\"?><configuration>\n" +
		"<property><name>mapred.jobtracker.taskScheduler</name><value>org.apache.hadoop.mapred.CapacityTaskScheduler</value></property>\n" +
		"</configuration>\n"
	jt := func(id string) string { // h1Small as job id of a JobTracker's cluster
		return strings.ReplaceAll(strings.ReplaceAll(h1Small, "job_1_0001", "job_201102040848_"+id), "_1_0001_", "_201102040848_"+id+"_")
	}
	bundle := "\f!!FILE=jt_1_job_201102040848_0001_u_j!!\n" + jt("0001") + "\n" +
		"\f!!FILE=jt_1_job_201102040848_0001_conf.xml!!\n" + conf +
		"\f!!FILE=jt_1_job_201102040848_0002_u_k!!\n" + jt("0002") + "\n" +
		"\f!!FILE=jt_1_job_201102040848_0002_conf.xml!!\n" + conf1
	var ds []Diagnostic
	tr, err := ReadHadoop1("bundle", strings.NewReader(bundle), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 2 {
		t.Fatalf("jobs %+v (diags %v)", tr.Jobs, ds)
	}
	for i, want := range []string{"0.21.0", ""} {
		j := tr.Jobs[i]
		if j.ConfCommonVersion != want || !strings.HasSuffix(j.Scheduler, "CapacityTaskScheduler") {
			t.Errorf("job %s: common version %q, scheduler %q; want %q, CapacityTaskScheduler", j.ID, j.ConfCommonVersion, j.Scheduler, want)
		}
	}
}

func TestHadoop1BadInput(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "empty history"},
		{"no job", "Meta VERSION=\"1\" .\n", "no Job record"},
		{"ends inside a record", "Meta VERSION=\"1\" .\nJob JOBID=\"job_1_1\" SUBMIT_TIME=\"5\" .\nTask TASKID=\"task_1_1_m_000000\" ERROR=\"abc\n", ""},
		{"bad time", "Meta VERSION=\"1\" .\nJob JOBID=\"job_1_1\" SUBMIT_TIME=\"5x\" .\n",
			"h: no job left: h:2: record 2: job job_1_1 has no submit, launch or task start time; dropped (the first problem of the file: h:2: record 2: Job record: SUBMIT_TIME: \"5x\" is not an integer)"},
		{"bad time, tasks", "Meta VERSION=\"1\" .\nJob JOBID=\"job_1_1\" SUBMIT_TIME=\"5x\" .\nTask TASKID=\"task_1_1_m_0\" TASK_TYPE=\"MAP\" START_TIME=\"6\" .\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ds []Diagnostic
			_, err := ReadHadoop1("h", strings.NewReader(tc.in), collect(&ds))
			if tc.want != "" {
				var ie *ParseError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil || len(ds) == 0 {
				t.Errorf("want a diagnostic and no error: %v %v", err, ds)
			}
			if _, err := ReadHadoop1("h", strings.NewReader(tc.in), HistoryOptions{Strict: true}); err == nil {
				t.Error("strict read accepted damaged input")
			}
		})
	}
}

func TestSplitHelpers(t *testing.T) {
	hosts, racks := parseSplits("/r1/h1,/r1/h1,h2,/h3,,/dc/r4/h4")
	if !reflect.DeepEqual(hosts, []string{"h1", "h2", "h3", "h4"}) || !reflect.DeepEqual(racks, []string{"/r1", "", "", "/dc/r4"}) {
		t.Errorf("parseSplits: %q %q", hosts, racks)
	}
	for in, want := range map[string]string{
		"tracker_cluster1028.x.com:localhost/127.0.0.1:52187": "cluster1028.x.com",
		"localhost/127.0.0.1:3333":                            "localhost",
		"mfs137.qa.lab":                                       "mfs137.qa.lab",
	} {
		if got := trackerHost(in); got != want {
			t.Errorf("trackerHost(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"task_1_2_m_000003": "job_1_2", "attempt_1_2_r_000003_1": "job_1_2", "tip_1_2_m_0": "", "task_1": ""} {
		if got := jobIDFromTask(in); got != want {
			t.Errorf("jobIDFromTask(%q) = %q, want %q", in, got, want)
		}
	}
}

// h1BothSetups is the start and end of a real Hadoop 0.20 history
// (job_201105251513_0145, a Pig job on three hosts *.labbio, 2 maps and 2
// reduces; FORMATS.md has no such file: it was found in a public code index,
// docs/ingest-formats.md "Histories found in the wild"), its map and reduce
// records left out and the ERROR stack traces cut to their first line. Its
// map-side setup task m_000003 fails, the JobTracker launches the reduce-side
// setup task r_000003, which fails too, and m_000003's second attempt
// succeeds: two setup tasks numbered 3.
const h1BothSetups = `Meta VERSION="1" .
Job JOBID="job_201105251513_0145" JOBNAME="PigLatin:22H55M55S465940138\.3X\.query\.31\.web_site\.web_site\.2\.2\.pig" USER="hadoop" SUBMIT_TIME="1306384434299" JOBCONF="hdfs://berlin\.labbio:54310/mnt/hadoop-tmp/dir/hadoop-hadoop/mapred/system/job_201105251513_0145/job\.xml" .
Job JOBID="job_201105251513_0145" JOB_PRIORITY="NORMAL" .
Job JOBID="job_201105251513_0145" LAUNCH_TIME="1306384434525" TOTAL_MAPS="2" TOTAL_REDUCES="2" JOB_STATUS="PREP" .
Task TASKID="task_201105251513_0145_m_000003" TASK_TYPE="SETUP" START_TIME="1306384436656" SPLITS="" .
MapAttempt TASK_TYPE="SETUP" TASKID="task_201105251513_0145_m_000003" TASK_ATTEMPT_ID="attempt_201105251513_0145_m_000003_0" START_TIME="1306384437003" TRACKER_NAME="tracker_berlin\.labbio:localhost/127\.0\.0\.1:38958" HTTP_PORT="50060" .
MapAttempt TASK_TYPE="SETUP" TASKID="task_201105251513_0145_m_000003" TASK_ATTEMPT_ID="attempt_201105251513_0145_m_000003_0" TASK_STATUS="FAILED" FINISH_TIME="1306384439659" HOSTNAME="berlin\.labbio" ERROR="Error: java\.lang\.ClassNotFoundException: org\.apache\.hadoop\.hdfs\.protocol\.LocatedBlocks
" .
Task TASKID="task_201105251513_0145_r_000003" TASK_TYPE="SETUP" START_TIME="1306384439659" SPLITS="" .
ReduceAttempt TASK_TYPE="SETUP" TASKID="task_201105251513_0145_r_000003" TASK_ATTEMPT_ID="attempt_201105251513_0145_r_000003_0" START_TIME="1306384439695" TRACKER_NAME="tracker_berlin\.labbio:localhost/127\.0\.0\.1:38958" HTTP_PORT="50060" .
ReduceAttempt TASK_TYPE="SETUP" TASKID="task_201105251513_0145_r_000003" TASK_ATTEMPT_ID="attempt_201105251513_0145_r_000003_0" TASK_STATUS="FAILED" FINISH_TIME="1306384442663" HOSTNAME="berlin\.labbio" ERROR="Error: java\.lang\.ClassNotFoundException: org\.apache\.hadoop\.hdfs\.protocol\.LocatedBlocks
" .
MapAttempt TASK_TYPE="SETUP" TASKID="task_201105251513_0145_m_000003" TASK_ATTEMPT_ID="attempt_201105251513_0145_m_000003_1" START_TIME="1306383936442" TRACKER_NAME="tracker_damasco\.labbio:localhost/127\.0\.0\.1:47023" HTTP_PORT="50060" .
MapAttempt TASK_TYPE="SETUP" TASKID="task_201105251513_0145_m_000003" TASK_ATTEMPT_ID="attempt_201105251513_0145_m_000003_1" TASK_STATUS="SUCCESS" FINISH_TIME="1306383937563" HOSTNAME="/default-rack/damasco\.labbio" STATE_STRING="setup" COUNTERS="{(org\.apache\.hadoop\.mapred\.Task$Counter)(Map-Reduce Framework)[(SPILLED_RECORDS)(Spilled Records)(0)]}" .
Task TASKID="task_201105251513_0145_m_000003" TASK_TYPE="SETUP" TASK_STATUS="SUCCESS" FINISH_TIME="1306384445797" COUNTERS="{(org\.apache\.hadoop\.mapred\.Task$Counter)(Map-Reduce Framework)[(SPILLED_RECORDS)(Spilled Records)(0)]}" .
Job JOBID="job_201105251513_0145" JOB_STATUS="RUNNING" .
Job JOBID="job_201105251513_0145" FINISH_TIME="1306384464406" JOB_STATUS="SUCCESS" FINISHED_MAPS="2" FINISHED_REDUCES="2" FAILED_MAPS="0" FAILED_REDUCES="0" .
`

// TestHadoop1MapAndReduceSideSetup checks that a job's map-side and
// reduce-side setup tasks, which Hadoop 1 numbers alike when the job has as
// many maps as reduces, are both kept: the reduce-side one under the next free
// setup index, with its failed attempt, and said so.
func TestHadoop1MapAndReduceSideSetup(t *testing.T) {
	var ds []Diagnostic
	tr, err := ReadHadoop1("labbio", strings.NewReader(h1BothSetups), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	var setups []Task
	for _, k := range tr.Tasks {
		if k.Type == Setup {
			setups = append(setups, k)
		}
	}
	if len(setups) != 2 {
		t.Fatalf("%d setup tasks, want 2 (m_000003 and r_000003): %+v", len(setups), setups)
	}
	m, r := setups[0], setups[1]
	if m.TaskID != "task_201105251513_0145_m_000003" || m.Index != 3 || !m.InMapSlot() || m.Status != StatusSucceeded ||
		m.FailedAttempts != 1 || m.Host != "damasco.labbio" {
		t.Errorf("map-side setup %+v", m)
	}
	if r.TaskID != "task_201105251513_0145_r_000003" || r.Index != 4 || r.InMapSlot() || r.FailedAttempts != 1 ||
		r.StartMs != 1306384439695 || r.FinishMs != 1306384442663 || r.Host != "berlin.labbio" {
		t.Errorf("reduce-side setup %+v", r)
	}
	if hasDiag(ds, "dropped") || !hasDiag(ds, "(map and reduce slot) are both SETUP 3; the second is numbered 4") {
		t.Errorf("diagnostics %v", ds)
	}
	for _, a := range tr.Attempts {
		if a.TaskID == r.TaskID && a.Status != StatusFailed {
			t.Errorf("reduce-side setup attempt %+v", a)
		}
	}
}

// h1Skewed is the job records and one map of the same real history as
// h1BothSetups: the map's attempt ran on a TaskTracker whose clock was 966 s
// behind the JobTracker's, so it starts 966 s before its job's submit.
const h1Skewed = `Meta VERSION="1" .
Job JOBID="job_201105251513_0145" JOBNAME="PigLatin:22H55M55S465940138\.3X\.query\.31\.web_site\.web_site\.2\.2\.pig" USER="hadoop" SUBMIT_TIME="1306384434299" JOBCONF="hdfs://berlin\.labbio:54310/mnt/hadoop-tmp/dir/hadoop-hadoop/mapred/system/job_201105251513_0145/job\.xml" .
Job JOBID="job_201105251513_0145" LAUNCH_TIME="1306384434525" TOTAL_MAPS="2" TOTAL_REDUCES="2" JOB_STATUS="PREP" .
Task TASKID="task_201105251513_0145_m_000001" TASK_TYPE="MAP" START_TIME="1306384446389" SPLITS="/default-rack/berlin\.labbio,/default-rack/damasco\.labbio,/default-rack/moscou\.labbio" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201105251513_0145_m_000001" TASK_ATTEMPT_ID="attempt_201105251513_0145_m_000001_0" START_TIME="1306383468218" TRACKER_NAME="tracker_moscou\.labbio:localhost/127\.0\.0\.1:36922" HTTP_PORT="50060" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201105251513_0145_m_000001" TASK_ATTEMPT_ID="attempt_201105251513_0145_m_000001_0" TASK_STATUS="SUCCESS" FINISH_TIME="1306383469951" HOSTNAME="/default-rack/moscou\.labbio" STATE_STRING="" COUNTERS="{(FileSystemCounters)(FileSystemCounters)[(HDFS_BYTES_READ)(HDFS_BYTES_READ)(8771)][(FILE_BYTES_WRITTEN)(FILE_BYTES_WRITTEN)(518)]}" .
Task TASKID="task_201105251513_0145_m_000001" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="1306384449392" .
Job JOBID="job_201105251513_0145" FINISH_TIME="1306384464406" JOB_STATUS="SUCCESS" FINISHED_MAPS="2" FINISHED_REDUCES="2" FAILED_MAPS="0" FAILED_REDUCES="0" .
`

// TestHadoop1ClockSkewWarned checks that an attempt more than 10 minutes
// outside its job's submit..finish (TaskTracker clocks off the JobTracker's,
// whose job replay leaves out) is reported by the reader, with the job, the attempt
// and the distance, and that --strict refuses it; an attempt within 10
// minutes (h1BothSetups: 498 s before the submit) is not reported.
func TestHadoop1ClockSkewWarned(t *testing.T) {
	var ds []Diagnostic
	tr, err := ReadHadoop1("skew", strings.NewReader(h1Skewed), collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	if m := taskByID(t, tr, "task_201105251513_0145_m_000001"); m.StartMs != 1306383468218 {
		t.Errorf("map start %d: the reader keeps the recorded times", m.StartMs)
	}
	want := "job job_201105251513_0145: 1 attempts run more than 600 s outside the job's submit..finish 1306384434299..1306384464406 ms, " +
		"attempt_201105251513_0145_m_000001_0 the furthest (966 s, 1306383468218..1306383469951 ms)"
	if !hasDiag(ds, want) {
		t.Errorf("diagnostics %v\nwant one with %q", ds, want)
	}
	if _, err := ReadHadoop1("skew", strings.NewReader(h1Skewed), HistoryOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), "TaskTracker clocks") {
		t.Errorf("strict: %v", err)
	}
	ds = nil
	if _, err := ReadHadoop1("labbio", strings.NewReader(h1BothSetups), collect(&ds)); err != nil || hasDiag(ds, "TaskTracker clocks") {
		t.Errorf("498 s of skew reported: %v %v", err, ds)
	}
}
