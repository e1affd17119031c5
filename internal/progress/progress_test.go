package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	for _, c := range []struct {
		done, total int
		share       float64
		elapsed     time.Duration
		want        string
	}{
		// 1.5 of 4 runs in 30 s: 37.5%, 0.05 runs/s, 50 s left.
		{1, 4, 1.5, 30 * time.Second, "x: 1/4 runs · 38% · 0:30 elapsed · 0.05 runs/s · ETA 0:50"},
		{0, 4, 0, 300 * time.Millisecond, "x: 0/4 runs · 0% · 0:00 elapsed"},
		{4, 4, 4, 2 * time.Hour, "x: 4/4 runs · 100% · 2:00:00 elapsed · 0.00 runs/s"},
		{300, 1200, 300, 10 * time.Second, "x: 300/1200 runs · 25% · 0:10 elapsed · 30.0 runs/s · ETA 0:30"},
		{900, 1000, 900, 3 * time.Second, "x: 900/1000 runs · 90% · 0:03 elapsed · 300 runs/s · ETA 0:00"},
	} {
		if got := Line("x", "runs", c.done, c.total, c.share, c.elapsed); got != c.want {
			t.Errorf("Line(%d/%d, %v) = %q, want %q", c.done, c.total, c.elapsed, got, c.want)
		}
	}
	if got := Clock(3725 * time.Second); got != "1:02:05" {
		t.Errorf("Clock = %q", got)
	}
}

func TestTerminal(t *testing.T) {
	var b strings.Builder
	term := NewTerminal(&b)
	now := time.Unix(1000, 0)
	term.Show(now, "a", false)
	term.Show(now.Add(100*time.Millisecond), "b", false) // too soon
	term.Show(now.Add(300*time.Millisecond), "c", false)
	term.Show(now.Add(310*time.Millisecond), "d", true)
	term.End("done")
	if got, want := b.String(), "\ra\033[K\rc\033[K\rd\033[K\rdone\033[K\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// TestIsTerminal: a buffer and a regular file are not terminals (the progress
// line is left out of logs and pipes).
func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a bytes.Buffer is a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file is a terminal")
	}
}
