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

// TestGenEASTable1 checks the workload against EAS Table 1 and §5.2: 50 jobs of the
// table's four kinds, 208 maps of one 128 MiB block each (26 GiB of input), about
// 20 GiB of map output of which 91% from sort, arrivals within [0, 120] s in
// submit order, tasks listed job by job, maps first.
func TestGenEASTable1(t *testing.T) {
	tr, err := generate("eas-table1", nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[[3]any]int{}
	var maps, input, out, sortOut int64
	for i, j := range tr.Jobs {
		kinds[[3]any{j.Name, j.NumMaps, j.NumReduces}]++
		if j.SubmitMs < 0 || j.SubmitMs > 120000 || i > 0 && j.SubmitMs < tr.Jobs[i-1].SubmitMs {
			t.Errorf("job %s submitted at %d ms: want sorted times in [0, 120000]", j.ID, j.SubmitMs)
		}
		if j.User != "eas" || j.Status != trace.StatusSucceeded {
			t.Errorf("job %s: user %q status %q", j.ID, j.User, j.Status)
		}
		out += j.ShuffleBytes
		if j.Name == "sort" {
			sortOut += j.ShuffleBytes
		}
	}
	want := map[[3]any]int{
		{"wordcount", int32(1), int32(1)}: 25, {"sort", int32(2), int32(1)}: 14,
		{"wordcount", int32(5), int32(2)}: 7, {"sort", int32(30), int32(10)}: 4,
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("job kinds %v, want %v", kinds, want)
	}
	k := 0
	for _, j := range tr.Jobs {
		var shuffle int64
		for m := int32(0); m < j.NumMaps; m, k = m+1, k+1 {
			task := tr.Tasks[k]
			if task.JobID != j.ID || task.Type != trace.Map || task.Index != m || task.InputBytes != 128<<20 {
				t.Fatalf("task %d is %+v, want map %d of %s reading 128 MiB", k, task, m, j.ID)
			}
			maps++
			input += task.InputBytes
		}
		for r := int32(0); r < j.NumReduces; r, k = r+1, k+1 {
			task := tr.Tasks[k]
			if task.JobID != j.ID || task.Type != trace.Reduce || task.Index != r {
				t.Fatalf("task %d is %+v, want reduce %d of %s", k, task, r, j.ID)
			}
			shuffle += task.ShuffleBytes
		}
		if shuffle != j.ShuffleBytes {
			t.Errorf("job %s: reduces fetch %d bytes, its maps emit %d", j.ID, shuffle, j.ShuffleBytes)
		}
	}
	if k != len(tr.Tasks) || maps != 208 || input != 26<<30 {
		t.Errorf("%d maps reading %d bytes (%d tasks listed, %d walked), want 208 and 26 GiB", maps, input, len(tr.Tasks), k)
	}
	gib := float64(out) / (1 << 30)
	share := float64(sortOut) / float64(out)
	if gib < 19.5 || gib > 21 || share < 0.905 || share > 0.915 {
		t.Errorf("map output %.2f GiB, %.1f%% from sort; want about 20 GiB and 91%%", gib, 100*share)
	}
}

// TestGenEASTable1Seeds checks that a seed fixes the trace and another seed
// changes the arrivals.
func TestGenEASTable1Seeds(t *testing.T) {
	a, _ := generate("eas-table1", nil, 1)
	b, _ := generate("eas-table1", nil, 1)
	c, _ := generate("eas-table1", nil, 2)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different traces")
	}
	if reflect.DeepEqual(a.Jobs, c.Jobs) {
		t.Error("seeds 1 and 2 gave the same jobs")
	}
}

// TestGenEASTable1Params checks parameters and their errors.
func TestGenEASTable1Params(t *testing.T) {
	tr, err := generate("eas-table1", trace.GenParams{"window_s": int64(10), "block_mb": 64.0, "sort_map_ratio": 0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	last := tr.Jobs[len(tr.Jobs)-1]
	if last.SubmitMs > 10000 || tr.Tasks[0].InputBytes != 64<<20 {
		t.Errorf("last submit %d ms, first split %d bytes; want <= 10 s and 64 MiB", last.SubmitMs, tr.Tasks[0].InputBytes)
	}
	for _, bad := range []struct {
		p    trace.GenParams
		want string
	}{
		{trace.GenParams{"windows": 1.0}, "unknown parameter windows; valid parameters: window_s, block_mb"},
		{trace.GenParams{"window_s": "long"}, "want a number"},
		{trace.GenParams{"sort_map_ratio": -1.0}, "sort_map_ratio = -1: want a number in [0, +Inf)"},
		{trace.GenParams{"block_mb": 0.0}, "at least one byte"},
		{trace.GenParams{"user": int64(3)}, "non-empty string"},
	} {
		if _, err := generate("eas-table1", bad.p, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("params %v: error %v, want one containing %q", bad.p, err, bad.want)
		}
	}
}
