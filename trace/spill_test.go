package trace

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// TestParquetSpillSameBytes: a Parquet file whose pages wait in unlinked
// files (ParquetOptions.SpillDir) has the same bytes as one built in memory,
// and the spill directory is left empty, while writing too.
func TestParquetSpillSameBytes(t *testing.T) {
	type row struct {
		K int64  `parquet:"k"`
		S string `parquet:"s"`
	}
	var rows []row
	for k := range 200_000 {
		rows = append(rows, row{int64(k * 7919 % 100_003), fmt.Sprintf("s%d", k%977)})
	}
	write := func(spill string) []byte {
		var b bytes.Buffer
		w := NewParquetWriter[row](&b, map[string]string{"a": "b"}, ParquetOptions{SortedBy: []string{"k"}, SpillDir: spill})
		for i := 0; i < len(rows); i += 4096 {
			if _, err := w.Write(rows[i:min(i+4096, len(rows))]); err != nil {
				t.Fatal(err)
			}
			if spill != "" {
				if left, _ := os.ReadDir(spill); len(left) != 0 {
					t.Fatalf("the spill directory holds %d entries while writing", len(left))
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	dir := t.TempDir()
	mem, spilled := write(""), write(dir)
	if !bytes.Equal(mem, spilled) {
		t.Errorf("spilled file differs: %d bytes against %d in memory", len(spilled), len(mem))
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the spill directory holds %d entries", len(left))
	}
}
