package replay

// SlotWatcher is implemented by a policy that keeps its own account of the
// nodes' free slots (the Coupling Scheduler counts the nodes with a free map
// slot and keeps lists of nodes with a free reduce slot across heartbeats).
// A policy sees the slots its LaunchMap and LaunchReduce take, and those
// freed at the ends it is told of (TaskFinished); the engine calls
// OtherSlot, right after the change, for every other slot of a slot cluster
// taken or freed:
//
//   - kind TaskSetup or TaskCleanup: a job's setup or cleanup task (the
//     lifecycle, lifecycle.go) took a map (mapSlot) or reduce slot of node n
//     at n's heartbeat (taken), in place of the policy's Heartbeat, or freed
//     it when its end was reported;
//   - kind TaskSpeculative: a speculative copy of a map (the engine's
//     speculation, or an observed one in trace mode) took or freed a map slot;
//   - kind TaskMap, freed: the losing original attempt of a map whose copy
//     won freed its slot, after its kill (lifecycle_kill.go): the policy was
//     told of the map's end (TaskFinished) while its slot was still held.
//
// A policy that cannot follow a kind may stop keeping its account from then
// on; it must then also stop telling the engine to park nodes on it (Waker).
type SlotWatcher interface {
	OtherSlot(c Cluster, n int32, kind TaskKind, mapSlot, taken bool)
}

// otherSlot tells the policy, if it is a SlotWatcher, of a slot of node n
// taken or freed by a task of the kind it did not launch (SlotWatcher).
func (s *Sim) otherSlot(n int32, kind TaskKind, mapSlot, taken bool) {
	if w, ok := s.pol.(SlotWatcher); ok {
		w.OtherSlot(s, n, kind, mapSlot, taken)
	}
}
