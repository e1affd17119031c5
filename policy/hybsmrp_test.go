package policy

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestHybPriority checks eq. (1) on hand-computed values.
func TestHybPriority(t *testing.T) {
	cases := []struct {
		name          string
		val, avg, exp [3]float64
		want          float64
	}{
		// FCFS-like (α=1): td 30 s against an average wait of 20 s.
		{"fcfs older", [3]float64{30, 5, 9}, [3]float64{20, 6, 5}, [3]float64{1, 0, 0}, 1.5},
		{"fcfs younger", [3]float64{10, 5, 9}, [3]float64{20, 6, 5}, [3]float64{1, 0, 0}, 0.5},
		// SJF-like (β=-1): maps of 4 s against an average of 6 s give 6/4.
		{"sjf short", [3]float64{30, 4, 9}, [3]float64{20, 6, 5}, [3]float64{0, -1, 0}, 1.5},
		{"sjf long", [3]float64{30, 8, 9}, [3]float64{20, 6, 5}, [3]float64{0, -1, 0}, 0.75},
		// All three: 1.5 · (4/6) · (10/5) = 2.
		{"all", [3]float64{30, 4, 10}, [3]float64{20, 6, 5}, [3]float64{1, 1, 1}, 2},
		// γ = 1/2: sqrt(9/4) = 1.5; α = 2: (30/20)² = 2.25; together 3.375.
		{"powers", [3]float64{30, 4, 9}, [3]float64{20, 6, 4}, [3]float64{2, 0, 0.5}, 3.375},
		// A zero average (every job just arrived) makes the factor 1.
		{"zero average", [3]float64{0, 4, 10}, [3]float64{0, 8, 5}, [3]float64{1, -1, 0}, 2},
		// A zero exponent ignores a zero value: 0^0 = 1.
		{"zero value, zero exponent", [3]float64{0, 4, 10}, [3]float64{5, 4, 5}, [3]float64{0, 1, 1}, 2},
		// A job with zero wait under α=1 has priority 0.
		{"zero wait", [3]float64{0, 4, 10}, [3]float64{5, 4, 5}, [3]float64{1, 0, 0}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := hybPriority(c.val, c.avg, c.exp); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("hybPriority(%v, %v, %v) = %v, want %v", c.val, c.avg, c.exp, got, c.want)
			}
		})
	}
}

