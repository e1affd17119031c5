//go:build linux

package main

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// pipeUnread returns how many bytes written to the pipe whose end w is have
// not been read yet (TIOCINQ, Linux's FIONREAD).
func pipeUnread(w *os.File) (int, error) { return unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ) }

// TestPipeUnread checks the count the signal tests wait on: five bytes
// written and not read, then none.
func TestPipeUnread(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.WriteString("hello")
	if n, err := pipeUnread(w); n != 5 || err != nil {
		t.Fatalf("pipeUnread after writing 5 bytes = %d, %v", n, err)
	}
	r.Read(make([]byte, 5))
	if n, err := pipeUnread(w); n != 0 || err != nil {
		t.Fatalf("pipeUnread after reading them = %d, %v", n, err)
	}
}
