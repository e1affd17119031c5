package replay

import (
	"hash/fnv"
	"math/rand/v2"

	"github.com/tracereplay/tracereplay/trace"
)

// Shared datasets. On a real cluster many jobs read the same input: its blocks
// were written once, and every job reading it finds its splits on the same
// nodes. A job whose trace names an input path (trace.Job.InputPath: SWIM's
// inputPath<k>, a job conf's mapreduce.input.fileinputformat.inputdir or
// mapred.input.dir, a generator's dataset name) reads the dataset of that path:
//
//   - The dataset's block b is placed by the b-th placeBlock draw of the
//     dataset's own random stream (datasetRand), seeded by the run's seed and
//     the path alone. Placement therefore depends neither on which job reads
//     the dataset first nor on the policy (common random numbers), and two
//     jobs naming one path get identical replicas.
//   - A job's map i reads block i. A job with fewer maps than another reader
//     reads a prefix of the dataset's blocks; one with more extends it, and
//     the extension is the same whichever job reads it: the dataset is as
//     large as its largest reader, and block b is the same for every reader.
//   - The first replica goes where placeBlock puts it, a random data node, as
//     for a job without a path. HDFS puts it on the writer's node when the
//     writer is a data node, but no writer is known without depending on the
//     run: a writer job replayed in the same run has its output tasks placed
//     by the policy, at a time the policy decides (so readers' placement would
//     differ between policies and with the job order), and SWIM anonymises
//     input and output paths into separate names (inputPath<k>, outputPath<k>)
//     so a reader cannot be matched to its writer. A trace that records where
//     the input really is (split locations, trace mode) gives the replicas
//     directly (traceReplicas), which wins over any dataset placement.
//
// A job with no path keeps its own placement stream (jobRand with
// streamPlacement): traces without paths replay exactly as before.

// datasetStreamBit marks the random streams of datasets: the stream word of
// every other stream (jobRand's stream<<40|job, the allocation study's
// stream<<44|…) is below 2^52, so a dataset's stream, 2^63 | the path's 63-bit
// FNV-1a hash, never coincides with one of them.
const datasetStreamBit = 1 << 63

// datasetRand returns the placement stream of the dataset at path: it depends
// only on the run's seed and the path.
func datasetRand(seed uint64, path string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(path))
	return rand.New(rand.NewPCG(seed, datasetStreamBit|h.Sum64()&(datasetStreamBit-1)))
}

// placeSplits appends to dst the replicas of a job's n splits, repl each: from
// the dataset of the job's input path when the trace names one, else from the
// job's own placement stream place.
func (w *Workload) placeSplits(dst []int32, tj *trace.Job, n, repl int, place *rand.Rand, rackAware bool) []int32 {
	if tj.InputPath != "" {
		place = datasetRand(w.seed, tj.InputPath)
	}
	for range n {
		dst = w.topo.placeBlock(place, repl, rackAware, dst)
	}
	return dst
}
