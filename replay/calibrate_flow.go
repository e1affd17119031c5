package replay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tracereplay/tracereplay/trace"
)

// Calibration for network = "flow" (Calibrate with a base model whose network
// re-times transfers). The flow model times a task differently from the
// fixed one (network_disk.go), so the same observed durations fit other
// rates:
//
//	map      = task_startup + max(in/disk_mb_per_s, in/map_compute_mb_per_s) + out/disk_mb_per_s
//	reduce   = copy + max(shuffle/sort_mb_per_s + shuffle/reduce_compute_mb_per_s, out through the pipeline)
//	copy     = task_startup + fetches, each a flow sharing the NICs and disks, + shuffle_fetch_latency/parallel_copies per map output
//
// A map reads and computes side by side, so its duration less its spill,
// fitted on input bytes, has the slope of the slower of the two: a slope
// above the disk's 1/disk_mb_per_s is the compute's, and one not told apart
// from the disk's leaves the compute hidden behind the read (0 = not a
// bottleneck). The fixed fit subtracts the read too, which under flow would
// count the read once where the map spends it beside the compute: a map
// whose compute is 1/slope_fixed comes out short by the smaller of the two.
// The reduce's fetched bytes meet its disk in the fetch and its output write
// runs beside its work, so its work after the shuffle is fitted with no disk
// term. And nic_mb_per_s is a link's capacity, shared by every transfer
// crossing it, not one copy's rate: a copy phase is mostly waiting for
// outputs and fetch rounds, so its slope on shuffle bytes (the fixed fit)
// says nothing about the link. What a schedule does say is a lower bound: in
// any window, the bytes that copies entirely inside it brought into a host
// from other hosts crossed that host's NIC, so the NIC carries at least their
// sum over the window's length. The fit keeps the base's NIC unless the
// trace shows a faster one.

// minNICWindowMs is the shortest window the NIC bound is taken over: a
// history's times are milliseconds stamped by the task, so a shorter window
// would turn a few milliseconds of stamping error into a large rate.
const minNICWindowMs = 1000

// maxNICWindowCopies bounds the copies of one host whose windows are paired
// (O(n²) per host); a host with more takes each copy's own window only.
const maxNICWindowCopies = 2000

// flowCopy is one reduce's copy phase as the NIC bound reads it.
type flowCopy struct {
	startMs, endMs int64
	remote         float64 // bytes from other hosts
}

// nicLowerBound returns the highest rate, in MB/s, at which a host of the
// trace received shuffle bytes from other hosts over a window of at least
// minNICWindowMs, counting the copies (start to shuffle end) wholly inside
// it, and how many copies it read. A reduce's bytes from other hosts are its
// shuffle bytes less its share of the job's map output written on its own
// host (by map output bytes, or by map count when they are unknown).
func nicLowerBound(tr *trace.Trace, observed func(*trace.Task) bool) (float64, int) {
	type jobHost struct{ job, host string }
	out := map[jobHost]float64{}
	total := map[string]float64{}
	count := map[jobHost]float64{}
	maps := map[string]float64{}
	bytesKnown := map[string]bool{}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if t.Type != trace.Map || !observed(t) {
			continue
		}
		k := jobHost{t.JobID, t.Host}
		count[k]++
		maps[t.JobID]++
		if t.OutputBytes > 0 {
			out[k] += float64(t.OutputBytes)
			total[t.JobID] += float64(t.OutputBytes)
			bytesKnown[t.JobID] = true
		}
	}
	byHost := map[string][]flowCopy{}
	n := 0
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if t.Type != trace.Reduce || !observed(t) || t.ShuffleBytes <= 0 || t.ShuffleFinishMs < t.StartMs || t.ShuffleFinishMs > t.FinishMs {
			continue
		}
		k := jobHost{t.JobID, t.Host}
		local := 0.0
		switch {
		case bytesKnown[t.JobID]:
			local = out[k] / total[t.JobID]
		case maps[t.JobID] > 0:
			local = count[k] / maps[t.JobID]
		}
		byHost[t.Host] = append(byHost[t.Host], flowCopy{t.StartMs, t.ShuffleFinishMs, float64(t.ShuffleBytes) * (1 - local)})
		n++
	}
	hosts := make([]string, 0, len(byHost))
	for h := range byHost {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	best := 0.0
	for _, h := range hosts {
		best = max(best, hostNICBound(byHost[h]))
	}
	return best, n
}

// hostNICBound is nicLowerBound's rate (MB/s) for one host's copies.
func hostNICBound(cs []flowCopy) float64 {
	slices.SortFunc(cs, func(a, b flowCopy) int {
		return cmp.Or(cmp.Compare(a.endMs, b.endMs), cmp.Compare(a.startMs, b.startMs), cmp.Compare(a.remote, b.remote))
	})
	rate := func(bytes float64, fromMs, toMs int64) float64 {
		if toMs-fromMs < minNICWindowMs {
			return 0
		}
		return bytes / float64(toMs-fromMs) / 1e3 // bytes per ms -> MB/s
	}
	best := 0.0
	if len(cs) > maxNICWindowCopies {
		for _, c := range cs {
			best = max(best, rate(c.remote, c.startMs, c.endMs))
		}
		return best
	}
	for _, a := range cs { // the window opens at a copy's start ...
		sum := 0.0
		for _, c := range cs { // ... and closes at each copy's end, in end order
			if c.startMs >= a.startMs {
				sum += c.remote
				best = max(best, rate(sum, a.startMs, c.endMs))
			}
		}
	}
	return best
}

