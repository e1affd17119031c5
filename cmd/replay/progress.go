package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	statusline "github.com/tracereplay/tracereplay/internal/progress"
)

// progress reports the work done on stderr. On a terminal it keeps one line up
// to date, at most five times a second: finished runs, the share of the work
// (finished runs plus the finished jobs of the runs under way), the elapsed
// time, the rate and an estimate of the time left. Elsewhere (a log, a pipe) it
// prints one line at the end: how many runs took how long.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool // stderr is a terminal
	n, done int
	partial map[string]float64 // run -> fraction of its jobs finished
	start   time.Time
	term    *statusline.Terminal
	now     func() time.Time
}

func newProgress(w io.Writer, n int) *progress {
	p := &progress{w: w, n: n, partial: map[string]float64{}, now: time.Now,
		on: statusline.IsTerminal(w), term: statusline.NewTerminal(w)}
	p.start = p.now()
	return p
}

// jobs records that run has finished done of its total jobs.
func (p *progress) jobs(run string, done, total int) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial[run] = float64(done) / float64(max(total, 1))
	p.print(false)
}

// runDone records a finished run.
func (p *progress) runDone(run string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.partial, run)
	p.done++
	if p.on {
		p.print(true)
	}
}

func (p *progress) print(force bool) {
	now := p.now()
	p.term.Show(now, p.line(now), force)
}

// line is the terminal status line at time now (progress.Line, which ingest
// prints too).
func (p *progress) line(now time.Time) string {
	share := float64(p.done)
	for _, f := range p.partial {
		share += f
	}
	return statusline.Line("replay", "runs", p.done, p.n, share, now.Sub(p.start))
}

// clock formats a duration as m:ss, or h:mm:ss from an hour.
func clock(d time.Duration) string { return statusline.Clock(d) }

// finish ends the terminal line, or prints the one-line summary elsewhere.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		p.term.End("")
		return
	}
	if p.n > 0 {
		fmt.Fprintf(p.w, "replay: %d of %d run%s done in %s\n", p.done, p.n, plural(p.n), clock(p.now().Sub(p.start)))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
