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
func WriteFileFunc(path string, fill func(*os.File) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
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
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(FileMode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = syncDir(dir); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
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
