// Package sigexit runs a command so that SIGINT and SIGTERM stop it cleanly:
// the first signal cancels the command's context, the command removes its
// temporary files and returns, and the exit status is 128 plus the signal's
// number (130 for SIGINT, 143 for SIGTERM), as a shell reports a process killed
// by that signal. A second signal kills the process at once.
package sigexit

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Status is the exit status for a run stopped by sig: 128 + its number.
func Status(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// Run calls run with a context that the first SIGINT or SIGTERM cancels, and
// returns run's exit status, or Status of the signal when one arrived; it then
// notes the signal on stderr as "NAME: interrupted by SIGNAL".
func Run(name string, stderr io.Writer, run func(ctx context.Context) int) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	got := make(chan os.Signal, 1)
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case s := <-sigs:
			signal.Stop(sigs) // a second signal takes its default action
			got <- s
			cancel()
		case <-done:
		}
	}()
	code := run(ctx)
	close(done)
	<-exited
	signal.Stop(sigs)
	select {
	case s := <-got:
		fmt.Fprintf(stderr, "%s: stopped by %s; temporary files removed, outputs left as they were\n", name, signalName(s))
		return Status(s)
	default:
		return code
	}
}

// signalName is "SIGINT", "SIGTERM" or the signal's own description.
func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