// TestLocalizationID walks the state machine of Alg. 2: a node skips twice, then
// takes a non-local task at every later failure until a job arrival resets it;
// each node counts on its own.
func TestLocalizationID(t *testing.T) {
	type step struct {
		op   string // "miss" on node, or "reset"
		node int32
		want bool // miss: may the node take a non-local task
	}
	cases := []struct {
		name  string
		skips int32
		steps []step
	}{
		{"skip, skip, take, take", 2, []step{{"miss", 0, false}, {"miss", 0, false}, {"miss", 0, true}, {"miss", 0, true}}},
		{"reset on arrival", 2, []step{{"miss", 0, false}, {"miss", 0, false}, {"reset", 0, false},
			{"miss", 0, false}, {"miss", 0, false}, {"miss", 0, true}}},
		{"reset after taking", 2, []step{{"miss", 1, false}, {"miss", 1, false}, {"miss", 1, true},
			{"reset", 0, false}, {"miss", 1, false}}},
		{"nodes count apart", 2, []step{{"miss", 0, false}, {"miss", 1, false}, {"miss", 0, false},
			{"miss", 1, false}, {"miss", 2, false}, {"miss", 0, true}, {"miss", 2, false}, {"miss", 1, true}}},
		{"matchmaking (one skip)", 1, []step{{"miss", 0, false}, {"miss", 0, true}}},
		{"no skip", 0, []step{{"miss", 0, true}, {"reset", 0, false}, {"miss", 0, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLocalization(3, c.skips)
			for i, s := range c.steps {
				if s.op == "reset" {
					l.reset()
					continue
				}
				if got := l.miss(s.node); got != s.want {
					t.Fatalf("step %d (miss on node %d): %v, want %v; IDs %v", i+1, s.node, got, s.want, l.id)
				}
			}
		})
	}
	// The ID saturates instead of overflowing on a node that fails forever.
	l := newLocalization(1, 2)
	for range 10 {
		l.miss(0)
	}
	if l.id[0] != 3 {
		t.Errorf("ID after 10 misses = %d, want 3 (saturated)", l.id[0])
	}
}

func TestHybSMRPParams(t *testing.T) {
	cases := []struct {
		spec    string
		abg     [3]float64
		skips   int32
		name    string
		wantErr string
	}{
		{"hybsmrp", [3]float64{1, 0, 0}, 2, "hybsmrp", ""},
		{"hybsmrp:preset=sjf", [3]float64{0, -1, 0}, 2, "hybsmrp:preset=sjf", ""},
		{"hybsmrp:preset=sjf,gamma=1", [3]float64{0, -1, 1}, 2, "hybsmrp:gamma=1,preset=sjf", ""},
		{"hybsmrp:alpha=0.5,beta=1,gamma=-1,skips=1", [3]float64{0.5, 1, -1}, 1, "hybsmrp:alpha=0.5,beta=1,gamma=-1,skips=1", ""},
		{"hybsmrp:preset=lifo", [3]float64{}, 0, "", "want one of fcfs, sjf"},
		{"hybsmrp:alpha=x", [3]float64{}, 0, "", "alpha=\"x\": want a number"},
		{"hybsmrp:alpha=Inf", [3]float64{}, 0, "", "must be finite"},
		{"hybsmrp:skips=-1", [3]float64{}, 0, "", "skips=-1"},
		{"hybsmrp:delta=1", [3]float64{}, 0, "", "unknown parameter delta; valid parameters: alpha, beta, gamma, preset, skips"},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			p, err := New(c.spec)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("New(%q) error %v, want one containing %q", c.spec, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			h := p.(*HybSMRP)
			if got := [3]float64{h.alpha, h.beta, h.gamma}; got != c.abg || h.skips != c.skips || h.Name() != c.name {
				t.Errorf("New(%q) = α,β,γ %v skips %d name %q; want %v %d %q", c.spec, got, h.skips, h.Name(), c.abg, c.skips, c.name)
			}
		})
	}
}

// locHardware is two map-only nodes with one map slot each plus one reduce-only
// node, in one rack; all data on one of the two map nodes (replication 1, data on
// half of the map nodes); a map reads 1 MB/s from disk (a map of k·10^6 bytes runs
// k seconds locally) and 2 MB/s over the network (a remote map takes half as long
// again); heartbeats every second, aligned, none out of band.
func locHardware(t *testing.T) replay.Hardware {
	t.Helper()
	return parseHardware(t, `
racks = 1
nodes_per_rack = 3
map_nodes = 2
reduce_nodes = 1
map_slots = 1
reduce_slots = 1
disk_mb_per_s = 1
nic_mb_per_s = 2
task_startup = "0s"
heartbeat = "1s"
heartbeat_jitter = false
out_of_band_heartbeat = false
replication = 1
data_node_fraction = 0.5
duration_cv = 0
slow_start = 1
task_times = "model"
`)
}

// launch is one map launch of a hand-worked schedule.
type launch struct {
	job     string
	index   int32
	onData  bool // on the node holding the data
	startUs int64
}

func runLoc(t *testing.T, hw replay.Hardware, policy string, tr *trace.Trace) (*replay.Result, int32) {
	t.Helper()
	w, topo := newWorkload(t, hw, tr, 1)
	return runPolicy(t, w, newPolicy(t, policy), replay.Options{Seed: 1, CheckInvariants: true, RecordTasks: true}), topo.DataNodes[0]
}

