package policytest

import (
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// TestYARNFake: the fake hides a job's maps until its AM runs, takes and
// frees containers' resources, panics on a container that does not fit,
// and puts a preempted map back to pending.
func TestYARNFake(t *testing.T) {
	hw, err := Hardware(1, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	gb := replay.Resource{MemoryMB: 1024, VCores: 1}
	y := NewYARN(hw, 1, replay.Resource{MemoryMB: 2048, VCores: 2}, Sizes{AM: gb, Map: gb, Reduce: gb})
	j, err := y.AddJob(YARNJob{Job: Job{ID: "A", Maps: [][]int32{{0}, {1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !y.AMPending(j) || j.PendingMaps() != 0 {
		t.Fatalf("before the AM: pending %v, %d maps", y.AMPending(j), j.PendingMaps())
	}
	y.LaunchAM(j, 0)
	if y.AMPending(j) || j.PendingMaps() != 2 || y.NodeFree(0) != gb || y.Usage(j) != gb {
		t.Fatalf("after the AM: pending %v, %d maps, node free %+v, usage %+v", y.AMPending(j), j.PendingMaps(), y.NodeFree(0), y.Usage(j))
	}
	y.LaunchMap(j, 0, 0)
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "does not fit") {
				t.Errorf("a map on a full node: recovered %v", r)
			}
		}()
		y.LaunchMap(j, 1, 0)
	}()
	if !y.Preempt(j, replay.MapContainer, 0) || j.MapState(0) != replay.Pending || y.NodeFree(0) != gb || y.Preempt(j, replay.MapContainer, 0) {
		t.Fatalf("preempting map 0: state %v, node free %+v", j.MapState(0), y.NodeFree(0))
	}
	if y.ClusterResource() != (replay.Resource{MemoryMB: 4096, VCores: 4}) || y.FreeMapSlots(0) != 0 {
		t.Errorf("cluster %+v, free map slots %d", y.ClusterResource(), y.FreeMapSlots(0))
	}
	if got := y.Preemptions()[0].String(); got != "0s A map 0 preempted on node 0" {
		t.Errorf("preemption line %q", got)
	}
}
