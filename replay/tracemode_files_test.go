package replay_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// historyInputs lists the real job histories: each file of trace/testdata's
// jhist, hadoop1, rumen and sls folders (always there) and of
// ../shared/traces/{jhist,hadoop1,rumen,sls} when present (not in -short mode),
// plus each folder as a whole, as ingest reads a tree.
func historyInputs(t *testing.T) []string {
	t.Helper()
	var roots []string
	for _, sub := range []string{"jhist", "hadoop1", "rumen", "sls"} {
		roots = append(roots, filepath.Join("..", "trace", "testdata", sub))
		shared := filepath.Join("..", "..", "shared", "traces", sub)
		if _, err := os.Stat(shared); err == nil && testgate.Enabled(testgate.Full) {
			roots = append(roots, shared)
		}
	}
	var out []string
	for _, root := range roots {
		out = append(out, root)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestEveryHistoryEveryPolicy ingests every real history and replays it through
// every registered policy with the invariants checked: on the cluster derived
// from it (split locations as replicas, factor and bandwidth locality models)
// and on a hardware model (placed replicas), incomplete jobs included; and
// builds its observed row. Files that hold no job (configurations, topologies,
// SLS SYNTH specs) are skipped.
func TestEveryHistoryEveryPolicy(t *testing.T) {
	replayed := 0
	for _, in := range historyInputs(t) {
		tr, _, err := trace.ReadTree(context.Background(), in, trace.TreeOptions{})
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if len(tr.Jobs) == 0 {
			continue
		}
		replayed++
		t.Run(strings.TrimPrefix(in, "../"), func(t *testing.T) {
			base := replay.DefaultHardware()
			derived, ok, err := replay.TraceHardware(tr, base)
			if err != nil || !ok {
				t.Fatalf("no cluster derived: %v %v", ok, err)
			}
			bw := derived
			bw.TraceLocality = "bandwidth"
			for _, hw := range []replay.Hardware{derived, bw, base} {
				w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 3), 3, replay.WorkloadOptions{IncludeIncomplete: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range policy.NamesFor(replay.ClusterSlots) {
					res, err := replay.Run(w, mustPolicy(t, name), replay.Options{Seed: 3, CheckInvariants: true, Timeline: true,
						Workload: replay.WorkloadOptions{IncludeIncomplete: true}})
					if err != nil {
						t.Errorf("%s on %s/%s: %v", name, hw.Name, hw.TraceLocality, err)
					} else if len(res.Jobs) != w.Len() {
						t.Errorf("%s on %s: %d of %d jobs", name, hw.Name, len(res.Jobs), w.Len())
					}
				}
				if replay.HasObservedSchedule(tr) {
					checkObserved(t, w, tr)
				}
			}
		})
	}
	if replayed < 10 {
		t.Errorf("only %d inputs replayed", replayed)
	}
}

// checkObserved builds the observed row and checks it against the trace: one
// row per replayed job, flowtime = finish − submit from the trace, no negative
// starvation or counts (what report refuses to read).
func checkObserved(t *testing.T, w *replay.Workload, tr *trace.Trace) {
	t.Helper()
	res, err := replay.Observed(w, replay.Options{RecordTasks: true, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != w.Len() {
		t.Fatalf("observed: %d jobs of %d", len(res.Jobs), w.Len())
	}
	byID := map[string]*trace.Job{}
	for i := range tr.Jobs {
		byID[tr.Jobs[i].ID] = &tr.Jobs[i]
	}
	for _, r := range res.Jobs {
		j := byID[r.JobID]
		want := int64(replay.Unset)
		if j.FinishMs >= j.SubmitMs {
			want = (j.FinishMs - j.SubmitMs) * 1000
		}
		if r.FlowtimeUs != want || r.StarvationUs < 0 || r.MapsNodeLocal+r.MapsRackLocal+r.MapsOffRack > r.Maps {
			t.Errorf("observed job %s: flowtime %d (want %d), starvation %d, locality %d/%d/%d of %d maps",
				r.JobID, r.FlowtimeUs, want, r.StarvationUs, r.MapsNodeLocal, r.MapsRackLocal, r.MapsOffRack, r.Maps)
		}
	}
}

// TestDerivedClusterRealFile checks the cluster derived from a real Hadoop 1
// history against the file itself: every host a task ran on or a split names is
// a node exactly once, on the rack the trace gives it; racks and hosts are in
// natural name order; and the slots equal the largest number of maps (reduces)
// any host ran at once, counted here by brute force.
func TestDerivedClusterRealFile(t *testing.T) {
	tr, _, err := trace.ReadTree(context.Background(), filepath.Join("..", "trace", "testdata", "hadoop1", "v20-single-input-log.gz"), trace.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hw, ok, err := replay.TraceHardware(tr, replay.DefaultHardware())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	topo := replay.NewTopology(&hw, 1)
	rackOf := map[string]string{}
	for _, k := range tr.Tasks {
		if k.Host != "" {
			rackOf[k.Host] = k.Rack
		}
		for i, h := range k.PreferredHosts {
			rackOf[h] = k.PreferredRacks[i]
		}
	}
	if len(topo.Nodes) != len(rackOf) {
		t.Errorf("%d nodes for %d hosts", len(topo.Nodes), len(rackOf))
	}
	for h, r := range rackOf {
		n, ok := topo.HostNode(h)
		if !ok || topo.RackNames[topo.Nodes[n].Rack] != r {
			t.Errorf("host %s (rack %s): node %d %v", h, r, n, ok)
		}
	}
	for i := 1; i < len(topo.Nodes); i++ {
		a, b := topo.Nodes[i-1], topo.Nodes[i]
		if a.Rack > b.Rack || a.Rack == b.Rack && trace.CompareIDs(a.Host, b.Host) >= 0 {
			t.Errorf("nodes %s and %s out of order", a.Host, b.Host)
		}
	}
	if !slices.IsSortedFunc(topo.RackNames, trace.CompareIDs) {
		t.Errorf("racks out of order: %v", topo.RackNames)
	}
	// every attempt holds a slot: a map slot for maps and for setup and
	// cleanup tasks with an _m_ id, else a reduce slot
	slot := func(a trace.Attempt) int {
		if a.Type == trace.Reduce || !a.Type.IsWork() && strings.Contains(a.TaskID, "_r_") {
			return 1
		}
		return 0
	}
	peak := [2]int{1, 1}
	for _, a := range tr.Attempts {
		if a.Host == "" || a.StartMs < 0 || a.FinishMs <= a.StartMs {
			continue
		}
		n := 0
		for _, b := range tr.Attempts {
			if b.Host == a.Host && slot(b) == slot(a) && b.StartMs <= a.StartMs && a.StartMs < b.FinishMs {
				n++
			}
		}
		peak[slot(a)] = max(peak[slot(a)], n)
	}
	if len(tr.Attempts) == 0 || !hw.Lifecycle {
		t.Errorf("%d attempts, lifecycle %v: want attempts and the lifecycle on", len(tr.Attempts), hw.Lifecycle)
	}
	if hw.MapSlots != peak[0] || hw.ReduceSlots != peak[1] || hw.Racks != len(topo.RackNames) {
		t.Errorf("slots %d/%d, want %d/%d; %d racks", hw.MapSlots, hw.ReduceSlots, peak[0], peak[1], hw.Racks)
	}
	// The same trace derives the same cluster, and replays identically.
	hw2, _, _ := replay.TraceHardware(tr, replay.DefaultHardware())
	if !reflect.DeepEqual(hw, hw2) {
		t.Error("two derivations differ")
	}
	run := func() *replay.Result {
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 5), 5, replay.WorkloadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := replay.Run(w, mustPolicy(t, "fair"), replay.Options{Seed: 5, CheckInvariants: true, RecordTasks: true, Timeline: true})
		if err != nil {
			t.Fatal(err)
		}
		res.Wall = 0
		return res
	}
	if !reflect.DeepEqual(run(), run()) {
		t.Error("two replays on the derived cluster differ")
	}
}

// TestDerivedClusterConf: slots per node come from the job confs when they
// name them, else from peak concurrency; a conf naming the Capacity scheduler
// sets its default init poll interval and one init thread per queue (at most
// 5); the lifecycle is on.
func TestDerivedClusterConf(t *testing.T) {
	tr, _, err := trace.ReadTree(context.Background(), filepath.Join("..", "trace", "testdata", "hadoop1", "v20-single-input-log.gz"), trace.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	peak, _, err := replay.TraceHardware(tr, replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	tr.Jobs[0].ConfReduceSlots = 2
	tr.Jobs[0].Scheduler = "org.apache.hadoop.mapred.CapacityTaskScheduler"
	hw, _, err := replay.TraceHardware(tr, replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	if hw.MapSlots != peak.MapSlots || hw.ReduceSlots != 2 || !hw.Lifecycle || hw.JobInitPoll.String() != "5s" || hw.JobInitThreads != 1 {
		t.Errorf("slots %d/%d (peak %d/%d), lifecycle %v, poll %s, init threads %d; want %d/2, true, 5s, 1 (one queue)",
			hw.MapSlots, hw.ReduceSlots, peak.MapSlots, peak.ReduceSlots, hw.Lifecycle, hw.JobInitPoll, hw.JobInitThreads, peak.MapSlots)
	}
	if peak.JobInitThreads != replay.DefaultHardware().JobInitThreads {
		t.Errorf("without a Capacity conf: init threads %d, want the default %d", peak.JobInitThreads, replay.DefaultHardware().JobInitThreads)
	}
	// One init thread per queue (JobInitializationPoller), at most 5.
	for _, c := range []struct{ queues, want int }{{3, 3}, {7, 5}} {
		tq := *tr
		tq.Jobs = nil
		for k := range c.queues {
			j := tr.Jobs[0]
			j.Queue = fmt.Sprintf("q%d", k)
			tq.Jobs = append(tq.Jobs, j)
		}
		hq, _, err := replay.TraceHardware(&tq, replay.DefaultHardware())
		if err != nil {
			t.Fatal(err)
		}
		if hq.JobInitThreads != c.want {
			t.Errorf("%d queues: %d init threads, want %d", c.queues, hq.JobInitThreads, c.want)
		}
	}
}
