package safeout

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange atomically swaps the directory entries a and b (renameat2
// RENAME_EXCHANGE); errNoExchange when the kernel or file system cannot.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	return err
}
