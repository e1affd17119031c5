package policy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEWMAHandWorked: a 200-task phase with a default average of 600 and
// alpha 0.5. Three tasks of 500 make ΔP = 0.015 < 0.02: no update. A fourth of
// 700 makes ΔP = 0.02: the sample is (3·500 + 700)/4 = 550 and the average
// 0.5·600 + 0.5·550 = 575. Four more of 575 then leave it at 575.
func TestEWMAHandWorked(t *testing.T) {
	e := &phaseEstimate{avg: 600, tasks: 200}
	for i := range int32(3) {
		e.running.add(i, 0, e.tasks)
		e.taskDone(i, 500)
		if e.update(0.5, 0.02) {
			t.Fatalf("updated after %d tasks (ΔP %.3f < 0.02)", i+1, float64(i+1)/200)
		}
	}
	e.taskDone(3, 700)
	if !e.update(0.5, 0.02) || e.avg != 575 || !e.observed {
		t.Fatalf("after the 4th task: avg %g, want 575", e.avg)
	}
	if e.running.Len() != 0 || e.finished != 4 {
		t.Fatalf("running %v finished %d: want none and 4", e.running, e.finished)
	}
	for i := range int32(4) {
		e.taskDone(4+i, 575)
	}
	if !e.update(0.5, 0.02) || e.avg != 575 {
		t.Errorf("avg %g after samples equal to it, want 575", e.avg)
	}

	// Eq. (5) with progress: 8 finished, two running for 287 of the average 575,
	// one for twice the average (counts 1): P = (8 + 2·287/575 + 1)/200; on 30
	// slots the remaining time is 200·(1−P)·575/30.
	now := int64(2000)
	e.running = runningList{}
	e.running.add(10, now-287, e.tasks)
	e.running.add(11, now-287, e.tasks)
	e.running.add(12, now-1150, e.tasks)
	p := e.progress(now)
	wantP := (8 + 2*287.0/575 + 1) / 200
	if math.Abs(p-wantP) > 1e-12 {
		t.Errorf("progress %g, want %g", p, wantP)
	}
	r := &phaseEstimate{} // a map-only job
	if got, want := remainingTime(e, r, now, 30, 10, 1), 200*(1-wantP)*575/30; math.Abs(got-want) > 1e-9 {
		t.Errorf("w = %g, want %g", got, want)
	}
	done := &phaseEstimate{avg: 575, tasks: 3, finished: 3}
	if got := remainingTime(done, r, now, 30, 10, 1000); got != 1000 {
		t.Errorf("w of a finished phase = %g, want w_min 1000", got)
	}
}

// TestRunningListMatchesSlice: the running list keeps the tasks, in launch
// order, that a plain slice with removal of the earliest entry keeps, through
// random adds and removes, relaunches of a listed index and removals of
// unlisted ones included.
func TestRunningListMatchesSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const size = 50
	var l runningList
	var want []runningTask
	for step := range 20000 {
		i := int32(rng.IntN(size))
		if rng.IntN(2) == 0 {
			l.add(i, int64(step), size)
			want = append(want, runningTask{i, int64(step)})
		} else {
			l.remove(i)
			for k, r := range want {
				if r.index == i {
					want = append(want[:k], want[k+1:]...)
					break
				}
			}
		}
		var got []runningTask
		for _, r := range l.tasks {
			if r.index >= 0 {
				got = append(got, r)
			}
		}
		if l.Len() != len(want) || !slices.Equal(got, want) {
			t.Fatalf("step %d: list %v (len %d), want %v", step, got, l.Len(), want)
		}
	}
}

// TestProgressAtLeastCached: progressAtLeast, with its cache, answers what
// progress(now) >= x does through random launches, task ends, changes of the
// average and advancing time, near the threshold too.
func TestProgressAtLeastCached(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		size := int32(1 + rng.IntN(300))
		e := &phaseEstimate{avg: float64(1 + rng.IntN(1000)), tasks: size}
		x := []float64{0.95, 0.5, 0.999, 1}[trial%4]
		now := int64(0)
		next := int32(0)
		for range 3000 {
			switch k := rng.IntN(10); {
			case k < 3 && next < size:
				e.running.add(next, now, size)
				next++
			case k < 4 && e.running.Len() > 0:
				for _, r := range e.running.tasks {
					if r.index >= 0 {
						e.taskDone(r.index, now-r.launch)
						break
					}
				}
			case k < 5 && rng.IntN(20) == 0:
				e.avg = float64(1 + rng.IntN(1000))
			default:
				now += int64(rng.IntN(50))
			}
			if got, want := e.progressAtLeast(now, x), e.progress(now) >= x; got != want {
				t.Fatalf("trial %d at %d: progressAtLeast %v, progress %v (x %g)", trial, now, got, e.progress(now), x)
			}
		}
	}
}
