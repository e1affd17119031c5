package sigexit

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunSignal: a signal cancels the context, the command returns, and the
// exit status is 128 + the signal's number with a note naming the signal.
func TestRunSignal(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		var stderr strings.Builder
		code := Run("tool", &stderr, func(ctx context.Context) int {
			if err := syscall.Kill(os.Getpid(), c.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ctx.Done():
				return 1 // what a command returns when it was stopped
			case <-time.After(10 * time.Second):
				t.Errorf("%v did not cancel the context", c.sig)
				return 0
			}
		})
		if code != c.code || !strings.Contains(stderr.String(), "tool: stopped by "+c.name) {
			t.Errorf("%v: exit %d, stderr %q; want %d and a note", c.sig, code, stderr.String(), c.code)
		}
	}
}

// TestRunNoSignal: without a signal the command's own status comes back and
// nothing is printed.
func TestRunNoSignal(t *testing.T) {
	var stderr strings.Builder
	if code := Run("tool", &stderr, func(ctx context.Context) int { return 2 }); code != 2 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 2 and nothing", code, stderr.String())
	}
}
