package replay_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/cells"
	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/internal/testheap"
	"github.com/tracereplay/tracereplay/internal/testspoil"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// skewedTrace is taskTrace(n) with clocks that disagree: some jobs' first
// map finishes before the job's submit, some reduces record no finish (nor
// start), some maps finish ten minutes after the rest, and some tasks
// record no start: task rows that Run's order (by finish) puts long before
// or after their job's neighbours. And the second job of each three
// submitted at once on a minute (taskTrace submits three every 20 s; the
// default timeline samples every minute) runs a map from 5 s before its
// submit: it counts in the sample at its submit, which a timeline that
// samples an instant before every job submitted at it is read would miss.
func skewedTrace(n int) *trace.Trace {
	tr := taskTrace(n)
	submit, index := map[string]int64{}, map[string]int{}
	for k, j := range tr.Jobs {
		submit[j.ID], index[j.ID] = j.SubmitMs, k
	}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		switch {
		case t.Type == trace.Map && t.Index == 1 && index[t.JobID]%9 == 1 && submit[t.JobID] >= 60_000:
			t.StartMs = submit[t.JobID] - 5000
		case t.Type == trace.Map && t.Index == 0 && i%5 == 3 && submit[t.JobID] >= 30_000:
			t.FinishMs = submit[t.JobID] - 20_000
			t.StartMs = t.FinishMs - 4000
		case t.Type == trace.Reduce && i%7 == 4:
			t.StartMs, t.FinishMs = -1, -1
		case t.Type == trace.Map && i%11 == 5:
			t.FinishMs += 600_000
		case t.Type.IsWork() && i%13 == 6:
			t.StartMs = -1
		}
	}
	return tr
}

