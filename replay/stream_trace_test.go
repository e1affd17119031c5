package replay_test

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// streamedTrace writes jobs as a job-level trace directory and returns it
// read whole and opened for streaming (with opt's Batch, if given).
func streamedTrace(t *testing.T, jobs []trace.Job, opt ...trace.StreamOptions) (held, streamed *trace.Trace) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "trace")
	if err := trace.Write(dir, &trace.Trace{Jobs: jobs, Meta: trace.Meta{SourceFormat: "swim"}}); err != nil {
		t.Fatal(err)
	}
	held, err := trace.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	streamed, ok, err := trace.OpenJobStream(dir)
	if len(opt) > 0 {
		// A trace without tasks: OpenTaskStream opens it as OpenJobStream
		// does, with opt's batch size.
		streamed, ok, err = trace.OpenTaskStream(dir, opt...)
	}
	if err != nil || !ok || streamed.Stream.HasTasks() {
		t.Fatalf("OpenJobStream: %v %v", ok, err)
	}
	return held, streamed
}

// mixedJobs is n jobs of one to 40 blocks, a few every minute, some
// incomplete (left out of the replay), some at one instant.
func mixedJobs(n int) []trace.Job {
	var jobs []trace.Job
	for k := range n {
		j := trace.NewJob(fmt.Sprintf("job%05d", k))
		j.SubmitMs, j.Status = int64(k/3)*20_000, trace.StatusSucceeded
		if k%17 == 5 {
			j.Status = trace.StatusIncomplete
		}
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = int64(1+k%40)<<26, int64(k%9)<<24, 1<<20
		j.User, j.Queue = fmt.Sprintf("u%d", k%4), "default"
		jobs = append(jobs, j)
	}
	return jobs
}

// TestStreamedTraceReplaysAsHeld: a job-level trace read as its jobs arrive
// replays to the same results as the same trace read whole, under the
// engine's arrival paths (arrivals apart from the event queue, and in it
// under network = "flow"), with the lifecycle and with --alone's one-job
// workloads; its identity and its workload's checks are the same too.
func TestStreamedTraceReplaysAsHeld(t *testing.T) {
	// 5,000 jobs: one 4,096-row batch crossed; the fast lane's stream reads
	// batches of 512 rows from an eighth of the jobs, and crosses one too.
	jobs, opt := 5000, trace.StreamOptions{}
	if testgate.IsFast() {
		jobs, opt.Batch = 5000/8, 4096/8
	}
	held, streamed := streamedTrace(t, mixedJobs(jobs), opt)
	if b := cmp.Or(opt.Batch, 4096); streamed.Stream.Len() <= b {
		t.Fatalf("%d jobs: a batch of %d rows not crossed", streamed.Stream.Len(), b)
	}
	if a, b := replay.TraceSHA256(held), replay.TraceSHA256(streamed); a != b || a == "" {
		t.Fatalf("TraceSHA256: held %s, streamed %s", a, b)
	}
	base := streamHardware
	for _, c := range []struct {
		name, extra, policy string
		alone               bool
		jobs                int // replayed: the first ones only, when fewer than all
	}{
		{"fair", "", "fair", false, 0},
		{"fifo topology", `shuffle = "topology"`, "fifo", false, 0},
		{"flow", "network = \"flow\"\nmap_compute_mb_per_s = 40", "fair", false, 600},
		{"lifecycle", "lifecycle = true", "fair", false, 0},
		{"alone", "", "fifo", true, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			hw, err := replay.ParseHardware([]byte(base + c.extra))
			if err != nil {
				t.Fatal(err)
			}
			h, s := held, streamed
			if c.alone && testgate.IsFast() {
				c.jobs /= 4 // a run a job, twice: the fast lane's 75 jobs have 5 incomplete ones
			}
			if c.jobs > 0 {
				h, s = streamedTrace(t, mixedJobs(c.jobs))
			}
			replaysAsHeld(t, hw, c.policy, h, s, c.alone)
		})
	}
}

// TestStreamedTraceRefusedAsHeld: the workload's checks refuse a streamed
// trace with a held one's errors (as the code before streaming worded them, in
// the same order): the per-hour and total task limits, a
// job's synthesized maps, a container no node holds.
func TestStreamedTraceRefusedAsHeld(t *testing.T) {
	held, streamed := streamedTrace(t, mixedJobs(3000))
	big := mixedJobs(3000)
	big[2000].InputBytes = 1 << 62
	bigHeld, bigStreamed := streamedTrace(t, big)
	big[2500].MapMemoryMB = 1 << 20 // after the job of too many maps: a held trace's containers are checked first
	yarnHeld, yarnStreamed := streamedTrace(t, big)
	hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	yarn, err := replay.ParseHardware([]byte("cluster = \"yarn\"\nracks = 1\nnodes_per_rack = 2\nnode_memory_mb = 8192\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		hw        *replay.Hardware
		h, s      *trace.Trace
		opt       replay.WorkloadOptions
		wantError bool
		want      string // in the error
	}{
		{"per hour", &hw, held, streamed, replay.WorkloadOptions{MaxTasksPerHour: 900}, true, "the 81 jobs submitted within an hour from job job00000 (0 s) to job job00085 (560 s) have 902 tasks"},
		{"total", &hw, held, streamed, replay.WorkloadOptions{MaxTasks: 20_000}, true, "the first 1688 jobs, to job job01793, have 20003 tasks"},
		{"synthesized maps, then the limits", &hw, bigHeld, bigStreamed, replay.WorkloadOptions{MaxTasksPerHour: 900}, true, "job job02000: 4611686018427387904 input bytes"},
		{"yarn container", &yarn, yarnHeld, yarnStreamed, replay.WorkloadOptions{}, true, "job job02500: its map container"},
		{"yarn", &yarn, held, streamed, replay.WorkloadOptions{}, false, ""},
		{"incomplete too", &hw, held, streamed, replay.WorkloadOptions{IncludeIncomplete: true}, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			wh, eh := replay.NewWorkload(c.h, c.hw, replay.NewTopology(c.hw, 1), 1, c.opt)
			ws, es := replay.NewWorkload(c.s, c.hw, replay.NewTopology(c.hw, 1), 1, c.opt)
			if (eh != nil) != c.wantError || fmt.Sprint(eh) != fmt.Sprint(es) || eh != nil && !strings.Contains(eh.Error(), c.want) {
				t.Fatalf("held: %v\nstreamed: %v", eh, es)
			}
			if eh == nil && wh.Len() != ws.Len() {
				t.Fatalf("held %d jobs, streamed %d", wh.Len(), ws.Len())
			}
		})
	}
}

// streamHardware is the small slot cluster the streamed-trace tests replay
// on (2 racks of 8 nodes, 2 map and 1 reduce slot each).
const streamHardware = `
racks = 2
nodes_per_rack = 8
map_slots = 2
reduce_slots = 1
timeline_sample = "30s"
`
