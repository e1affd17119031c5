package replay

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// TestTaskJSONAsMarshal: appendTaskJSON writes what json.Marshal writes, for
// tasks whose every field (found by reflection, so a field added to
// trace.Task later is filled too) takes random values: integers at and near
// their limits, strings that json.Marshal writes as they are and strings it
// escapes (quotes, backslashes, HTML's <, > and &, control bytes, DEL,
// non-ASCII, U+2028, invalid UTF-8), and lists nil, empty and not.
func TestTaskJSONAsMarshal(t *testing.T) {
	strs := []string{"", "job_201002080801_40864", "task_x_m_000001", "/rack-1/host-7", "MAP", "SUCCEEDED",
		`a"b`, `a\b`, "<h>", "a&b", "tab\there", "nl\n", "\x00", "\x1f", "del\x7f", "é", "日本", "\u2028", "\u2029",
		"\xff\xfe", "a\xc3", " ", "~!@#$%^*()_+-=[]{}|;':,./?"}
	rng := rand.New(rand.NewPCG(7, 15))
	str := func() string {
		if rng.IntN(4) == 0 { // two of them joined
			return strs[rng.IntN(len(strs))] + strs[rng.IntN(len(strs))]
		}
		return strs[rng.IntN(len(strs))]
	}
	ints := []int64{0, 1, -1, 9, 10, 4096, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, 1_700_000_000_000}
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(str())
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
			x := ints[rng.IntN(len(ints))]
			if rng.IntN(2) == 0 {
				x = rng.Int64()
			}
			v.SetInt(x) // wrapped to the field's width
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
			v.SetUint(rng.Uint64()) // wrapped to the field's width
		case reflect.Slice:
			switch rng.IntN(3) {
			case 0:
				v.SetZero() // nil
			default:
				l := reflect.MakeSlice(v.Type(), rng.IntN(4), 4) // empty or not
				for i := range l.Len() {
					fill(l.Index(i))
				}
				v.Set(l)
			}
		default:
			t.Fatalf("trace.Task has a field of kind %s, which appendTaskJSON does not write: teach both", v.Kind())
		}
	}
	var b []byte
	for i := range 20000 {
		var k trace.Task
		v := reflect.ValueOf(&k).Elem()
		for f := range v.NumField() {
			fill(v.Field(f))
		}
		want, err := json.Marshal(&k)
		if err != nil {
			t.Fatal(err)
		}
		b = appendTaskJSON(b[:0], &k)
		if !bytes.Equal(b, want) {
			t.Fatalf("task %d: appendTaskJSON wrote\n%s\njson.Marshal\n%s", i, b, want)
		}
	}
}
