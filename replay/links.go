package replay

// linkRecorder writes, at each timeline instant of a run under a re-timing
// network model (network = "flow"), the load of every link that carries a
// transfer (links.parquet): the data of the network figures.
type linkRecorder struct {
	NopObserver
	s *Sim
}

// Sample records one row per loaded link.
func (l linkRecorder) Sample(e SampleEvent) {
	l.s.fn.Links(func(link string, capacity, load float64, flows int) {
		l.s.addLink(LinkSample{TimeUs: e.Time, Link: link, CapacityMBps: capacity / 1e6, LoadMBps: load / 1e6,
			Utilisation: load / capacity, Flows: int32(flows)})
	})
}
