package main

import (
	"strings"
	"testing"
)

func TestWarnWriter(t *testing.T) {
	var b strings.Builder
	w := newWarnWriter(&b)
	w.Write([]byte("a.tsv:2:8: warning: gap disagrees\nb.jhist: warning: job x: "))
	w.Write([]byte("no end\nb.jhist: 12 more warnings not shown\nsomething else\n"))
	w.Write([]byte("c: warning: unfinished"))
	w.flush()
	want := "ingest: warning: a.tsv:2:8: gap disagrees\n" +
		"ingest: warning: b.jhist: job x: no end\n" +
		"ingest: warning: b.jhist: 12 more warnings not shown\n" +
		"something else\n" +
		"ingest: warning: c: unfinished\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
