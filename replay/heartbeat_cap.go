package replay

import "strings"

// Per-heartbeat assignment caps (maps_per_heartbeat, reduces_per_heartbeat):
// at most that many maps and reduces launched at one heartbeat of one
// TaskTracker, as the JobTracker's scheduler of some Hadoop versions hands
// them out. Hadoop 0.21's and 0.22's CapacityTaskScheduler.assignTasks
// ("Always assigns 1 reduce and 1 map , if sufficient slots are available
// for each of types"; MAPREDUCE-1030, apache/hadoop-common branch-0.21
// 7d1aca4009, mapreduce/src/contrib/capacity-scheduler/src/java/org/apache/
// hadoop/mapred/CapacityTaskScheduler.java lines 923–994, and the same in
// branch-0.22 cbf463aa1a, lines 977–1050) asks its reduce scheduler for one
// task when the tracker has a free reduce slot and its map scheduler for one
// when it has a free map slot: one of each at most. Hadoop 1's (branch-1
// 9fb9c5f984, the same file under src/contrib: addMapTasks) fills every
// free map slot up to mapred.capacity-scheduler.maximum-tasks-per-heartbeat
// (default Short.MAX_VALUE, read from capacity-scheduler.xml, not a job
// conf) and adds one reduce; 0.20's (branch-0.20) hands one task, a map or a
// reduce, a heartbeat. A trace tells 0.21/0.22 apart by its job confs'
// hadoop.common.configuration.version (trace column conf_common_version;
// capacityOneEach), which 0.20 and 1.x confs do not have.
//
// The caps are the cluster's (a Hardware key, set by TraceHardware), not a
// policy's option: what they model is the recorded JobTracker's assignment
// rate, a property of the cluster the trace ran on, as the heartbeat
// interval and the Capacity scheduler's init poll (also set from the
// confs) are; a trace-mode replay scores every policy (fifo, the harness's,
// the conf-named one) on that cluster, and the policy only chooses which
// task fills a slot. The engine applies them under every policy: during
// node n's heartbeat, FreeMapSlots(n) and FreeReduceSlots(n) count down the
// maps and reduces launched at it so far, so a policy filling free slots
// stops at the cap. Setup and cleanup tasks (the JobTracker assigns one
// before the scheduler, and then nothing else: lcAssign) and speculative
// copies are not counted. --set maps_per_heartbeat=0 reduces_per_heartbeat=0
// turns them off.

// heartbeatCapKeys is maps_per_heartbeat's and reduces_per_heartbeat's key
// group, added after the frozen JSON formats (optionalKeyGroups): left out
// of the run identity and the manifest while both are 0, so that a model
// without them keeps the identity it had before.
type heartbeatCapKeys struct {
	MapsPerHeartbeat    int
	ReducesPerHeartbeat int
}

func heartbeatCapKeysOf(h *Hardware) heartbeatCapKeys {
	return heartbeatCapKeys{h.MapsPerHeartbeat, h.ReducesPerHeartbeat}
}

// maxTasksPerHeartbeat bounds maps_per_heartbeat and reduces_per_heartbeat
// (Hadoop 1's default maximum-tasks-per-heartbeat, Short.MAX_VALUE).
const maxTasksPerHeartbeat = 1<<15 - 1

// validateHeartbeatCaps checks maps_per_heartbeat and reduces_per_heartbeat.
func (h *Hardware) validateHeartbeatCaps(bad func(string, ...any)) {
	if h.MapsPerHeartbeat < 0 || h.MapsPerHeartbeat > maxTasksPerHeartbeat {
		bad("maps_per_heartbeat = %d: want 0 (no cap)..%d", h.MapsPerHeartbeat, maxTasksPerHeartbeat)
	}
	if h.ReducesPerHeartbeat < 0 || h.ReducesPerHeartbeat > maxTasksPerHeartbeat {
		bad("reduces_per_heartbeat = %d: want 0 (no cap)..%d", h.ReducesPerHeartbeat, maxTasksPerHeartbeat)
	}
}

// heartbeatCaps reports whether either cap is set.
func (h *Hardware) heartbeatCaps() bool { return h.MapsPerHeartbeat > 0 || h.ReducesPerHeartbeat > 0 }

// hbCount is what the heartbeat under way has launched: on while a node's
// heartbeat runs the policy, node that node, maps and reduces the tasks
// launched on it since.
type hbCount struct {
	on            bool
	node          int32
	maps, reduces int32
}

// capFree is free, a number of free slots of one kind on node n, made at
// most limit less launched during n's heartbeat under way (limit > 0).
func (s *Sim) capFree(n, free int32, limit int, launched int32) int32 {
	if limit <= 0 || !s.hbc.on || s.hbc.node != n {
		return free
	}
	return min(free, max(int32(limit)-launched, 0))
}

// countLaunch counts a map (or a reduce) launched on node n during n's
// heartbeat under way.
func (s *Sim) countLaunch(n int32, reduce bool) {
	if !s.hbc.on || s.hbc.node != n {
		return
	}
	if reduce {
		s.hbc.reduces++
	} else {
		s.hbc.maps++
	}
}

// capacityOneEach reports whether a job conf's scheduler class and
// hadoop.common.configuration.version name a CapacityTaskScheduler that
// assigns one map and one reduce a heartbeat: Hadoop 0.21's or 0.22's (a
// version 0.21 or 0.22, alone or followed by "." and more).
func capacityOneEach(scheduler, version string) bool {
	if !strings.HasSuffix(scheduler, "CapacityTaskScheduler") {
		return false
	}
	v := strings.TrimSpace(version)
	for _, p := range []string{"0.21", "0.22"} {
		if v == p || strings.HasPrefix(v, p+".") {
			return true
		}
	}
	return false
}
