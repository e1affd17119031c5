package main

import (
	"bytes"
	"io"
	"regexp"
	"sync"
)

// warnWriter passes the trace readers' warnings to w in the commands' style:
// "FILE:LINE:COL: warning: MSG" becomes "ingest: warning: FILE:LINE:COL: MSG",
// as replay and report print "replay: warning: ..." and "report: warning: ...",
// and "FILE: N more warnings not shown" becomes "ingest: warning: FILE: N more
// warnings not shown". It writes whole lines; other lines pass unchanged.
type warnWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

var (
	warnLine = regexp.MustCompile(`^(.+?): warning: `)
	moreLine = regexp.MustCompile(`^.+: [0-9]+ more warnings not shown$`)
)

func newWarnWriter(w io.Writer) *warnWriter { return &warnWriter{w: w} }

func (ww *warnWriter) Write(p []byte) (int, error) {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	ww.buf = append(ww.buf, p...)
	for {
		i := bytes.IndexByte(ww.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(ww.buf[:i])
		ww.buf = ww.buf[i+1:]
		if _, err := io.WriteString(ww.w, restyleWarning(line)+"\n"); err != nil {
			return len(p), err
		}
	}
}

// flush writes what is left of an unfinished line.
func (ww *warnWriter) flush() {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	if len(ww.buf) > 0 {
		io.WriteString(ww.w, restyleWarning(string(ww.buf))+"\n")
		ww.buf = nil
	}
}

// restyleWarning rewrites one line of a reader's warnings.
func restyleWarning(line string) string {
	if m := warnLine.FindStringSubmatchIndex(line); m != nil {
		return "ingest: warning: " + line[:m[3]] + ": " + line[m[1]:]
	}
	if moreLine.MatchString(line) {
		return "ingest: warning: " + line
	}
	return line
}