// observedOut is the files of dir, by name.
func observedOut(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// heldTaskOrder is the order the observed schedule gave its task rows when
// it held them all (its sortTasks before it streamed): by finish (unknown
// last), then job, type and index.
func heldTaskOrder(tasks []replay.TaskResult) []replay.TaskResult {
	key := func(t replay.TaskResult) int64 {
		if t.FinishUs == replay.Unset {
			return math.MaxInt64
		}
		return t.FinishUs
	}
	s := slices.Clone(tasks)
	slices.SortStableFunc(s, func(a, b replay.TaskResult) int {
		if ka, kb := key(a), key(b); ka != kb {
			if ka < kb {
				return -1
			}
			return 1
		}
		if a.JobIndex != b.JobIndex {
			return int(a.JobIndex - b.JobIndex)
		}
		if a.Type != b.Type {
			if a.Type == "MAP" {
				return -1
			}
			return 1
		}
		return int(a.Index - b.Index)
	})
	return s
}

// heldTimeline is the observed timeline as it was built when the schedule
// was held (its timeline before it streamed), from the run's job and task
// rows: every task's span [launch, finish) when it has a launch and a
// finish at or after it, each job active from its submit to the end of its
// activity (its finish, its last span's end), sorted edges swept at every
// sample instant.
func heldTimeline(res *replay.Result, step int64) []replay.TimelineSample {
	type edge struct {
		t      int64
		delta  int32
		job    int32
		reduce bool
	}
	jobs := res.Jobs
	ends := make([]int64, len(jobs))
	for k, j := range jobs {
		ends[k] = max(j.SubmitUs, j.FinishUs)
	}
	var edges []edge
	for _, x := range res.Tasks {
		s, f := x.LaunchUs, x.FinishUs
		if s == replay.Unset || f < s {
			continue
		}
		ends[x.JobIndex] = max(ends[x.JobIndex], f)
		if f > s {
			r := x.Type == "REDUCE"
			edges = append(edges, edge{s, 1, x.JobIndex, r}, edge{f, -1, x.JobIndex, r})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		if a.delta != b.delta {
			return int(a.delta - b.delta)
		}
		return int(a.job - b.job)
	})
	up := func(t int64) int64 { return (t + step - 1) / step * step }
	run := make([][2]int32, len(jobs))
	var active []int
	var out []replay.TimelineSample
	next, e := 0, 0
	for t := up(jobs[0].SubmitUs); ; t += step {
		for next < len(jobs) && jobs[next].SubmitUs <= t {
			active = append(active, next)
			next++
		}
		for ; e < len(edges) && edges[e].t <= t; e++ {
			x := edges[e]
			if x.reduce {
				run[x.job][1] += x.delta
			} else {
				run[x.job][0] += x.delta
			}
		}
		active = slices.DeleteFunc(active, func(k int) bool { return ends[k] <= t })
		if len(active) == 0 {
			if next == len(jobs) {
				return out
			}
			t = up(jobs[next].SubmitUs) - step
			continue
		}
		var tm, tr int32
		for _, k := range active {
			if run[k][0]+run[k][1] > 0 {
				out = append(out, replay.TimelineSample{Policy: replay.ObservedPolicy, TimeUs: t, JobIndex: int32(k),
					RunningMaps: run[k][0], RunningReduces: run[k][1]})
				tm += run[k][0]
				tr += run[k][1]
			}
		}
		out = append(out, replay.TimelineSample{Policy: replay.ObservedPolicy, TimeUs: t, JobIndex: -1, RunningMaps: tm, RunningReduces: tr})
	}
}

// TestObservedStreamedAsHeld: the observed schedule of every real history
// (historyInputs: each file and folder of trace/testdata/{jhist,hadoop1,
// rumen,sls}, and under the full suite ../shared/traces) and of two
// synthetic ones (attemptTrace(300): failed and killed attempts; and
// skewedTrace(300): tasks that finish before their job's submit, long
// after it, or never), on the cluster derived from it and on the default
// model, read as its jobs arrive (trace.OpenTaskStream with its attempts)
// writes the same bytes as read whole, with the task rows and timeline,
// and those of the results held in memory written by WriteRun; the task
// rows held are in the order the schedule gave them when it sorted them
// all, and the timeline is the one its sweep over every task's edges built
// (heldTaskOrder, heldTimeline), with the task rows' bound (finishBounds)
// taken over 1, 2 and 16 trace jobs. The fast lane's synthetic traces have
// 150 jobs (every pattern of attemptTrace and skewedTrace, each many times:
// their replays were a third of the test's time at 300).
func TestObservedStreamedAsHeld(t *testing.T) {
	t.Parallel()
	synth := 300
	if testgate.IsFast() {
		synth = 150
	}
	attempts, skewed := fmt.Sprintf("attemptTrace(%d)", synth), fmt.Sprintf("skewedTrace(%d)", synth)
	inputs := append(historyInputs(t), attempts, skewed)
	compared := 0
	for n, in := range inputs {
		var tr *trace.Trace
		var err error
		switch in {
		case attempts:
			tr = attemptTrace(synth)
		case skewed:
			tr = skewedTrace(synth)
		default:
			if tr, _, err = trace.ReadTree(context.Background(), in, trace.TreeOptions{}); err != nil || len(tr.Jobs) == 0 || len(tr.Tasks) == 0 {
				continue // configurations, topologies, SLS SYNTH specs
			}
		}
		dir := filepath.Join(t.TempDir(), fmt.Sprint(n))
		if err := trace.Write(dir, tr); err != nil {
			t.Fatal(err)
		}
		held, err := trace.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !replay.HasObservedSchedule(held) {
			continue
		}
		streamed, ok, err := trace.OpenTaskStream(dir, trace.StreamOptions{Attempts: true})
		if err != nil || !ok {
			t.Fatalf("%s: OpenTaskStream: %v %v", in, ok, err)
		}
		base := replay.DefaultHardware()
		derived, ok, err := replay.TraceHardware(held, base)
		if err != nil {
			t.Fatal(err)
		}
		hws := []replay.Hardware{base}
		if ok {
			hws = append(hws, derived)
		}
		for h, hw := range hws {
			wHeld, wStreamed := seed1Workload(t, in, held, hw), seed1Workload(t, in, streamed, hw)
			run := func(w *replay.Workload, chunk int, out bool) (*replay.Result, string) {
				replay.SetBoundChunk(w, chunk)
				opt := replay.Options{Seed: 1, RecordTasks: true, Timeline: true, JobStats: true}
				var dir string
				if out {
					dir = t.TempDir()
					var err error
					if opt.Out, err = replay.NewRunWriter(dir); err != nil {
						t.Fatal(err)
					}
				}
				res, err := replay.Observed(w, opt)
				if err != nil {
					t.Fatalf("%s: %v", in, err)
				}
				if out {
					if err := replay.WriteRun(dir, res, nil); err != nil {
						t.Fatal(err)
					}
				}
				return res, dir
			}
			where := fmt.Sprintf("%s (cluster %q)", in, hw.Name)
			mem, _ := run(wHeld, 0, false)
			if want := heldTaskOrder(mem.Tasks); !reflect.DeepEqual(mem.Tasks, want) {
				t.Errorf("%s: task rows not in finish order", where)
			}
			if want := heldTimeline(mem, int64(hw.TimelineSample)); !reflect.DeepEqual(mem.Timeline, want) {
				t.Errorf("%s: timeline of %d rows, want the held sweep's %d", where, len(mem.Timeline), len(want))
			}
			// The files on the last cluster only (the derived one when
			// there is one): writing them is most of the test's time.
			if h == len(hws)-1 {
				memDir := t.TempDir()
				if err := replay.WriteRun(memDir, mem, nil); err != nil {
					t.Fatal(err)
				}
				want := observedOut(t, memDir)
				for _, w := range []*replay.Workload{wHeld, wStreamed} {
					_, outDir := run(w, 0, true)
					got := observedOut(t, outDir)
					for name, b := range want {
						if !bytes.Equal(got[name], b) {
							t.Errorf("%s, streamed %v: %s differs from the held results'", where, w.Trace.Stream != nil, name)
						}
					}
					if len(got) != len(want) {
						t.Errorf("%s: %d files, want %d", where, len(got), len(want))
					}
					compared++
				}
			}
			// In memory, and with the bound over fewer trace jobs, which
			// lets rows out sooner: the same rows, in the same order.
			for _, chunk := range []int{0, 1, 2} {
				for _, w := range []*replay.Workload{wHeld, wStreamed} {
					if chunk == 0 && w == wHeld {
						continue // mem
					}
					res, _ := run(w, chunk, false)
					if !reflect.DeepEqual(res.Jobs, mem.Jobs) || !reflect.DeepEqual(res.Tasks, mem.Tasks) ||
						!reflect.DeepEqual(res.Timeline, mem.Timeline) || !reflect.DeepEqual(res.Summary, mem.Summary) {
						t.Errorf("%s, streamed %v, chunk %d: results differ from the held results'", where, w.Trace.Stream != nil, chunk)
					}
					compared++
				}
			}
		}
	}
	if compared == 0 {
		t.Fatal("nothing compared")
	}
	t.Logf("%d runs compared", compared)
}

// TestObservedFinishBoundsStreamed: the task rows' bounds of a streamed
// trace, read from its tasks' span columns and its jobs beside them
// (finishBounds), are those of the trace read whole, entry for entry, over
// chunks of 1, 2, 3 and 16 trace jobs: for every real history and for
// traces whose tasks finish before their job's submit, far after the
// rest or never (skewedTrace), and where some jobs list no task.
func TestObservedFinishBoundsStreamed(t *testing.T) {
	gaps := attemptTrace(300)
	// Every fifth job without tasks: its trace position is skipped by
	// the tasks and counted by the jobs.
	gaps.Tasks = slices.DeleteFunc(gaps.Tasks, func(k trace.Task) bool {
		return slices.IndexFunc(gaps.Jobs, func(j trace.Job) bool { return j.ID == k.JobID })%5 == 2
	})
	gaps.Attempts = slices.DeleteFunc(gaps.Attempts, func(a trace.Attempt) bool {
		return slices.IndexFunc(gaps.Jobs, func(j trace.Job) bool { return j.ID == a.JobID })%5 == 2
	})
	inputs := append(historyInputs(t), "skewedTrace(300)", "gaps")
	compared, finite := 0, 0
	for n, in := range inputs {
		var tr *trace.Trace
		var err error
		switch in {
		case "skewedTrace(300)":
			tr = skewedTrace(300)
		case "gaps":
			tr = gaps
		default:
			if tr, _, err = trace.ReadTree(context.Background(), in, trace.TreeOptions{}); err != nil || len(tr.Jobs) == 0 || len(tr.Tasks) == 0 {
				continue
			}
		}
		dir := filepath.Join(t.TempDir(), fmt.Sprint(n))
		if err := trace.Write(dir, tr); err != nil {
			t.Fatal(err)
		}
		held, err := trace.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		streamed, ok, err := trace.OpenTaskStream(dir, trace.StreamOptions{Attempts: true})
		if err != nil || !ok {
			t.Fatalf("%s: OpenTaskStream: %v %v", in, ok, err)
		}
		hw := replay.DefaultHardware()
		wHeld, wStreamed := seed1Workload(t, in, held, hw), seed1Workload(t, in, streamed, hw)
		for _, chunk := range []int{1, 2, 3, 16} {
			replay.SetBoundChunk(wHeld, chunk)
			replay.SetBoundChunk(wStreamed, chunk)
			want, err := replay.FinishBounds(wHeld)
			if err != nil {
				t.Fatal(err)
			}
			got, err := replay.FinishBounds(wStreamed)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("%s, chunk %d: streamed bounds %v, %v; held %v", in, chunk, got, err, want)
			}
			if len(want) > 1 && want[0] != math.MaxInt64 {
				finite++ // bounds over more than one chunk, with a finish
			}
			compared++
		}
	}
	if compared == 0 || finite == 0 {
		t.Fatalf("%d bounds compared, %d of more than one chunk with a finish", compared, finite)
	}
	t.Logf("%d bounds compared, %d of more than one chunk with a finish", compared, finite)
}

