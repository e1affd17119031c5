package replay

import (
	"fmt"
	"path/filepath"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/version"
)

// Version is the tracereplay version written into every output's metadata
// (version.Version).
const Version = version.Version

// Result file names inside a run directory (internal/results).
const (
	JobsFile     = results.JobsFile
	TasksFile    = results.TasksFile
	TimelineFile = results.TimelineFile
	NodesFile    = results.NodesFile   // per-node totals (netstats.go)
	NodeNetFile  = results.NodeNetFile // per-node network bytes per timeline interval
	QueuesFile   = results.QueuesFile  // YARN runs: each queue's resources per timeline instant
	LinksFile    = results.LinksFile   // network = "flow": each loaded link per timeline instant
	SummaryFile  = results.SummaryFile
	ManifestFile = results.ManifestFile
)

// WriteRun writes one run's results into dir (created if needed): jobs.parquet,
// timeline.parquet, nodes.parquet, tasks.parquet when tasks were recorded,
// node_net.parquet when the timeline was sampled and data moved, queues.parquet
// when the timeline of a YARN run was sampled, links.parquet when the timeline
// of a run under network = "flow" was sampled and a link carried data, and
// run.json.
// meta goes into every Parquet file's key/value metadata. Each file is written
// atomically; the same results give byte-identical files. A run made with
// Options.Out has streamed its tasks, timeline and node_net rows into that
// RunWriter, whose directory dir must be: WriteRun completes those files.
func WriteRun(dir string, res *Result, meta map[string]string) error {
	w := res.out
	if w == nil {
		var err error
		if w, err = NewRunWriter(dir); err != nil {
			return err
		}
		for i := range res.Tasks {
			w.addTask(&res.Tasks[i])
		}
		for i := range res.Timeline {
			w.addSample(&res.Timeline[i])
		}
		for i := range res.NodeNet {
			w.keep(w.nodeNet.add(&res.NodeNet[i]))
		}
		for i := range res.Queues {
			w.keep(w.queues.add(&res.Queues[i]))
		}
		for i := range res.Links {
			w.keep(w.links.add(&res.Links[i]))
		}
	} else if filepath.Clean(w.dir) != filepath.Clean(dir) {
		return fmt.Errorf("write results: the run streamed into %s, not %s", w.dir, dir)
	}
	err := w.finish(res, meta)
	if err != nil {
		w.Abort()
	}
	return err
}
