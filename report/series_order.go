package report

import (
	"cmp"
	"strconv"
	"strings"
)

// Labels that are coordinates of a run but not of a point.
var FixedLabels = []string{PolicyLabel, "trace", "hw", "seed"}

// FairLimit returns the fair-limit parameter of an hpfsp policy name and the name
// without it.
func FairLimit(policy string) (float64, string, bool) {
	name, args, _ := strings.Cut(policy, ":")
	var rest []string
	x, found := 0.0, false
	for _, kv := range strings.Split(args, ",") {
		if v, ok := strings.CutPrefix(kv, "fair-limit="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				x, found = f, true
				continue
			}
		}
		if kv != "" {
			rest = append(rest, kv)
		}
	}
	if len(rest) > 0 {
		name += ":" + strings.Join(rest, ",")
	}
	return x, name, found
}

// CompareSeries orders series names by policy family, then numerically by
// fair-limit (hpfsp:fair-limit=2 before hpfsp:fair-limit=10).
func CompareSeries(a, b string) int {
	xa, na, oka := FairLimit(a)
	xb, nb, okb := FairLimit(b)
	if c := strings.Compare(na, nb); c != 0 {
		return c
	}
	if oka != okb {
		if okb {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(xa, xb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}
