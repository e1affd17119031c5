package safeout

import (
	"fmt"
	"os"
	"path/filepath"
)

// FileMode is the mode of every file safeout writes (world-readable, like the
// rest of a results tree).
const FileMode = 0o644

// WriteFile writes data to path atomically (see WriteFileFunc).
func WriteFile(path string, data []byte) error {
	return WriteFileFunc(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteFileFunc creates a hidden temporary file .BASE.tmp-* in path's directory,
// lets fill write it (fill may seek), syncs it, gives it FileMode and renames it
// over path, then syncs the directory. On any error the temporary file is
// removed and path is left as it was. Errors name path.
func WriteFileFunc(path string, fill func(*os.File) error) error {
	t, err := CreateTemp(path)
	if err != nil {
		return err
	}
	if err := fill(t.File()); err != nil {
		t.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return t.Commit()
}

// TempFile is a file being written atomically to its path, for writers that
// fill it over time (a results stream) rather than in one call (WriteFileFunc):
// a hidden temporary file .BASE.tmp-* in the path's directory until Commit puts
// it in place, or Abort removes it.
type TempFile struct {
	path, dir string
	f         *os.File
}

// CreateTemp creates the temporary file of path. Errors name path.
func CreateTemp(path string) (*TempFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &TempFile{path: path, dir: dir, f: f}, nil
}

// File is the temporary file to write.
func (t *TempFile) File() *os.File { return t.f }

// Commit syncs the temporary file, gives it FileMode and renames it over the
// path, then syncs the directory. On an error the temporary file is removed and
// the path is left as it was.
func (t *TempFile) Commit() (err error) {
	defer func() {
		if err != nil {
			t.Abort()
			err = fmt.Errorf("write %s: %w", t.path, err)
		}
	}()
	if err = t.f.Sync(); err != nil {
		return err
	}
	if err = t.f.Chmod(FileMode); err != nil {
		return err
	}
	if err = t.f.Close(); err != nil {
		return err
	}
	if err = os.Rename(t.f.Name(), t.path); err != nil {
		return err
	}
	return syncDir(t.dir)
}

// Abort closes and removes the temporary file.
func (t *TempFile) Abort() {
	t.f.Close()
	os.Remove(t.f.Name())
}

// syncDir fsyncs a directory so that a rename in it is durable. File systems
// that cannot sync a directory (EINVAL) are tolerated.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !isSyncUnsupported(err) {
		return err
	}
	return nil
}
