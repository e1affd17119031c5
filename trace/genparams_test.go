package trace

import (
	"math"
	"reflect"
	"testing"
)

// TestParamReader checks the shared reader on TOML values and command-line
// strings: values in range are taken, the rest reported, all problems at once,
// and keys never read are unknown.
func TestParamReader(t *testing.T) {
	r := &paramReader{p: GenParams{
		"n": "3", "x": 2.5, "c": "b", "s": "", "l": "1,2", "big": int64(7), "nan": "NaN", "typo": true,
	}}
	got := []any{
		r.int("n", 0, 1, 5), r.float("x", 0, 0, math.MaxFloat64), r.choice("c", "a", "a", "b"),
		r.str("s", "def"), r.list("l", 0, 9), r.int("big", 4, 0, 5), r.float("nan", 1, 0, 2), r.int("absent", 9, 0, 1),
	}
	want := []any{int64(3), 2.5, "b", "def", []int64{1, 2}, int64(4), 1.0, int64(9)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
	wantErr := "s = : want a non-empty string; big = 7: want an integer in [0, 5]; nan = NaN: want a number; " +
		"unknown parameter typo; valid parameters: n, x, c, s, l, big, nan, absent"
	if err := r.check(); err == nil || err.Error() != wantErr {
		t.Errorf("error %v\nwant %s", err, wantErr)
	}
	if err := (&paramReader{p: GenParams{"k": int64(1)}}).check(); err == nil || err.Error() != "unknown parameter k; valid parameters: none" {
		t.Errorf("no parameters read: error %v", err)
	}
}

// TestGeneratorsTakeStrings: every generator reads its parameters from the
// command line's strings as it reads them from TOML numbers.
func TestGeneratorsTakeStrings(t *testing.T) {
	for _, c := range []struct {
		gen       string
		toml, cli GenParams
	}{
		{"coupling-grep", GenParams{"jobs": int64(3), "interval_s": 20.5}, GenParams{"jobs": "3", "interval_s": "20.5"}},
		{"coupling-batches", GenParams{"batches": int64(2), "gap_s": int64(3)}, GenParams{"batches": "2", "gap_s": "3"}},
		{"hybsmrp", GenParams{"jobs": int64(4), "mean_interarrival": 2.0}, GenParams{"jobs": "4", "mean_interarrival": "2"}},
		{"eas-table1", GenParams{"window_s": int64(10), "block_mb": 64.0}, GenParams{"window_s": "10", "block_mb": "64"}},
		{"synthetic", GenParams{"jobs": int64(5), "maps_mean": int64(3)}, GenParams{"jobs": "5", "maps_mean": "3"}},
	} {
		a, err := Generate(c.gen, c.toml, 1)
		if err != nil {
			t.Fatalf("%s %v: %v", c.gen, c.toml, err)
		}
		b, err := Generate(c.gen, c.cli, 1)
		if err != nil {
			t.Fatalf("%s %v: %v", c.gen, c.cli, err)
		}
		if !reflect.DeepEqual(a.Jobs, b.Jobs) || !reflect.DeepEqual(a.Tasks, b.Tasks) {
			t.Errorf("%s: strings %v give another trace than numbers %v", c.gen, c.cli, c.toml)
		}
	}
}
