package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress prints the share of work done on stderr when stderr is a terminal:
// finished runs plus the finished jobs of the runs under way, refreshed at most
// five times a second.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	n, done int
	partial map[string]float64 // run -> fraction of its jobs finished
	last    time.Time
	shown   bool
}

func newProgress(w io.Writer, n int) *progress {
	p := &progress{w: w, n: n, partial: map[string]float64{}}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
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
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.partial, run)
	p.done++
	p.print(true)
}

func (p *progress) print(force bool) {
	if !force && time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	share := float64(p.done)
	for _, f := range p.partial {
		share += f
	}
	fmt.Fprintf(p.w, "\rreplay: %d/%d runs done, %.0f%% of the work\033[K", p.done, p.n, 100*share/float64(max(p.n, 1)))
	p.shown = true
}

func (p *progress) finish() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