func mapLaunches(res *replay.Result, data int32) []launch {
	var l []launch
	for _, tk := range res.Tasks {
		if tk.Type == "MAP" {
			l = append(l, launch{tk.JobID, tk.Index, tk.Node == data, tk.LaunchUs})
		}
	}
	slices.SortFunc(l, func(a, b launch) int {
		if a.startUs != b.startUs {
			return int(a.startUs - b.startUs)
		}
		return strings.Compare(a.job, b.job)
	})
	return l
}

// TestHybSMRPHandWorkedSkipTwice: job A (t=0, four 2 s maps, all on data node D;
// the other node E has none).
//
// HybSMRP: at 0, D takes A0 locally and E fails (ID 1); at 1, E fails again (ID
// 2); at 2, E fails a third time and takes A1 remotely (2-5); D, free at 2, next
// beats at 3 and takes A2 (3-5); both free at 5 and beat at 6, E first (its map
// ended first in event order): E, still past its two skips, takes A3 remotely
// (6-9), and D finds nothing. A ends at 9, two maps of four local.
//
// With skips=0 (and FIFO) E takes a remote map at once: A0 and A1 at 0, A2 on D at
// 3, A3 on E at 4 (remote, to 7): flowtime 7, also two local maps.
func TestHybSMRPHandWorkedSkipTwice(t *testing.T) {
	jobs := []job{{0, []int64{2, 2, 2, 2}, nil}}
	hw := locHardware(t)
	res, data := runLoc(t, hw, "hybsmrp", handTrace(jobs))
	want := []launch{{"A", 0, true, 0}, {"A", 1, false, 2 * sec}, {"A", 2, true, 3 * sec}, {"A", 3, false, 6 * sec}}
	if got := mapLaunches(res, data); !reflect.DeepEqual(got, want) {
		t.Errorf("launches\n got %v\nwant %v", got, want)
	}
	if got := res.Jobs[0].FlowtimeUs; got != 9*sec {
		t.Errorf("flowtime %v s, want 9", float64(got)/sec)
	}
	for _, pol := range []string{"hybsmrp:skips=0", "fifo"} {
		res, _ := runLoc(t, hw, pol, handTrace(jobs))
		if got := res.Jobs[0].FlowtimeUs; got != 7*sec || res.Jobs[0].MapsNodeLocal != 2 {
			t.Errorf("%s: flowtime %v s, %d local maps; want 7 s, 2", pol, float64(got)/sec, res.Jobs[0].MapsNodeLocal)
		}
	}
}

// TestHybSMRPHandWorkedResetOnArrival: as above, plus job B (t=1.5 s, one 2 s map
// on D). E fails at 0 and 1 (ID 2); B's arrival at 1.5 resets it, so E skips again
// at 2 and 3 and takes its first remote map only at 4 (A2, to 7). D takes A0 at 0,
// A1 at 3 and A3 at 6 (A, submitted first, outranks B under FCFS). At 8, when A3
// ends and A is done, E (free since 7) beats first, still past its skips, and
// takes B0 remotely (8-11). Flowtimes: A 8 s, B 9.5 s.
func TestHybSMRPHandWorkedResetOnArrival(t *testing.T) {
	tr := handTrace([]job{{0, []int64{2, 2, 2, 2}, nil}, {0, []int64{2}, nil}})
	tr.Jobs[1].SubmitMs = 1500
	res, data := runLoc(t, locHardware(t), "hybsmrp", tr)
	want := []launch{{"A", 0, true, 0}, {"A", 1, true, 3 * sec}, {"A", 2, false, 4 * sec}, {"A", 3, true, 6 * sec},
		{"B", 0, false, 8 * sec}}
	if got := mapLaunches(res, data); !reflect.DeepEqual(got, want) {
		t.Errorf("launches\n got %v\nwant %v", got, want)
	}
	if a, b := res.Jobs[0].FlowtimeUs, res.Jobs[1].FlowtimeUs; a != 8*sec || b != 9500_000 {
		t.Errorf("flowtimes A %v s, B %v s; want 8, 9.5", float64(a)/sec, float64(b)/sec)
	}
}