// TestObservedStreamedGoneBad: the observed schedule of a trace directory
// whose tasks.parquet goes bad after its workload was built (an unknown
// type two thirds in) fails with bad input naming the file and the row,
// and leaves no results file in its output directory.
func TestObservedStreamedGoneBad(t *testing.T) {
	tr := skewedTrace(300)
	dir, held, streamed := streamDir(t, tr)
	hw, ok, err := replay.TraceHardware(held, replay.DefaultHardware())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	w, err := replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, trace.TasksFile)
	row := 2 * len(held.Tasks) / 3
	rewriteRow(t, path, func(rows []trace.TaskRow) { rows[row].Type = "SHUFFLE" })
	for _, tasks := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out")
		cell := replay.Cell{Dir: "observed", Policy: replay.ObservedPolicy, Hardware: hw, Seed: 1}
		_, err = cells.Run(context.Background(), cell, cells.Options{Trace: streamed, Workload: w, OutDir: out,
			Replay: replay.Options{RecordTasks: tasks, Timeline: true}})
		if want := fmt.Sprintf("%s: row %d: task %q: type \"SHUFFLE\"", path, row, held.Tasks[row].TaskID); !errors.Is(err, trace.ErrBadInput) || !strings.Contains(fmt.Sprint(err), want) {
			t.Errorf("tasks %v: %v; want bad input naming %q", tasks, err, want)
		}
		if ents, _ := os.ReadDir(out); len(ents) > 0 {
			t.Errorf("tasks %v: %d files left in the output directory (%s, ...)", tasks, len(ents), ents[0].Name())
		}
	}
}

