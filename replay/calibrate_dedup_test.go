package replay_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// sampleJobTrackerLogs is a Hadoop 1 history of several jobs (Apache Hadoop's
// Rumen test data, as the validation harness reads it).
const sampleJobTrackerLogs = "../internal/validation/testdata/traces/hadoop1/apache-hadoop-branch-1-rumen-testdata/sample-job-tracker-logs.gz"

// calibrateCopies calibrates the history read (trace.ReadTree) from a
// directory holding n copies of the file path.
func calibrateCopies(t *testing.T, path string, n int, base replay.Hardware) *replay.Calibration {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i))+"-"+filepath.Base(path)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, _, err := trace.ReadTree(context.Background(), dir, trace.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cal, err := replay.Calibrate(tr, base)
	if err != nil {
		t.Fatal(err)
	}
	return cal
}

// TestCalibrateCountsARepeatedJobOnce: a directory holding the same history
// twice (trace.ReadTree keeps the second copy's jobs as <id>#2) fits exactly
// what the history once fits, every value and its sample count, for the fixed
// and the flow network model; the copies are named in Duplicates and a note.
func TestCalibrateCountsARepeatedJobOnce(t *testing.T) {
	for _, network := range []replay.NetworkName{replay.NetworkFixed, replay.NetworkFlow} {
		t.Run(string(network), func(t *testing.T) {
			base := replay.DefaultHardware()
			base.Network = network
			once := calibrateCopies(t, sampleJobTrackerLogs, 1, base)
			twice := calibrateCopies(t, sampleJobTrackerLogs, 2, base)
			if len(once.Duplicates) != 0 {
				t.Fatalf("one copy: duplicates %v", once.Duplicates)
			}
			if once.Jobs < 2 {
				t.Fatalf("the history has %d jobs with a schedule, want several", once.Jobs)
			}
			if twice.Jobs != once.Jobs || twice.Tasks != once.Tasks {
				t.Errorf("two copies count %d jobs, %d tasks; one copy %d, %d", twice.Jobs, twice.Tasks, once.Jobs, once.Tasks)
			}
			if !reflect.DeepEqual(twice.Values, once.Values) {
				t.Errorf("two copies fit\n%+v\none copy\n%+v", twice.Values, once.Values)
			}
			if len(twice.Duplicates) != once.Jobs {
				t.Errorf("two copies: %d duplicates %v, want the %d jobs' second copies", len(twice.Duplicates), twice.Duplicates, once.Jobs)
			}
			for _, id := range twice.Duplicates {
				if !strings.HasSuffix(id, "#2") {
					t.Errorf("left out %s, want the second copy (<id>#2)", id)
				}
			}
			if len(twice.Notes) != len(once.Notes)+1 || !strings.Contains(twice.Notes[0], "more than once") || !reflect.DeepEqual(twice.Notes[1:], once.Notes) {
				t.Errorf("two copies' notes %q, want the duplicates' note then one copy's %q", twice.Notes, once.Notes)
			}
		})
	}
}

// TestCalibrateKeepsRepeatedIDsOfOtherJobs: jobs that share an id (less the
// #n suffix) but not the submit time are different jobs, all counted; with
// the same submit time they are one job, counted once.
func TestCalibrateKeepsRepeatedIDsOfOtherJobs(t *testing.T) {
	once, err := replay.Calibrate(calibrationTrace(), replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	for _, shift := range []int64{0, 1} {
		tr := calibrationTrace()
		second := calibrationTrace()
		for i := range second.Jobs {
			second.Jobs[i].ID += "#2"
			second.Jobs[i].SubmitMs += shift
		}
		for i := range second.Tasks {
			second.Tasks[i].JobID += "#2"
		}
		tr.Jobs = append(tr.Jobs, second.Jobs...)
		tr.Tasks = append(tr.Tasks, second.Tasks...)
		cal, err := replay.Calibrate(tr, replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case shift == 0 && (len(cal.Duplicates) != len(second.Jobs) || cal.Jobs != once.Jobs || !reflect.DeepEqual(cal.Values, once.Values)):
			t.Errorf("same submit times: %d duplicates, %d jobs; want %d, %d and the values of one copy", len(cal.Duplicates), cal.Jobs, len(second.Jobs), once.Jobs)
		case shift != 0 && (len(cal.Duplicates) != 0 || cal.Jobs != 2*once.Jobs):
			t.Errorf("other submit times: duplicates %v, %d jobs; want none, %d", cal.Duplicates, cal.Jobs, 2*once.Jobs)
		}
	}
}
