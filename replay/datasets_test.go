package replay_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// replicaRecorder wraps a policy and records, when each job arrives, its
// maps' replicas (by job id).
type replicaRecorder struct {
	replay.Policy
	replicas map[string][][]int32
}

func (p *replicaRecorder) JobArrived(c replay.Cluster, j *replay.JobView) {
	var r [][]int32
	for i := range j.NumMaps() {
		r = append(r, slices.Clone(j.Replicas(i)))
	}
	p.replicas[j.ID()] = r
	p.Policy.JobArrived(c, j)
}

// recordReplicas replays tr under the named policy with the invariants checked
// and returns every job's replicas.
func recordReplicas(t *testing.T, tr *trace.Trace, hw replay.Hardware, name string, seed uint64) map[string][][]int32 {
	t.Helper()
	topo := replay.NewTopology(&hw, seed)
	w, err := replay.NewWorkload(tr, &hw, topo, seed, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(name)
	if err != nil {
		t.Fatal(err)
	}
	rec := &replicaRecorder{Policy: p, replicas: map[string][][]int32{}}
	res, err := replay.Run(w, rec, replay.Options{Seed: seed, CheckInvariants: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Jobs) != len(tr.Jobs) {
		t.Fatalf("%s: %d jobs finished of %d", name, len(res.Jobs), len(tr.Jobs))
	}
	return rec.replicas
}

// datasetTrace: jobs a, b, c, d submitted 10 s apart, reading 3, 4, 5 and 3
// blocks of 64 MB (one map per block); a and c name the input /data/x, d names
// /data/y, b names none.
func datasetTrace() *trace.Trace {
	tr := &trace.Trace{}
	for i, s := range []struct {
		id, path string
		blocks   int64
	}{{"a", "/data/x", 3}, {"b", "", 4}, {"c", "/data/x", 5}, {"d", "/data/y", 3}} {
		j := trace.NewJob(s.id)
		j.SubmitMs = int64(i) * 10_000
		j.Status = trace.StatusSucceeded
		j.InputBytes = s.blocks * 64 << 20
		j.ShuffleBytes, j.OutputBytes = 1<<20, 1<<20
		j.InputPath = s.path
		tr.Jobs = append(tr.Jobs, j)
	}
	return tr
}

// TestSharedDatasetReplicas: two jobs naming one input path read the same
// blocks; a job without a path keeps its own placement; the placement does
// not depend on the policy, on the order of the jobs, or on which job reads
// the dataset first.
//
// Worked by hand: a (3 blocks of /data/x) reads the dataset's blocks 0-2, c
// (5 blocks) reads 0-4, so c's maps 0-2 have a's replicas exactly, and c's
// maps 3-4 extend the dataset. d reads /data/y, drawn from another stream:
// with 3 replicas rack-aware on 12 nodes in 3 racks of 4 (first replica any of
// 12 nodes, second any of the 8 in other racks, third one of the 3 others in
// the second's rack), a block of d matches the block of a at the same position
// with probability 1/(12·8·3) = 1/288, all three with 1/288^3, so they differ. Blanking every path must leave b's
// replicas alone (b has no path either way) and give a and c independent
// placements again (c's first three blocks then differ from a's).
func TestSharedDatasetReplicas(t *testing.T) {
	hw := smallHardware(t, "replication = 3")
	tr := datasetTrace()
	got := recordReplicas(t, tr, hw, "fifo", 11)
	a, b, c, d := got["a"], got["b"], got["c"], got["d"]
	if len(a) != 3 || len(b) != 4 || len(c) != 5 || len(d) != 3 {
		t.Fatalf("maps: a %d, b %d, c %d, d %d; want 3, 4, 5, 3", len(a), len(b), len(c), len(d))
	}
	if !reflect.DeepEqual(c[:3], a) {
		t.Errorf("c's first three blocks %v, want a's %v (one dataset)", c[:3], a)
	}
	if reflect.DeepEqual(d, a) {
		t.Errorf("d (/data/y) got a's replicas %v (/data/x)", a)
	}

	// b without a path: the same placement as when nobody names a path.
	blank := datasetTrace()
	for i := range blank.Jobs {
		blank.Jobs[i].InputPath = ""
	}
	old := recordReplicas(t, blank, hw, "fifo", 11)
	if !reflect.DeepEqual(old["b"], b) {
		t.Errorf("b's replicas %v changed with the others' paths, want %v", b, old["b"])
	}
	if reflect.DeepEqual(old["c"][:3], old["a"]) {
		t.Errorf("without paths a and c share replicas %v", old["a"])
	}

	// Another policy sees the same placement (common random numbers).
	if fair := recordReplicas(t, tr, hw, "fair", 11); !reflect.DeepEqual(fair, got) {
		t.Errorf("fair saw other replicas than fifo:\n%v\n%v", fair, got)
	}

	// The longer reader first: c arrives before a, b and d are dropped. The
	// blocks of /data/x stay what they were.
	rev := datasetTrace()
	rev.Jobs = []trace.Job{rev.Jobs[2], rev.Jobs[0]}
	rev.Jobs[0].SubmitMs, rev.Jobs[1].SubmitMs = 0, 5_000
	r := recordReplicas(t, rev, hw, "fair", 11)
	if !reflect.DeepEqual(r["c"], c) || !reflect.DeepEqual(r["a"], a) {
		t.Errorf("with c first: a %v, c %v; want a %v, c %v", r["a"], r["c"], a, c)
	}

	// Another seed places the dataset elsewhere.
	if s := recordReplicas(t, tr, hw, "fifo", 12); reflect.DeepEqual(s["c"], c) {
		t.Errorf("seeds 11 and 12 gave /data/x the same replicas %v", c)
	}
}

// TestSharedDatasetSingleNode: hand-computed locality. With replication 1
// every block has one replica; two one-block jobs naming the same path read
// the one block 0 of the dataset, so their maps list the same single node.
// Under fifo-strict (a map runs only on a node holding its block) both maps
// run there, node-local: 2 of 2.
func TestSharedDatasetSingleNode(t *testing.T) {
	hw := smallHardware(t, "replication = 1")
	tr := &trace.Trace{}
	for i, id := range []string{"p", "q"} {
		j := trace.NewJob(id)
		j.SubmitMs = int64(i) * 1000
		j.Status = trace.StatusSucceeded
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = 64<<20, 0, 1<<20
		j.InputPath = "inputPath1"
		tr.Jobs = append(tr.Jobs, j)
	}
	got := recordReplicas(t, tr, hw, "fifo", 3)
	if len(got["p"]) != 1 || len(got["p"][0]) != 1 || !reflect.DeepEqual(got["p"], got["q"]) {
		t.Fatalf("replicas p %v, q %v: want one and the same node", got["p"], got["q"])
	}
	res := runPolicy(t, tr, hw, "fifo-strict", 3)
	node := map[string]int32{"p": -1, "q": -2}
	for _, tk := range res.Tasks {
		if tk.Type == "MAP" {
			if tk.Locality != trace.NodeLocal {
				t.Errorf("map of %s ran %s", tk.JobID, tk.Locality)
			}
			node[tk.JobID] = tk.Node
		}
	}
	if node["p"] != got["p"][0][0] || node["q"] != got["p"][0][0] {
		t.Errorf("maps ran on nodes %d and %d, want the dataset's one node %d", node["p"], node["q"], got["p"][0][0])
	}
}

// TestSWIMPathsRoundTrip: a SWIM file with input paths (8 and 9 fields) goes
// through ingest (ReadSWIM, Write, Read) with its paths, and the replay gives
// the jobs naming one path the same blocks; the same file without the path
// columns replays with other, per-job placements.
func TestSWIMPathsRoundTrip(t *testing.T) {
	const withPaths = "job0\t0\t0\t201326592\t1000\t1000\tinputPath1\toutputPath1\n" + // 3 blocks
		"job1\t5\t5\t335544320\t1000\t1000\tinputPath2\t\t\n" + // 5 blocks
		"job2\t9\t4\t335544320\t1000\t1000\tinputPath1\t\t\n" // 5 blocks, job0's input
	const without = "job0\t0\t0\t201326592\t1000\t1000\n" +
		"job1\t5\t5\t335544320\t1000\t1000\n" +
		"job2\t9\t4\t335544320\t1000\t1000\n"
	read := func(text string) *trace.Trace {
		tr, err := trace.ReadSWIM("t.tsv", strings.NewReader(text), trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "tr")
		if err := trace.Write(dir, tr); err != nil {
			t.Fatal(err)
		}
		back, err := trace.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	tr := read(withPaths)
	var paths []string
	for _, j := range tr.Jobs {
		paths = append(paths, j.InputPath)
	}
	if want := []string{"inputPath1", "inputPath2", "inputPath1"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("input paths after the round trip %q, want %q", paths, want)
	}
	hw := smallHardware(t, "replication = 3")
	got := recordReplicas(t, tr, hw, "fair", 5)
	if !reflect.DeepEqual(got["job2"][:3], got["job0"]) {
		t.Errorf("job2 reads job0's inputPath1: blocks %v, want %v", got["job2"][:3], got["job0"])
	}
	if reflect.DeepEqual(got["job1"][:3], got["job0"]) {
		t.Errorf("job1 (inputPath2) got inputPath1's blocks %v", got["job0"])
	}
	plain := recordReplicas(t, read(without), hw, "fair", 5)
	if reflect.DeepEqual(plain["job2"][:3], plain["job0"]) {
		t.Errorf("without paths job2 and job0 share blocks %v", plain["job0"])
	}
	// Determinism: the same file and seed give the same results, twice.
	x, y := runPolicy(t, tr, hw, "fair", 5), runPolicy(t, tr, hw, "fair", 5)
	x.Wall, y.Wall = 0, 0
	if !reflect.DeepEqual(x, y) {
		t.Error("two runs of the trace with paths differ")
	}
	if fmt.Sprint(got) == fmt.Sprint(plain) {
		t.Error("paths changed nothing")
	}
}
