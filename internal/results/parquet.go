package results

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/tracereplay/tracereplay/internal/pqbounds"
)

// ErrParquetBounds is the error (wrapped with the reason) of a results file
// whose footer or pages claim more than its size can hold (pqbounds.Check):
// it is refused before parquet-go allocates from the claims.
var ErrParquetBounds = pqbounds.ErrBounds

// ReadParquet reads every row of a Parquet file into T. parquet-go matches columns
// by name; a column that T expects but the file lacks is an error, so a results
// file from another schema is not silently read as zeros. parquet-go can panic on
// a corrupt file; that panic becomes an error naming the file.
func ReadParquet[T any](path string) (rows []T, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read results %s: %w", path, err)
	}
	return DecodeParquet[T](path, f, st.Size())
}

// DecodeParquet reads every row of the Parquet file r of size bytes into T, as
// ReadParquet does; path names the file in errors.
func DecodeParquet[T any](path string, r io.ReaderAt, size int64) (rows []T, err error) {
	defer func() {
		if p := recover(); p != nil {
			rows, err = nil, fmt.Errorf("read results %s: corrupt Parquet file: %v", path, p)
		}
	}()
	if err := pqbounds.CheckFooter(r, size); err != nil {
		return nil, fmt.Errorf("read results %s: not a Parquet file: %w", path, err)
	}
	// parquet-go allocates from the sizes and counts the file claims before it
	// reads what backs them; refuse claims the file's size cannot back.
	if err := pqbounds.Check(r, size); err != nil {
		return nil, fmt.Errorf("read results %s: corrupt Parquet file: %w", path, err)
	}
	// small buffers and no page index or bloom filters: results files are small and
	// read whole, and a corrupt file must cost little
	pf, err := parquet.OpenFile(r, size, parquet.ReadBufferSize(int(min(size, 1<<20))),
		parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("read results %s: not a Parquet file: %w", path, err)
	}
	want := parquet.SchemaOf(new(T))
	for _, col := range want.Fields() {
		if _, ok := pf.Schema().Lookup(col.Name()); !ok {
			return nil, fmt.Errorf("read results %s: column %q missing (expected the %s schema)", path, col.Name(), want.Name())
		}
	}
	rd := parquet.NewGenericReader[T](pf)
	defer rd.Close()
	// Read in chunks rather than trusting the footer's row count for one
	// allocation, and stop at that count: on a corrupt file the reader may go on
	// producing rows.
	total := pf.NumRows()
	buf := make([]T, min(total, 1024))
	for int64(len(rows)) < total {
		n, err := rd.Read(buf[:min(int64(len(buf)), total-int64(len(rows)))])
		rows = append(rows, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read results %s: row %d: %w", path, len(rows), err)
		}
		if n == 0 {
			return nil, fmt.Errorf("read results %s: row %d: reader made no progress", path, len(rows))
		}
	}
	if int64(len(rows)) != total {
		return nil, fmt.Errorf("read results %s: %d rows, but the footer announces %d", path, len(rows), total)
	}
	return rows, nil
}

// ParquetMeta returns the key/value metadata entry key of the Parquet file path.
func ParquetMeta(path, key string) (v string, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("read results %s: %w", path, err)
	}
	defer func() {
		if p := recover(); p != nil {
			v, ok, err = "", false, fmt.Errorf("read results %s: corrupt Parquet file: %v", path, p)
		}
	}()
	if err := pqbounds.Check(f, st.Size()); err != nil {
		return "", false, fmt.Errorf("read results %s: not a Parquet file: %w", path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return "", false, fmt.Errorf("read results %s: not a Parquet file: %w", path, err)
	}
	v, ok = pf.Lookup(key)
	return v, ok, nil
}
