package pqfile

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/pqbounds"
	"github.com/tracereplay/tracereplay/internal/testspoil"
)

type checkedRow struct {
	ID   int64  `parquet:"id"`
	Name string `parquet:"name"`
}

// writeChecked writes a small Parquet file at path and returns its bytes.
func writeChecked(t *testing.T, path string) []byte {
	t.Helper()
	rows := make([]checkedRow, 500)
	for i := range rows {
		rows[i] = checkedRow{ID: int64(i), Name: "job"}
	}
	var b bytes.Buffer
	if err := parquet.Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// spoil is data whose first page header (at byte 4, after the magic) is
// garbage: pqbounds.Check refuses it, parquet-go's footer reader does not.
func spoil(data []byte) []byte {
	bad := bytes.Clone(data)
	for i := 4; i < 24; i++ {
		bad[i] = 0xff
	}
	return bad
}

// checkOpen opens path and checks it with c, as OpenFile does.
func checkOpen(t *testing.T, c *Checked, path string) error {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenFile(f, st.Size(), Options{Checked: c})
	return err
}

// TestCheckedOncePerVersion: Checked runs the bounds check at a file's
// first open and not at the next ones while the file is unchanged; a file
// that goes bad after it passed is checked again and refused, whether it
// was written in place at the same size with its modification time put
// back, replaced by a file of the same size and modification time, or
// cut short; a file refused is checked again at its next open. A check
// skipped for any of these fails the test: parquet-go alone opens the
// spoiled file (its footer is intact).
func TestCheckedOncePerVersion(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are remembered on Linux only")
	}
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.parquet")
	good := writeChecked(t, path)
	bad := spoil(good)
	if _, err := parquet.OpenFile(bytes.NewReader(bad), int64(len(bad))); err != nil {
		t.Fatalf("parquet-go refuses the spoiled file (%v): the test would not tell a skipped check", err)
	}
	if err := pqbounds.Check(bytes.NewReader(bad), int64(len(bad))); err == nil {
		t.Fatal("pqbounds.Check passes the spoiled file")
	}
	var c Checked
	runs := func(want int) {
		t.Helper()
		if got := c.Runs(path); got != want {
			t.Fatalf("%d checks of %s, want %d", got, path, want)
		}
	}
	for range 3 {
		if err := checkOpen(t, &c, path); err != nil {
			t.Fatal(err)
		}
	}
	runs(1)
	// A change in the same clock tick as the file's last one could keep
	// its stamps on a kernel without fine-grained timestamps; the changes
	// below come later.
	const tick = 20 * time.Millisecond

	// In place, the same size, the modification time put back.
	time.Sleep(tick)
	if err := testspoil.InPlace(path, 0, bad[:24]); err != nil {
		t.Fatal(err)
	}
	if err := checkOpen(t, &c, path); err == nil {
		t.Fatal("written in place, mtime put back: passed")
	}
	runs(2)
	// Refused: checked again at the next open.
	if err := checkOpen(t, &c, path); err == nil {
		t.Fatal("written in place, opened again: passed")
	}
	runs(3)

	// Good again, then replaced by a spoiled file of the same size and
	// modification time.
	writeChecked(t, path)
	if err := checkOpen(t, &c, path); err != nil {
		t.Fatal(err)
	}
	if err := checkOpen(t, &c, path); err != nil {
		t.Fatal(err)
	}
	runs(4)
	time.Sleep(tick)
	if err := testspoil.Replace(path, bad); err != nil {
		t.Fatal(err)
	}
	if err := checkOpen(t, &c, path); err == nil {
		t.Fatal("replaced, same size and mtime: passed")
	}
	runs(5)

	// Good again, then cut short (the footer moves: not Parquet).
	writeChecked(t, path)
	if err := checkOpen(t, &c, path); err != nil {
		t.Fatal(err)
	}
	runs(6)
	if err := os.Truncate(path, int64(len(good)-1)); err != nil {
		t.Fatal(err)
	}
	if err := checkOpen(t, &c, path); err == nil {
		t.Fatal("cut short: passed")
	}
	runs(7)

	// A reader that is not a file is checked at every open.
	for range 2 {
		if _, err := OpenFile(bytes.NewReader(bad), int64(len(bad)), Options{Checked: &c}); err == nil {
			t.Fatal("spoiled bytes: passed")
		}
	}
}
