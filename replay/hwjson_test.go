package replay

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestHardwareKeysFromTags: the keys derived from the struct tags are the list
// that was kept by hand before, in its order.
func TestHardwareKeysFromTags(t *testing.T) {
	want := []string{"name", "racks", "nodes_per_rack", "map_slots", "reduce_slots", "map_nodes", "reduce_nodes",
		"disk_mb_per_s", "nic_mb_per_s", "rack_uplink_mb_per_s", "map_compute_mb_per_s", "reduce_compute_mb_per_s",
		"task_startup", "heartbeat", "out_of_band_heartbeat", "heartbeat_jitter", "block_size_mb", "replication", "placement",
		"data_node_fraction", "slow_start", "reduce_mb_per_task", "max_reduces_per_job", "network", "core_oversubscription", "flow_update", "flow_shuffle", "flow_fetch_order", "bar_q", "shuffle", "task_times",
		"trace_locality", "rack_local_factor", "off_rack_factor", "duration_cv", "timeline_sample",
		"lifecycle", "job_init_threads", "job_init_poll", "job_init_time", "setup_task", "cleanup_task",
		"shuffle_fetch_latency", "parallel_copies", "report_at_heartbeat",
		"attempt_failure_rate", "straggler_fraction", "straggler_alpha", "speculation", "retry_container_delay", "job_init_jobs_per_user", "job_init_users", "jvm_reuse", "sort_mb_per_s", "event_poll", "passthrough_map_mb_per_s", "flow_merges",
		"cluster", "node_memory_mb", "node_vcores", "min_allocation_mb", "max_allocation_mb", "min_allocation_vcores",
		"max_allocation_vcores", "map_memory_mb", "reduce_memory_mb", "am_memory_mb", "map_vcores", "reduce_vcores",
		"am_vcores", "am_startup", "am_launch", "am_heartbeat", "reduce_rampup_limit", "container_startup",
		"maps_per_heartbeat", "reduces_per_heartbeat", "queues (name, capacity, max_capacity)"}
	if got := HardwareKeys(); !reflect.DeepEqual(got, want) {
		t.Errorf("HardwareKeys() =\n%q\nwant\n%q", got, want)
	}
}

