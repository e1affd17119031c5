package validation_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/trace"
)

// TestCopyTailOfTraces prints, per reduce of each scored trace (each job set
// once) that started before its job's last map ended, its copy tail (shuffle
// end − the job's last successful map end) beside what might explain it:
// its shuffle bytes, its job's maps and reduces, the maps that ended in the
// 10 s and 30 s before the last one, the cluster's hosts, the last map attempt's
// end (failed and killed ones too), the reduce's sort time and the time from
// its start to the last map (docs/validation.md, "Model mode").
func TestCopyTailOfTraces(t *testing.T) {
	testgate.Require(t, testgate.Full, "reads every scored trace")
	dir := sharedTraces(t)
	seen := map[string]bool{}
	fmt.Println("trace fold job reduce fmt maps reduces hosts shuffleB tail_s late10 late30 lastAttemptTail_s sort_s startToLast_s sameHostAsLastMap")
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil || seen[jobSet(tr)] {
			continue
		}
		seen[jobSet(tr)] = true
		hosts := map[string]bool{}
		lastMap, lastAtt, maps, reds := map[string]int64{}, map[string]int64{}, map[string]int{}, map[string]int{}
		lastHost := map[string]string{}
		ends := map[string][]int64{}
		for _, k := range tr.Tasks {
			if k.Host != "" {
				hosts[k.Host] = true
			}
			if k.Type == trace.Reduce {
				reds[k.JobID]++
			}
			if k.Type == trace.Map && k.Host != "" && k.StartMs >= 0 && k.FinishMs >= k.StartMs {
				if k.FinishMs > lastMap[k.JobID] {
					lastHost[k.JobID] = k.Host
				}
				lastMap[k.JobID] = max(lastMap[k.JobID], k.FinishMs)
				maps[k.JobID]++
				ends[k.JobID] = append(ends[k.JobID], k.FinishMs)
			}
		}
		won := map[string]int64{}
		for _, a := range tr.Attempts {
			if a.Type == trace.Map && a.FinishMs >= 0 {
				lastAtt[a.JobID] = max(lastAtt[a.JobID], a.FinishMs)
			}
			if a.Status == "SUCCEEDED" && a.FinishMs >= 0 {
				won[a.TaskID] = a.FinishMs
			}
		}
		// A killed attempt whose task succeeded while it ran: the kill reaches
		// its tracker at a heartbeat and its end is reported at a later one.
		var kills []float64
		for _, a := range tr.Attempts {
			if w, ok := won[a.TaskID]; ok && a.Status == "KILLED" && a.StartMs >= 0 && a.StartMs < w && a.FinishMs >= w {
				kills = append(kills, float64(a.FinishMs-w)/1000)
			}
		}
		slices.Sort(kills)
		fmt.Printf("# %s (fold %s, %s, %d hosts): %d killed attempts beside a successful one, their end after the winner's: %v s\n",
			shortName(h.path), h.fold, tr.Meta.SourceFormat, len(hosts), len(kills), kills)
		for _, k := range tr.Tasks {
			if k.Type != trace.Reduce || k.Host == "" || k.StartMs < 0 || k.ShuffleFinishMs < k.StartMs || k.FinishMs < k.ShuffleFinishMs {
				continue
			}
			lm, ok := lastMap[k.JobID]
			if !ok {
				continue
			}
			late := func(s int64) int {
				n := 0
				for _, e := range ends[k.JobID] {
					if e >= lm-s*1000 {
						n++
					}
				}
				return n
			}
			when := "before"
			if k.StartMs >= lm {
				when = "after"
			}
			la := lm
			if v, ok := lastAtt[k.JobID]; ok {
				la = max(la, v)
			}
			sortS := -1.0
			if k.SortFinishMs >= k.ShuffleFinishMs {
				sortS = float64(k.SortFinishMs-k.ShuffleFinishMs) / 1000
			}
			fmt.Printf("%s %s %s %s %s %d %d %d %d %.2f %d %d %.2f %.2f %.2f %v %s\n",
				shortName(h.path), h.fold, k.JobID, k.TaskID, tr.Meta.SourceFormat, maps[k.JobID], reds[k.JobID], len(hosts),
				k.ShuffleBytes, float64(k.ShuffleFinishMs-lm)/1000, late(10), late(30),
				float64(k.ShuffleFinishMs-la)/1000, sortS, float64(lm-k.StartMs)/1000, k.Host == lastHost[k.JobID], when)
		}
	}
}
