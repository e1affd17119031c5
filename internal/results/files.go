package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Result file names inside a run directory.
const (
	JobsFile     = "jobs.parquet"
	TasksFile    = "tasks.parquet"
	TimelineFile = "timeline.parquet"
	NodesFile    = "nodes.parquet"    // per-node totals (Node rows)
	NodeNetFile  = "node_net.parquet" // per-node network bytes per timeline interval (NodeNetSample rows)
	QueuesFile   = "queues.parquet"   // YARN runs: each queue's resources per timeline instant (QueueSample rows)
	LinksFile    = "links.parquet"    // network = "flow": each loaded link per timeline instant (LinkSample rows)
	SummaryFile  = "run.json"
	ManifestFile = "manifest.json"
)

// HardwareMetaKey is the Parquet key/value metadata entry in which cmd/replay
// records a run's hardware model (JSON) in its results files.
const HardwareMetaKey = "tracereplay.hardware"

// ObservedPolicy is the policy name of the schedule a trace recorded, replayed
// as a run of its own (replay --policy observed) in the same schema.
const ObservedPolicy = "observed"

// NodeResult is one node's totals in one run (nodes.parquet).
type NodeResult struct {
	Policy      string `parquet:"policy"`
	Node        int32  `parquet:"node"`
	Host        string `parquet:"host"`
	Rack        string `parquet:"rack"`
	NetInBytes  int64  `parquet:"net_in_bytes"`
	NetOutBytes int64  `parquet:"net_out_bytes"`
}

// QueueSample is what one queue's jobs held and waited for at one timeline
// instant of a run on a YARN cluster (queues.parquet). A queue is the leaf
// queue the policy put the jobs in (or the trace's queue name when the policy
// has no queues); queues with no active job at the instant are left out.
type QueueSample struct {
	Policy string `parquet:"policy"`
	TimeUs int64  `parquet:"time_us"`
	Queue  string `parquet:"queue"`
	// MemoryMB and VCores are what the queue's running containers hold,
	// ApplicationMasters' included; Containers counts them.
	MemoryMB   int64 `parquet:"memory_mb"`
	VCores     int64 `parquet:"vcores"`
	Containers int32 `parquet:"containers"`
	// Share is MemoryMB over the cluster's memory.
	Share float64 `parquet:"share"`
	// Guaranteed is the queue's guaranteed share of the cluster (its
	// absolute capacity, or its steady fair share), -1 when the policy does
	// not say.
	Guaranteed float64 `parquet:"guaranteed"`
	// ActiveApps are the queue's jobs submitted and not finished,
	// PendingAMs those whose AM still waits for its container.
	ActiveApps int32 `parquet:"active_apps"`
	PendingAMs int32 `parquet:"pending_ams"`
}

// LinkSample is one link's load at one timeline instant of a run under
// network = "flow" (links.parquet): the rates of the transfers crossing it
// just before the transfers starting at that instant join. Links that carry
// nothing at the instant are left out.
type LinkSample struct {
	Policy string `parquet:"policy"`
	TimeUs int64  `parquet:"time_us"`
	// Link is a host's "HOST/nic-out" or "HOST/nic-in", a rack's
	// "RACK/uplink" or "RACK/downlink", or "core".
	Link         string  `parquet:"link"`
	CapacityMBps float64 `parquet:"capacity_mb_per_s"`
	LoadMBps     float64 `parquet:"load_mb_per_s"`
	// Utilisation is LoadMBps / CapacityMBps.
	Utilisation float64 `parquet:"utilisation"`
	Flows       int32   `parquet:"flows"`
}

// NodeNetSample is the network bytes one node received and sent during the
// timeline interval [TimeUs, TimeUs + timeline_sample) (node_net.parquet). Only
// intervals in which the node moved data are listed.
type NodeNetSample struct {
	Policy   string `parquet:"policy"`
	TimeUs   int64  `parquet:"time_us"`
	Node     int32  `parquet:"node"`
	InBytes  int64  `parquet:"in_bytes"`
	OutBytes int64  `parquet:"out_bytes"`
}

// ReadSummary reads a run's run.json.
func ReadSummary(dir string) (RunSummary, error) {
	path := filepath.Join(dir, SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return RunSummary{}, fmt.Errorf("read run summary: %w", err)
	}
	return DecodeSummary(path, b)
}

// DecodeSummary is ReadSummary of run.json's bytes b; path names the file in
// errors.
func DecodeSummary(path string, b []byte) (RunSummary, error) {
	var s RunSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("read %s: %w", path, err)
	}
	return s, nil
}
