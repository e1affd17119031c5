package flow

import (
	"maps"
	"testing"
)

// all returns the active flows by ID (tests only).
func (t *flowTable) all() map[FlowID]*flowState {
	m := maps.Clone(t.sparse)
	if m == nil {
		m = map[FlowID]*flowState{}
	}
	for id, f := range t.dense {
		if f != nil {
			m[FlowID(id)] = f
		}
	}
	return m
}

// TestFlowTable adds and removes flows with dense, large and negative IDs
// and checks every lookup and the count against a map.
func TestFlowTable(t *testing.T) {
	var tab flowTable
	want := map[FlowID]*flowState{}
	ids := []FlowID{0, 5, 3, denseIDs - 1, denseIDs, -1, 1 << 40, 2, 5000}
	for i, id := range ids {
		f := &flowState{id: id}
		tab.set(id, f)
		want[id] = f
		if i%3 == 2 {
			del := ids[i-1]
			tab.del(del)
			delete(want, del)
		}
		for _, q := range append(ids, 1, 7, denseIDs+1, -2) {
			if got := tab.get(q); got != want[q] {
				t.Fatalf("after %d: get(%d) = %v, want %v", i, q, got, want[q])
			}
		}
		if tab.len() != len(want) || len(tab.all()) != len(want) {
			t.Fatalf("after %d: len %d, all %d, want %d", i, tab.len(), len(tab.all()), len(want))
		}
	}
}
