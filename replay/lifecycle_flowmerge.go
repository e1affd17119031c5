package replay

// The merges' disk traffic under network = "flow" (flow_merges; off by
// default, when a map writes its output once and a reduce reads nothing
// back: network_disk.go).
//
// A map's output goes through its sort buffer (Hadoop's MapOutputBuffer):
// it spills the buffer to disk when the buffer's data passes io.sort.mb ×
// io.sort.spill.percent (100 MiB × 0.8 by default) and at the end; with one
// spill the spill file is the map's output, with more the map merges them
// (mergeParts), reading every spill and writing the output file. With
// flow_merges a map whose output is over that threshold runs, after its
// spill, a merge: one flow on its own disk of twice its output (the read
// and the write share the disk), so the map ends when the merge does. Its
// spills are one flow as without the key (the earlier spills, which Hadoop
// writes while the map function runs, are not split off), and the merge is
// one pass whatever the number of spills (Hadoop merges io.sort.factor = 10
// at a time, so more than 10 spills take more passes, left out). A
// speculative copy merges as the original does.
//
// A reduce's fetched segments are written to its disk (the fetch's write);
// its final merge reads them back and streams them into the reduce function
// (ReduceTask's final merge, with mapred.job.reduce.input.buffer.percent 0,
// Hadoop's default, keeping no segment in memory). With flow_merges the
// reduce's work starts with a flow reading its shuffle bytes from its own
// disk, beside its CPU and its output write (which shares that disk when
// the first replica is its own node); the reduce ends with the last of the
// three. A trace-timed reduce's observed work holds it, as it holds the
// output write.

// sortSpillBytes is the map output that fills the sort buffer's spill
// threshold: io.sort.mb 100 MiB × io.sort.spill.percent 0.8 (Hadoop 1 and 2
// defaults).
const sortSpillBytes = 100 << 20 * 8 / 10

// flowMergeKeys is flow_merges' key group, added after the frozen JSON
// formats (optionalKeyGroups): left out of the run identity and the
// manifest while false.
type flowMergeKeys struct {
	FlowMerges bool
}

func flowMergeKeysOf(h *Hardware) flowMergeKeys { return flowMergeKeys{h.FlowMerges} }

// mergeBytes is the disk traffic of the merge of a map's spills with
// flow_merges, for a map of output out bytes: twice the output (read and
// written again) when it overflows the spill threshold, else 0.
func mergeBytes(hw *Hardware, out int64) int64 {
	if !hw.FlowMerges || out <= sortSpillBytes {
		return 0
	}
	return 2 * out
}

// startMapMerge starts, when map i's spill just ended on node (by its copy
// when copy is set) and its output needs one, the merge of its spills as a
// flow on node's disk, and reports whether it did.
func (s *Sim) startMapMerge(j *Job, i, node int32, copy bool) bool {
	if j.out.disk.isTimed(i) || j.out.disk.mapOnly {
		return false // no sort, so no spills to merge, in a job without reduces (mapWrite)
	}
	b := mergeBytes(s.hw, j.Maps[i].OutputBytes)
	if b <= 0 {
		return false
	}
	s.flowStart(Transfer{Kind: TransferSpill, Merge: true, Copy: copy, Job: j.Index, Task: i, FetchOf: -1, Src: node, Dst: node, Bytes: b})
	return true
}

// startMergeRead starts reduce r's final merge read from its disk with
// flow_merges, and reports whether it did (a reduce with shuffle bytes).
func (s *Sim) startMergeRead(j *Job, r int32) bool {
	red := &j.Reduces[r]
	if !s.hw.FlowMerges || red.ShuffleBytes <= 0 {
		return false
	}
	s.flowStart(Transfer{Kind: TransferOutput, Merge: true, Job: j.Index, Task: r, FetchOf: -1, Src: red.Node, Dst: red.Node, Bytes: red.ShuffleBytes, Pipeline: []int32{red.Node}})
	return true
}
