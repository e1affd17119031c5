package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheck passes on equal bytes and names the first differing line.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	Write(t, path, []byte("a\nb\n"))
	if got, err := os.ReadFile(path); err != nil || string(got) != "a\nb\n" {
		t.Fatalf("Write: %q, %v", got, err)
	}
	Check(t, path, []byte("a\nb\n"))
	for _, c := range []struct{ got, want, diff string }{
		{"a\nc\n", "a\nb\n", "line 2"},
		{"a\nb\nc\n", "a\nb\n", "line 3"},
		{"a\nb", "a\nb\nc", "line 3 (2 lines, want 3)"},
	} {
		if d := firstDiff([]byte(c.got), []byte(c.want)); d != c.diff {
			t.Errorf("firstDiff(%q, %q) = %q, want %q", c.got, c.want, d, c.diff)
		}
	}
}
