package replay_test

import (
	"fmt"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// BenchmarkMapOnlyFlow replays 200 map-only jobs of 16 maps (3,200 maps,
// each writing its output through an HDFS pipeline of 3 replicas: mapWrite)
// under network = "flow"; its allocs/op count what each map's pipeline draw
// allocates.
//
//	go test ./replay -run '^$' -bench MapOnlyFlow -benchmem -benchtime 5x
func BenchmarkMapOnlyFlow(b *testing.B) {
	hw, err := replay.ParseHardware([]byte(`
racks = 2
nodes_per_rack = 10
map_slots = 4
reduce_slots = 1
replication = 3
timeline_sample = "10s"
network = "flow"
`))
	if err != nil {
		b.Fatal(err)
	}
	tr := &trace.Trace{}
	for k := range 200 {
		j := trace.NewJob(fmt.Sprintf("job%05d", k))
		j.SubmitMs, j.Status = int64(k)*5000, trace.StatusSucceeded
		j.InputBytes, j.OutputBytes, j.NumMaps, j.NumReduces = 16<<26, 16<<20, 16, 0
		tr.Jobs = append(tr.Jobs, j)
		for i := range 16 {
			t := trace.NewTask(j.ID, fmt.Sprintf("%s_m_%06d", j.ID, i), trace.Map, int32(i))
			t.InputBytes, t.OutputBytes = 1<<26, 1<<20
			tr.Tasks = append(tr.Tasks, t)
		}
	}
	b.ReportAllocs()
	for range b.N {
		w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 1), 1, replay.WorkloadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		p, err := policy.New("fair")
		if err != nil {
			b.Fatal(err)
		}
		res, err := replay.Run(w, p, replay.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary.Maps != 3200 || res.Summary.NetworkBytes == 0 {
			b.Fatalf("%d maps, %d network bytes", res.Summary.Maps, res.Summary.NetworkBytes)
		}
	}
}
