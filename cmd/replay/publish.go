package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/replay"
)

// resultsOwner marks the directories replay writes with --out.
var resultsOwner = safeout.Owner{Command: "replay", Kind: "results"}

// openOut locks c.out before anything is simulated, so that a second run to the
// same directory, or a directory replay may not replace, fails at once (exit
// 2). It notes on stderr what it recovered from an interrupted earlier run, and
// sets c.publish. The returned function releases the lock.
func openOut(ctx context.Context, c *config, stderr io.Writer) (func(), error) {
	t, err := safeout.Open(c.out, resultsOwner, safeout.Options{Force: c.force})
	if err != nil {
		if errors.Is(err, safeout.ErrNotOwned) || errors.Is(err, safeout.ErrLocked) {
			return nil, bad("--out: %w", err)
		}
		return nil, fmt.Errorf("--out: %w", err)
	}
	for _, r := range t.Recovered {
		fmt.Fprintf(stderr, "replay: note: %s\n", r)
	}
	c.publish = func(fill func(tmp string) error) error { return t.Publish(ctx, fill) }
	return func() { t.Close() }, nil
}

// buildResults fills a temporary directory beside c.out with fill, then swaps
// it into c.out's place (safeout.Target.Publish): a failed or interrupted run
// leaves the old results, never partial ones.
func buildResults(c *config, fill func(tmp string) error) error {
	if c.publish == nil {
		return fmt.Errorf("results: --out %s was not opened", c.out)
	}
	if err := c.publish(fill); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

func writeManifest(dir string, m *replay.Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return safeout.WriteFile(filepath.Join(dir, replay.ManifestFile), append(b, '\n'))
}

// errInterrupted is a run's error when a signal stops it before its
// results are published.
var errInterrupted = errors.New("interrupted; nothing written")

// fillRuns writes the manifest into tmp, which holds the runs' results
// (finishCell); it stops when ctx is done.
func fillRuns(ctx context.Context, tmp string, c *config, jobs []*job, inputs map[string]string, start time.Time) error {
	m := replay.Manifest{Tool: "tracereplay " + replay.Version, GoVersion: runtime.Version(), Args: os.Args[1:],
		Inputs: inputs, Experiment: c.experiment}
	if c.experiment == "" {
		m.Seed = c.seed
	}
	if ctx.Err() != nil {
		// a signal after the runs ended, before the manifest: as a signal
		// during them (main.go's runs)
		return errInterrupted
	}
	for _, j := range jobs {
		m.Runs = append(m.Runs, j.manifest)
	}
	m.WallSec = time.Since(start).Seconds()
	return writeManifest(tmp, &m)
}
