// Package progress formats the status line that ingest and replay keep up to
// date on a terminal during long work: how much is done, the share, the
// elapsed time, the rate and an estimate of the time left.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Line returns the status line
//
//	PREFIX: DONE/TOTAL UNIT · P% · M:SS elapsed · R UNIT/s · ETA M:SS
//
// share is the work done in units, DONE plus the finished part of the units
// under way, so that the share, rate and ETA move between whole units. The
// rate and the ETA appear after a second of work, the ETA only before the end.
func Line(prefix, unit string, done, total int, share float64, elapsed time.Duration) string {
	frac := share / float64(max(total, 1))
	s := fmt.Sprintf("%s: %d/%d %s · %.0f%% · %s elapsed", prefix, done, total, unit, 100*frac, Clock(elapsed))
	if elapsed >= time.Second && share > 0 {
		s += fmt.Sprintf(" · %s %s/s", rate(share/elapsed.Seconds()), unit)
		if frac < 1 {
			left := time.Duration(float64(elapsed) * (1 - frac) / frac)
			s += " · ETA " + Clock(left)
		}
	}
	return s
}

// rate formats units per second with two decimals below 10, one below 100 and
// none from there.
func rate(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	default:
		return fmt.Sprintf("%.2f", r)
	}
}

// Clock formats a duration as m:ss, or h:mm:ss from an hour.
func Clock(d time.Duration) string {
	t := int64(d.Round(time.Second) / time.Second)
	if t >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", t/3600, t/60%60, t%60)
	}
	return fmt.Sprintf("%d:%02d", t/60, t%60)
}

// Terminal keeps one status line up to date on a terminal, redrawn at most
// five times a second. It is not safe for concurrent use.
type Terminal struct {
	w     io.Writer
	last  time.Time
	shown bool
}

// NewTerminal returns a Terminal writing to w, which should be a terminal:
// the line is redrawn with a carriage return and an erase-line sequence.
func NewTerminal(w io.Writer) *Terminal { return &Terminal{w: w} }

// Show redraws the line at time now, unless the last redraw was less than
// 200 ms before and force is not set.
func (t *Terminal) Show(now time.Time, line string, force bool) {
	if !force && t.shown && now.Sub(t.last) < 200*time.Millisecond {
		return
	}
	t.last = now
	fmt.Fprintf(t.w, "\r%s\033[K", line)
	t.shown = true
}

// End replaces the status line by final, when not empty, and ends the line.
func (t *Terminal) End(final string) {
	switch {
	case final != "":
		fmt.Fprintf(t.w, "\r%s\033[K\n", final)
	case t.shown:
		fmt.Fprintln(t.w)
	}
	t.shown = false
}

// IsTerminal reports whether w is a terminal: progress lines are for people,
// logs and pipes get a summary instead.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