// flowMapFit turns the slope (µs per byte) and its 95% interval's lower end
// of the maps' duration less their spill, fitted on input bytes, into the
// compute's slope under flow: the slope when its interval lies above the
// disk's 1/disk_mb_per_s (the compute is slower than the read), else 0 (the
// read hides the compute).
func flowMapFit(slope, lo, diskMBps float64) float64 {
	if diskMBps > 0 && lo > 1/diskMBps {
		return slope
	}
	return 0
}

// flowMapNote describes flowMapFit's result.
func flowMapNote(slope, diskMBps float64) string {
	if slope > 0 {
		return fmt.Sprintf("%.4g s per GB, above the read's %.4g s per GB at disk_mb_per_s = %g: the compute is the slower", slope*1e3, 1e3/diskMBps, diskMBps)
	}
	return fmt.Sprintf("no slope whose 95%% interval lies above the read's %.4g s per GB at disk_mb_per_s = %g: the read hides the compute, so the rate is 0 = not a bottleneck", 1e3/diskMBps, diskMBps)
}

// fitFlowNIC adds nic_mb_per_s for the flow model: the base's, or the trace's
// lower bound when that is higher (nicLowerBound). It returns the value.
func (c *Calibration) fitFlowNIC(tr *trace.Trace, base Hardware, observed func(*trace.Task) bool) float64 {
	lb, n := nicLowerBound(tr, observed)
	if n == 0 {
		c.note("nic_mb_per_s: no reduce records a shuffle end and shuffle bytes, so the trace bounds no NIC; the base value %g is kept", base.NICMBps)
		return base.NICMBps
	}
	nic := max(base.NICMBps, lb)
	how := fmt.Sprintf("network = \"flow\": a link capacity, shared by the transfers crossing it; the most any host received from other hosts over a window of at least %d ms, counting the copies (start to shuffle end) wholly inside it, was %.4g MB/s, a lower bound on its NIC", minNICWindowMs, lb)
	if lb > base.NICMBps {
		how += fmt.Sprintf(", above the base's %g: raised to it", base.NICMBps)
	} else {
		how += fmt.Sprintf(", below the base's %g, which is kept (the copy phase's slope on shuffle bytes, the fixed model's per-copy rate, is not a link's capacity)", base.NICMBps)
	}
	c.add("nic_mb_per_s", strconv.FormatFloat(nic, 'g', 4, 64), how, n)
	return nic
}

// flowCopyRest is what one reduce's copy takes under flow beyond start-up
// and its bytes at the NIC, or NaN without maps.
func flowCopyRest(copyUs, startupUs, shuffle, nicMBps, maps float64) float64 {
	if maps <= 0 {
		return math.NaN()
	}
	return copyUs - startupUs - bytesUs(int64(shuffle), nicMBps)
}

// fitFlowCopy fits nic_mb_per_s (fitFlowNIC) and shuffle_fetch_latency for
// the flow model from the copies cx (shuffle bytes), cy (shuffle end − start,
// µs) and cmaps (their jobs' maps) of the reduces launched after their job's
// last map, given the fitted start-up.
//
// Under flow each map output adds latency/parallel_copies to a reduce's copy
// (pumpFetches), so the latency is the slope of a Theil-Sen fit of the copy's
// rest (copy − start-up − shuffle/NIC) on maps/parallel_copies, kept when
// significant. The intercept is a cost per reduce that does not grow with the
// maps, which flow has no key for: Hadoop 1's ReduceCopier.fetchOutputs
// sleeps 5 s whenever no map output can be fetched (at a reduce's start,
// before GetMapEventsThread, polling every 1 s, has learnt of any), and a
// reduce of a one-map job is mostly that. Dividing each rest by its maps, as
// this fit did before, made one-map jobs' waits a per-output latency: fold
// B's 15.851 s (11 of its 13 reduces of one-map jobs), 131 × 15.851 / 5 s on
// a 131-map job.
func (c *Calibration) fitFlowCopy(tr *trace.Trace, base Hardware, observed func(*trace.Task) bool, startup float64, cx, cy, cmaps []float64) {
	nic := c.fitFlowNIC(tr, base, observed)
	if len(cx) < minFitSamples || math.IsNaN(startup) {
		c.note("shuffle_fetch_latency: fewer than %d reduces launched after their job's last map with a shuffle end, or no task_startup", minFitSamples)
		return
	}
	pc := float64(max(parallelCopies(base), 1))
	var x, rest []float64
	for i := range cx {
		if r := flowCopyRest(cy[i], startup, cx[i], nic, cmaps[i]); !math.IsNaN(r) {
			x, rest = append(x, cmaps[i]/pc), append(rest, r)
		}
	}
	if len(x) < minFitSamples {
		c.note("shuffle_fetch_latency: fewer than %d reduces launched after their job's last map with maps", minFitSamples)
		return
	}
	slope, icept, lo := theilSen(x, rest)
	if slope = significant(slope, lo); slope <= 0 {
		c.note("shuffle_fetch_latency (network = \"flow\"): the copy's rest (copy - task_startup - shuffle/nic_mb_per_s) does not grow with maps/%g parallel copies over %d reduces launched after their job's last map (no slope whose 95%% interval is above 0, or too few maps told apart); the base value is kept. Median rest %s per reduce, which flow has no key for", pc, len(x), durationValue(medianOf(rest)))
		return
	}
	c.add("shuffle_fetch_latency", durationValue(slope), fmt.Sprintf("network = \"flow\": slope of a Theil-Sen fit of the copy's rest (copy - task_startup - shuffle/nic_mb_per_s) on maps/%g parallel copies, over the reduces launched after their job's last map (each map output adds latency/parallel_copies under flow; the slope's 95%% interval is above 0; intercept %s per reduce, which flow has no key for)", pc, durationValue(icept)), len(x))
}
