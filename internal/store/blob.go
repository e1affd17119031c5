package store

import (
	"context"
	"fmt"
)

// openBucket opens a bucket URL.
func openBucket(_ context.Context, loc string) (Store, error) {
	return nil, fmt.Errorf("%s: %w: only local directories are supported", loc, ErrUnreachable)
}
