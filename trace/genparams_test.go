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
	r := NewParamReader(GenParams{
		"n": "3", "x": 2.5, "c": "b", "s": "", "l": "1,2", "big": int64(7), "nan": "NaN", "typo": true,
	})
	got := []any{
		r.Int("n", 0, 1, 5), r.Float("x", 0, 0, math.MaxFloat64), r.Choice("c", "a", "a", "b"),
		r.Str("s", "def"), r.List("l", 0, 9), r.Int("big", 4, 0, 5), r.Float("nan", 1, 0, 2), r.Int("absent", 9, 0, 1),
	}
	want := []any{int64(3), 2.5, "b", "def", []int64{1, 2}, int64(4), 1.0, int64(9)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
	wantErr := "s = : want a non-empty string; big = 7: want an integer in [0, 5]; nan = NaN: want a number; " +
		"unknown parameter typo; valid parameters: n, x, c, s, l, big, nan, absent"
	if err := r.Check(); err == nil || err.Error() != wantErr {
		t.Errorf("error %v\nwant %s", err, wantErr)
	}
	if err := NewParamReader(GenParams{"k": int64(1)}).Check(); err == nil || err.Error() != "unknown parameter k; valid parameters: none" {
		t.Errorf("no parameters read: error %v", err)
	}
}
