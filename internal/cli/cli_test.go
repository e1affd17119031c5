package cli

import (
	"errors"
	"testing"
)

func TestBadUsage(t *testing.T) {
	for _, c := range []struct{ prefix, cmd, err, want string }{
		{"ingest", "ingest", "unknown flag: --x", "ingest: bad usage: unknown flag --x (see ingest --help)\n"},
		{"report", "report compare", "unknown shorthand flag: 'x' in -x", "report: bad usage: unknown shorthand flag 'x' in -x (see report compare --help)\n"},
		{"replay", "replay", "flag needs an argument: --seed", "replay: bad usage: flag needs an argument: --seed (see replay --help)\n"},
	} {
		if got := BadUsage(c.prefix, c.cmd, errors.New(c.err)); got != c.want {
			t.Errorf("BadUsage(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
