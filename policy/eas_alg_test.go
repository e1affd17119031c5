package policy

import (
	"slices"
	"testing"
)

// handMaps is a job's maps given by hand: sizes and replica holders.
type handMaps struct {
	sizes []int64
	hosts [][]int32
}

func (h handMaps) Len() int            { return len(h.sizes) }
func (h handMaps) Size(i int) int64    { return h.sizes[i] }
func (h handMaps) Hosts(i int) []int32 { return h.hosts[i] }

// TestPlaceMaps checks Alg. 2 on hand-worked cases: each map goes to the
// least-loaded replica holder, the first listed among equals, and the loads grow
// as maps are placed.
func TestPlaceMaps(t *testing.T) {
	cases := []struct {
		name      string
		loads     []int64
		maps      handMaps
		want      []int32
		wantLoads []int64
	}{
		{
			// Loads 5, 0, 3, 3. Map 0 (size 2) on {0, 2}: 3 < 5 -> node 2, loads 5 0 5 3.
			// Map 1 (size 4) on {2, 3}: 3 < 5 -> node 3, loads 5 0 5 7. Map 2 (size 1)
			// on {0, 2}: 5 = 5, keep the first -> node 0, loads 6 0 5 7. Map 3 (size 3)
			// on {3, 1, 0}: 0 is least -> node 1, loads 6 3 5 7.
			name:      "least loaded replica, first among equals",
			loads:     []int64{5, 0, 3, 3},
			maps:      handMaps{[]int64{2, 4, 1, 3}, [][]int32{{0, 2}, {2, 3}, {0, 2}, {3, 1, 0}}},
			want:      []int32{2, 3, 0, 1},
			wantLoads: []int64{6, 3, 5, 7},
		},
		{
			// A job's own maps pile up: three maps of size 1 on {1, 0} with loads 0 0:
			// node 1 (first), then node 0 (1 > 0), then node 1 again (1 = 1, first).
			name:      "spread over the replicas by the job's own load",
			loads:     []int64{0, 0},
			maps:      handMaps{[]int64{1, 1, 1}, [][]int32{{1, 0}, {1, 0}, {1, 0}}},
			want:      []int32{1, 0, 1},
			wantLoads: []int64{1, 2},
		},
		{
			// Strict locality: a single replica is taken whatever its load.
			name:      "single replica",
			loads:     []int64{100, 0},
			maps:      handMaps{[]int64{7}, [][]int32{{0}}},
			want:      []int32{0},
			wantLoads: []int64{107, 0},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loads := slices.Clone(c.loads)
			got := placeMaps(loads, c.maps, nil)
			if !slices.Equal(got, c.want) || !slices.Equal(loads, c.wantLoads) {
				t.Errorf("placed on %v with loads %v, want %v with loads %v", got, loads, c.want, c.wantLoads)
			}
		})
	}
}

// TestPlaceReduces checks Alg. 3: every reduce goes to the least-loaded reduce
// machine, the first in the machine list among equals.
func TestPlaceReduces(t *testing.T) {
	cases := []struct {
		name      string
		loads     []int64 // by node id
		machines  []int32
		sizes     []int64
		want      []int32
		wantLoads []int64
	}{
		{
			// Reduce machines 2, 3, 4 with loads 4, 0, 1 (nodes 0, 1 are map machines).
			// 3 -> node 3 (0): 4 3 1; 2 -> node 4 (1): 4 3 3; 2 -> node 3 (3 = 3, first):
			// 4 5 3; 1 -> node 4: 4 5 4; 1 -> node 2 (4 = 4, first): 5 5 4.
			name:      "least loaded machine",
			loads:     []int64{9, 9, 4, 0, 1},
			machines:  []int32{2, 3, 4},
			sizes:     []int64{3, 2, 2, 1, 1},
			want:      []int32{3, 4, 3, 4, 2},
			wantLoads: []int64{9, 9, 5, 5, 4},
		},
		{
			// Reduces with no input add no load: all go to the first machine.
			name:      "empty reduces",
			loads:     []int64{0, 0},
			machines:  []int32{0, 1},
			sizes:     []int64{0, 0, 0},
			want:      []int32{0, 0, 0},
			wantLoads: []int64{0, 0},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loads := slices.Clone(c.loads)
			got := placeReduces(loads, c.machines, c.sizes, nil)
			if !slices.Equal(got, c.want) || !slices.Equal(loads, c.wantLoads) {
				t.Errorf("placed on %v with loads %v, want %v with loads %v", got, loads, c.want, c.wantLoads)
			}
		})
	}
}

