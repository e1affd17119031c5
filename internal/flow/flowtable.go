package flow

// flowTable maps the active flows' IDs to their state. The engine numbers its
// flows from 0 and reuses the numbers of ended ones, so IDs are small and
// dense: those below denseIDs are kept in a slice indexed by ID (a lookup is
// one index, where the Go map it replaces hashed and probed on every Add,
// Remove and query: 3% of the samples of a CPU profile of FB-2010's first
// 1,000 jobs under flow_shuffle = "batch" and flow_update = "1s", fifo), any
// other in a map. Nothing iterates over it, so neither affects an order.
type flowTable struct {
	dense  []*flowState // by ID, for 0 <= ID < denseIDs; nil: not active
	sparse map[FlowID]*flowState
	n      int
}

// denseIDs bounds the IDs kept in the slice (8 MB of pointers at most).
const denseIDs = 1 << 20

// get is the active flow id, nil if none.
func (t *flowTable) get(id FlowID) *flowState {
	if id >= 0 && id < FlowID(len(t.dense)) {
		return t.dense[id]
	}
	if id >= 0 && id < denseIDs {
		return nil
	}
	return t.sparse[id]
}

// set makes f the active flow id, which must not be active.
func (t *flowTable) set(id FlowID, f *flowState) {
	t.n++
	if id >= 0 && id < denseIDs {
		if id >= FlowID(len(t.dense)) {
			k := int(id) + 1
			if k <= cap(t.dense) {
				t.dense = t.dense[:k]
			} else {
				t.dense = append(t.dense[:cap(t.dense)], make([]*flowState, k-cap(t.dense))...)
				t.dense = t.dense[:cap(t.dense)]
			}
		}
		t.dense[id] = f
		return
	}
	if t.sparse == nil {
		t.sparse = make(map[FlowID]*flowState)
	}
	t.sparse[id] = f
}

// del ends the active flow id.
func (t *flowTable) del(id FlowID) {
	t.n--
	if id >= 0 && id < FlowID(len(t.dense)) {
		t.dense[id] = nil
		return
	}
	delete(t.sparse, id)
}

// len is the number of active flows.
func (t *flowTable) len() int { return t.n }
