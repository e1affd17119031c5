package replay

// CountLocalMapNodes returns the number of nodes n for which keep(n) holds
// (every node when keep is nil) to which a pending map of j is local
// (HasLocalMap): while a map without input is pending that is every node, each
// visited once; otherwise it visits only the nodes holding some map input of
// j, and drops from j's index those whose maps have all launched, so repeated
// calls cost what is left.
func (j *Job) CountLocalMapNodes(keep func(n int32) bool) int {
	c := 0
	if j.noInputMap() >= 0 {
		for n := range j.numNodes {
			if keep == nil || keep(n) {
				c++
			}
		}
		return c
	}
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
