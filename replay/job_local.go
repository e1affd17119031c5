package replay

// CountLocalMapNodes returns the number of nodes n for which keep(n) holds
// (every node when keep is nil) that hold a replica of a pending map of j. It
// visits only the nodes holding some map input of j, and drops from j's index
// those whose maps have all launched, so repeated calls cost what is left.
func (j *Job) CountLocalMapNodes(keep func(n int32) bool) int {
	c := 0
	for k, n := range j.nodeKeys {
		if j.onNode[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		if j.localAt(k) < 0 {
			j.onNode[n>>6] &^= 1 << (n & 63)
			continue
		}
		if keep == nil || keep(n) {
			c++
		}
	}
	return c
}
