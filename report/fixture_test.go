package report

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tracereplay/tracereplay/internal/golden"
	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/replay"
)

const sec = 1_000_000 // µs

// jobSpec describes one hand-made job; times in whole seconds.
type jobSpec struct {
	submit, flow   int64 // flow < 0: unfinished
	reduces        int32
	starv          int64
	node, rack, of int32
}

// makeRun builds a run whose statistics are easy to work out by hand.
func makeRun(labels map[string]string, specs []jobSpec) Run {
	policy := labels[PolicyLabel]
	r := Run{Labels: labels, Policy: policy, Summary: results.RunSummary{Policy: policy, Jobs: len(specs)}}
	var lastFinish int64
	for i, s := range specs {
		j := results.Job{
			Policy: policy, JobIndex: int32(i), JobID: fmt.Sprintf("job_%03d", i), Name: "j", User: "u", Queue: "default",
			Maps: s.node + s.rack + s.of, Reduces: s.reduces,
			SubmitUs: s.submit * sec, FirstLaunchUs: s.submit * sec,
			LastMapEndUs: results.Unset, FirstReduceLaunchUs: results.Unset, LastReduceLaunchUs: results.Unset,
			FinishUs: results.Unset, FlowtimeUs: results.Unset,
			StarvationUs: s.starv * sec, MapsNodeLocal: s.node, MapsRackLocal: s.rack, MapsOffRack: s.of,
			ObservedFlowtimeUs: results.Unset,
		}
		if s.flow >= 0 {
			j.FinishUs = (s.submit + s.flow) * sec
			j.FlowtimeUs = s.flow * sec
			j.IdealUs = sec
			j.Slowdown = float64(s.flow)
			lastFinish = max(lastFinish, j.FinishUs)
		}
		r.Jobs = append(r.Jobs, j)
	}
	r.Summary.MakespanUs = lastFinish
	// A cluster timeline: maps ramp up and down, reduces follow.
	for t := int64(0); t*sec <= lastFinish; t += 5 {
		m := int32(min(t, 40))
		if t*sec > lastFinish/2 {
			m = int32(max(0, 40-(t-lastFinish/2/sec)))
		}
		r.Timeline = append(r.Timeline,
			results.TimelineSample{Policy: policy, TimeUs: t * sec, JobIndex: -1, RunningMaps: m, RunningReduces: int32(t / 10 % 7)},
			results.TimelineSample{Policy: policy, TimeUs: t * sec, JobIndex: 0, RunningMaps: m / 2})
	}
	return r
}

// seqRun has n jobs submitted at second i with flowtime step·(i+1) s; every
// third job is map-only, the others have one reduce starving i%5 s; each job has
// node/rack/off-rack maps 3/1/0, except every fourth job with 0/1/1.
func seqRun(labels map[string]string, n int, step int64) Run {
	specs := make([]jobSpec, n)
	for i := range specs {
		s := jobSpec{submit: int64(i), flow: step * int64(i+1), reduces: 1, starv: int64(i % 5), node: 3, rack: 1}
		if i%3 == 2 {
			s.reduces, s.starv = 0, 0
		}
		if i%4 == 3 {
			s.node, s.rack, s.of = 0, 1, 1
		}
		specs[i] = s
	}
	return makeRun(labels, specs)
}

// writeRunDir writes r with replay's own writer, as cmd/replay does.
func writeRunDir(t testing.TB, dir string, r Run) {
	t.Helper()
	res := &replay.Result{Jobs: r.Jobs, Timeline: r.Timeline, Summary: r.Summary}
	if err := replay.WriteRun(dir, res, map[string]string{"tool": "report-test"}); err != nil {
		t.Fatal(err)
	}
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}
