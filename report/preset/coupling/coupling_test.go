package coupling

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/results/resultstest"
	"github.com/tracereplay/tracereplay/replay"

	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/presettest"
)

const cpFair = "fair:node-delay=15s,rack-delay=15s"

// cpJob is a hand-made job of a coupling test run; times in seconds.
type cpJob struct {
	name            string
	submit, flow    int64
	maps, reduces   int32
	starv, local    int64
	timelineRunning int32 // running maps at every timeline sample while the job runs
}

// cpRun builds a run of jobs under policy on workload trace, with a timeline
// sampled every 10 s.
func cpRun(policy, trace string, seed int, jobs []cpJob) report.Run {
	r := report.Run{Labels: map[string]string{report.PolicyLabel: policy, "trace": trace, "hw": "hw", "seed": fmt.Sprint(seed)}, Policy: policy}
	var last int64
	for i, j := range jobs {
		r.Jobs = append(r.Jobs, results.Job{Policy: policy, JobIndex: int32(i), JobID: fmt.Sprintf("job_%02d", i+1), Name: j.name,
			Maps: j.maps, Reduces: j.reduces, SubmitUs: j.submit * resultstest.Sec, FinishUs: (j.submit + j.flow) * resultstest.Sec, FlowtimeUs: j.flow * resultstest.Sec,
			StarvationUs: j.starv * resultstest.Sec, MapsNodeLocal: int32(j.local)})
		last = max(last, j.submit+j.flow)
	}
	for ts := int64(0); ts <= last; ts += 10 {
		var total int32
		for i, j := range jobs {
			if ts >= j.submit && ts < j.submit+j.flow {
				r.Timeline = append(r.Timeline, results.TimelineSample{Policy: policy, TimeUs: ts * resultstest.Sec, JobIndex: int32(i), RunningMaps: j.timelineRunning})
				total += j.timelineRunning
			}
		}
		r.Timeline = append(r.Timeline, results.TimelineSample{Policy: policy, TimeUs: ts * resultstest.Sec, JobIndex: -1, RunningMaps: total})
	}
	r.Summary = results.RunSummary{Policy: policy, Jobs: len(jobs), MakespanUs: last * resultstest.Sec}
	return r
}

// twoJobRuns: Fair and Coupling, two seeds, a 10-map job with 2 reduces and a
// map-only 5-map job.
func twoJobRuns() []report.Run {
	var runs []report.Run
	for seed := 1; seed <= 2; seed++ {
		s := int64(seed)
		runs = append(runs,
			cpRun(cpFair, "two", seed, []cpJob{
				{name: "big", flow: 60 * (2*s - 1), maps: 10, reduces: 2, starv: 30 * (2*s - 1), local: 8, timelineRunning: 4},
				{name: "small", submit: 60, flow: 60 + 60*(2*s-1), maps: 5, local: 5, timelineRunning: 2}}),
			cpRun("coupling", "two", seed, []cpJob{
				{name: "big", flow: 60, maps: 10, reduces: 2, local: 6, timelineRunning: 4},
				{name: "small", submit: 60, flow: 60, maps: 5, local: 5, timelineRunning: 2}}))
	}
	return runs
}

func TestCouplingTableHandWorked(t *testing.T) {
	tb := Table(twoJobRuns())
	// Fair, job 1: T = 1 and 3 min (mean 2, half-width t·√2/√2 = t), S = 0.5 and
	// 1.5 (mean 1, half t/2). Job 2: T = 2 and 4. All jobs: per-run means
	// 1.5 and 3.5, S over jobs with reduces 0.5 and 1.5. Coupling: all 1 min.
	h := fmt.Sprintf("%.2f", resultstest.T975DF1)
	h2 := fmt.Sprintf("%.2f", resultstest.T975DF1/2)
	want := []string{
		"1|big|0.00|10|2|2.00|" + h + "|1.00|" + h2 + "|1.00|0.00|0.00|0.00",
		"2|small|1.00|5|0|3.00|" + h + "|-|-|1.00|0.00|-|-",
		"all|all 2 jobs (mean)|-|-|-|2.50|" + h + "|1.00|" + h2 + "|1.00|0.00|0.00|0.00",
	}
	if got := presettest.RowLines(tb); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var headers []string
	for _, c := range tb.Columns {
		headers = append(headers, c.Name)
	}
	if got := strings.Join(headers, ","); got != "job,name,submit_min,maps,reduces,fair_t_min,fair_t_min_ci95,fair_s_min,fair_s_min_ci95,coupling_t_min,coupling_t_min_ci95,coupling_s_min,coupling_s_min_ci95" {
		t.Errorf("columns %s", got)
	}
	notes := strings.Join(tb.Notes, "\n")
	if !strings.Contains(notes, "two on hw: mean processing time: Fair 2.50 ± "+h+" min; Coupling 1.00 ± 0.00 min (-60.0%).") {
		t.Errorf("notes:\n%s", notes)
	}
}

