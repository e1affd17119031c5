package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tracereplay/tracereplay/internal/pqbounds"
	"github.com/tracereplay/tracereplay/internal/pqfile"
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
	b, err := readWhole(path)
	if err != nil {
		return nil, err
	}
	return DecodeParquet[T](path, bytes.NewReader(b), int64(len(b)))
}

// readWhole returns the bytes of the results file path. Results files are
// decoded whole into rows, which take more memory than their compressed
// bytes, so holding the bytes costs little; reading them at once replaces the
// many small preads of parquet-go's page reader and footer checks (report's
// BenchmarkLoad: 347-390 to 292-314 ms a load, 4 runs each, 2026-11-27).
func readWhole(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	return b, nil
}

// DecodeParquet reads every row of the Parquet file r of size bytes into T, as
// ReadParquet does; path names the file in errors.
func DecodeParquet[T any](path string, r io.ReaderAt, size int64) ([]T, error) {
	// small buffers and no page index or bloom filters: results files are small and
	// read whole, and a corrupt file must cost little
	rows, _, err := pqfile.Read[T](r, size, pqfile.Options{CheckFooter: true, Small: true, Columns: pqfile.SameNames})
	if err != nil {
		return nil, readError(path, err)
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
	pf, err := pqfile.OpenFile(f, st.Size(), pqfile.Options{})
	if err != nil {
		var e *pqfile.Error
		if errors.As(err, &e) && e.Stage == pqfile.Bounds {
			return "", false, fmt.Errorf("read results %s: not a Parquet file: %w", path, e.Err)
		}
		return "", false, readError(path, err)
	}
	v, ok = pf.Lookup(key)
	return v, ok, nil
}

// readError words an error of package pqfile for a results file.
func readError(path string, err error) error {
	var e *pqfile.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("read results %s: %w", path, err)
	}
	switch e.Stage {
	case pqfile.Footer, pqfile.Open:
		return fmt.Errorf("read results %s: not a Parquet file: %w", path, e.Err)
	case pqfile.Bounds:
		// parquet-go allocates from the sizes and counts the file claims before
		// it reads what backs them; claims the file's size cannot back are refused.
		return fmt.Errorf("read results %s: corrupt Parquet file: %w", path, e.Err)
	case pqfile.Panic:
		return fmt.Errorf("read results %s: corrupt Parquet file: %v", path, e.Err)
	case pqfile.Rows:
		return fmt.Errorf("read results %s: row %d: %w", path, e.Row, e.Err)
	case pqfile.Count:
		return fmt.Errorf("read results %s: %d rows, but the footer announces %d", path, e.Row, e.Want)
	}
	return fmt.Errorf("read results %s: %w", path, e.Err)
}