// fields is h.FieldJSON, failing t on an error.
func fields(t *testing.T, h Hardware) []byte {
	t.Helper()
	b, err := h.FieldJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHardwareJSON: MarshalJSON writes the TOML keys, FieldJSON the Go field
// names, and UnmarshalJSON reads both back to the same model, the optional
// key groups left out at their defaults included.
func TestHardwareJSON(t *testing.T) {
	plain := DefaultHardware()
	full := DefaultHardware()
	full.Lifecycle, full.Speculation = true, "late"
	full.Queues = []Queue{{Name: "a", Capacity: 0.5, MaxCapacity: 0.75}, {Name: "b", Capacity: 0.5}}
	full.Layout = []RackLayout{{Name: "/r1", Hosts: []string{"h1", "h2"}}}
	yarn := DefaultHardware()
	yarn.Cluster, yarn.NodeMemoryMB = ClusterYARN, 16384
	batch := DefaultHardware()
	batch.FlowShuffle = FlowShuffleBatch // written and read back under any network
	pass := DefaultHardware()
	pass.PassThroughMapMBps = 5 // its own key group (maprate.go)
	cs := yarn
	cs.ContainerStartup = 2e6 // its own key group (yarn_startup.go)
	capped := DefaultHardware()
	capped.MapsPerHeartbeat, capped.ReducesPerHeartbeat = 1, 1 // its own key group (heartbeat_cap.go)
	ready := DefaultHardware()
	ready.FlowFetchOrder = FlowFetchReady // a group of its own: flow_shuffle stays out
	flow := DefaultHardware()
	flow.Network = NetworkFlow // flow_fetch_order acts: its default "random" is written
	flowReady := flow
	flowReady.FlowFetchOrder = FlowFetchReady // left out: the order of the runs before the key
	flowBatch := flow
	flowBatch.FlowShuffle = FlowShuffleBatch // flow_fetch_order does not act: left out at "random"
	// fetchOrderWritten: the models that write flow_fetch_order (fetchOrderKeys).
	fetchOrderWritten := map[*Hardware]bool{&ready: true, &flow: true}
	for i, hp := range []*Hardware{&plain, &full, &yarn, &batch, &pass, &ready, &flow, &flowReady, &flowBatch, &cs, &capped} {
		h := *hp
		keyed, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{`"disk_mb_per_s":100`, `"network":"` + string(h.Network) + `"`, `"task_startup":"1s"`} {
			if !strings.Contains(string(keyed), k) {
				t.Errorf("MarshalJSON %s lacks %s", keyed, k)
			}
		}
		if strings.Contains(string(keyed), "DiskMBps") {
			t.Errorf("MarshalJSON writes Go field names: %s", keyed)
		}
		if got := strings.Contains(string(keyed), `"lifecycle"`); got != h.Lifecycle {
			t.Errorf("lifecycle keys written = %v, want %v", got, h.Lifecycle)
		}
		if got, want := strings.Contains(string(keyed), `"node_memory_mb"`), h.Cluster == ClusterYARN; got != want {
			t.Errorf("YARN keys written = %v, want %v", got, want)
		}
		if got, want := strings.Contains(string(keyed), `"flow_shuffle":"batch"`), h.FlowShuffle == FlowShuffleBatch; got != want {
			t.Errorf("flow_shuffle = \"batch\" written = %v, want %v", got, want)
		}
		if got := strings.Contains(string(keyed), `"flow_shuffle"`); got != (h.FlowShuffle != DefaultHardware().FlowShuffle) {
			t.Errorf("flow_shuffle written = %v with %q", got, h.FlowShuffle)
		}
		if got := strings.Contains(string(keyed), `"passthrough_map_mb_per_s"`); got != (h.PassThroughMapMBps != 0) {
			t.Errorf("passthrough_map_mb_per_s written = %v with %g", got, h.PassThroughMapMBps)
		}
		if got := strings.Contains(string(keyed), `"maps_per_heartbeat":`); got != h.heartbeatCaps() {
			t.Errorf("maps_per_heartbeat written = %v with %d", got, h.MapsPerHeartbeat)
		}
		if got := strings.Contains(string(fields(t, h)), `"ReducesPerHeartbeat"`); got != h.heartbeatCaps() {
			t.Errorf("ReducesPerHeartbeat in FieldJSON = %v with %d", got, h.ReducesPerHeartbeat)
		}
		if got := strings.Contains(string(keyed), `"container_startup"`); got != (h.ContainerStartup != 0) {
			t.Errorf("container_startup written = %v with %v", got, h.ContainerStartup)
		}
		if got, want := strings.Contains(string(keyed), `"flow_fetch_order":"`+string(h.FlowFetchOrder)+`"`), fetchOrderWritten[hp]; got != want {
			t.Errorf("model %d: flow_fetch_order = %q written = %v, want %v", i, h.FlowFetchOrder, got, want)
		}
		fields, err := h.FieldJSON()
		if got, want := strings.Contains(string(fields), `"FlowFetchOrder"`), fetchOrderWritten[hp]; got != want {
			t.Errorf("model %d: FlowFetchOrder = %q in FieldJSON = %v, want %v", i, h.FlowFetchOrder, got, want)
		}
		if got := strings.Contains(string(fields), `"PassThroughMapMBps"`); got != (h.PassThroughMapMBps != 0) {
			t.Errorf("PassThroughMapMBps in FieldJSON = %v with %g", got, h.PassThroughMapMBps)
		}
		if err != nil || !strings.Contains(string(fields), `"DiskMBps":100`) {
			t.Errorf("FieldJSON = %s, %v", fields, err)
		}
		want := h // left-out groups read back as their defaults
		for name, b := range map[string][]byte{"MarshalJSON": keyed, "FieldJSON": fields} {
			var back Hardware
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !reflect.DeepEqual(back, want) {
				t.Errorf("%s round trip:\n got %+v\nwant %+v", name, back, want)
			}
		}
	}
}

// TestFetchOrderIdentity: flow_fetch_order's default changed from "ready"
// to "random", so a flow per-fetch run's identity tells the two apart, and
// results recorded before (no flow_fetch_order: they fetched in "ready"
// order) read back as "ready", not as the new default; runs the key does not
// act on keep the identity they had.
func TestFetchOrderIdentity(t *testing.T) {
	flow := DefaultHardware()
	flow.Network = NetworkFlow
	ready := flow
	ready.FlowFetchOrder = FlowFetchReady
	if HardwareSHA256(flow) == HardwareSHA256(ready) {
		t.Errorf("flow per-fetch: the same identity for %q and %q", flow.FlowFetchOrder, ready.FlowFetchOrder)
	}
	// A model recorded before the key existed: FieldJSON without FlowFetchOrder.
	old, err := ready.FieldJSON()
	if err != nil || strings.Contains(string(old), "FlowFetchOrder") {
		t.Fatalf("FieldJSON of a \"ready\" flow model = %s, %v: want it without FlowFetchOrder", old, err)
	}
	var back Hardware
	if err := json.Unmarshal(old, &back); err != nil || back.FlowFetchOrder != FlowFetchReady {
		t.Errorf("a flow model recorded without flow_fetch_order reads back as %q, %v: want %q", back.FlowFetchOrder, err, FlowFetchReady)
	}
	// Batch (written key) and fixed: the key does not act, absence stands for the default.
	for _, h := range []Hardware{func() Hardware { b := flow; b.FlowShuffle = FlowShuffleBatch; return b }(), DefaultHardware()} {
		b, err := h.FieldJSON()
		if err != nil || strings.Contains(string(b), "FlowFetchOrder") {
			t.Errorf("FieldJSON = %s, %v: want it without FlowFetchOrder", b, err)
		}
		var back Hardware
		if err := json.Unmarshal(b, &back); err != nil || back.FlowFetchOrder != FlowFetchRandom {
			t.Errorf("network %s, flow_shuffle %s: reads back as %q, %v", h.Network, h.FlowShuffle, back.FlowFetchOrder, err)
		}
	}
}

// TestHardwareEnumsParse: an invalid enumerated value is refused when the
// model is parsed, with the valid names.
func TestHardwareEnumsParse(t *testing.T) {
	for toml, want := range map[string]string{
		`shuffle = "ring"`:         `shuffle "ring": want uniform or topology`,
		`task_times = "guess"`:     `task_times "guess": want model, trace or auto`,
		`placement = "striped"`:    `placement "striped": want rack-aware or random`,
		`trace_locality = "magic"`: `trace_locality "magic": want factors or bandwidth`,
		`network = "wormhole"`:     `network "wormhole": want one of fixed, bar, flow`,
		`flow_shuffle = "all"`:     `flow_shuffle "all": want fetch or batch`,
	} {
		if _, err := ParseHardware([]byte(toml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", toml, err, want)
		}
	}
	h, err := ParseHardware([]byte("shuffle = \"topology\"\ntask_times = \"trace\"\nnetwork = \"flow\""))
	if err != nil || h.Shuffle != ShuffleTopology || h.TaskTimes != TaskTimesTrace || h.Network != NetworkFlow {
		t.Errorf("valid values: %+v, %v", h, err)
	}
}

// TestHardwareJSONUnchecked: results written elsewhere read back whatever
// their enumerated keys hold (an empty or unknown network); Validate judges.
func TestHardwareJSONUnchecked(t *testing.T) {
	for _, b := range []string{`{"Name":"x","Network":""}`, `{"name":"x","network":"wormhole","shuffle":"ring"}`} {
		var h Hardware
		if err := json.Unmarshal([]byte(b), &h); err != nil || h.Name != "x" {
			t.Errorf("%s: %+v, %v", b, h, err)
		}
	}
	var h Hardware
	if err := json.Unmarshal([]byte(`{"network":"wormhole","shuffle":"ring"}`), &h); err != nil || h.Network != "wormhole" || h.Shuffle != "ring" {
		t.Errorf("enumerated keys: %q %q, %v", h.Network, h.Shuffle, err)
	}
}
