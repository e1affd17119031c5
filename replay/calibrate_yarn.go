package replay

import (
	"fmt"
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// fitContainerStartup fits container_startup (yarn_startup.go), the start-up
// of a YARN map or reduce container in model mode, from the jobs that record
// their ApplicationMaster's start (a YARN history's jobs): per job, the 10th
// percentile (nearest rank: the fastest of fewer than ten) of its
// successful maps' durations — a .jhist attempt runs from the container's
// launch (TaskAttemptImpl's launch time) to the task's done report — less
// the disk term of the maps' fit (input+output over disk_mb_per_s; output
// alone under flow); container_startup is the median over the jobs. The
// tenth percentile, not the median, because the model starts every container
// on its own: containers launched together on one host slow each other's
// JVMs, which the model does not have (the Sleep history of the validation
// set launched seven on one host within 0.1 s, which ran 11.4–12.1 s, and
// its next three 3.6–4.7 s, for maps that sleep 1 ms). Each job counts once,
// whatever its maps. A trace without such a job fits nothing: the model
// keeps task_startup for its containers.
func (c *Calibration) fitContainerStartup(tr *trace.Trace, base Hardware, observed func(*trace.Task) bool) {
	am := map[string]bool{}
	for i := range tr.Jobs {
		if tr.Jobs[i].AMStartMs >= 0 {
			am[tr.Jobs[i].ID] = true
		}
	}
	if len(am) == 0 {
		return
	}
	flow := base.NetworkModel().Retimes()
	per := map[string][]float64{}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if !am[t.JobID] || t.Type != trace.Map || !observed(t) || t.Status != trace.StatusSucceeded && t.Status != "" {
			continue
		}
		in, out := max(t.InputBytes, 0), max(t.OutputBytes, 0)
		disk := bytesUs(in+out, base.DiskMBps)
		if flow {
			disk = bytesUs(out, base.DiskMBps)
		}
		per[t.JobID] = append(per[t.JobID], max(0, msUs(t.FinishMs-t.StartMs)-disk))
	}
	if len(per) == 0 {
		c.note("container_startup: no job that records a YARN ApplicationMaster has a successful map with observed times; task_startup stays its containers' start-up")
		return
	}
	var fast, mid []float64
	for _, d := range per {
		slices.Sort(d)
		fast = append(fast, percentileSorted(d, 0.1))
		mid = append(mid, median(d))
	}
	slices.Sort(fast)
	slices.Sort(mid)
	less := fmt.Sprintf("less (input+output)/disk_mb_per_s = %g", base.DiskMBps)
	if flow {
		less = fmt.Sprintf("less output/disk_mb_per_s = %g (network = \"flow\")", base.DiskMBps)
	}
	c.add("container_startup", durationValue(math.Max(0, median(fast))),
		fmt.Sprintf("YARN, model mode: median over the jobs that record their ApplicationMaster of the 10th percentile of their successful maps' durations (container launch to done) %s, the containers the least slowed by others starting beside them (the jobs' medians: median %s); replaces task_startup for maps and reduces on cluster = \"yarn\"", less, durationValue(median(mid))),
		len(fast))
}
