// Command slowtasks lists where a run's long tasks ran: from one run's
// tasks.parquet (replay --tasks), the tasks that took at least -min from
// launch to finish, of type -type (MAP, REDUCE, or empty for both),
// counted by node, the -top nodes with the most printed, and the tasks of
// the jobs named by -jobs (of type -type) with their node and launch time
// to the microsecond.
//
//	go run ./scripts/slowtasks [-min 500s] [-type MAP] [-top 10] [-jobs 763,9472] DIR
//
// docs/network-model.md ("The flow day's flowtime: four one-map jobs")
// uses it.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tracereplay/tracereplay/internal/results"
)

func main() {
	min := flag.Duration("min", 500*time.Second, "shortest task to count, launch to finish")
	jobs := flag.String("jobs", "", "comma-separated job indices whose tasks to list")
	typ := flag.String("type", "MAP", "task type to count: MAP, REDUCE, or empty for both")
	top := flag.Int("top", 10, "nodes to print")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: slowtasks [-min DUR] [-jobs I,J,...] DIR")
		os.Exit(2)
	}
	want := map[int32]bool{}
	if *jobs != "" {
		for _, s := range strings.Split(*jobs, ",") {
			i, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				fmt.Fprintf(os.Stderr, "slowtasks: -jobs %q: want job indices\n", *jobs)
				os.Exit(2)
			}
			want[int32(i)] = true
		}
	}
	m, err := filepath.Glob(filepath.Join(flag.Arg(0), "policy=*", "tasks.parquet"))
	if err == nil && len(m) != 1 {
		err = fmt.Errorf("%s: want one policy=*/tasks.parquet, found %d", flag.Arg(0), len(m))
	}
	var rows []results.TaskRow
	if err == nil {
		rows, err = results.ReadParquet[results.TaskRow](m[0])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "slowtasks:", err)
		os.Exit(2)
	}
	report(os.Stdout, rows, filter{minUs: min.Microseconds(), typ: *typ, top: *top, jobs: want})
}

// slow is one (node, type) and the tasks counted there.
type slow struct {
	node  int32
	typ   string
	tasks int
}

// filter is what report counts and lists.
type filter struct {
	minUs int64          // shortest task counted
	typ   string         // type counted; "" every type
	top   int            // nodes printed
	jobs  map[int32]bool // jobs whose tasks are listed
}

// report prints how many tasks of rows of type f.typ ran at least f.minUs
// and where: by node and type, most first (ties by node), f.top of them;
// then the tasks of f.jobs of that type.
func report(w io.Writer, rows []results.TaskRow, f filter) {
	count := map[slow]int{}
	total := 0
	var listed []results.TaskRow
	for _, r := range rows {
		if r.LaunchUs == nil || r.FinishUs == nil || r.Node == nil {
			continue
		}
		if f.typ != "" && r.Type != f.typ {
			continue
		}
		if f.jobs[r.JobIndex] {
			listed = append(listed, r)
		}
		if *r.FinishUs-*r.LaunchUs >= f.minUs {
			count[slow{node: *r.Node, typ: r.Type}]++
			total++
		}
	}
	var by []slow
	for k, n := range count {
		k.tasks = n
		by = append(by, k)
	}
	slices.SortFunc(by, func(a, b slow) int {
		return cmp.Or(cmp.Compare(b.tasks, a.tasks), cmp.Compare(a.node, b.node), cmp.Compare(a.typ, b.typ))
	})
	fmt.Fprintf(w, "%d tasks of at least %.0f s on %d nodes\n", total, float64(f.minUs)/1e6, len(by))
	for _, s := range by[:min(f.top, len(by))] {
		fmt.Fprintf(w, "  node %d %s: %d\n", s.node, s.typ, s.tasks)
	}
	slices.SortFunc(listed, func(a, b results.TaskRow) int {
		return cmp.Or(cmp.Compare(a.JobIndex, b.JobIndex), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Index, b.Index), cmp.Compare(*a.Node, *b.Node))
	})
	for _, r := range listed {
		fmt.Fprintf(w, "job %d %s %d: node %d, launch %.6f s, %.1f s\n", r.JobIndex, r.Type, r.Index,
			*r.Node, float64(*r.LaunchUs)/1e6, float64(*r.FinishUs-*r.LaunchUs)/1e6)
	}
}
