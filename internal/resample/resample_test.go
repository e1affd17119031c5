package resample

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testtraces"
	"github.com/tracereplay/tracereplay/trace"
)

// TestResampleByHand: five jobs in blocks of 10 s, resampled to 60 s.
//
// Source: A at 0 s, B at 3 s (block 0), C at 12 s (block 1), D at 25 s and E
// at 32 s (block 2: the last submit, 32 s, rounds to 3 blocks, so E, past
// the last whole block, belongs to block 2 with offset 12 s). 60 s is 6
// output blocks, two periods of 3. Seed 1's stream (PCG(1, 1)) draws the
// orders [0 1 2] and [1 0 2], so:
//
//	period 0: block 0 ← 0 (shift 0):  A 0, B 3; block 1 ← 1: C 12; block 2 ← 2: D 25, E 32
//	period 1: block 3 ← 1 (shift 20): C 32; block 4 ← 0 (shift 40): A 40, B 43;
//	          block 5 ← 2 (shift 30): D 55, E 62
//
// E (output block 2) and C (output block 3) tie at 32 s: block order first.
func TestResampleByHand(t *testing.T) {
	r := rand.New(rand.NewPCG(1, streamBlocks))
	if a, b := r.Perm(3), r.Perm(3); !slices.Equal(a, []int{0, 1, 2}) || !slices.Equal(b, []int{1, 0, 2}) {
		t.Fatalf("PCG(1, %d) draws %v %v: the hand-worked orders below assume [0 1 2] [1 0 2]", streamBlocks, a, b)
	}
	src := []trace.Job{}
	for _, j := range []struct {
		id string
		s  int64
		in int64
	}{{"A", 0, 1}, {"B", 3, 2}, {"C", 12, 3}, {"D", 25, 4}, {"E", 32, 5}} {
		x := trace.NewJob(j.id)
		x.SubmitMs, x.InputBytes = j.s*1000, j.in
		src = append(src, x)
	}
	jobs, err := Resample(src, 60, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, j := range jobs {
		got = append(got, j.Name+" "+itoa(j.SubmitMs/1000))
		if j.ID != "job"+itoa(int64(i)) {
			t.Errorf("job %d: id %s", i, j.ID)
		}
		if j.InputBytes != int64(j.Name[0]-'A'+1) {
			t.Errorf("job %d (%s): input %d, want the source's", i, j.Name, j.InputBytes)
		}
	}
	want := "A 0, B 3, C 12, D 25, E 32, C 32, A 40, B 43, D 55, E 62"
	if s := strings.Join(got, ", "); s != want {
		t.Errorf("resampled\n %s\nwant\n %s", s, want)
	}
}

func itoa(v int64) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

// TestResampleFB2010: three days of FB-2010 hold every source job exactly
// three times (each day is a permutation of the source's hours), so the job
// count and bytes are exactly three times the source's; the same seed gives
// the same trace, another seed another order. The source is read from an
// ingested dataset (the SWIM file is read in TestResampleSWIMFile).
func TestResampleFB2010(t *testing.T) {
	src := testtraces.SWIM(t, "FB-2010_samples_24_times_1hr_0.tsv")
	path := filepath.Join(t.TempDir(), "fb2010")
	if err := trace.Write(path, src); err != nil {
		t.Fatal(err)
	}
	gen := Generator()
	a, err := gen.Generate(trace.GenParams{"trace": path, "days": "3"}, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Jobs) != 3*len(src.Jobs) || len(a.Tasks) != 0 {
		t.Fatalf("%d jobs and %d tasks, want %d and none", len(a.Jobs), len(a.Tasks), 3*len(src.Jobs))
	}
	seen := map[string]int{}
	var in, srcIn int64
	for i, j := range a.Jobs {
		seen[j.Name]++
		in += j.InputBytes
		if i > 0 && j.SubmitMs < a.Jobs[i-1].SubmitMs {
			t.Fatalf("job %d submitted before job %d", i, i-1)
		}
	}
	for _, j := range src.Jobs {
		srcIn += j.InputBytes
		if seen[j.ID] != 3 {
			t.Fatalf("source job %s appears %d times, want 3", j.ID, seen[j.ID])
		}
	}
	if in != 3*srcIn {
		t.Errorf("input bytes %d, want 3 × %d", in, srcIn)
	}
	b, _ := gen.Generate(trace.GenParams{"trace": path, "days": "3"}, 7)
	c, _ := gen.Generate(trace.GenParams{"trace": path, "days": "3"}, 8)
	if !slices.Equal(a.Jobs, b.Jobs) {
		t.Error("seed 7 twice: different traces")
	}
	if slices.Equal(a.Jobs, c.Jobs) {
		t.Error("seeds 7 and 8: the same trace")
	}
}

// TestResampleSWIMFile: a SWIM file is read as ingest reads it.
func TestResampleSWIMFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.tsv")
	if err := os.WriteFile(path, []byte("job0\t0\t0\t10\t0\t0\njob1\t5\t5\t20\t0\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Generator().Generate(trace.GenParams{"trace": path, "days": "1", "block_s": "10"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// 1 block (5 s rounds to 0, at least 1) repeated 8,640 times.
	if len(tr.Jobs) != 2*8640 || tr.Jobs[1].Name != "job1" || tr.Jobs[1].SubmitMs != 5000 || tr.Jobs[3].SubmitMs != 15000 {
		t.Errorf("%d jobs, second %+v, fourth at %d ms", len(tr.Jobs), tr.Jobs[1], tr.Jobs[3].SubmitMs)
	}
}

// TestResampleBadParams: each bad parameter is named in the error.
func TestResampleBadParams(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks")
	tr := &trace.Trace{Jobs: []trace.Job{trace.NewJob("j1")}}
	tr.Jobs[0].SubmitMs = 0
	tr.Tasks = []trace.Task{trace.NewTask("j1", "j1_m_000000", trace.Map, 0)}
	if err := trace.Write(tasks, tr); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    trace.GenParams
		want string
	}{
		{trace.GenParams{}, "trace: missing"},
		{trace.GenParams{"trace": filepath.Join(dir, "nope")}, "trace = " + filepath.Join(dir, "nope")},
		{trace.GenParams{"trace": tasks}, "task rows: want a job-level trace"},
		{trace.GenParams{"trace": tasks, "days": "0"}, "days = 0: want an integer in [1, 3660]"},
		{trace.GenParams{"trace": tasks, "days": "1.5"}, "days = 1.5"},
		{trace.GenParams{"trace": tasks, "block_s": "x"}, "block_s = x"},
		{trace.GenParams{"trace": tasks, "hours": "3"}, "unknown parameter hours"},
	} {
		_, err := Generator().Generate(c.p, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to say %q", c.p, err, c.want)
		}
	}
}
