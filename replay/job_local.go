package replay

// CountLocalMapNodes returns the number of nodes n for which keep(n) holds
// (every node when keep is nil) that hold a replica of a pending map of j. It
// visits only the nodes holding some map input of j, and drops from j's index
// those whose maps have all launched, so repeated calls cost what is left.
func (j *Job) CountLocalMapNodes(keep func(n int32) bool) int {
	c := 0
	for n := range j.byNode {
		if j.firstPending(j.byNode, n) >= 0 && (keep == nil || keep(n)) {
			c++
		}
	}
	return c
}
