package safeout

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var results = Owner{Command: "replay", Kind: "results"}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// publish opens dir, publishes files (relative path -> content) and closes it.
func publish(t *testing.T, dir string, o Owner, opt Options, files map[string]string) error {
	t.Helper()
	tg, err := Open(dir, o, opt)
	if err != nil {
		return err
	}
	defer tg.Close()
	return tg.Publish(context.Background(), func(tmp string) error {
		for p, d := range files {
			write(t, filepath.Join(tmp, p), d)
		}
		return nil
	})
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	write(t, p, "old")
	if err := WriteFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "new" {
		t.Errorf("content %q, want new", got)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != FileMode {
		t.Errorf("mode %v, want %v", st.Mode().Perm(), os.FileMode(FileMode))
	}
	boom := errors.New("boom")
	err := WriteFileFunc(p, func(f *os.File) error { f.WriteString("half"); return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Errorf("err = %v, want boom naming %s", err, p)
	}
	if got := read(t, p); got != "new" {
		t.Errorf("a failed write changed the file to %q", got)
	}
	if n := names(t, dir); !slices.Equal(n, []string{"a.txt"}) {
		t.Errorf("directory holds %v, want only a.txt (temporary file left?)", n)
	}
}

// TestRefusesForeign is the item 1: a directory holding a manifest.json
// and a user's source tree is not replaced.
func TestRefusesForeign(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"fake manifest and user code", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "manifest.json"), `{"manifest_version":3}`)
			write(t, filepath.Join(dir, "src", "app.js"), "code")
		}, "no .tracereplay-owned marker"},
		{"user file beside real results", func(t *testing.T, dir string) {
			if err := publish(t, dir, results, Options{}, map[string]string{"policy=fifo/jobs.parquet": "x"}); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "src", "app.js"), "code")
		}, "holds src, which replay did not write"},
		{"user file inside a run directory", func(t *testing.T, dir string) {
			if err := publish(t, dir, results, Options{}, map[string]string{"policy=fifo/jobs.parquet": "x"}); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "policy=fifo", "notes.txt"), "mine")
		}, "holds policy=fifo/notes.txt"},
		{"another command's output", func(t *testing.T, dir string) {
			if err := publish(t, dir, Owner{"ingest", "trace"}, Options{}, map[string]string{"jobs.parquet": "x"}); err != nil {
				t.Fatal(err)
			}
		}, "not a results directory replay wrote (it holds a trace ingest wrote)"},
		{"a file", func(t *testing.T, dir string) {
			os.Remove(dir)
			write(t, dir, "precious")
		}, "not a directory"},
		{"forged marker", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, MarkerFile), "{}")
			write(t, filepath.Join(dir, "thesis.tex"), "precious")
		}, "not a tracereplay marker"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			c.setup(t, dir)
			before := snapshot(t, dir)
			err := publish(t, dir, results, Options{}, map[string]string{"manifest.json": "new"})
			if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--force") {
				t.Fatalf("err = %v, want ErrNotOwned saying %q and --force", err, c.want)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the refused directory changed:\n%s\nwant\n%s", after, before)
			}
			if n := names(t, filepath.Dir(dir)); !slices.Equal(n, []string{"d"}) {
				t.Errorf("parent holds %v, want only d", n)
			}
			// --force replaces it.
			if err := publish(t, dir, results, Options{Force: true}, map[string]string{"manifest.json": "new"}); err != nil {
				t.Fatal(err)
			}
			if got := read(t, filepath.Join(dir, "manifest.json")); got != "new" {
				t.Errorf("after --force: manifest.json = %q", got)
			}
		})
	}
}

// snapshot lists every path and file content under dir (or dir's content when
// it is a file).
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(p + "\n")
		if !d.IsDir() {
			b.WriteString(read(t, p) + "\n")
		}
		return nil
	})
	return b.String()
}

func TestReplacesOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := publish(t, dir, results, Options{}, map[string]string{"a/x": "1", "b/y": "2", "manifest.json": "m"}); err != nil {
		t.Fatal(err)
	}
	if m := read(t, filepath.Join(dir, MarkerFile)); !strings.Contains(m, `"a/x"`) || !strings.Contains(m, `"kind": "results"`) {
		t.Errorf("marker %s", m)
	}
	if err := publish(t, dir, results, Options{}, map[string]string{"a/z": "3", "manifest.json": "m2"}); err != nil {
		t.Fatal(err)
	}
	if n := names(t, dir); !slices.Equal(n, []string{MarkerFile, "a", "manifest.json"}) {
		t.Errorf("replaced directory holds %v", n)
	}
	if n := names(t, filepath.Dir(dir)); !slices.Equal(n, []string{"out"}) {
		t.Errorf("parent holds %v, want only out (lock, temporary or old directory left?)", n)
	}
	// An empty directory may be replaced.
	empty := filepath.Join(t.TempDir(), "e")
	os.Mkdir(empty, 0o755)
	if err := publish(t, empty, results, Options{}, map[string]string{"f": "1"}); err != nil {
		t.Fatal(err)
	}
}

