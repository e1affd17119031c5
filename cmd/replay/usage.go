package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
)

// usage is the --help text: the flags, then every policy with its description
// and its parameters (key=default), columns aligned to the longest name.
func usage(fs *pflag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: replay [flags]\n\nReplays a trace through scheduling policies; with no flags, the bundled sample through every policy.\n\nFlags:\n%s\nPolicies (--policy NAME or NAME:key=value,...; parameters with their defaults):\n", fs.FlagUsages())
	names := policy.Names()
	w := len(replay.ObservedPolicy)
	for _, n := range names {
		w = max(w, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, n, policy.Describe(n))
		ps := policy.Parameters(n)
		if len(ps) == 0 {
			continue
		}
		kw := 0
		for _, p := range ps {
			kw = max(kw, len(p.Key))
		}
		for _, p := range ps {
			fmt.Fprintf(&b, "  %-*s    %-*s  %s\n", w, "", kw, p.Key, p.Default)
		}
	}
	fmt.Fprintf(&b, "  %-*s  %s\n", w, replay.ObservedPolicy, "the trace's own schedule, not simulated (with all: when the trace records one)")
	b.WriteString("\nA parameter shown as auto is derived from the hardware model or the workload when not given.\n")
	return b.String()
}
