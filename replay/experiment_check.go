package replay

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// checkDistinct rejects an experiment whose cells would not be told apart: a
// policy, seed, sweep value, or trace or hardware name given twice (names
// compared as they appear in result paths). Two such cells would write their
// runs into one directory, and report would then average different runs, or
// one run twice, as if they were seeds. Rejecting the spec up front is better
// than inventing names for the copies: a duplicate is a mistake in the spec,
// and a renamed cell would not be where the user looks for it.
func (e *Experiment) checkDistinct() error {
	names := func(n int, f func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	if err := distinct("policy", e.Policies); err != nil {
		return err
	}
	if err := distinct("trace name", names(len(e.Traces), func(i int) string { return e.Traces[i].Name })); err != nil {
		return fmt.Errorf("%w (give each [[traces]] entry its own name)", err)
	}
	if err := distinct("hardware name", names(len(e.Hardware), func(i int) string { return e.Hardware[i].Name })); err != nil {
		return fmt.Errorf("%w (give each [[hardware]] entry its own name)", err)
	}
	if err := distinct("seed", names(len(e.Seeds), func(i int) string { return fmt.Sprint(e.Seeds[i]) })); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(e.Sweep)) {
		if vals, ok := e.Sweep[k].([]any); ok {
			if err := distinct("value of sweep "+k, names(len(vals), func(i int) string { return fmt.Sprint(vals[i]) })); err != nil {
				return err
			}
		}
	}
	return nil
}

// distinct reports the first two of names that name the same result directory.
func distinct(what string, names []string) error {
	seen := map[string]int{}
	for i, n := range names {
		k := pathSafe(n)
		if j, dup := seen[k]; dup {
			if names[j] != n {
				return fmt.Errorf("%s %q and %q name the same result directory %q", what, names[j], n, k)
			}
			return fmt.Errorf("%s %q given twice (entries %d and %d)", what, n, j+1, i+1)
		}
		seen[k] = i
	}
	return nil
}

// distinctDirs rejects cells that share a result directory (a last guard
// behind checkDistinct).
func distinctDirs(cells []Cell) error {
	seen := map[string]bool{}
	for _, c := range cells {
		if seen[c.Dir] {
			return fmt.Errorf("two cells write to %s: policies, traces, hardware, sweep values and seeds must be distinct", strings.ReplaceAll(c.Dir, "\\", "/"))
		}
		seen[c.Dir] = true
	}
	return nil
}
