package main

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// progress prints "replay: k/n runs" on stderr when stderr is a terminal.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	n, k  int
	shown bool
}

func newProgress(w io.Writer, n int) *progress {
	p := &progress{w: w, n: n}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) done(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.k++
	if p.on {
		fmt.Fprintf(p.w, "\rreplay: %d/%d runs done (last: %s)\033[K", p.k, p.n, name)
		p.shown = true
	}
}

func (p *progress) finish() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
