//go:build !unix

package safeout

import (
	"errors"
	"fmt"
	"os"
)

// lockFile is a lock file created exclusively (no flock here): a file left by
// a crashed run must be removed by hand.
type lockFile struct{ path string }

func acquire(path string) (*lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w (lock file %s exists; remove it if no run is writing)", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f.Close()
	return &lockFile{path: path}, nil
}

func (l *lockFile) release() error { return os.Remove(l.path) }

func isSyncUnsupported(err error) bool { return true }
