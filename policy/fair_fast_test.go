package policy

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// TestFairShortcutsChangeNothing replays the first 50 jobs of FB-2009 on a
// small cluster (12 nodes of 2 map and 1 reduce slots, jitter on, so that
// nodes park and many jobs compete for few slots) and on fb-600 through fair
// and its variants twice: as Fair runs (no sort of a single candidate, the
// first offer of a heartbeat using what anyTakes found) and with those
// shortcuts off (plain: MapFiller and GreedyReduces, PickMap for every
// offer). The results
// must be equal but for the wall time.
func TestFairShortcutsChangeNothing(t *testing.T) {
	tr := readFB50(t)
	small := parseHardware(t, `
name = "small"
racks = 3
nodes_per_rack = 4
map_slots = 2
reduce_slots = 1
heartbeat = "3s"
heartbeat_jitter = true
out_of_band_heartbeat = false
replication = 2
`)
	for _, hw := range []replay.Hardware{small, sampleHardware(t, "fb-600.toml")} {
		for _, spec := range []string{"fair", "fair-strict", "fair:node-delay=0s,rack-delay=0s",
			"fair:node-delay=2s,rack-delay=30s", "fair:pool-by=queue"} {
			for _, seed := range []uint64{1, 2} {
				name := fmt.Sprintf("%s/%s/%d", hw.Name, spec, seed)
				run := func(plain bool) *replay.Result {
					w, _ := newWorkload(t, hw, tr, seed)
					p := newPolicy(t, spec).(*Fair)
					p.plain = plain
					res := runPolicy(t, w, p, replay.Options{Seed: seed, CheckInvariants: true, RecordTasks: true, Timeline: true})
					res.Wall = 0
					return res
				}
				a, b := run(false), run(true)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%s: results differ with Fair's shortcuts", name)
				}
			}
		}
	}
}
