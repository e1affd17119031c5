package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// tidyTicks are gonum's default ticks labelled without trailing zeros ("2500",
// not "2500.00"; "0.5" and "1", not "0.5" and "1.0").
type tidyTicks struct{}

// Ticks implements plot.Ticker.
func (tidyTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for d := 0; d <= 6; d++ {
		exact := true
		for _, t := range ticks {
			if t.Label == "" {
				continue
			}
			v, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'f', d, 64), 64)
			exact = exact && math.Abs(v-t.Value) <= 1e-9*max(1, math.Abs(t.Value))
		}
		if exact || d == 6 {
			for i, t := range ticks {
				if t.Label != "" {
					v, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'f', d, 64), 64)
					ticks[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
				}
			}
			break
		}
	}
	return ticks
}

// logTicks marks every integer multiple of each power of ten on a log axis and
// labels 1, 2 and 5 times the powers of ten when the axis spans at most two
// decades, only the powers of ten beyond that. When fewer than two marks would
// be labelled (a narrow axis), it falls back to tidyTicks.
type logTicks struct{}

// Ticks implements plot.Ticker; lo must be positive.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	labelled := map[int]bool{1: true, 2: true, 5: true}
	if math.Log10(hi/lo) > 2 {
		labelled = map[int]bool{1: true}
	}
	var ticks []plot.Tick
	n := 0
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m <= 9; m++ {
			label := formatPow10(m, e)
			v, _ := strconv.ParseFloat(label, 64) // the double nearest m·10^e
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled[m] {
				t.Label = label
				n++
			}
			ticks = append(ticks, t)
		}
	}
	if n < 2 {
		return tidyTicks{}.Ticks(lo, hi)
	}
	return ticks
}

// formatPow10 formats m·10^e without floating-point noise.
func formatPow10(m, e int) string {
	return strconv.FormatFloat(float64(m)*math.Pow10(e), 'f', max(0, -e), 64)
}
