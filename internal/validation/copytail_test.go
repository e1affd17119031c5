package validation_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/trace"
)

// TestCopyTailOfTraces prints, per scored trace (each job set once), the copy
// tail of its reduces that were running before their job's last map ended:
// shuffle end − the job's last successful map end (docs/validation.md, "Model
// mode"). Per trace: the hosts that ran its tasks, the tails' p10, median and
// p90, split by the reduce's shuffle bytes (below 1 MB, at least 1 MB), and
// the killed attempts that ran beside their task's successful one, from the
// winner's end to theirs (a kill reaches the tracker at a heartbeat and its
// end is reported at a later one: the cluster's heartbeat shows in it). Per
// job: its maps, reduces, median shuffle bytes, the maps that ended in the
// 10 s before the last one, and the tails' median.
func TestCopyTailOfTraces(t *testing.T) {
	testgate.Require(t, testgate.Full, "reads every scored trace")
	dir := sharedTraces(t)
	seen := map[string]bool{}
	q := func(v []float64, p float64) string {
		if len(v) == 0 {
			return "-"
		}
		slices.Sort(v)
		return fmt.Sprintf("%.2f", v[int(p*float64(len(v)-1))])
	}
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil || seen[jobSet(tr)] {
			continue
		}
		seen[jobSet(tr)] = true
		hosts := map[string]bool{}
		lastMap, maps, reds := map[string]int64{}, map[string]int{}, map[string]int{}
		ends := map[string][]int64{}
		for _, k := range tr.Tasks {
			if k.Host != "" {
				hosts[k.Host] = true
			}
			if k.Type == trace.Reduce {
				reds[k.JobID]++
			}
			if k.Type == trace.Map && k.Host != "" && k.StartMs >= 0 && k.FinishMs >= k.StartMs {
				lastMap[k.JobID] = max(lastMap[k.JobID], k.FinishMs)
				maps[k.JobID]++
				ends[k.JobID] = append(ends[k.JobID], k.FinishMs)
			}
		}
		won := map[string]int64{}
		for _, a := range tr.Attempts {
			if a.Status == "SUCCEEDED" && a.FinishMs >= 0 {
				won[a.TaskID] = a.FinishMs
			}
		}
		var kills []float64
		for _, a := range tr.Attempts {
			if w, ok := won[a.TaskID]; ok && a.Status == "KILLED" && a.StartMs >= 0 && a.StartMs < w && a.FinishMs >= w {
				kills = append(kills, float64(a.FinishMs-w)/1000)
			}
		}
		var all, small, big []float64
		type jobTails struct {
			tails, shuffle []float64
		}
		jobs := map[string]*jobTails{}
		var order []string
		for _, k := range tr.Tasks {
			lm, ok := lastMap[k.JobID]
			if k.Type != trace.Reduce || !ok || k.Host == "" || k.StartMs < 0 || k.StartMs >= lm || k.ShuffleFinishMs < lm {
				continue
			}
			tail := float64(k.ShuffleFinishMs-lm) / 1000
			all = append(all, tail)
			if k.ShuffleBytes < 1e6 {
				small = append(small, tail)
			} else {
				big = append(big, tail)
			}
			jt := jobs[k.JobID]
			if jt == nil {
				jt = &jobTails{}
				jobs[k.JobID] = jt
				order = append(order, k.JobID)
			}
			jt.tails = append(jt.tails, tail)
			jt.shuffle = append(jt.shuffle, float64(max(k.ShuffleBytes, 0)))
		}
		fmt.Printf("%s (fold %s, %s, %d hosts): %d reduces running at the last map end, copy tail p10/median/p90 %s/%s/%s s (shuffle < 1 MB: %d, median %s s; >= 1 MB: %d, median %s s); %d killed attempts beside a successful one, their end after the winner's median %s s\n",
			shortName(h.path), h.fold, tr.Meta.SourceFormat, len(hosts), len(all), q(all, 0.1), q(all, 0.5), q(all, 0.9),
			len(small), q(small, 0.5), len(big), q(big, 0.5), len(kills), q(kills, 0.5))
		for _, id := range order {
			jt := jobs[id]
			late := 0
			for _, e := range ends[id] {
				if e >= lastMap[id]-10_000 {
					late++
				}
			}
			fmt.Printf("  %s: %d maps (%d ended in the last 10 s), %d reduces, shuffle median %s B, copy tail median %s s over %d\n",
				id, maps[id], late, reds[id], q(jt.shuffle, 0.5), q(jt.tails, 0.5), len(jt.tails))
		}
	}
}
