package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// h1Lags is a Hadoop 1 history whose tasks show each case of the launch lag:
// a first attempt that succeeded (m_0, r_0), an attempt that starts before its
// task (m_1) or ends after the task's recorded finish (m_2), the clocks
// disagreeing, and a task kept by its second attempt (m_3).
const h1Lags = `Meta VERSION="1" .
Job JOBID="job_201001011200_0001" JOBNAME="j" USER="u" SUBMIT_TIME="1000" JOBCONF="x" JOB_QUEUE="q" .
Job JOBID="job_201001011200_0001" LAUNCH_TIME="1100" TOTAL_MAPS="4" TOTAL_REDUCES="1" JOB_STATUS="PREP" .
Task TASKID="task_201001011200_0001_m_000000" TASK_TYPE="MAP" START_TIME="2000" SPLITS="" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000000" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000000_0" START_TIME="2500" TRACKER_NAME="tracker_h1:x" HTTP_PORT="1" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000000" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000000_0" TASK_STATUS="SUCCESS" FINISH_TIME="4000" HOSTNAME="/r/h1" .
Task TASKID="task_201001011200_0001_m_000000" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="4100" .
Task TASKID="task_201001011200_0001_m_000001" TASK_TYPE="MAP" START_TIME="2000" SPLITS="" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000001" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000001_0" START_TIME="1900" TRACKER_NAME="tracker_h2:x" HTTP_PORT="1" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000001" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000001_0" TASK_STATUS="SUCCESS" FINISH_TIME="3000" HOSTNAME="/r/h2" .
Task TASKID="task_201001011200_0001_m_000001" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="3100" .
Task TASKID="task_201001011200_0001_m_000002" TASK_TYPE="MAP" START_TIME="2000" SPLITS="" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000002" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000002_0" START_TIME="2100" TRACKER_NAME="tracker_h3:x" HTTP_PORT="1" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000002" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000002_0" TASK_STATUS="SUCCESS" FINISH_TIME="3200" HOSTNAME="/r/h3" .
Task TASKID="task_201001011200_0001_m_000002" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="3100" .
Task TASKID="task_201001011200_0001_m_000003" TASK_TYPE="MAP" START_TIME="2000" SPLITS="" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000003" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000003_0" START_TIME="2100" TRACKER_NAME="tracker_h4:x" HTTP_PORT="1" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000003" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000003_0" TASK_STATUS="FAILED" FINISH_TIME="2600" HOSTNAME="/r/h4" ERROR="x" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000003" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000003_1" START_TIME="3000" TRACKER_NAME="tracker_h5:x" HTTP_PORT="1" .
MapAttempt TASK_TYPE="MAP" TASKID="task_201001011200_0001_m_000003" TASK_ATTEMPT_ID="attempt_201001011200_0001_m_000003_1" TASK_STATUS="SUCCESS" FINISH_TIME="3500" HOSTNAME="/r/h5" .
Task TASKID="task_201001011200_0001_m_000003" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="3600" .
Task TASKID="task_201001011200_0001_r_000000" TASK_TYPE="REDUCE" START_TIME="4000" SPLITS="" .
ReduceAttempt TASK_TYPE="REDUCE" TASKID="task_201001011200_0001_r_000000" TASK_ATTEMPT_ID="attempt_201001011200_0001_r_000000_0" START_TIME="5130" TRACKER_NAME="tracker_h1:x" HTTP_PORT="1" .
ReduceAttempt TASK_TYPE="REDUCE" TASKID="task_201001011200_0001_r_000000" TASK_ATTEMPT_ID="attempt_201001011200_0001_r_000000_0" TASK_STATUS="SUCCESS" SHUFFLE_FINISHED="6000" SORT_FINISHED="6100" FINISH_TIME="7000" HOSTNAME="/r/h1" .
Task TASKID="task_201001011200_0001_r_000000" TASK_TYPE="REDUCE" TASK_STATUS="SUCCESS" FINISH_TIME="7000" .
Job JOBID="job_201001011200_0001" FINISH_TIME="8000" JOB_STATUS="SUCCESS" FINISHED_MAPS="4" FINISHED_REDUCES="1" .
`

