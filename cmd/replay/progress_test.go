package main

import (
	"bytes"
	"testing"
	"time"
)

// TestProgressLine: the terminal line shows runs, share, elapsed time, rate
// and ETA computed from a fake clock; off a terminal one line comes at the end.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1000, 0)
	p := newProgress(&buf, 4)
	p.now = func() time.Time { return now }
	p.start = now
	p.done = 1
	p.partial["b"] = 0.5
	now = now.Add(30 * time.Second)
	// 1.5 of 4 runs in 30 s: 37.5%, 0.05 runs/s, 50 s left.
	if got, want := p.line(now), "replay: 1/4 runs · 38% · 0:30 elapsed · 0.05 runs/s · ETA 0:50"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	p.runDone("b")
	p.finish()
	if got, want := buf.String(), "replay: 2 of 4 runs done in 0:30\n"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if got := clock(3725 * time.Second); got != "1:02:05" {
		t.Errorf("clock = %q", got)
	}
}
