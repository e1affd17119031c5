package trace

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/pqfile"
	"github.com/tracereplay/tracereplay/internal/safeout"
)

// MaxRowsPerRowGroup bounds the rows of one Parquet row group written by
// WriteParquetFile, so that readers can process big files a row group at a time.
const MaxRowsPerRowGroup = 1 << 20

// ParquetOptions are optional settings of WriteParquetFile.
type ParquetOptions struct {
	// SortedBy names top-level columns the rows are sorted by (ascending, in this
	// order); they are declared as sorting columns of every row group. The caller
	// guarantees the order: nothing is checked or reordered.
	SortedBy []string
	// MaxRowsPerRowGroup, if positive, replaces the MaxRowsPerRowGroup bound.
	MaxRowsPerRowGroup int
	// SpillDir, if set, keeps the compressed pages of the row group being
	// built in unlinked temporary files in that directory (spill.go) instead
	// of memory once a column's pages pass spillMemMax bytes: the same bytes,
	// and a file whose one row group grows over a long run holds only its
	// columns' current pages in memory.
	SpillDir string
	// spillMemMax, if positive, replaces spillMemMax (tests).
	spillMemMax int
}

// WriteParquetFile writes rows as one zstd-compressed Parquet file at path, with
// meta as key/value metadata (stored sorted by key). The schema comes from T's
// `parquet:"…"` struct tags. The write is atomic: the file is built as a hidden
// temporary file in path's directory, synced, and renamed over path, so readers
// see the old file or the complete new one, never a partial one. The output is
// deterministic: the same rows and meta give byte-identical files.
func WriteParquetFile[T any](path string, rows []T, meta map[string]string, opt ...ParquetOptions) (err error) {
	return safeout.WriteFileFunc(path, func(f *os.File) error { return writeParquet(f, rows, meta, opt...) })
}

// writeParquet writes rows as Parquet to w with tracereplay's writer settings.
func writeParquet[T any](w io.Writer, rows []T, meta map[string]string, opt ...ParquetOptions) error {
	pw := NewParquetWriter[T](w, meta, opt...)
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}

// NewParquetWriter returns a Parquet writer to w with the settings of
// WriteParquetFile, for callers that stream rows in batches rather than hold
// them all: the same rows written in any batches give the same bytes as
// WriteParquetFile. The caller must Close it.
func NewParquetWriter[T any](w io.Writer, meta map[string]string, opt ...ParquetOptions) *parquet.GenericWriter[T] {
	options := []parquet.WriterOption{
		parquet.Compression(newZstdCodec()),
		parquet.MaxRowsPerRowGroup(MaxRowsPerRowGroup),
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		options = append(options, parquet.KeyValueMetadata(k, meta[k]))
	}
	var sorting []parquet.SortingColumn
	for _, o := range opt {
		for _, c := range o.SortedBy {
			sorting = append(sorting, parquet.Ascending(c))
		}
		if o.MaxRowsPerRowGroup > 0 {
			options = append(options, parquet.MaxRowsPerRowGroup(int64(o.MaxRowsPerRowGroup)))
		}
		if o.SpillDir != "" {
			options = append(options, parquet.ColumnPageBuffers(spillPool{dir: o.SpillDir, memMax: o.spillMemMax}))
		}
	}
	if len(sorting) > 0 {
		options = append(options, parquet.SortingWriterConfig(parquet.SortingColumns(sorting...)))
	}
	return parquet.NewGenericWriter[T](w, options...)
}

// openSized opens the file at path for reading and returns its size, which
// the Parquet reader needs to find the footer.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// ReadParquetFile reads every row of the Parquet file at path into T, and returns
// the file's key/value metadata. Every leaf column of T must be in the file with
// the same physical type and nesting (columns the file has beyond T are ignored):
// a missing or mistyped column is an error naming the file and the column,
// rather than a silent zero. A corrupt file is an error, never a panic.
func ReadParquetFile[T any](path string) (rows []T, meta map[string]string, err error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rows, meta, err = pqfile.Read[T](f, size, pqfile.Options{Columns: pqfile.SameLeaves})
	if err != nil {
		return nil, nil, parquetError(path, err)
	}
	return rows, meta, nil
}

// eachParquetRow reads the rows of the Parquet file at path into T a batch at
// a time, as ReadParquetFile checks and reads them, and calls each on every
// row in file order; it returns the file's key/value metadata. total, if not
// nil, is told the row count first (pqfile.ReadEach).
func eachParquetRow[T any](path string, total func(int64), each func(*T)) (map[string]string, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	meta, err := pqfile.ReadEach(f, size, pqfile.Options{Columns: pqfile.SameLeaves}, total, func(rows []T) error {
		for i := range rows {
			each(&rows[i])
		}
		return nil
	})
	if err != nil {
		return nil, parquetError(path, err)
	}
	return meta, nil
}

// parquetKeyValues returns the key/value metadata of the Parquet file at path,
// reading only its footer (and the pages' claims, unless chk, when set, has
// checked this version of the file).
func parquetKeyValues(path string, chk *pqfile.Checked) (map[string]string, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pf, err := pqfile.OpenFile(f, size, pqfile.Options{Small: true, Checked: chk})
	if err != nil {
		return nil, parquetError(path, err)
	}
	kv := make(map[string]string, len(pf.Metadata().KeyValueMetadata))
	for _, x := range pf.Metadata().KeyValueMetadata {
		kv[x.Key] = x.Value
	}
	return kv, nil
}

// parquetError words an error of package pqfile for a trace file.
func parquetError(path string, err error) error {
	var e *pqfile.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("%s: %w", path, err)
	}
	switch e.Stage {
	case pqfile.Footer, pqfile.Bounds, pqfile.Open:
		// parquet-go allocates from the sizes and counts a file claims before it
		// reads what backs them: claims the file's size cannot back are refused.
		return fmt.Errorf("%s: not a readable Parquet file: %w", path, e.Err)
	case pqfile.Panic:
		return fmt.Errorf("%s: corrupt Parquet file: %v", path, e.Err)
	case pqfile.Rows:
		return fmt.Errorf("%s: row %d: %w", path, e.Row, e.Err)
	case pqfile.Count:
		return fmt.Errorf("%s: read %d rows, footer says %d", path, e.Row, e.Want)
	}
	return fmt.Errorf("%s: %w", path, e.Err)
}
