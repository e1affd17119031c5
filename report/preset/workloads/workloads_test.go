package workloads

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/internal/cputime"
	"github.com/tracereplay/tracereplay/trace"
)

// TestGenerators: the registry lists every generator once, sorted by name,
// each with a doc line, and Generate refuses an unknown name with the list.
func TestGenerators(t *testing.T) {
	var names []string
	for _, g := range Generators() {
		if g.Doc == "" || g.Make == nil {
			t.Errorf("generator %s: no doc or no Make", g.Name)
		}
		names = append(names, g.Name)
	}
	want := []string{"coupling-batches", "coupling-grep", "coupling-single", "coupling-table3", "coupling-table4",
		"coupling-twojobs", "coupling-wordcount", "eas-table1", "hybsmrp", "swim-resample", "synthetic"}
	if !slices.Equal(names, want) {
		t.Errorf("generators %v, want %v", names, want)
	}
	_, err := Generate("nope", nil, 1)
	if err == nil || err.Error() != `unknown generator "nope"; valid generators: `+strings.Join(want, ", ") {
		t.Errorf("unknown generator: error %v", err)
	}
	tr, err := Generate("coupling-grep", trace.GenParams{"jobs": int64(2)}, 3)
	if err != nil {
		t.Fatal(err)
	}
	m := tr.Meta
	if m.SourceFormat != "synthetic" || m.Options["generator"] != "coupling-grep" || m.Options["seed"] != "3" || m.Options["jobs"] != "2" {
		t.Errorf("generated trace's metadata %+v", m)
	}
}

// TestGeneratedTaskIDs: the paper generators name tasks as Hadoop does, by job,
// kind and six-digit index (job_01_m_000000).
func TestGeneratedTaskIDs(t *testing.T) {
	for _, gen := range []string{"eas-table1", "coupling-twojobs"} {
		tr, err := Generate(gen, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Tasks[0].TaskID != "job_01_m_000000" {
			t.Errorf("%s: first task %s, want job_01_m_000000", gen, tr.Tasks[0].TaskID)
		}
		for _, k := range tr.Tasks {
			kind := map[trace.TaskType]string{trace.Map: "m", trace.Reduce: "r"}[k.Type]
			if want := fmt.Sprintf("%s_%s_%06d", k.JobID, kind, k.Index); k.TaskID != want {
				t.Fatalf("%s: task %s, want %s", gen, k.TaskID, want)
			}
		}
	}
}

// TestGeneratorsTakeStrings: every generator reads its parameters from the
// command line's strings as it reads them from TOML numbers.
func TestGeneratorsTakeStrings(t *testing.T) {
	for _, c := range []struct {
		gen       string
		toml, cli trace.GenParams
	}{
		{"coupling-grep", trace.GenParams{"jobs": int64(3), "interval_s": 20.5}, trace.GenParams{"jobs": "3", "interval_s": "20.5"}},
		{"coupling-batches", trace.GenParams{"batches": int64(2), "gap_s": int64(3)}, trace.GenParams{"batches": "2", "gap_s": "3"}},
		{"hybsmrp", trace.GenParams{"jobs": int64(4), "mean_interarrival": 2.0}, trace.GenParams{"jobs": "4", "mean_interarrival": "2"}},
		{"eas-table1", trace.GenParams{"window_s": int64(10), "block_mb": 64.0}, trace.GenParams{"window_s": "10", "block_mb": "64"}},
		{"synthetic", trace.GenParams{"jobs": int64(5), "maps_mean": int64(3)}, trace.GenParams{"jobs": "5", "maps_mean": "3"}},
	} {
		a, err := Generate(c.gen, c.toml, 1)
		if err != nil {
			t.Fatalf("%s %v: %v", c.gen, c.toml, err)
		}
		b, err := Generate(c.gen, c.cli, 1)
		if err != nil {
			t.Fatalf("%s %v: %v", c.gen, c.cli, err)
		}
		if !reflect.DeepEqual(a.Jobs, b.Jobs) || !reflect.DeepEqual(a.Tasks, b.Tasks) {
			t.Errorf("%s: strings %v give another trace than numbers %v", c.gen, c.cli, c.toml)
		}
	}
}

// TestGeneratorLimits (issue 10, item 6): paper generator parameters asking
// for more tasks than trace.MaxGenTasks, or for more input than a job may
// have, are refused before anything is generated (trace checks the synthetic
// generator's).
func TestGeneratorLimits(t *testing.T) {
	for _, tc := range []struct {
		gen  string
		p    trace.GenParams
		want string
	}{
		{"coupling-grep", trace.GenParams{"jobs": int64(100000), "maps": int64(100000)}, "more than the limit of 800000"},
		{"coupling-batches", trace.GenParams{"batches": int64(100000), "per_batch": int64(100000)}, "more than the limit of 800000"},
		{"hybsmrp", trace.GenParams{"maps": int64(1e6), "block_mb": int64(1 << 20)}, "want at most 1073741824 MB of input per job"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := cputime.Process()
		_, err := Generate(tc.gen, tc.p, 1)
		d := cputime.Process() - start
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", tc.gen, tc.p, err, tc.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; d > 2*time.Second || alloc > 700<<20 {
			t.Errorf("%s %v: refused after %v, %d MB", tc.gen, tc.p, d, alloc>>20)
		}
	}
}