// TestObservedStreamedPageSpoiled: the observed schedule of a trace
// directory whose tasks.parquet is spoiled in place after the trace was
// opened and its workload built fails with bad input naming the file, and
// leaves no results file in its output directory, with and without task
// rows, whether the spoiled bytes are met when the cell starts (the first
// page header, same size and modification time: the check runs again on the
// file's new version and refuses it, where the cell used to report a trace
// without a schedule) or mid-run (the last row groups' pages, spoiled when
// the cell's first job is done: parquet-go meets them as the cursor reads
// on, the check having passed the file at its open).
func TestObservedStreamedPageSpoiled(t *testing.T) {
	tr := skewedTrace(300)
	dir := filepath.Join(t.TempDir(), "trace")
	if err := trace.Write(dir, tr); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, trace.TasksFile)
	// row groups of 256 rows and batches of 64, so that the cursor reads the
	// file's pages as the run goes
	rows, meta, err := trace.ReadParquetFile[trace.TaskRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.WriteParquetFile(path, rows, meta, trace.ParquetOptions{MaxRowsPerRowGroup: 256}); err != nil {
		t.Fatal(err)
	}
	held, err := trace.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// the bytes of the last three row groups' column chunks
	pf, err := parquet.OpenFile(bytes.NewReader(orig), int64(len(orig)))
	if err != nil {
		t.Fatal(err)
	}
	rgs := pf.Metadata().RowGroups
	if len(rgs) < 6 {
		t.Fatalf("%d row groups", len(rgs))
	}
	first := &rgs[len(rgs)-3].Columns[0].MetaData
	last := &rgs[len(rgs)-1].Columns[len(rgs[len(rgs)-1].Columns)-1].MetaData
	from, to := int(first.DataPageOffset), int(last.DataPageOffset+last.TotalCompressedSize)
	if first.DictionaryPageOffset > 0 {
		from = int(first.DictionaryPageOffset)
	}
	hw, ok, err := replay.TraceHardware(held, replay.DefaultHardware())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	// spoil writes b's bytes [from, to) as 0xff in place, the file's size
	// and modification time kept.
	spoil := func(from, to int) {
		if err := testspoil.InPlace(path, int64(from), bytes.Repeat([]byte{0xff}, to-from)); err != nil {
			t.Error(err)
		}
	}
	for _, midRun := range []bool{false, true} {
		for _, tasks := range []bool{false, true} {
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			streamed, ok, err := trace.OpenTaskStream(dir, trace.StreamOptions{Batch: 64})
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			w, err := replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			opt := replay.Options{RecordTasks: tasks, Timeline: true}
			if midRun {
				opt.Observers = []replay.Observer{&spoilOnce{spoil: func() { spoil(from, to) }}}
			} else {
				// later than the clock tick of the file's last write, on a
				// kernel without fine-grained timestamps
				time.Sleep(20 * time.Millisecond)
				spoil(4, 24)
			}
			out := filepath.Join(t.TempDir(), "out")
			cell := replay.Cell{Dir: "observed", Policy: replay.ObservedPolicy, Hardware: hw, Seed: 1}
			_, err = cells.Run(context.Background(), cell, cells.Options{Trace: streamed, Workload: w, OutDir: out, Replay: opt})
			if !errors.Is(err, trace.ErrBadInput) || !strings.Contains(fmt.Sprint(err), path+": ") {
				t.Errorf("mid-run %v, tasks %v: %v; want bad input naming %s", midRun, tasks, err, path)
			} else {
				t.Logf("mid-run %v, tasks %v: %v", midRun, tasks, err)
			}
			if ents, _ := os.ReadDir(out); len(ents) > 0 {
				t.Errorf("mid-run %v, tasks %v: %d files left in the output directory (%s, ...)", midRun, tasks, len(ents), ents[0].Name())
			}
		}
	}
}

