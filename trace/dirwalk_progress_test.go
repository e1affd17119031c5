package trace

import (
	"strings"
	"testing"
	"time"
)

// TestTreeProgress: the terminal line of a directory read shows files, share,
// elapsed time, rate, ETA, jobs and skipped files, redrawn at most five times
// a second, and ends with a summary line.
func TestTreeProgress(t *testing.T) {
	var b strings.Builder
	now := time.Unix(1000, 0)
	p := newProgress(&b, 400)
	p.now = func() time.Time { return now }
	p.start = now
	now = now.Add(10 * time.Second)
	p.update(100, 2500, 1)
	now = now.Add(100 * time.Millisecond)
	p.update(101, 2510, 1) // too soon after the last
	now = now.Add(20 * time.Second)
	p.update(400, 9000, 2)
	p.finish(400, 9000, 2)
	want := "\ringest: 100/400 files · 25% · 0:10 elapsed · 10.0 files/s · ETA 0:30 · 2500 jobs, 1 skipped\033[K" +
		"\ringest: 400/400 files · 100% · 0:30 elapsed · 13.3 files/s · 9000 jobs, 2 skipped\033[K" +
		"\ringest: 400/400 files read, 9000 jobs, 2 skipped in 0:30\033[K\n"
	if b.String() != want {
		t.Errorf("wrote %q\nwant  %q", b.String(), want)
	}
	q := newProgress(nil, 3) // no terminal: nothing to write, no panic
	q.update(1, 1, 0)
	q.finish(3, 3, 0)
}
