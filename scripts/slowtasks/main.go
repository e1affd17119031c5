// Command slowtasks lists where a run's long tasks ran: from one run's
// tasks.parquet (replay --tasks), the tasks of type -type (MAP, REDUCE, or
// empty for both) that took at least -min from launch to finish, counted by
// node, the -top nodes with the most printed; then the tasks of that type of
// the jobs named by -jobs, with their node and launch time to the
// microsecond. It streams the file, reading only the columns it needs.
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

	"github.com/tracereplay/tracereplay/internal/pqfile"
	"github.com/tracereplay/tracereplay/internal/results"
)

func main() {
	shortest := flag.Duration("min", 500*time.Second, "shortest task to count, launch to finish")
	jobs := flag.String("jobs", "", "comma-separated job indices whose tasks to list")
	typ := flag.String("type", "MAP", "task type: MAP, REDUCE, or empty for both")
	top := flag.Int("top", 10, "nodes to print")
	flag.Parse()
	if err := run(os.Stdout, flag.Args(), *shortest, *typ, *top, *jobs); err != nil {
		fmt.Fprintln(os.Stderr, "slowtasks:", err)
		os.Exit(2)
	}
}

// run checks the flags, reads the run's tasks.parquet and prints the report.
func run(w io.Writer, args []string, shortest time.Duration, typ string, top int, jobs string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one results directory; usage: slowtasks [-min DUR] [-type MAP|REDUCE|\"\"] [-top N] [-jobs I,J,...] DIR")
	}
	if typ != "" && typ != "MAP" && typ != "REDUCE" {
		return fmt.Errorf("-type %q: want MAP, REDUCE or empty", typ)
	}
	if top < 0 {
		return fmt.Errorf("-top %d: want 0 or more", top)
	}
	t := &tally{minUs: shortest.Microseconds(), typ: typ, jobs: map[int32]bool{}, count: map[place]int{}}
	if jobs != "" {
		for _, s := range strings.Split(jobs, ",") {
			i, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return fmt.Errorf("-jobs %q: want job indices", jobs)
			}
			t.jobs[int32(i)] = true
		}
	}
	m, err := filepath.Glob(filepath.Join(args[0], "policy=*", results.TasksFile))
	if err != nil || len(m) != 1 {
		return fmt.Errorf("%s: want one policy=*/%s, found %d", args[0], results.TasksFile, len(m))
	}
	f, err := os.Open(m[0])
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	_, err = pqfile.ReadEach(f, st.Size(), pqfile.Options{CheckFooter: true, Columns: pqfile.SameNames}, nil,
		func(rows []taskTimes) error {
			for i := range rows {
				t.add(&rows[i])
			}
			return nil
		})
	if err != nil {
		return fmt.Errorf("%s: %w", m[0], err)
	}
	t.print(w, top)
	return nil
}

// taskTimes is the part of a tasks.parquet row (results.TaskRow) read here.
type taskTimes struct {
	JobIndex int32  `parquet:"job_index"`
	Type     string `parquet:"type"`
	Index    int32  `parquet:"index"`
	Node     *int32 `parquet:"node,optional"`
	LaunchUs *int64 `parquet:"launch_us,optional"`
	FinishUs *int64 `parquet:"finish_us,optional"`
}

// place is a node and a task type.
type place struct {
	node int32
	typ  string
}

// listed is one task of a job asked for.
type listed struct {
	job, index, node int32
	typ              string
	launch, took     int64 // µs
}

// tally counts the long tasks by place and keeps the asked jobs' tasks.
type tally struct {
	minUs int64          // shortest task counted
	typ   string         // type counted and listed; "" every type
	jobs  map[int32]bool // jobs whose tasks are listed
	count map[place]int
	total int
	list  []listed
}

// add counts r if it is of the type, ran and took at least t.minUs, and
// keeps it if its job is asked for.
func (t *tally) add(r *taskTimes) {
	if r.LaunchUs == nil || r.FinishUs == nil || r.Node == nil || (t.typ != "" && r.Type != t.typ) {
		return
	}
	took := *r.FinishUs - *r.LaunchUs
	if t.jobs[r.JobIndex] {
		t.list = append(t.list, listed{job: r.JobIndex, index: r.Index, node: *r.Node, typ: r.Type, launch: *r.LaunchUs, took: took})
	}
	if took >= t.minUs {
		t.count[place{*r.Node, r.Type}]++
		t.total++
	}
}

// print writes how many tasks were counted and on how many places, the top
// places by count (ties by node, then type), then the kept tasks by job,
// type, index and node.
func (t *tally) print(w io.Writer, top int) {
	type counted struct {
		place
		n int
	}
	var by []counted
	for p, n := range t.count {
		by = append(by, counted{p, n})
	}
	slices.SortFunc(by, func(a, b counted) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.node, b.node), cmp.Compare(a.typ, b.typ))
	})
	fmt.Fprintf(w, "%d tasks of at least %.0f s on %d nodes\n", t.total, float64(t.minUs)/1e6, len(by))
	for _, c := range by[:min(top, len(by))] {
		fmt.Fprintf(w, "  node %d %s: %d\n", c.node, c.typ, c.n)
	}
	slices.SortFunc(t.list, func(a, b listed) int {
		return cmp.Or(cmp.Compare(a.job, b.job), cmp.Compare(a.typ, b.typ), cmp.Compare(a.index, b.index), cmp.Compare(a.node, b.node))
	})
	for _, x := range t.list {
		fmt.Fprintf(w, "job %d %s %d: node %d, launch %.6f s, %.1f s\n", x.job, x.typ, x.index, x.node, float64(x.launch)/1e6, float64(x.took)/1e6)
	}
}
