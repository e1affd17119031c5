package replay

// SetRowGroup bounds the row groups of w's streamed files to n rows, so that a
// test sees memory bounded on a run far smaller than a production row group.
func SetRowGroup(w *RunWriter, n int) {
	w.tasks.rowGroup, w.timeline.rowGroup, w.nodeNet.rowGroup = n, n, n
}