func TestCouplingTableMapOnlyAndVaryingJobs(t *testing.T) {
	// A map-only workload gets node-local columns; a workload whose jobs differ
	// by seed gets only its "all" row.
	var runs []report.Run
	for seed := 1; seed <= 2; seed++ {
		s := int64(seed)
		runs = append(runs,
			cpRun(cpFair, "maponly", seed, []cpJob{{name: "g", flow: 60, maps: 10, local: 4 + 2*s}, {name: "h", submit: 5, flow: 60, maps: 4, local: 4}}),
			cpRun(cpFair, "mixed", seed, []cpJob{{name: fmt.Sprint("job", seed), flow: 60 * s, maps: 3, local: 3}}))
	}
	tb := Table(runs)
	if tb.Columns[0].Name != "workload" || !slices.ContainsFunc(tb.Columns, func(c report.Column) bool { return c.Name == "fair_local_maps" }) {
		t.Fatalf("columns %v", tb.Columns)
	}
	got := presettest.RowLines(tb)
	want := []string{
		"maponly on hw|1|g|0.00|10|0|1.00|0.00|7.0|" + fmt.Sprintf("%.1f", resultstest.T975DF1),
		"maponly on hw|2|h|0.08|4|0|1.00|0.00|4.0|0.0",
		"maponly on hw|all|all 2 jobs (mean)|-|-|-|1.00|0.00|5.5|" + fmt.Sprintf("%.1f", resultstest.T975DF1/2),
		"mixed on hw|all|all jobs (mean; jobs differ by seed)|-|-|-|1.50|" + fmt.Sprintf("%.2f", resultstest.T975DF1/2) + "|3.0|0.0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCouplingFigureSets(t *testing.T) {
	names := func(paths []string) string {
		var n []string
		for _, p := range paths {
			n = append(n, filepath.Base(p))
		}
		return strings.Join(n, " ")
	}
	dir := t.TempDir()
	// Two jobs with reduces: per-policy running tasks and the spans; no network
	// figure for runs without files.
	paths, err := WriteFigures(twoJobRuns(), dir, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(paths); got != "coupling_running_fair.svg coupling_running_coupling.svg coupling_spans.svg" {
		t.Errorf("two jobs: %s", got)
	}
	// Several single-job workloads: Fig. 12 only.
	var runs []report.Run
	for _, tr := range []string{"grep", "sort"} {
		for seed := 1; seed <= 2; seed++ {
			for _, p := range []string{cpFair, "coupling"} {
				runs = append(runs, cpRun(p, tr, seed, []cpJob{{name: tr, flow: 60 * int64(seed), maps: 3, reduces: 1}}))
			}
		}
	}
	if paths, err = WriteFigures(runs, dir, "svg"); err != nil || names(paths) != "coupling_processing.svg" {
		t.Errorf("single jobs: %s, %v", names(paths), err)
	}
	// Map-only jobs on two hardware labels, and jobs that differ by seed.
	runs = nil
	for seed := 1; seed <= 2; seed++ {
		for _, p := range []string{cpFair, "coupling:beta=0.1"} {
			runs = append(runs, cpRun(p, "maponly", seed, []cpJob{{name: "a", flow: 60, maps: 4, local: 2}, {name: "b", flow: 30, maps: 2, local: 1}}),
				cpRun(p, "batches", seed, []cpJob{{name: fmt.Sprint(seed), flow: 60, maps: 4, local: 2}}))
		}
	}
	if paths, err = WriteFigures(runs, dir, "svg"); err != nil ||
		names(paths) != "coupling_cdf_batches.svg coupling_maps_maponly.svg coupling_spans_maponly.svg coupling_local_maps_maponly.svg" {
		t.Errorf("map-only and varying: %s, %v", names(paths), err)
	}
	if _, err := WriteFigures(nil, dir, "svg"); err == nil {
		t.Error("no runs: no error")
	}
}

func TestPolicyDisplay(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
	}{
		{[]string{cpFair, "coupling", "coupling:beta=0.1"}, []string{"Fair", "Coupling", "Coupling β=0.1"}},
		{[]string{"fair", cpFair}, []string{"Fair", "Fair node-delay=15s rack-delay=15s"}},
		{[]string{"fifo", "x:a=1,b=2"}, []string{"Fifo", "X a=1 b=2"}},
		{[]string{"coupling:beta=0.1", "Coupling:beta=0.1"}, []string{"coupling:beta=0.1", "Coupling:beta=0.1"}},
	}
	for _, tt := range tests {
		d := report.PolicyDisplay(tt.in)
		for i, p := range tt.in {
			if d[p] != tt.want[i] {
				t.Errorf("policyDisplay(%q)[%q] = %q, want %q", tt.in, p, d[p], tt.want[i])
			}
		}
	}
	for in, want := range map[string]string{"Coupling β=0.1": "coupling_beta0.1", "table4 coupling-set-a": "table4_coupling-set-a", "a/b": "a_b"} {
		if got := report.FileSlug(in); got != want {
			t.Errorf("fileSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDenseTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		labels string
	}{
		{0, 29, "0 5 10 15 20 25"},
		{0, 1.02, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{0, 8.4, "0 1 2 3 4 5 6 7 8"},
		{-3, 3, "-3 -2 -1 0 1 2 3"},
		{100, 4500, "500 1000 1500 2000 2500 3000 3500 4000 4500"},
	}
	for _, tt := range tests {
		var labels []string
		for _, tk := range (report.DenseTicks{}).Ticks(tt.lo, tt.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
			if tk.Value < tt.lo-1e-9 || tk.Value > tt.hi+1e-9 {
				t.Errorf("[%v, %v]: tick %v outside the axis", tt.lo, tt.hi, tk.Value)
			}
		}
		if got := strings.Join(labels, " "); got != tt.labels {
			t.Errorf("[%v, %v]: labels %q, want %q", tt.lo, tt.hi, got, tt.labels)
		}
	}
}

func TestBandOf(t *testing.T) {
	b := bandOf([][]float64{{0, 2, 4}, {0, 4, 4}}, 3, 0.5)
	if b.XY[1].X != 0.5 || b.XY[1].Y != 3 || b.XY[2].Y != 4 || b.Half[2] != 0 || math.Abs(b.Half[1]-resultstest.T975DF1) > 1e-9 {
		t.Errorf("band %+v", b)
	}
}

func TestCouplingFiguresDeterministic(t *testing.T) {
	var files [2][]byte
	for i := range files {
		dir := t.TempDir()
		paths, err := WriteFigures(twoJobRuns(), dir, "png")
		if err != nil {
			t.Fatal(err)
		}
		if files[i], err = os.ReadFile(paths[0]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("the same runs drew different PNGs")
	}
}

// TestCouplingNodeFilesErrors: the network and hardware read from a run's
// directory are checked, and errors name the file.
func TestCouplingNodeFilesErrors(t *testing.T) {
	write := func(t *testing.T, net []results.NodeNetSample, meta map[string]string) []report.Run {
		root := t.TempDir()
		var runs []report.Run
		for _, r := range twoJobRuns() {
			r.Dir = filepath.Join(root, "policy="+r.Policy, "seed="+r.Labels["seed"])
			res := &replay.Result{Jobs: r.Jobs, Timeline: r.Timeline, Summary: r.Summary, NodeNet: net,
				Nodes: []results.NodeResult{{Policy: r.Policy, Node: 0, NetInBytes: 5e9}}}
			if err := replay.WriteRun(r.Dir, res, meta); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
		return runs
	}
	// Good files: the network figure appears and the notes give the busiest
	// node's mean over the makespan (under Coupling 1 MB over the 12 intervals of
	// 120 s) and the total (5 GB).
	runs := write(t, []results.NodeNetSample{{TimeUs: 10 * resultstest.Sec, Node: 0, InBytes: 1e6, OutBytes: 2e5}}, nil)
	paths, err := WriteFigures(runs, t.TempDir(), "svg")
	if err != nil || len(paths) != 4 || filepath.Base(paths[3]) != "coupling_network.svg" {
		t.Fatalf("figures %v, %v", paths, err)
	}
	if notes := strings.Join(Table(runs).Notes, "\n"); !strings.Contains(notes, "Coupling 0.1 ± 0.0 MB, 5.0 ± 0.0 GB") {
		t.Errorf("notes lack the network:\n%s", notes)
	}
	runs = write(t, []results.NodeNetSample{{TimeUs: 10 * resultstest.Sec, Node: 0, InBytes: -1}}, nil)
	if _, err := WriteFigures(runs, t.TempDir(), "svg"); err == nil || !strings.Contains(err.Error(), results.NodeNetFile) || !strings.Contains(err.Error(), "row 0") {
		t.Errorf("negative bytes: %v", err)
	}
	if notes := strings.Join(Table(runs).Notes, "\n"); !strings.Contains(notes, "network: read results") {
		t.Errorf("notes do not report the bad file:\n%s", notes)
	}
	runs = write(t, nil, map[string]string{results.HardwareMetaKey: "{not json"})
	if _, err := WriteFigures(runs, t.TempDir(), "svg"); err == nil || !strings.Contains(err.Error(), results.HardwareMetaKey) {
		t.Errorf("bad hardware metadata: %v", err)
	}
}
