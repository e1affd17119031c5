package trace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// fb2010 reads the FB-2010 SWIM trace (24,442 jobs, no tasks).
func fb2010(b *testing.B) *Trace {
	data, err := os.ReadFile(filepath.Join(swimDir(b), "FB-2010_samples_24_times_1hr_0.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	t, err := ReadSWIM("fb2010", bytes.NewReader(data), ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// taskTrace builds a deterministic trace of jobs×(maps+reduces) tasks with every
// field set, like a parsed job history.
func taskTrace(jobs, maps, reduces int) *Trace {
	rng := rand.New(rand.NewPCG(7, 11))
	t := &Trace{Meta: Meta{SourceFormat: "synthetic", Sources: []string{"bench"}}}
	for i := range jobs {
		j := NewJob(fmt.Sprintf("job_201001010000_%04d", i))
		j.Name, j.User, j.Queue, j.Status = "bench", fmt.Sprintf("user%d", i%17), "default", StatusSucceeded
		j.SubmitMs = int64(i) * 1000
		j.LaunchMs, j.FinishMs = j.SubmitMs+100, j.SubmitMs+100000
		j.NumMaps, j.NumReduces = int32(maps), int32(reduces)
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = int64(maps)<<27, int64(maps)<<20, 1<<20
		t.Jobs = append(t.Jobs, j)
		for k := range maps + reduces {
			typ, idx := Map, k
			if k >= maps {
				typ, idx = Reduce, k-maps
			}
			task := NewTask(j.ID, fmt.Sprintf("task_%d_%d", i, k), typ, int32(idx))
			task.InputBytes, task.OutputBytes = 1<<27, 1<<20
			task.Status, task.StartMs, task.FinishMs = StatusSucceeded, j.LaunchMs+rng.Int64N(1000), j.FinishMs-rng.Int64N(1000)
			h := rng.IntN(1000)
			task.Host, task.Rack, task.Locality = fmt.Sprintf("node%d", h), fmt.Sprintf("/rack%d", h/40), NodeLocal
			if typ == Map {
				task.PreferredHosts = []string{task.Host, fmt.Sprintf("node%d", rng.IntN(1000)), fmt.Sprintf("node%d", rng.IntN(1000))}
				task.PreferredRacks = []string{task.Rack, "/rack1", "/rack2"}
			}
			t.Tasks = append(t.Tasks, task)
		}
	}
	return t
}

func benchWrite(b *testing.B, t *Trace) {
	dir := filepath.Join(b.TempDir(), "trace")
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(dir, t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(t.Jobs)+len(t.Tasks))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func benchRead(b *testing.B, t *Trace) {
	dir := filepath.Join(b.TempDir(), "trace")
	if err := Write(dir, t); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(t.Jobs)+len(t.Tasks))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkWriteFB2010(b *testing.B)    { benchWrite(b, fb2010(b)) }
func BenchmarkReadFB2010(b *testing.B)     { benchRead(b, fb2010(b)) }
func BenchmarkWrite100kTasks(b *testing.B) { benchWrite(b, taskTrace(1000, 80, 20)) }
func BenchmarkRead100kTasks(b *testing.B)  { benchRead(b, taskTrace(1000, 80, 20)) }
