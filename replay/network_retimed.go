package replay

import "math"

// The engine's side of a re-timing network model (network.go): every map
// read and spill, shuffle fetch and reduce output write (network_disk.go) is
// a transfer of the model's Flows, a second event source. The loop compares
// the queue's next event with the next transfer end and handles the earlier,
// the transfer end first on a tie. A map's done event is scheduled only when
// its spill has ended, and a reduce's only when its output write has, so
// neither is ever stale; ends the model moves while a transfer is under way
// need no event.

// flowStep handles the network's next transfer end if it comes no later than
// the queue's next event; it reports whether it handled one.
func (s *Sim) flowStep() (bool, error) {
	fn := s.fn
	if s.flowErr != nil {
		return false, s.flowErr
	}
	id, at, ok, err := fn.Next(s.now)
	if err != nil {
		return false, err
	}
	if !ok || len(s.q) > 0 && s.q[0].t < at {
		return false, nil
	}
	if s.chk != nil {
		s.chk.time(at)
	}
	s.now = at
	s.events++
	x, err := fn.End(id, at)
	if err != nil {
		return false, err
	}
	s.flowTransferred(x, at)
	if s.inflight[x.Start]--; s.inflight[x.Start] <= 0 {
		delete(s.inflight, x.Start)
	}
	j := s.jobs[x.Job]
	if x.Kind != TransferFetch {
		s.flowTaskEnded(j, x) // network_disk.go
	} else {
		st := &j.out.fs[x.Task]
		st.active--
		s.pumpFetches(j, x.Task)
	}
	return true, s.flowErr
}

// flowStart starts a transfer; an error (a bug) stops the run at its next step.
func (s *Sim) flowStart(x Transfer) {
	if err := s.fn.Start(s.now, x); err != nil && s.flowErr == nil {
		s.flowErr = err
	}
	if s.inflight == nil {
		s.inflight = map[int64]int{}
	}
	s.inflight[s.now]++
}

// earliestStart is the start time of the earliest transfer under way or about
// to start, math.MaxInt64 when there is none: the network accounting keeps
// every interval a transfer may still spread its bytes into open until then
// (netstats.go). Linear in the distinct start times of the transfers under
// way.
func (s *Sim) earliestStart() int64 {
	m := int64(math.MaxInt64)
	for t := range s.inflight {
		m = min(m, t)
	}
	return m
}

// retime moves a running map's input load from its estimated finish (old) to
// its actual one (mapLaunched counted it at the estimate).
func (mm *machineMetrics) retime(m *MapTask, old int64) {
	if old == m.FinishUs || m.InputBytes <= 0 {
		return
	}
	if d := old - m.LaunchUs; d > 0 {
		rate := float64(m.InputBytes) / float64(d)
		mm.loadA[m.srcNode] -= rate * float64(old)
		mm.loadRate[m.srcNode] -= rate
	}
	if d := m.FinishUs - m.LaunchUs; d > 0 {
		rate := float64(m.InputBytes) / float64(d)
		mm.loadA[m.srcNode] += rate * float64(m.FinishUs)
		mm.loadRate[m.srcNode] += rate
	}
}

// fetchState is one reduce's shuffle under a re-timing network model.
type fetchState struct {
	queue   []int32 // maps whose output it fetches, in finish order
	head    int     // next in queue to start
	active  int32   // fetches under way
	started bool    // its start-up is over
	phase   bool    // the job's maps are all done
	latUs   int64   // shuffle_fetch_latency's share of its fetches
}

// flowReduceLaunched sets up reduce i's shuffle and queues the outputs of the
// maps already done; its fetches start after its start-up.
func (s *Sim) flowReduceLaunched(j *Job, i int32) {
	o := &j.out
	if o.fs == nil {
		o.fs = make([]fetchState, len(j.Reduces))
	}
	o.fs[i].queue = append(o.fs[i].queue, o.done...)
	s.schedule(s.now+int64(s.hw.TaskStartup), evFetchStart, j.Index, i)
}

// fetchStart is the end of reduce i's start-up: its fetches begin.
func (s *Sim) fetchStart(j *Job, i int32) {
	j.out.fs[i].started = true
	s.pumpFetches(j, i)
}

// flowFetch queues reduce r's fetch of map m's output.
func (s *Sim) flowFetch(j *Job, r, m int32) {
	st := &j.out.fs[r]
	st.queue = append(st.queue, m)
	s.pumpFetches(j, r)
}

// pumpFetches starts reduce r's queued fetches up to parallel_copies under
// way, and ends its shuffle when its maps are done and nothing is left.
func (s *Sim) pumpFetches(j *Job, r int32) {
	st := &j.out.fs[r]
	if !st.started {
		return
	}
	red := &j.Reduces[r]
	p := int32(max(s.hw.ParallelCopies, 1))
	for st.active < p && st.head < len(st.queue) {
		m := st.queue[st.head]
		st.head++
		mp := &j.Maps[m]
		if L := int64(s.hw.ShuffleFetchLatency); L > 0 {
			st.latUs += (L + int64(p) - 1) / int64(p)
		}
		b := s.share(j, red, mp)
		if b <= 0 {
			continue
		}
		if mp.Node != red.Node {
			s.netBytes += b
		}
		st.active++
		s.flowStart(Transfer{Kind: TransferFetch, Job: j.Index, Task: r, FetchOf: m, Src: mp.Node, Dst: red.Node, Bytes: b})
	}
	if st.phase && st.active == 0 && st.head == len(st.queue) {
		st.phase = false
		red.ShuffleEndUs = s.now + st.latUs
		if s.chk != nil {
			s.chk.reducePhase(j, r)
		}
		s.flowShuffleEnded(j, r) // network_disk.go
	}
}

// flowReducePhase is startReducePhase under a re-timing model: the job's maps
// are all done, so the reduce's shuffle ends with its last fetch.
func (s *Sim) flowReducePhase(j *Job, i int32) {
	j.out.fs[i].phase = true
	s.pumpFetches(j, i)
}
