package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/tracereplay/tracereplay/internal/allocstudy"
	"github.com/tracereplay/tracereplay/internal/table"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
)

// allocStudy runs an experiment's static allocation study (BAR §V), writes
// alloc.parquet (and alloc_timing.parquet) with --out, and prints the mean makespan
// ratio and locality per case, system and algorithm.
func allocStudy(c *config, e *replay.Experiment, stdout io.Writer, start time.Time) error {
	for _, p := range e.Policies {
		if _, err := policy.NewAllocator(p); err != nil {
			return usageError{err}
		}
	}
	workers := c.parallel
	if e.AllocStudy.Timing {
		workers = 1
	}
	res, err := replay.RunAllocStudy(e.AllocStudy, e.Policies, e.Seeds, policy.NewAllocator, workers)
	if err != nil {
		return fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	if c.out != "" {
		meta := map[string]string{"tracereplay.tool": "tracereplay " + replay.Version, "tracereplay.experiment": e.Name}
		inputs := map[string]string{}
		if err := hashFile(inputs, c.experiment); err != nil {
			return err
		}
		err := buildResults(c, func(tmp string) error {
			if err := allocstudy.Write(tmp, res, meta); err != nil {
				return err
			}
			return writeManifest(tmp, &replay.Manifest{Tool: "tracereplay " + replay.Version, GoVersion: runtime.Version(),
				Args: os.Args[1:], Experiment: c.experiment, Inputs: inputs, WallSec: time.Since(start).Seconds()})
		})
		if err != nil {
			return err
		}
	}
	if c.quiet {
		return nil
	}
	return allocTable(e, res.Rows).WriteText(stdout)
}

// allocTable averages the study's rows over seeds: makespan ratio to the first
// algorithm and locality, per case, system and algorithm.
func allocTable(e *replay.Experiment, rows []replay.AllocRow) *table.Table {
	type key struct{ cs, sys, alg string }
	type acc struct {
		n          int
		ratio, loc float64
	}
	sums := map[key]*acc{}
	var keys []key
	for _, r := range rows {
		k := key{r.Case, r.System, r.Algorithm}
		a, ok := sums[k]
		if !ok {
			a = &acc{}
			sums[k] = a
			keys = append(keys, k)
		}
		a.n++
		a.ratio += r.Ratio
		a.loc += r.Locality
	}
	algOrder := func(a string) int { return slices.Index(e.Policies, a) }
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.cs, b.cs), cmp.Compare(a.sys, b.sys), cmp.Compare(algOrder(a.alg), algOrder(b.alg)))
	})
	t := &table.Table{
		Title: fmt.Sprintf("Allocation study %s: means over %d seeds", e.Name, len(e.Seeds)),
		Columns: []table.Column{{Header: "case", Name: "case"}, {Header: "system", Name: "system"}, {Header: "algorithm", Name: "algorithm"},
			{Header: "makespan ratio", Name: "makespan_ratio", Align: table.AlignRight}, {Header: "locality (%)", Name: "locality_pct", Align: table.AlignRight}},
	}
	for _, k := range keys {
		a := sums[k]
		t.AddRow(table.Str(k.cs), table.Str(k.sys), table.Str(k.alg),
			table.Float(a.ratio/float64(a.n), 3), table.Float(100*a.loc/float64(a.n), 1))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Makespan ratio is each algorithm's makespan over %s's on the same instance.", e.Policies[0]))
	return t
}
