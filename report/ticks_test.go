package report

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func labels(ticks []plot.Tick) string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return strings.Join(out, " ")
}

func TestLogTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{700, 2900, "1000 2000"},
		{6, 1100, "10 100 1000"},
		{0.9, 60, "1 2 5 10 20 50"},
		{0.04, 0.3, "0.05 0.1 0.2"},
		{1100, 1900, "1200 1500 1800"}, // no 1-2-5 mark inside: linear ticks
	}
	for _, tt := range tests {
		ticks := logTicks{}.Ticks(tt.lo, tt.hi)
		if got := labels(ticks); got != tt.want {
			t.Errorf("logTicks(%v, %v) labels %q, want %q", tt.lo, tt.hi, got, tt.want)
		}
		for _, tk := range ticks {
			if tk.Value < tt.lo || tk.Value > tt.hi {
				t.Errorf("logTicks(%v, %v): tick %v outside the range", tt.lo, tt.hi, tk.Value)
			}
		}
	}
}

func TestTidyTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{0, 5500, "0 2500 5000"},
		{0, 1, "0 0.5 1"},
		{0, 0.3, "0 0.15 0.3"},
	}
	for _, tt := range tests {
		if got := labels(tidyTicks{}.Ticks(tt.lo, tt.hi)); got != tt.want {
			t.Errorf("tidyTicks(%v, %v) labels %q, want %q", tt.lo, tt.hi, got, tt.want)
		}
	}
}