// TestHybSMRPHandWorkedPriority: one map node with one slot holds all data; A (t=0,
// three 2 s maps) and B (t=0, one 2 s map). Each map frees the slot at an even
// second and the next heartbeat is a second later.
//
// FCFS-like (α=1): both have waited 0 s at the first heartbeat, a tie that the
// earlier job wins, and A keeps the lead: A0 0-2, A1 3-5, A2 6-8, B0 9-11.
// γ = -1 (fewest remaining tasks first): B (1 task, priority (1/2)^-1 = 2) beats A
// (3 tasks, (3/2)^-1 = 2/3): B0 0-2, then A 3-5, 6-8, 9-11.
func TestHybSMRPHandWorkedPriority(t *testing.T) {
	hw := locHardware(t)
	hw.NodesPerRack, hw.MapNodes = 2, 1
	hw.DataNodeFraction = 1
	if err := hw.Validate(); err != nil {
		t.Fatal(err)
	}
	jobs := []job{{0, []int64{2, 2, 2}, nil}, {0, []int64{2}, nil}}
	cases := []struct {
		policy string
		flow   [2]int64
	}{
		{"hybsmrp", [2]int64{8, 11}},
		{"hybsmrp:preset=fcfs,gamma=-1,alpha=0", [2]int64{11, 2}},
	}
	for _, c := range cases {
		t.Run(c.policy, func(t *testing.T) {
			res, _ := runLoc(t, hw, c.policy, handTrace(jobs))
			checkFlowtimes(t, res, c.flow[:])
		})
	}
}

// TestHybSMRPSimulated runs the paper's workload (shortened) under each setting
// with invariants checked, twice per seed: the runs must be identical, every map
// must be accounted for, and locality must come out as eq. (2) over the tasks.
func TestHybSMRPSimulated(t *testing.T) {
	params := trace.GenParams{"jobs": int64(30), "maps": int64(40), "app": "mix"}
	for _, pol := range []string{"hybsmrp", "hybsmrp:preset=sjf", "hybsmrp:skips=0", "hybsmrp:alpha=1,beta=1,gamma=1"} {
		for seed := uint64(1); seed <= 2; seed++ {
			a := simGenerated(t, "hybsmrp", params, "hybsmrp.toml", pol, seed)
			b := simGenerated(t, "hybsmrp", params, "hybsmrp.toml", pol, seed)
			a.Wall, b.Wall = 0, 0
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s seed %d: two runs differ", pol, seed)
			}
			var maps, local int64
			for _, tk := range a.Tasks {
				if tk.Type == "MAP" {
					maps++
					if tk.Locality == trace.NodeLocal {
						local++
					}
				}
			}
			if maps != 30*40 || a.Summary.Maps != maps || a.Summary.Jobs != 30 {
				t.Errorf("%s seed %d: %d maps recorded, summary %d maps %d jobs; want 1200, 30 jobs", pol, seed, maps, a.Summary.Maps, a.Summary.Jobs)
			}
			if got := float64(local) / float64(maps); got != a.Summary.MapLocality {
				t.Errorf("%s seed %d: locality %v from tasks, %v in summary", pol, seed, got, a.Summary.MapLocality)
			}
		}
	}
}

// BenchmarkHybSMRP replays the paper's heaviest Tables 4-5 point (100 Terasort
// jobs of 100 maps, past saturation) under HybSMRP, which ranks every unfinished
// job at every heartbeat.
func BenchmarkHybSMRP(b *testing.B) {
	hw := sampleHardware(b, "hybsmrp.toml")
	tr := generate(b, "hybsmrp", trace.GenParams{"app": "terasort", "maps": int64(100)}, 1)
	topo := replay.NewTopology(&hw, 1)
	for b.Loop() {
		w, err := replay.NewWorkload(tr, &hw, topo, 1, replay.WorkloadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		runPolicy(b, w, newPolicy(b, "hybsmrp"), replay.Options{Seed: 1})
	}
}