// spoilOnce calls spoil when the first job is done.
type spoilOnce struct {
	replay.NopObserver
	spoil func()
	done  bool
}

func (s *spoilOnce) JobFinished(replay.JobEvent) {
	if !s.done {
		s.done = true
		s.spoil()
	}
}

// steadyObservedTrace is n jobs one every 5 s, each of 40 maps that ran
// for 20 s from 1 s after its submit and 4 reduces from 15 s to 40 s, on
// 20 hosts: a constant load whose recorded schedule grows with n.
func steadyObservedTrace(n int) *trace.Trace {
	tr := &trace.Trace{Meta: trace.Meta{SourceFormat: "synthetic"}}
	for k := range n {
		id := fmt.Sprintf("job%05d", k)
		j := trace.NewJob(id)
		j.SubmitMs, j.FinishMs, j.Status = int64(k)*5000, int64(k)*5000+41_000, trace.StatusSucceeded
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = 40<<26, 1<<26, 1<<24
		tr.Jobs = append(tr.Jobs, j)
		add := func(typ trace.TaskType, i int, start, finish int64) *trace.Task {
			t := trace.NewTask(id, fmt.Sprintf("%s_%s_%06d", id, typ, i), typ, int32(i))
			t.Status, t.StartMs, t.FinishMs = trace.StatusSucceeded, j.SubmitMs+start, j.SubmitMs+finish
			h := (k*7 + i) % 20
			t.Host, t.Rack = fmt.Sprintf("h%02d", h), fmt.Sprintf("r%d", h/10)
			tr.Tasks = append(tr.Tasks, t)
			return &tr.Tasks[len(tr.Tasks)-1]
		}
		for i := range 40 {
			t := add(trace.Map, i, 1000, 21_000+int64(i%5)*100)
			t.InputBytes, t.OutputBytes, t.Locality = 1<<26, 1<<20, trace.NodeLocal
		}
		for i := range 4 {
			t := add(trace.Reduce, i, 15_000, 40_000)
			t.ShuffleBytes, t.OutputBytes = 1<<24, 1<<22
		}
	}
	return tr
}

