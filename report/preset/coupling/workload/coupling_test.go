package workload

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// generate runs this package's generator name as the registry
// (report/preset/workloads) runs it.
func generate(name string, p trace.GenParams, seed uint64) (*trace.Trace, error) {
	for _, g := range Generators() {
		if g.Name == name {
			return g.Generate(p, seed)
		}
	}
	return nil, fmt.Errorf("no generator %q", name)
}

// jobRow is what the paper's tables give of a job: submit second, maps, reduces.
type jobRow struct {
	at            int64
	maps, reduces int32
}

func rows(tr *trace.Trace) []jobRow {
	var r []jobRow
	for _, j := range tr.Jobs {
		r = append(r, jobRow{j.SubmitMs / 1000, j.NumMaps, j.NumReduces})
	}
	return r
}

// TestCouplingTables checks the generated workloads against the paper's Tables
// III and IV and the experiments of Figs. 1, 5 and 10.
func TestCouplingTables(t *testing.T) {
	cases := []struct {
		gen    string
		params trace.GenParams
		want   []jobRow
	}{
		{"coupling-table3", nil, []jobRow{{0, 427, 0}, {120, 15, 0}, {240, 23, 0}, {360, 45, 0}, {480, 427, 0},
			{600, 15, 0}, {720, 23, 0}, {840, 30, 0}, {960, 427, 0}, {1080, 45, 0}}},
		{"coupling-table4", nil, []jobRow{{0, 148, 15}, {30, 148, 15}, {150, 5, 1}, {170, 8, 1}, {190, 8, 2}, {210, 8, 2},
			{230, 8, 3}, {470, 427, 15}, {500, 427, 15}, {800, 224, 27}, {860, 15, 5}, {880, 8, 3}, {900, 8, 2},
			{1020, 64, 27}, {1140, 30, 2}, {1440, 15, 1}, {1710, 352, 27}, {2110, 15, 1}, {2125, 8, 3}, {2245, 64, 27},
			{2365, 150, 0}, {2485, 10, 1}}},
		{"coupling-grep", trace.GenParams{"jobs": int64(3), "interval_s": 300.0}, []jobRow{{0, 427, 8}, {300, 427, 8}, {600, 427, 8}}},
		{"coupling-twojobs", nil, []jobRow{{0, 427, 15}, {60, 45, 5}}},
		{"coupling-wordcount", nil, []jobRow{{0, 427, 1}}},
		{"coupling-single", trace.GenParams{"job": "sort2"}, []jobRow{{0, 352, 27}}},
	}
	for _, c := range cases {
		tr, err := generate(c.gen, c.params, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.gen, err)
		}
		if got := rows(tr); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: jobs %v\nwant %v", c.gen, got, c.want)
		}
		checkCouplingTasks(t, c.gen, tr)
	}
}

// checkCouplingTasks checks that every job lists its maps then its reduces, that
// map inputs add up to the job's input, reduce shuffles to its map output, and
// that each map has a positive observed duration.
func checkCouplingTasks(t *testing.T, gen string, tr *trace.Trace) {
	t.Helper()
	k := 0
	for _, j := range tr.Jobs {
		var in, out, shuffle int64
		for m := range j.NumMaps {
			task := tr.Tasks[k]
			k++
			if task.JobID != j.ID || task.Type != trace.Map || task.Index != m || task.FinishMs <= task.StartMs {
				t.Fatalf("%s: task %+v, want map %d of %s with a duration", gen, task, m, j.ID)
			}
			in += task.InputBytes
			out += task.OutputBytes
		}
		for r := range j.NumReduces {
			task := tr.Tasks[k]
			k++
			if task.JobID != j.ID || task.Type != trace.Reduce || task.Index != r || task.StartMs != trace.Unknown {
				t.Fatalf("%s: task %+v, want reduce %d of %s without a duration", gen, task, r, j.ID)
			}
			shuffle += task.ShuffleBytes
		}
		if in != j.InputBytes || (j.NumReduces > 0 && (shuffle != out || shuffle != j.ShuffleBytes)) {
			t.Errorf("%s: job %s input %d/%d, map output %d, shuffle %d/%d", gen, j.ID, in, j.InputBytes, out, shuffle, j.ShuffleBytes)
		}
	}
	if k != len(tr.Tasks) {
		t.Errorf("%s: %d tasks listed, %d belong to jobs", gen, len(tr.Tasks), k)
	}
}

