package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// Trace mode in the command (docs/trace-mode.md): without --hardware, a trace
// that records where its tasks ran is replayed on the cluster derived from it;
// the "observed" row reports the trace's own schedule. It is not a registered
// policy: it is built by replay.Observed, not simulated.

// traceMode is the command's trace-mode state.
type traceMode struct {
	auto    bool                       // "observed" came from --policy all: drop it for traces without a schedule
	derived map[*trace.Trace]derivedHW // clusters derived so far, per trace
}

type derivedHW struct {
	hw replay.Hardware
	ok bool
}

// newPolicy builds a policy from its spec; the observed row has none.
func newPolicy(spec string) (replay.Policy, error) {
	if spec == replay.ObservedPolicy {
		return nil, nil
	}
	return policy.New(spec)
}

// policyNames is policyList with the observed row: named explicitly, or added
// by "all" (then only where the trace records a schedule, see prepareCell).
func policyNames(c *config, kind replay.ClusterKind) ([]string, error) {
	specs := slices.DeleteFunc(slices.Clone(c.policies), func(s string) bool { return s == replay.ObservedPolicy })
	explicit := len(specs) < len(c.policies)
	names, err := policyList(specs, kind)
	if err != nil {
		return nil, err
	}
	if explicit || slices.Contains(specs, "all") {
		names = append(names, replay.ObservedPolicy)
		c.tm.auto = !explicit
	}
	return names, nil
}

// prepareCell readies a cell for its trace: without --hardware and outside an
// experiment, a trace that names hosts gets its own cluster (racks, hosts and
// slots from the trace, every other setting from the default model, --set
// applied on top). skip says the cell is an observed row that --policy all
// added for a trace without a recorded schedule.
func prepareCell(c *config, cl *replay.Cell, tr *trace.Trace, key string) (skip bool, err error) {
	if cl.Policy == replay.ObservedPolicy {
		// A streamed trace gone bad since it was opened is bad input, not a
		// trace without a schedule.
		has, rerr := replay.ObservedSchedule(tr)
		if rerr != nil {
			return false, fmt.Errorf("read trace: %w", rerr)
		}
		if !has {
			if c.tm.auto {
				return true, nil
			}
			return false, bad("--policy %s: trace %s records no schedule (no task with a host, a start and a finish)", replay.ObservedPolicy, key)
		}
	}
	if c.experiment != "" || c.hwPath != "" {
		return false, nil
	}
	if c.tm.derived == nil {
		c.tm.derived = map[*trace.Trace]derivedHW{}
	}
	d, seen := c.tm.derived[tr]
	if !seen {
		d.hw, d.ok, err = replay.TraceHardwareSeen(tr, cl.Hardware, c.traceHosts[tr])
		if err == nil && d.ok {
			d.hw, err = d.hw.WithSettings(setKeys(c.set))
		}
		if err != nil {
			return false, usageError{fmt.Errorf("trace %s: %w", key, err)}
		}
		c.tm.derived[tr] = d
	}
	if d.ok {
		cl.Hardware, cl.HWName = d.hw, d.hw.Name
	}
	return false, nil
}

// setKeys parses --set KEY=VALUE pairs (already checked by plainCells).
func setKeys(kvs []string) map[string]any {
	set := map[string]any{}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		set[k] = parseValue(v)
	}
	return set
}
