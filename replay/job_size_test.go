package replay

import (
	"testing"
	"unsafe"
)

// TestTaskRecordSizes keeps the per-task records small: every running job
// holds its maps' and reduces' records, and a backlog of jobs waiting for
// their reduces (Coupling on FB-2010) holds hundreds of thousands of
// ReduceTasks (docs/performance.md). A field added or reordered so that a
// record grows fails here; raise the bound knowingly.
func TestTaskRecordSizes(t *testing.T) {
	if n := unsafe.Sizeof(MapTask{}); n > 64 {
		t.Errorf("MapTask takes %d bytes, want at most 64 (one cache line)", n)
	}
	if n := unsafe.Sizeof(ReduceTask{}); n > 72 {
		t.Errorf("ReduceTask takes %d bytes, want at most 72", n)
	}
}
