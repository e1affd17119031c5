package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/trace"
)

// outDir is the locked --out directory of a run.
type outDir struct {
	ctx    context.Context
	path   string
	target *safeout.Target
}

// openOut locks --out before any input is read, so that a second ingest to the
// same directory, or a directory ingest may not replace, fails at once (exit 2
// with the reason). It returns nil and the exit status on failure.
func openOut(ctx context.Context, out string, force bool, stderr io.Writer) (*outDir, int) {
	t, err := safeout.Open(out, trace.TraceOwner, safeout.Options{Force: force})
	if err != nil {
		fmt.Fprintf(stderr, "ingest: --out: %v\n", err)
		if errors.Is(err, safeout.ErrNotOwned) || errors.Is(err, safeout.ErrLocked) {
			return nil, exitUsage
		}
		return nil, exitFail
	}
	for _, r := range t.Recovered {
		fmt.Fprintf(stderr, "ingest: note: %s\n", r)
	}
	return &outDir{ctx: ctx, path: out, target: t}, exitOK
}

func (d *outDir) close() { d.target.Close() }

// write publishes t as the trace directory d and prints the summary; an
// interrupted or failed write leaves d as it was.
func write(d *outDir, t *trace.Trace, trees treeTotals, stdout io.Writer, fail func(int, string, ...any) int) int {
	err := d.target.Publish(d.ctx, func(tmp string) error { return trace.WriteFiles(tmp, t) })
	if err != nil {
		if errors.Is(err, safeout.ErrNotOwned) {
			return fail(exitUsage, "write trace %s: %v", d.path, err)
		}
		return fail(exitFail, "write trace %s: %v", d.path, err)
	}
	summary(stdout, d.path, t, trees)
	return exitOK
}
