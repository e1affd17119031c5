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
		{700, 2900, "700 800 900 1000 2000"},
		{6, 1100, "10 20 50 100 200 500 1000"},
		{0.9, 60, "1 2 5 10 20 50"},
		{0.04, 0.3, "0.05 0.1 0.2 0.3"},
		{40, 250, "40 50 60 70 80 90 100 200"}, // issue 17: was 50 100 200
		{3, 200000, "10 100 1000 10000 100000"},
		{1100, 1900, "1200 1400 1600 1800"}, // no 1-2-5 mark inside: linear ticks
	}
	for _, tt := range tests {
		ticks := LogTicks{}.Ticks(tt.lo, tt.hi)
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
		{0, 5500, "0 1000 2000 3000 4000 5000"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{0, 0.3, "0 0.05 0.1 0.15 0.2 0.25 0.3"},
		{0, 1440, "0 250 500 750 1000 1250"}, // a day in minutes: was 3 labels
		{-3, 7, "-2 0 2 4 6"},
		{2781.3, 2782.5, "2781.4 2781.6 2781.8 2782 2782.2 2782.4"},
	}
	for _, tt := range tests {
		if got := labels(TidyTicks{}.Ticks(tt.lo, tt.hi)); got != tt.want {
			t.Errorf("tidyTicks(%v, %v) labels %q, want %q", tt.lo, tt.hi, got, tt.want)
		}
	}
}
