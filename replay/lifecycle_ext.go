package replay

import (
	"bytes"
	"encoding/json"

	"github.com/tracereplay/tracereplay/trace"
)

// Lifecycle keys added after the first lifecycle (lifecycleKeys): they are
// left out of FieldJSON and MarshalJSON while they all hold their defaults,
// so that a run that does not use them keeps its identity and results bytes.
//
// retry_container_delay (YARN retries). In a YARN job every attempt runs in
// a container the MapReduce ApplicationMaster asks the ResourceManager for:
// RMContainerAllocator sends the request at its next allocate call (every
// yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms, 1 s by default), the
// scheduler allocates at a NodeManager heartbeat, the AM gets the container
// at its following call and launches it; the attempt's recorded start is the
// launch. A failed attempt's retry goes through that round trip again. The
// two FAILED .jhist histories show it: from a failed attempt's end to its
// task's next attempt's start 1,321, 1,773 and 2,844 ms (2.4.0, one map's
// three retries) and 1,639, 1,787, 1,722, 1,438, 1,626 and 1,660 ms (0.23.9,
// two maps' three each; both maps' retries start within 2 ms of each other
// though their failures were up to 202 ms apart: the container comes at the
// AM's allocate call, not at the failure). The replay keeps a retry on its
// task's slot; without the key the next attempt starts task_startup after the
// failed one's end, with it retry_container_delay after.
//
// The first attempts of a YARN job go through the same round trip from
// JOB_INITED (2,122–2,212 ms in the five .jhist histories); the replay gives
// them the tracker's next heartbeat and task_startup, as for Hadoop 1 (1.8
// and 1.9 s in the two FAILED ones), and retry_container_delay does not
// change them.

// lifecycleExtKeys are the later lifecycle keys, in Hardware's field order
// (contiguous, after Speculation).
type lifecycleExtKeys struct {
	RetryContainerDelay Duration
}

func lifecycleExtKeysOf(h *Hardware) lifecycleExtKeys {
	return lifecycleExtKeys{h.RetryContainerDelay}
}

// stripKeys removes from b, the JSON of a Hardware, the span of keys that
// keys (a struct of Hardware's consecutive fields, not the first) marshals
// to.
func stripKeys(b []byte, keys any) ([]byte, error) {
	k, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	// {"A":…,"B":…} → ,"A":…,"B":…
	span := append([]byte{','}, k[1:len(k)-1]...)
	return bytes.Replace(b, span, nil, 1), nil
}

// retryGapUs is the time from a failed or killed attempt's end to the start
// of its task's next attempt in trace mode: retry_container_delay for a YARN
// job (its trace records the ApplicationMaster) when set, else task_startup.
func (h *Hardware) retryGapUs(j *trace.Job) int64 {
	if h.RetryContainerDelay > 0 && j != nil && j.AMStartMs >= 0 {
		return int64(h.RetryContainerDelay)
	}
	return int64(h.TaskStartup)
}

// validateLifecycleExt checks the later lifecycle keys.
func (h *Hardware) validateLifecycleExt(bad func(string, ...any)) {
	if h.RetryContainerDelay < 0 || h.RetryContainerDelay > MaxHardwareDuration {
		bad("retry_container_delay = %v: want 0..%v", h.RetryContainerDelay, MaxHardwareDuration)
	}
}
