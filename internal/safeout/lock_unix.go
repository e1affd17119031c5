//go:build unix

package safeout

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockFile is a held flock on a lock file.
type lockFile struct {
	f    *os.File
	path string
}

// acquire takes an exclusive flock on path (created if needed) without
// waiting. Since release removes the file, a lock taken on a file that has
// meanwhile been removed or replaced is dropped and taken again on the new one.
func acquire(path string) (*lockFile, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w (lock %s is held; wait for that run to end or choose another output)", ErrLocked, path)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && sameFile(held, now) {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			return &lockFile{f: f, path: path}, nil
		}
		f.Close() // the file was removed by its holder; try the new one
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps changing", path)
}

func sameFile(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// release removes the lock file while still holding the lock, then unlocks.
func (l *lockFile) release() error {
	rmErr := os.Remove(l.path)
	err := l.f.Close() // closing the last descriptor drops the flock
	if rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		return rmErr
	}
	return err
}

// isSyncUnsupported: the file system cannot fsync a directory.
func isSyncUnsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP)
}
