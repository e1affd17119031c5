package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes the output of write to path through a temporary file in
// the same directory that is renamed over path only once write succeeded, so
// readers never see a half-written file. The file gets mode 0644.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeBytesAtomic(path, buf.Bytes())
}

func writeBytesAtomic(path string, data []byte) error {
	return writeTempRename(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// writeTempRename creates a temporary file beside path, lets fill write it (fill
// may seek, as Arrow's file writer does), and renames it over path with mode
// 0644; on any error the temporary file is removed.
func writeTempRename(path string, fill func(*os.File) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = fill(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
