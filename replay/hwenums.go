package replay

import (
	"fmt"
	"slices"
	"strings"
)

// The hardware model's enumerated keys. Each is a string type whose values are
// the names the TOML key accepts: UnmarshalText refuses any other name, so a
// model that parsed holds a valid value, and MarshalText writes the name back
// (results and the manifest record the same spelling as the TOML file).

// enumError is the error of an invalid enumerated value: key, the value and the
// valid names.
func enumError(key, v string, names []string) error {
	return fmt.Errorf("%s %q: want %s", key, v, orList(names))
}

// orList spells names as "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// parseEnum checks b against names.
func parseEnum(key string, b []byte, names []string) (string, error) {
	if v := string(b); slices.Contains(names, v) {
		return v, nil
	}
	return "", enumError(key, string(b), names)
}

// NetworkName names the network model (the network key): one of the models
// registered in network.go (NetworkModelNames).
type NetworkName string

// UnmarshalText reads a network key's value; an unknown name is an error
// listing the valid ones.
func (n *NetworkName) UnmarshalText(b []byte) error {
	v, err := ParseNetworkName(string(b))
	*n = v
	return err
}

// MarshalText writes the model's name.
func (n NetworkName) MarshalText() ([]byte, error) { return []byte(n), nil }

// String is the model's name as the network key spells it.
func (n NetworkName) String() string { return string(n) }

// ParseNetworkName reads a network key's value; an unknown name is an error
// listing the valid ones.
func ParseNetworkName(name string) (NetworkName, error) {
	if !slices.Contains(NetworkModelNames(), name) {
		return "", fmt.Errorf("network %q: want one of %s", name, strings.Join(NetworkModelNames(), ", "))
	}
	return NetworkName(name), nil
}

// ShuffleModel is the reduce copy model (the shuffle key).
type ShuffleModel string

const (
	// ShuffleUniform copies a reduce's whole share at the NIC rate wherever the
	// map outputs lie.
	ShuffleUniform ShuffleModel = "uniform"
	// ShuffleTopology has each reduce fetch every finished map's output from
	// the node the map ran on (shuffle.go).
	ShuffleTopology ShuffleModel = "topology"
)

// ShuffleModelNames lists the valid values of the shuffle key.
func ShuffleModelNames() []string { return []string{string(ShuffleUniform), string(ShuffleTopology)} }

// UnmarshalText reads a shuffle key's value; an unknown name is an error.
func (m *ShuffleModel) UnmarshalText(b []byte) error {
	v, err := parseEnum("shuffle", b, ShuffleModelNames())
	*m = ShuffleModel(v)
	return err
}

// MarshalText writes the model's name.
func (m ShuffleModel) MarshalText() ([]byte, error) { return []byte(m), nil }

// FlowShuffleMode is how network = "flow" moves a reduce's shuffle (the
// flow_shuffle key).
type FlowShuffleMode string

const (
	// FlowShuffleFetch makes every fetch (a reduce's copy of up to 20 map
	// outputs from one host) a flow from the host's disk to the reduce's.
	FlowShuffleFetch FlowShuffleMode = "fetch"
	// FlowShuffleBatch moves a reduce's waiting outputs in rounds: one flow
	// per round and class of source, over the reduce side's resources.
	FlowShuffleBatch FlowShuffleMode = "batch"
)

// FlowShuffleModeNames lists the valid values of the flow_shuffle key.
func FlowShuffleModeNames() []string {
	return []string{string(FlowShuffleFetch), string(FlowShuffleBatch)}
}

// UnmarshalText reads a flow_shuffle key's value; an unknown name is an
// error listing the valid ones.
func (m *FlowShuffleMode) UnmarshalText(b []byte) error {
	v, err := parseEnum("flow_shuffle", b, FlowShuffleModeNames())
	*m = FlowShuffleMode(v)
	return err
}

// MarshalText writes the mode's name.
func (m FlowShuffleMode) MarshalText() ([]byte, error) { return []byte(m), nil }

