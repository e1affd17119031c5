package policy

// srvHeap is an indexed binary min-heap of servers ordered by (key, id); ties go
// to the lower id, so every choice it makes is deterministic. A max-heap is the
// same heap on negated keys. It reuses its slices across resets.
type srvHeap struct {
	key []int64 // by server id
	pos []int32 // by server id: index in h, -1 when absent
	h   []int32
}

// reset empties the heap for servers 0..n-1.
func (q *srvHeap) reset(n int) {
	q.key = grow(q.key, n)
	q.pos = grow(q.pos, n)
	for i := range q.pos {
		q.pos[i] = -1
	}
	q.h = q.h[:0]
}

// grow returns s with length n, reusing its array when it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (q *srvHeap) less(a, b int32) bool {
	return q.key[a] < q.key[b] || q.key[a] == q.key[b] && a < b
}

func (q *srvHeap) len() int { return len(q.h) }

// top is the server with the least key; the heap must not be empty.
func (q *srvHeap) top() int32 { return q.h[0] }

// has reports whether server s is in the heap.
func (q *srvHeap) has(s int32) bool { return q.pos[s] >= 0 }

// push adds server s with key k; s must be absent.
func (q *srvHeap) push(s int32, k int64) {
	q.key[s] = k
	q.pos[s] = int32(len(q.h))
	q.h = append(q.h, s)
	q.up(len(q.h) - 1)
}

// heapify adds every server 0..n-1 with keys[s] in O(n).
func (q *srvHeap) heapify(keys []int64) {
	n := len(keys)
	q.reset(n)
	copy(q.key, keys)
	q.h = grow(q.h, n)
	for i := range n {
		q.h[i] = int32(i)
		q.pos[i] = int32(i)
	}
	for i := n/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// pop removes and returns the top server.
func (q *srvHeap) pop() int32 {
	s := q.h[0]
	q.remove(s)
	return s
}

// remove takes server s out of the heap.
func (q *srvHeap) remove(s int32) {
	i := int(q.pos[s])
	last := len(q.h) - 1
	q.swap(i, last)
	q.h = q.h[:last]
	q.pos[s] = -1
	if i < last {
		q.down(i)
		q.up(i)
	}
}

// fix sets server s's key to k and restores the order; s must be present.
func (q *srvHeap) fix(s int32, k int64) {
	q.key[s] = k
	i := int(q.pos[s])
	q.down(i)
	q.up(i)
}

func (q *srvHeap) swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	q.pos[q.h[i]] = int32(i)
	q.pos[q.h[j]] = int32(j)
}

func (q *srvHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(q.h[i], q.h[p]) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *srvHeap) down(i int) {
	n := len(q.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(q.h[r], q.h[l]) {
			m = r
		}
		if !q.less(q.h[m], q.h[i]) {
			return
		}
		q.swap(i, m)
		i = m
	}
}
