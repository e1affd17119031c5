// Command bigtrace writes a large history-like trace directory (jobs.parquet,
// tasks.parquet, attempts.parquet) with trace.Write, to measure trace mode's
// memory and CPU on more tasks than any shared history has
// (docs/performance.md, "Trace mode read as jobs arrive (h-tracestream)"):
//
//	go run ./scripts/bigtrace -jobs 20000 -out /tmp/big
//
// Job k is submitted 15 s after job k-1, with 40 to 160 maps (mean 100) and
// 2 to 16 reduces, a setup and a cleanup task, on hosts of racks of 20
// (-hosts); each map has three preferred hosts (its own and two others).
// Every task has its successful attempt; each 10th task (by position) that
// is a map or reduce has a failed attempt on another host before it, each
// 25th that is a map a killed copy beside it. With -lags every map and
// reduce has a launch lag (trace.Task.LaunchLagMs) before its start, as a
// JobTracker history records, so that trace mode measures the part of each
// lag its host had no free slot (replay/tracemode_slotwait.go): 0.2 to 2.9
// s, except reduces 4, 9 and 14 of a job, assigned, as the reduces start,
// to the host of the reduce before them (a host runs one reduce at a time
// in this trace) and started 11 ms after that one ends, their lag that
// wait (the Gridmix traces' reduces assigned to a full TaskTracker,
// docs/validation.md, "The Gridmix tail (h-gridtail)"). The output is deterministic: the same flags
// write the same trace.
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/tracereplay/tracereplay/trace"
)

func main() {
	jobs := flag.Int("jobs", 20000, "jobs to write")
	hosts := flag.Int("hosts", 400, "hosts, in racks of 20")
	out := flag.String("out", "", "trace directory to write")
	lags := flag.Bool("lags", false, "give every map and reduce a launch lag (some reduces assigned to a full host)")
	flag.Parse()
	if *out == "" || *jobs < 1 || *hosts < 20 {
		log.Fatal("usage: bigtrace -out DIR [-jobs N] [-hosts H >= 20]")
	}
	if err := trace.Write(*out, build(*jobs, *hosts, *lags)); err != nil {
		log.Fatal(err)
	}
}

// build is the trace of n jobs on h hosts, with launch lags when lags.
func build(n, h int, lags bool) *trace.Trace {
	tr := &trace.Trace{Meta: trace.Meta{SourceFormat: "synthetic"}}
	host := func(i int) (string, string) {
		i %= h
		return fmt.Sprintf("node%04d", i), fmt.Sprintf("/rack%02d", i/20)
	}
	for k := range n {
		j := trace.NewJob(fmt.Sprintf("job_201101010000_%05d", k))
		j.SubmitMs, j.LaunchMs, j.Status = int64(k)*15_000, int64(k)*15_000+500, trace.StatusSucceeded
		j.User, j.Queue = fmt.Sprintf("u%d", k%7), "default"
		maps, reduces := 40+(k*37)%121, 2+k%15
		j.NumMaps, j.NumReduces = int32(maps), int32(reduces)
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = int64(maps)<<26, int64(maps)<<22, int64(reduces)<<24
		last := j.SubmitMs
		var failed, killed int32
		add := func(typ trace.TaskType, i int, start, dur int64, hi int) {
			t := trace.NewTask(j.ID, fmt.Sprintf("task_201101010000_%05d_%s_%06d", k, typ, i), typ, int32(i))
			t.Status, t.StartMs, t.FinishMs = trace.StatusSucceeded, start, start+dur
			t.Host, t.Rack = host(hi)
			if lags && typ.IsWork() {
				t.LaunchLagMs = 200 + int64((k*13+i*7)%10)*300
			}
			switch typ {
			case trace.Map:
				t.InputBytes, t.OutputBytes = 64<<20, 4<<20
				h1, r1 := host(hi + 1)
				h2, r2 := host(hi + h/2)
				t.PreferredHosts, t.PreferredRacks = []string{t.Host, h1, h2}, []string{t.Rack, r1, r2}
				t.Locality = trace.NodeLocal
			case trace.Reduce:
				t.ShuffleBytes, t.OutputBytes = int64(maps)<<22/int64(reduces), 16<<20
				t.ShuffleFinishMs = start + dur/2
			}
			tr.Tasks = append(tr.Tasks, t)
			last = max(last, t.FinishMs)
			att := func(a int, status string, start, finish int64, hi int) {
				x := trace.NewAttempt(j.ID, t.TaskID, fmt.Sprintf("attempt_201101010000_%05d_%s_%06d_%d", k, typ, i, a), typ)
				x.Status, x.StartMs, x.FinishMs = status, start, finish
				x.Host, x.Rack = host(hi)
				if typ == trace.Reduce && status == trace.StatusSucceeded {
					x.ShuffleFinishMs = t.ShuffleFinishMs
				}
				tr.Attempts = append(tr.Attempts, x)
			}
			n := len(tr.Tasks)
			if typ.IsWork() && n%10 == 0 {
				att(0, trace.StatusFailed, start-2500, start-1000, hi+3)
				failed++
			}
			att(1, trace.StatusSucceeded, t.StartMs, t.FinishMs, hi)
			if typ == trace.Map && n%25 == 0 {
				att(2, trace.StatusKilled, start+500, t.FinishMs-100, hi+7)
				killed++
			}
		}
		base := k * 131
		add(trace.Setup, 0, j.LaunchMs+1000, 800, base)
		for i := range maps {
			add(trace.Map, i, j.LaunchMs+4000+int64(i/20)*12_000, 8000+int64((k+i)%9)*1000, base+i*7)
		}
		for i := range reduces {
			start, dur, hi := j.LaunchMs+20_000, 40_000+int64(i%5)*3000, base+i*11+5
			if lags && i%5 == 4 {
				// Assigned at the reduces' start to reduce i-1's host,
				// whose one reduce slot that holds: it starts 11 ms
				// after i-1 ends, its lag the wait.
				prev := &tr.Tasks[len(tr.Tasks)-1]
				start, hi = prev.FinishMs+11, base+(i-1)*11+5
			}
			add(trace.Reduce, i, start, dur, hi)
			if lags && i%5 == 4 {
				tr.Tasks[len(tr.Tasks)-1].LaunchLagMs = start - (j.LaunchMs + 20_000)
			}
		}
		add(trace.Cleanup, 0, last+500, 700, base)
		j.FinishMs = last + 1500
		j.FailedAttempts, j.KilledAttempts = failed, killed
		tr.Jobs = append(tr.Jobs, j)
	}
	tr.Sort()
	return tr
}
