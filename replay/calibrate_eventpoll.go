package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/tracereplay/tracereplay/trace"
)

// fitEventPoll turns on event_poll (shuffle.go, eventPollUs) when the
// schedule's Hadoop 1 reduces that were running before their job's last map
// ended copy on for longer after it than the model would without the poll
// chain: the last map's report (half a heartbeat on average) and one fetch
// latency. The samples are the reduces of jobs without a recorded
// ApplicationMaster, started before the job's last map end and with a
// shuffle end after it; their copy tail is shuffle end − last map end.
// Nothing is fitted: the wait is Hadoop 1's (heartbeat/2 + 3 s); the tails'
// median is noted beside it. lastMap is each job's last map end (ms).
func (c *Calibration) fitEventPoll(tr *trace.Trace, base Hardware, lastMap map[string]int64) {
	yarn := map[string]bool{}
	for i := range tr.Jobs {
		if tr.Jobs[i].AMStartMs >= 0 {
			yarn[tr.Jobs[i].ID] = true
		}
	}
	var tails []float64
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		lm, ok := lastMap[t.JobID]
		if t.Type != trace.Reduce || !ok || yarn[t.JobID] || t.Host == "" || t.StartMs < 0 || t.StartMs >= lm || t.ShuffleFinishMs < lm {
			continue
		}
		tails = append(tails, float64(msUs(t.ShuffleFinishMs-lm)))
	}
	if len(tails) < minFitSamples {
		c.note("event_poll: fewer than %d reduces of Hadoop 1 jobs running before their job's last map ended, with a shuffle end", minFitSamples)
		return
	}
	slices.Sort(tails)
	lat := int64(base.ShuffleFetchLatency)
	if v, ok := c.Value("shuffle_fetch_latency"); ok {
		if d, err := time.ParseDuration(v[1 : len(v)-1]); err == nil {
			lat = d.Microseconds()
		}
	}
	without := int64(base.Heartbeat)/2 + lat
	chain := int64(base.Heartbeat)/2 + eventPollChildUs + eventPollSleepUs
	how := fmt.Sprintf("the copy of Hadoop 1 reduces running before their job's last map ends on a median %s after it (p10 %s, p90 %s), beyond the model's %s without the poll chain (half a heartbeat's report and one fetch latency); the chain adds heartbeat/2 + 3 s = %s at heartbeat = %s (not fitted)",
		durationValue(median(tails)), durationValue(percentileSorted(tails, 0.1)), durationValue(percentileSorted(tails, 0.9)),
		durationValue(float64(without)), durationValue(float64(chain)), durationValue(float64(base.Heartbeat)))
	if median(tails) <= float64(without) {
		c.note("event_poll: not set; %s", how)
		return
	}
	c.add("event_poll", "true", how, len(tails))
}
