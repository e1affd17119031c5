package safeout

import "errors"

// ErrLocked is wrapped by Open's error when another run holds the target's
// lock.
var ErrLocked = errors.New("another run is writing it")

// errNoExchange: no atomic exchange of two directory entries here.
var errNoExchange = errors.New("atomic exchange not supported")
