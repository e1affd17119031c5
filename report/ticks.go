package report

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TidyTicks label about five to eight round values (1, 2, 2.5 or 5 times a
// power of ten apart) with unlabelled minor ticks between them, written without trailing
// zeros ("2500", not "2500.00"; "0.5" and "1", not "0.5" and "1.0"). gonum's
// default asks for three and often labels only two or three.
type TidyTicks struct{}

// tidyTarget is the number of labelled ticks tidyTicks aims at.
const tidyTarget = 6

// Ticks implements plot.Ticker.
func (TidyTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step, minor := tickStep((hi - lo) / tidyTarget)
	var ticks []plot.Tick
	first := math.Ceil(lo/minor - 1e-9)
	for k := first; k*minor <= hi+1e-9*minor; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			t.Label = strconv.FormatFloat(roundTo(v, step), 'f', -1, 64)
		}
		ticks = append(ticks, t)
		if len(ticks) > 200 {
			break
		}
	}
	return ticks
}

// tickStep returns the smallest step of 1, 2, 2.5 or 5 times a power of ten
// that is at least raw, and the minor step that divides it (a fifth, or a half of 2).
func tickStep(raw float64) (step, minor float64) {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			step = m * p
			break
		}
	}
	if step/p == 2 || step/p == 20 {
		return step, step / 4
	}
	return step, step / 5
}

// roundTo removes floating-point noise from v, a multiple of step.
func roundTo(v, step float64) float64 {
	d := max(0, -int(math.Floor(math.Log10(step))))
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', d, 64), 64)
	if r == 0 {
		return 0 // no "-0"
	}
	return r
}

// LogTicks marks every integer multiple of each power of ten on a log axis and
// labels the sparsest of these mantissa sets that gives at least four labels:
// 1; 1, 2 and 5; 1, 2, 3 and 5; every mantissa. When fewer than two
// marks would be labelled even so (a very narrow axis), it falls back to
// tidyTicks.
type LogTicks struct{}

// logLabelSets are the mantissas logTicks labels, sparsest first.
var logLabelSets = [][]int{{1}, {1, 2, 5}, {1, 2, 3, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}

// Ticks implements plot.Ticker; lo must be positive.
func (LogTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, set := range logLabelSets {
		labelled := map[int]bool{}
		for _, m := range set {
			labelled[m] = true
		}
		ticks = ticks[:0]
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
		if n >= 4 {
			return ticks
		}
		if len(set) == 9 && n >= 2 {
			return ticks
		}
	}
	return TidyTicks{}.Ticks(lo, hi)
}

// formatPow10 formats m·10^e without floating-point noise.
func formatPow10(m, e int) string {
	return strconv.FormatFloat(float64(m)*math.Pow10(e), 'f', max(0, -e), 64)
}

// fitXTicks sets p's x ticks to those of marker over the axis range, with the
// labels that would come closer than half a digit's width to a neighbour
// dropped (their ticks stay, unlabelled): on a narrow log axis "1000" and
// "2000" no longer run together as "10002000". Labels are kept roundest first
// (labelRank), so that powers of ten win over 2s and 5s. Call it with the
// canvas p is about to be drawn into, before p.Draw.
func fitXTicks(p *plot.Plot, marker plot.Ticker, c draw.Canvas) {
	p.X.Tick.Marker = marker
	ticks := marker.Ticks(p.X.Min, p.X.Max)
	da := p.DataCanvas(c)
	type label struct {
		i      int
		lo, hi vg.Length
	}
	var labels []label
	for i, t := range ticks {
		if t.Label == "" || t.Value < p.X.Min || t.Value > p.X.Max {
			continue
		}
		x := da.X(p.X.Norm(t.Value))
		half := p.X.Tick.Label.Width(t.Label) / 2
		labels = append(labels, label{i, x - half, x + half})
	}
	slices.SortStableFunc(labels, func(a, b label) int {
		return cmp.Compare(labelRank(ticks[a.i].Label), labelRank(ticks[b.i].Label))
	})
	gap := p.X.Tick.Label.Width("0") / 2
	var kept []label
	out := slices.Clone(ticks)
	for _, l := range labels {
		if slices.ContainsFunc(kept, func(k label) bool { return l.lo < k.hi+gap && k.lo < l.hi+gap }) {
			out[l.i].Label = ""
			continue
		}
		kept = append(kept, l)
	}
	p.X.Tick.Marker = plot.ConstantTicks(out)
}

// labelRank orders tick labels by roundness: fewer significant digits first
// ("0", "1000", "5000" before "2500"), then by leading digit 1, 5, 2, then the
// others.
func labelRank(label string) int {
	digits := strings.Trim(strings.NewReplacer("-", "", ".", "").Replace(label), "0")
	if digits == "" {
		return 0
	}
	lead := strings.IndexByte("152346789", digits[0])
	return len(digits)*10 + lead
}