// FlowFetchOrder is the order in which a reduce's fetchers take the hosts with
// map outputs waiting under flow_shuffle = "fetch" (the flow_fetch_order key).
type FlowFetchOrder string

const (
	// FlowFetchReady takes the hosts in the order their first waiting output
	// became ready: every reduce of a job takes them in the same order (the
	// default before h-fetchrandom).
	FlowFetchReady FlowFetchOrder = "ready"
	// FlowFetchRandom takes a host drawn at random among those waiting, from
	// a stream of the reduce's own, as Hadoop does (Hadoop 2/3's
	// ShuffleSchedulerImpl.getHost, Hadoop 1's ReduceTask.ReduceCopier
	// shuffling its host list): the default.
	FlowFetchRandom FlowFetchOrder = "random"
)

// FlowFetchOrderNames lists the valid values of the flow_fetch_order key.
func FlowFetchOrderNames() []string {
	return []string{string(FlowFetchReady), string(FlowFetchRandom)}
}

// UnmarshalText reads a flow_fetch_order key's value; an unknown name is an
// error listing the valid ones.
func (o *FlowFetchOrder) UnmarshalText(b []byte) error {
	v, err := parseEnum("flow_fetch_order", b, FlowFetchOrderNames())
	*o = FlowFetchOrder(v)
	return err
}

// MarshalText writes the order's name.
func (o FlowFetchOrder) MarshalText() ([]byte, error) { return []byte(o), nil }

// TaskTimeSource names the task-time model (the task_times key): one of the
// models registered in tasktimes.go (TaskTimeSourceNames).
type TaskTimeSource string

// UnmarshalText reads a task_times key's value; an unknown name is an error.
func (s *TaskTimeSource) UnmarshalText(b []byte) error {
	v, err := parseEnum("task_times", b, TaskTimeSourceNames())
	*s = TaskTimeSource(v)
	return err
}

// MarshalText writes the source's name.
func (s TaskTimeSource) MarshalText() ([]byte, error) { return []byte(s), nil }

// PlacementPolicy is HDFS's block placement (the placement key).
type PlacementPolicy string

const (
	// PlacementRackAware is HDFS's default: the second and third replicas on
	// one other rack.
	PlacementRackAware PlacementPolicy = "rack-aware"
	// PlacementRandom puts every replica on a random node.
	PlacementRandom PlacementPolicy = "random"
)

// PlacementPolicyNames lists the valid values of the placement key.
func PlacementPolicyNames() []string {
	return []string{string(PlacementRackAware), string(PlacementRandom)}
}

// UnmarshalText reads a placement key's value; an unknown name is an error.
func (p *PlacementPolicy) UnmarshalText(b []byte) error {
	v, err := parseEnum("placement", b, PlacementPolicyNames())
	*p = PlacementPolicy(v)
	return err
}

// MarshalText writes the policy's name.
func (p PlacementPolicy) MarshalText() ([]byte, error) { return []byte(p), nil }

// LocalityRescale is how trace mode rescales an observed map duration to
// another locality (the trace_locality key; tracemode.go).
type LocalityRescale string

const (
	// TraceLocalityFactors applies Mumak/Rumen's constant factors
	// (rack_local_factor, off_rack_factor).
	TraceLocalityFactors LocalityRescale = "factors"
	// TraceLocalityBandwidth removes the observed transfer and adds the
	// network model's.
	TraceLocalityBandwidth LocalityRescale = "bandwidth"
)

// LocalityRescaleNames lists the valid values of the trace_locality key.
func LocalityRescaleNames() []string {
	return []string{string(TraceLocalityFactors), string(TraceLocalityBandwidth)}
}

// UnmarshalText reads a trace_locality key's value; an unknown name is an error.
func (r *LocalityRescale) UnmarshalText(b []byte) error {
	v, err := parseEnum("trace_locality", b, LocalityRescaleNames())
	*r = LocalityRescale(v)
	return err
}

// MarshalText writes the rule's name.
func (r LocalityRescale) MarshalText() ([]byte, error) { return []byte(r), nil }
