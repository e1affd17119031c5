package flow

import "errors"

// The errors returned by this package, each wrapped with the resource, flow or
// time it concerns; test for them with errors.Is.
var (
	// ErrCapacity is a resource capacity (bytes per second) that is zero,
	// negative, NaN or infinite.
	ErrCapacity = errors.New("capacity must be a positive finite number of bytes per second")
	// ErrRatio is a core oversubscription ratio that is zero, negative, NaN or
	// infinite.
	ErrRatio = errors.New("oversubscription ratio must be a positive finite number")
	// ErrTopology is a cluster shape with no racks, no nodes or no disks.
	ErrTopology = errors.New("cluster needs at least one rack, one node per rack and one disk per node")
	// ErrUnknownResource is a flow path naming a resource the network does not
	// have.
	ErrUnknownResource = errors.New("unknown resource")
	// ErrDuplicateResource is a flow path naming the same resource twice.
	ErrDuplicateResource = errors.New("resource listed twice in a flow's path")
	// ErrEmptyPath is a flow that crosses no resource (its rate would be
	// unbounded).
	ErrEmptyPath = errors.New("flow crosses no resource")
	// ErrWeight is a flow's usage weights that do not match its path or are
	// not positive finite numbers.
	ErrWeight = errors.New("flow weights must be one positive finite number per path resource")
	// ErrBytes is a flow with a negative size.
	ErrBytes = errors.New("flow size must be zero or more bytes")
	// ErrDuplicateFlow is a flow ID that is already active.
	ErrDuplicateFlow = errors.New("flow ID already active")
	// ErrUnknownFlow is a flow ID that is not active.
	ErrUnknownFlow = errors.New("no such active flow")
	// ErrTimeRange is a time beyond MaxTime.
	ErrTimeRange = errors.New("time beyond flow.MaxTime")
	// ErrTimeBackwards is a time before the network's clock.
	ErrTimeBackwards = errors.New("time before the network's clock")
	// ErrPastFinish is a time after the finish of a flow that is still active:
	// the engine must remove a flow at its finish time before going further.
	ErrPastFinish = errors.New("time after the finish of an active flow")
)