// jobHeapProbe samples the live heap at every every-th finished job.
type jobHeapProbe struct {
	replay.NopObserver
	every, done int
	peak        uint64
}

func (p *jobHeapProbe) JobFinished(replay.JobEvent) {
	if p.done++; p.done%p.every == 0 {
		p.peak = max(p.peak, testheap.Live())
	}
}

// TestObservedPeakHeapFlat: the observed schedule of a trace directory
// read as its jobs arrive (trace.OpenTaskStream), with its task rows and
// timeline streamed, peaks at about the same live heap whether the trace
// holds 1,000 or 2,000 jobs of 44 tasks at a constant load: the peak above
// the heap before the trace was opened, sampled at every 16th job and when
// the run returns, may grow by at most 20%. In its own process, each size
// twice with the smaller peak kept, as TestPeakHeapFlat.
func TestObservedPeakHeapFlat(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays the observed schedule of 6,000 jobs of 44 tasks")
	if !inOwnProcess(t, "TRACEREPLAY_OBSHEAP_CHILD") {
		return
	}
	hw, err := replay.ParseHardware([]byte(`
racks = 2
nodes_per_rack = 10
map_slots = 4
reduce_slots = 2
timeline_sample = "10s"
`))
	if err != nil {
		t.Fatal(err)
	}
	peak := func(dir string, jobs int) uint64 {
		runtime.GC()
		base := testheap.Live()
		tr, ok, err := trace.OpenTaskStream(dir, trace.StreamOptions{Attempts: true})
		if err != nil || !ok || tr.Stream.NumTasks() != 44*jobs {
			t.Fatal(ok, err)
		}
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := replay.NewRunWriter(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		replay.SetRowGroup(out, 1024)
		probe := &jobHeapProbe{every: 16}
		res, err := replay.Observed(w, replay.Options{Seed: 1, RecordTasks: true, Timeline: true, Out: out,
			Observers: []replay.Observer{probe}})
		if err != nil {
			t.Fatal(err)
		}
		probe.peak = max(probe.peak, testheap.Live())
		if res.Summary.Jobs != jobs || res.Summary.Maps != int64(40*jobs) {
			t.Fatalf("%d jobs and %d maps, want %d and %d", res.Summary.Jobs, res.Summary.Maps, jobs, 40*jobs)
		}
		out.Abort()
		runtime.KeepAlive(w)
		return probe.peak - min(base, probe.peak)
	}
	smaller := func(n int) uint64 {
		dir := filepath.Join(t.TempDir(), "trace")
		if err := trace.Write(dir, steadyObservedTrace(n)); err != nil {
			t.Fatal(err)
		}
		return min(peak(dir, n), peak(dir, n))
	}
	p1, p2 := smaller(1000), smaller(2000)
	t.Logf("peak live heap above the start: 44,000 tasks %.2f MB, 88,000 tasks %.2f MB", float64(p1)/1e6, float64(p2)/1e6)
	if float64(p2) > 1.2*float64(p1) {
		t.Errorf("peak heap grew from %d to %d bytes (%.0f%%) when the trace's tasks doubled at constant load",
			p1, p2, 100*(float64(p2)/float64(p1)-1))
	}
}

// seed1Workload is tr's workload on hw with seed 1, incomplete jobs
// included; in names the trace in a failure.
func seed1Workload(t *testing.T, in string, tr *trace.Trace, hw replay.Hardware) *replay.Workload {
	t.Helper()
	w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{IncludeIncomplete: true})
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	return w
}