// TestCouplingCalibration: a wikiInput map reads 28 GB / 427 and its Grep takes
// 38 s on average (0.58 s per MB); a WordCount map 48.5 s.
func TestCouplingCalibration(t *testing.T) {
	for _, c := range []struct {
		gen     string
		wantSec float64
	}{{"coupling-twojobs", 0.58 * 28e9 / 427 / 1e6}, {"coupling-wordcount", 0.74 * 28e9 / 427 / 1e6}} {
		tr, err := generate(c.gen, nil, 3)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		var n int
		for _, task := range tr.Tasks {
			if task.JobID == tr.Jobs[0].ID && task.Type == trace.Map {
				if task.InputBytes != int64(28e9)/427 {
					t.Fatalf("%s: map input %d, want %d", c.gen, task.InputBytes, int64(28e9)/427)
				}
				sum += float64(task.FinishMs-task.StartMs) / 1000
				n++
			}
		}
		// 427 log-normal draws with CV 0.25: the mean is within 5% of its expectation.
		if mean := sum / float64(n); mean < 0.95*c.wantSec || mean > 1.05*c.wantSec {
			t.Errorf("%s: mean map time %.1f s, want about %.1f s", c.gen, mean, c.wantSec)
		}
	}
}

// TestCouplingBatches: 10 batches of 20 jobs in submit order, drawn from Table
// IV's jobs, Grep about three quarters of them.
func TestCouplingBatches(t *testing.T) {
	tr, err := generate("coupling-batches", nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 200 {
		t.Fatalf("%d jobs, want 200", len(tr.Jobs))
	}
	table4 := map[jobRow]bool{}
	t4, _ := generate("coupling-table4", nil, 5)
	for _, r := range rows(t4) {
		table4[jobRow{0, r.maps, r.reduces}] = true
	}
	grep := 0
	for i, j := range tr.Jobs {
		if i > 0 && j.SubmitMs < tr.Jobs[i-1].SubmitMs {
			t.Fatalf("job %d submitted before job %d", i, i-1)
		}
		if !table4[jobRow{0, j.NumMaps, j.NumReduces}] {
			t.Errorf("job %s (%d maps, %d reduces) is not one of Table IV's", j.ID, j.NumMaps, j.NumReduces)
		}
		if strings.HasPrefix(j.Name, "Grep") {
			grep++
		}
	}
	// 200 draws at p = 0.738: mean 147.6, standard deviation 6.2.
	if grep < 128 || grep > 168 {
		t.Errorf("%d Grep jobs of 200, want about 148", grep)
	}
	checkCouplingTasks(t, "coupling-batches", tr)
}

func TestCouplingDeterminism(t *testing.T) {
	for _, g := range Generators() {
		a, err := generate(g.Name, nil, 11)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := generate(g.Name, nil, 11)
		c, _ := generate(g.Name, nil, 12)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: seed 11 twice gives different traces", g.Name)
		}
		if reflect.DeepEqual(a.Tasks, c.Tasks) {
			t.Errorf("%s: seeds 11 and 12 give the same tasks", g.Name)
		}
	}
}

func TestCouplingParams(t *testing.T) {
	for _, c := range []struct {
		gen    string
		params trace.GenParams
		err    string
	}{
		{"coupling-grep", trace.GenParams{"jobs": "ten"}, "jobs = ten: want an integer"},
		{"coupling-grep", trace.GenParams{"jobs": 2.5}, "want an integer"},
		{"coupling-grep", trace.GenParams{"interval_s": -1.0}, "interval_s = -1"},
		{"coupling-table4", trace.GenParams{"jobs": int64(3)}, "unknown parameter jobs; valid parameters: none"},
		{"coupling-single", trace.GenParams{"job": "terasort"}, "want one of grep, montecarlo, randomwriter, sort1, sort2"},
		{"coupling-batches", trace.GenParams{"per-batch": int64(3)}, "unknown parameter per-batch; valid parameters: batches, per_batch, gap_s, batch_gap_s"},
	} {
		_, err := generate(c.gen, c.params, 1)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %v: error %v, want one containing %q", c.gen, c.params, err, c.err)
		}
	}
}