// TestLaunchLagHadoop1 reads each case of h1Lags: the lag is the first
// attempt's start less its task's, and Unknown when the clocks disagree or
// the task kept a later attempt.
func TestLaunchLagHadoop1(t *testing.T) {
	tr, err := ReadHadoop1("lags", strings.NewReader(h1Lags), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkTraceInvariants(t, tr)
	want := map[string]int64{"m_000000": 500, "m_000001": Unknown, "m_000002": Unknown, "m_000003": Unknown, "r_000000": 1130}
	for suffix, lag := range want {
		k := taskByID(t, tr, "task_201001011200_0001_"+suffix)
		if k.LaunchLagMs != lag {
			t.Errorf("%s: launch lag %d, want %d", suffix, k.LaunchLagMs, lag)
		}
	}
	// The report lag is the task's finish less its kept attempt's, whichever
	// attempt that is (m_3's second), unless the clocks disagree.
	wantReport := map[string]int64{"m_000000": 100, "m_000001": Unknown, "m_000002": Unknown, "m_000003": 100, "r_000000": 0}
	for suffix, lag := range wantReport {
		k := taskByID(t, tr, "task_201001011200_0001_"+suffix)
		if k.ReportLagMs != lag {
			t.Errorf("%s: report lag %d, want %d", suffix, k.ReportLagMs, lag)
		}
	}
}

// rumenLagJob is a Rumen LoggedJob with one map whose first attempt starts
// 1130 ms after its task; {ID} is the job id without its job_ prefix.
const rumenLagJob = `{"jobID": "job_{ID}", "submitTime": 1000, "launchTime": 1100, "finishTime": 9000, "outcome": "SUCCESS",
 "mapTasks": [{"taskID": "task_{ID}_m_000000", "taskType": "MAP", "taskStatus": "SUCCESS", "startTime": 2000, "finishTime": 5000,
   "attempts": [{"attemptID": "attempt_{ID}_m_000000_0", "result": "SUCCESS", "startTime": 3130, "finishTime": 4900, "hostName": "/r/h1"}]}]}
`

// TestLaunchLagRumen: a Rumen trace of a JobTracker's history (job id with
// the JobTracker's 12-digit start) has the lag; one of a YARN history (the
// ResourceManager's 13-digit start in ms), whose task start is its
// scheduling, has none.
func TestLaunchLagRumen(t *testing.T) {
	for _, tc := range []struct {
		id          string
		lag, report int64
	}{{"201001011200_0001", 1130, 100}, {"1369942127770_1205", Unknown, Unknown}} {
		s := strings.ReplaceAll(rumenLagJob, "{ID}", tc.id)
		tr, err := ReadRumen("lag.json", strings.NewReader(s), HistoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Tasks) != 1 || tr.Tasks[0].LaunchLagMs != tc.lag || tr.Tasks[0].ReportLagMs != tc.report {
			t.Errorf("job %s: tasks %+v, want one with launch lag %d, report lag %d", tc.id, tr.Tasks, tc.lag, tc.report)
		}
	}
}

// TestLaunchLagJhistUnknown: a .jhist's TASK_STARTED time is the task's
// scheduling, not an assignment, so no task of the test histories has a lag.
func TestLaunchLagJhistUnknown(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "jhist", "*.jhist"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no .jhist test data: %v", err)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := ReadJhist(p, f, HistoryOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tr.Tasks {
			if k.LaunchLagMs != Unknown || k.ReportLagMs != Unknown {
				t.Errorf("%s: task %s has launch lag %d, report lag %d", filepath.Base(p), k.TaskID, k.LaunchLagMs, k.ReportLagMs)
			}
		}
	}
}

// TestJobTrackerJobID tells a JobTracker's job ids from a ResourceManager's.
func TestJobTrackerJobID(t *testing.T) {
	for id, want := range map[string]bool{
		"job_200910281128_10000": true, "job_201002080801_40864": true,
		"job_1369942127770_1205": false, "job_1_0001": false, "job_2009102811x8_1": false,
		"job_200910281128_": false, "200910281128_1": false, "": false,
	} {
		if got := JobTrackerJobID(id); got != want {
			t.Errorf("JobTrackerJobID(%q) = %v, want %v", id, got, want)
		}
	}
}