func TestSwapAside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := publish(t, dir, results, Options{}, map[string]string{"old": "1"}); err != nil {
		t.Fatal(err)
	}
	tg, err := Open(dir, results, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	tmp := filepath.Join(filepath.Dir(dir), ".out.tmp-1")
	write(t, filepath.Join(tmp, "new"), "2")
	if err := tg.swapAside(tmp); err != nil {
		t.Fatal(err)
	}
	if n := names(t, dir); !slices.Equal(n, []string{"new"}) {
		t.Errorf("out holds %v", n)
	}
	if n := names(t, filepath.Dir(dir)); !slices.Equal(n, []string{".out.lock", "out"}) {
		t.Errorf("parent holds %v", n)
	}
}

// TestRecovery is item 2: a run killed between renaming the old results aside
// and renaming the new ones in leaves .NAME.old-*; the next run restores it, and
// removes stale temporary directories of its own (only its own).
func TestRecovery(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	write(t, filepath.Join(parent, ".out.old-123", "manifest.json"), "old results")
	write(t, filepath.Join(parent, ".out.tmp-456", "half"), "x")
	write(t, filepath.Join(parent, ".out.tmp-mine", "keep"), "user's")
	write(t, filepath.Join(parent, ".outer.tmp-7", "keep"), "another target's")
	tg, err := Open(dir, results, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "manifest.json")); got != "old results" {
		t.Errorf("restored manifest.json = %q", got)
	}
	if len(tg.Recovered) != 2 || !strings.Contains(tg.Recovered[0], "restored") {
		t.Errorf("Recovered = %q", tg.Recovered)
	}
	tg.Close()
	want := []string{".out.tmp-mine", ".outer.tmp-7", "out"}
	if n := names(t, parent); !slices.Equal(n, want) {
		t.Errorf("parent holds %v, want %v", n, want)
	}
	// The old directory left when the new one was already in place is removed.
	write(t, filepath.Join(parent, ".out.old-9", "x"), "stale")
	tg, err = Open(dir, results, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	tg.Close()
	if got := read(t, filepath.Join(dir, "manifest.json")); got != "old results" {
		t.Errorf("manifest.json = %q", got)
	}
	if n := names(t, parent); !slices.Equal(n, want) {
		t.Errorf("parent holds %v, want %v", n, want)
	}
}

// TestLock is item 3: a second writer of the same target fails at once.
func TestLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	a, err := Open(dir, results, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, results, Options{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), ".out.lock") {
		t.Fatalf("second Open: err = %v, want ErrLocked naming the lock file", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir, results, Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	b.Close()
	if n := names(t, filepath.Dir(dir)); len(n) != 0 {
		t.Errorf("parent holds %v after Close, want nothing", n)
	}
}

func TestPublishCancelled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := publish(t, dir, results, Options{}, map[string]string{"old": "1"}); err != nil {
		t.Fatal(err)
	}
	tg, err := Open(dir, results, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx, cancel := context.WithCancel(context.Background())
	err = tg.Publish(ctx, func(tmp string) error {
		write(t, filepath.Join(tmp, "new"), "2")
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := names(t, dir); !slices.Equal(n, []string{MarkerFile, "old"}) {
		t.Errorf("out holds %v, want the old results", n)
	}
	if n := names(t, filepath.Dir(dir)); !slices.Equal(n, []string{".out.lock", "out"}) {
		t.Errorf("parent holds %v (temporary directory left?)", n)
	}
}

// TestOpenLeavesNothing: parent directories Open made are removed again when
// nothing was published.
func TestOpenLeavesNothing(t *testing.T) {
	root := t.TempDir()
	tg, err := Open(filepath.Join(root, "a", "b", "out"), results, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "b")); err != nil {
		t.Fatalf("parent not created: %v", err)
	}
	tg.Close()
	if n := names(t, root); len(n) != 0 {
		t.Errorf("root holds %v after an unpublished Open, want nothing", n)
	}
	if err := publish(t, filepath.Join(root, "a", "b", "out"), results, Options{}, map[string]string{"f": "1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "b", "out", "f")); err != nil {
		t.Error(err)
	}
}

func TestIsScratch(t *testing.T) {
	for name, want := range map[string]bool{
		".runs.tmp-123": true, ".runs.old-9": true, ".a.b.tmp-1": true,
		"runs.tmp-123": false, ".runs.tmp-": false, ".runs.tmp-x1": false, ".tmp-1": false, ".hidden": false, "policy=fifo": false,
	} {
		if got := IsScratch(name); got != want {
			t.Errorf("IsScratch(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestOpenRefusesDotDirs(t *testing.T) {
	for _, p := range []string{".", "..", "/", "a/.."} {
		if _, err := Open(p, results, Options{Force: true}); !errors.Is(err, ErrNotOwned) {
			t.Errorf("Open(%q): err = %v, want ErrNotOwned", p, err)
		}
	}
}
