package trace

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParquetSpillSameBytes: a Parquet file whose pages wait in unlinked
// files (ParquetOptions.SpillDir) has the same bytes as one built in memory,
// whether every page buffer spills at its first byte, some do (the default
// spillMemMax) or none does; and the spill directory is left empty, while
// writing too.
func TestParquetSpillSameBytes(t *testing.T) {
	type row struct {
		K int64  `parquet:"k"`
		S string `parquet:"s"`
	}
	var rows []row
	for k := range 200_000 {
		rows = append(rows, row{int64(k * 7919 % 100_003), fmt.Sprintf("s%d", k%977)})
	}
	write := func(spill string, memMax int) (out []byte, spilled int) {
		var b bytes.Buffer
		w := NewParquetWriter[row](&b, map[string]string{"a": "b"}, ParquetOptions{SortedBy: []string{"k"}, SpillDir: spill, spillMemMax: memMax})
		for i := 0; i < len(rows); i += 4096 {
			if _, err := w.Write(rows[i:min(i+4096, len(rows))]); err != nil {
				t.Fatal(err)
			}
			if spill != "" {
				if left, _ := os.ReadDir(spill); len(left) != 0 {
					t.Fatalf("the spill directory holds %d entries while writing", len(left))
				}
				spilled = max(spilled, spillFiles(t, spill))
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes(), spilled
	}
	mem, _ := write("", 0)
	for _, tc := range []struct {
		memMax             int
		minFiles, maxFiles int
	}{
		{1, 2, 2},       // both columns' pages on disk from the first byte
		{0, 1, 2},       // spillMemMax: at least the 200,000 keys' pages spill
		{1 << 30, 0, 0}, // all in memory
	} {
		dir := t.TempDir()
		spilled, files := write(dir, tc.memMax)
		if !bytes.Equal(mem, spilled) {
			t.Errorf("memMax %d: spilled file differs: %d bytes against %d in memory", tc.memMax, len(spilled), len(mem))
		}
		if files < tc.minFiles || files > tc.maxFiles {
			t.Errorf("memMax %d: %d page files open at most while writing, want %d to %d", tc.memMax, files, tc.minFiles, tc.maxFiles)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("memMax %d: the spill directory holds %d entries", tc.memMax, len(left))
		}
	}
}

// spillFiles counts this process's open files that are unlinked page files of
// dir (their /proc/self/fd links name them "(deleted)").
func spillFiles(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("open files not listed: %v", err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, filepath.Join(dir, ".tracereplay-pages-")) && strings.HasSuffix(target, " (deleted)") {
			n++
		}
	}
	return n
}

// TestSpillBufferAsFile: a page buffer reads, writes and seeks as a file
// does, before, across and after its move to disk: the same results call by
// call and the same bytes at the end, over random calls (seeks past the end
// included) with a 100-byte memory limit.
func TestSpillBufferAsFile(t *testing.T) {
	early := 0 // seeds whose buffer spilled with 20 calls or more to go
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		dir := t.TempDir()
		f, err := os.CreateTemp(dir, "want-*")
		if err != nil {
			t.Fatal(err)
		}
		b := spillPool{dir: dir, memMax: 100}.GetBuffer().(*spillBuffer)
		spilledAt := -1
		for op := range 60 {
			switch rng.IntN(3) {
			case 0:
				p := make([]byte, rng.IntN(40))
				for i := range p {
					p[i] = byte(rng.IntN(256))
				}
				n1, err1 := f.Write(p)
				n2, err2 := b.Write(p)
				if n1 != n2 || (err1 == nil) != (err2 == nil) {
					t.Fatalf("seed %d op %d: write %d bytes: file %d %v, buffer %d %v", seed, op, len(p), n1, err1, n2, err2)
				}
			case 1:
				whence := rng.IntN(3)
				off := int64(rng.IntN(150)) - 30
				o1, err1 := f.Seek(off, whence)
				o2, err2 := b.Seek(off, whence)
				if (err1 == nil) != (err2 == nil) || (err1 == nil && o1 != o2) {
					t.Fatalf("seed %d op %d: seek %d %d: file %d %v, buffer %d %v", seed, op, off, whence, o1, err1, o2, err2)
				}
			case 2:
				p1 := make([]byte, rng.IntN(40))
				p2 := make([]byte, len(p1))
				n1, err1 := f.Read(p1)
				n2, err2 := b.Read(p2)
				if n1 != n2 || !bytes.Equal(p1[:n1], p2[:n2]) || (err1 == io.EOF) != (err2 == io.EOF) {
					t.Fatalf("seed %d op %d: read %d: file %d %v, buffer %d %v", seed, op, len(p1), n1, err1, n2, err2)
				}
			}
			if spilledAt < 0 && b.f != nil {
				spilledAt = op
			}
		}
		want, _ := os.ReadFile(f.Name())
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(b)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("seed %d: buffer holds %d bytes (%v), the file %d, or they differ", seed, len(got), err, len(want))
		}
		if spilledAt >= 0 && spilledAt < 40 {
			early++
		}
		b.release()
		f.Close()
	}
	if early < 10 {
		t.Errorf("%d of 20 buffers spilled with 20 calls to go, want 10 or more", early)
	}
}
