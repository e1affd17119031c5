// Package testspoil spoils files for tests of the checks that must refuse
// them: a Parquet file written over in place or replaced, with its size and
// modification time kept, so that only its content (and the inode or ctime
// the kernel updates) tells the change.
package testspoil

import (
	"fmt"
	"os"
)

// InPlace writes b over path's bytes at off, through the same file (the
// same inode), and puts path's modification time back.
func InPlace(path string, off int64, b []byte) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(b, off); err != nil {
		f.Close()
		return fmt.Errorf("spoil %s in place: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chtimes(path, st.ModTime(), st.ModTime())
}

// Replace replaces path by a new file (a new inode) holding b, written
// beside it and renamed over it, with path's modification time.
func Replace(path string, b []byte) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	other := path + ".spoiled"
	if err := os.WriteFile(other, b, 0o644); err != nil {
		return err
	}
	if err := os.Chtimes(other, st.ModTime(), st.ModTime()); err != nil {
		return err
	}
	return os.Rename(other, path)
}