// TestSelectJobThreeJobs is Alg. 1 on a three-job example. Map machines 0, 1, 2
// carry loads 2, 0, 1 (in units of one block).
//
//   - J1, one map of size 1 held by machine 0 only: loads 3 0 1, mean 4/3,
//     N·Σx² − S² = 3·10 − 16 = 14, standard deviation √14/3 ≈ 1.25.
//   - J2, two maps of size 1 held by {0, 1} and {0, 2}: Alg. 2 puts the first on
//     machine 1 (0 < 2), loads 2 1 1, and the second on machine 2 (1 < 2), loads
//     2 1 2: 3·9 − 25 = 2, standard deviation √2/3 ≈ 0.47.
//   - J3, one map of size 2 held by {1, 2}: machine 1 (0 < 1), loads 2 2 1:
//     3·9 − 25 = 2, the same spread as J2.
//
// J2 and J3 tie for the lowest spread; Alg. 1 keeps the first met, so the order
// of the waiting set decides between them, and J1 never wins.
func TestSelectJobThreeJobs(t *testing.T) {
	j1 := handMaps{[]int64{1}, [][]int32{{0}}}
	j2 := handMaps{[]int64{1, 1}, [][]int32{{0, 1}, {0, 2}}}
	j3 := handMaps{[]int64{2}, [][]int32{{1, 2}}}
	machines := []int32{0, 1, 2}
	cases := []struct {
		name string
		jobs []mapSet
		want int
	}{
		{"J1 J2 J3", []mapSet{j1, j2, j3}, 1},
		{"J1 J3 J2", []mapSet{j1, j3, j2}, 1},
		{"J3 J2 J1", []mapSet{j3, j2, j1}, 0},
		{"J1 alone", []mapSet{j1}, 0},
		{"none", nil, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loads := []int64{2, 0, 1}
			got := newBalanceSelector(3).choose(loads, machines, c.jobs)
			if got != c.want {
				t.Errorf("selected job %d, want %d", got, c.want)
			}
			if !slices.Equal(loads, []int64{2, 0, 1}) {
				t.Errorf("loads changed to %v", loads)
			}
		})
	}
}

// TestSelectJobExact checks that Alg. 1 compares spreads exactly at byte scale:
// loads of a few hundred TB, where float64 sums of squares lose the last bytes.
// Two jobs differ in spread by a single byte moved between machines; a third
// repeats the better one on other machines and must lose the tie to it.
func TestSelectJobExact(t *testing.T) {
	const big = int64(300) << 40 // 300 TiB
	loads := []int64{big, big, big, big}
	machines := []int32{0, 1, 2, 3}
	worse := handMaps{[]int64{1001, 999}, [][]int32{{0}, {1}}}   // loads big+1001, big+999
	better := handMaps{[]int64{1000, 1000}, [][]int32{{0}, {1}}} // big+1000 twice
	twin := handMaps{[]int64{1000, 1000}, [][]int32{{2}, {3}}}
	sel := newBalanceSelector(4)
	if got := sel.choose(loads, machines, []mapSet{worse, better, twin}); got != 1 {
		t.Errorf("selected %d, want 1 (equal loads beat loads one byte apart; the first of two equals wins)", got)
	}
	if got := sel.choose(loads, machines, []mapSet{twin, worse, better}); got != 0 {
		t.Errorf("selected %d, want 0", got)
	}
}

// BenchmarkBalanceSelector is one Alg. 1 selection among 10 waiting jobs of 30
// maps with 3 replicas each on 600 map machines.
func BenchmarkBalanceSelector(b *testing.B) {
	const machines = 600
	loads := make([]int64, machines)
	ids := make([]int32, machines)
	for i := range loads {
		loads[i] = int64(i%7) << 27
		ids[i] = int32(i)
	}
	var jobs []mapSet
	for j := range 10 {
		h := handMaps{}
		for m := range 30 {
			h.sizes = append(h.sizes, 128<<20)
			x := int32((j*97 + m*31) % machines)
			h.hosts = append(h.hosts, []int32{x, (x + 211) % machines, (x + 401) % machines})
		}
		jobs = append(jobs, h)
	}
	sel := newBalanceSelector(machines)
	for b.Loop() {
		sel.choose(loads, ids, jobs)
	}
}
