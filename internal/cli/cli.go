// Package cli holds the habits ingest, replay and report share on the command
// line, so that they read alike.
package cli

import (
	"fmt"
	"strings"
)

// BadUsage is the one line a command prints, before exiting with status 2,
// for command-line flags it cannot parse:
//
//	PREFIX: bad usage: unknown flag --x (see CMD --help)
//
// prefix names the command as its other messages do ("report" for every
// report subcommand), cmd as the user types it ("report compare").
func BadUsage(prefix, cmd string, err error) string {
	msg := err.Error()
	for _, s := range []string{"unknown flag: ", "unknown shorthand flag: "} {
		if rest, ok := strings.CutPrefix(msg, s); ok {
			msg = strings.TrimSuffix(s, ": ") + " " + rest
		}
	}
	return fmt.Sprintf("%s: bad usage: %s (see %s --help)\n", prefix, msg, cmd)
}
