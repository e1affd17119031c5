package replay

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The hardware model in JSON as the manifest records it: the TOML keys
// (disk_mb_per_s), in Hardware's field order, so that a manifest reads like the
// hardware file it came from. FieldJSON (lifecycle.go) is the frozen Go-field
// encoding that run identities and results metadata keep.

// jsonKey is the JSON key of a struct field: its TOML key, else (a field
// without one, such as Layout) its name in lower case.
func jsonKey(f reflect.StructField) string {
	if k := tomlKey(f); k != "" {
		return k
	}
	return strings.ToLower(f.Name)
}

// MarshalJSON writes the model with its TOML keys. As in FieldJSON, each
// optional group of keys (optionalKeyGroups: the lifecycle's, the later
// lifecycle keys, the YARN model's) is left out when its keys all hold their
// defaults (flow_fetch_order's at the value its absence stands for,
// omittedHardware).
func (h Hardware) MarshalJSON() ([]byte, error) {
	d := omittedHardware(&h)
	skip := map[string]bool{}
	for _, of := range optionalKeyGroups() {
		if g := of(&h); g == of(&d) {
			t := reflect.TypeOf(g)
			for i := range t.NumField() {
				skip[t.Field(i).Name] = true
			}
		}
	}
	var b bytes.Buffer
	if err := writeKeyed(&b, reflect.ValueOf(h), skip); err != nil {
		return nil, fmt.Errorf("hardware model: %w", err)
	}
	return b.Bytes(), nil
}

// writeKeyed writes struct v as a JSON object keyed by jsonKey, leaving out the
// fields named in skip; nested structs and lists of structs are keyed the
// same way, anything else is written by encoding/json.
func writeKeyed(b *bytes.Buffer, v reflect.Value, skip map[string]bool) error {
	t := v.Type()
	b.WriteByte('{')
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || skip[f.Name] {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(jsonKey(f))
		b.Write(k)
		b.WriteByte(':')
		if err := writeKeyedValue(b, v.Field(i)); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func writeKeyedValue(b *bytes.Buffer, v reflect.Value) error {
	keyed := func(t reflect.Type) bool {
		return t.Kind() == reflect.Struct && !t.Implements(reflect.TypeFor[json.Marshaler]()) &&
			!t.Implements(reflect.TypeFor[encoding.TextMarshaler]())
	}
	switch {
	case keyed(v.Type()):
		return writeKeyed(b, v, nil)
	case v.Kind() == reflect.Slice && keyed(v.Type().Elem()):
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeKeyed(b, v.Index(i), nil); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	e, err := json.Marshal(v.Interface())
	if err != nil {
		return err
	}
	b.Write(e)
	return nil
}

// fieldNames rewrites the keys of JSON object b that are jsonKeys of struct
// type t into t's field names; other keys (Go field names, as FieldJSON
// writes) are kept.
func fieldNames(b []byte, t reflect.Type) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return b, nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if k := jsonKey(f); k != f.Name {
			if v, ok := m[k]; ok {
				delete(m, k)
				m[f.Name] = v
			}
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a model written by MarshalJSON (TOML keys) or by
// FieldJSON (Go field names). An optional group of keys (optionalKeyGroups)
// written without any of its keys (left out at its defaults, or a model from
// before the group existed, which behaved as its defaults) reads back as its
// defaults — flow_fetch_order as "ready" where it acts (omittedHardware) —
// so a model survives the round trip; any other key left out keeps
// its zero value. The enumerated keys are read as written, not checked against this build's
// names: results record a model that was valid where it ran, and Validate
// says what this build makes of it.
func (h *Hardware) UnmarshalJSON(b []byte) error {
	t := reflect.TypeFor[Hardware]()
	nb, err := fieldNames(b, t)
	if err != nil {
		return fmt.Errorf("hardware model: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(nb, &m); err != nil || m == nil {
		type plain Hardware
		return json.Unmarshal(nb, (*plain)(h))
	}
	present := make(map[string]bool, len(m))
	for k := range m {
		present[k] = true
	}
	enums := map[string]string{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() != reflect.String || f.Type == reflect.TypeFor[string]() {
			continue
		}
		var v string
		if raw, ok := m[f.Name]; ok && json.Unmarshal(raw, &v) == nil {
			enums[f.Name] = v
			delete(m, f.Name)
		}
	}
	if nb, err = json.Marshal(m); err != nil {
		return fmt.Errorf("hardware model: %w", err)
	}
	type plain Hardware
	if err := json.Unmarshal(nb, (*plain)(h)); err != nil {
		return err
	}
	hv := reflect.ValueOf(h).Elem()
	for name, v := range enums {
		hv.FieldByName(name).SetString(v)
	}
	defaultOptionalGroups(h, present)
	return nil
}

// UnmarshalJSON reads a queue written with its TOML keys or its Go field names.
func (q *Queue) UnmarshalJSON(b []byte) error {
	nb, err := fieldNames(b, reflect.TypeFor[Queue]())
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	type plain Queue
	return json.Unmarshal(nb, (*plain)(q))
}

// defaultOptionalGroups sets each optional key group (optionalKeyGroups) none
// of whose Go field names is in present to the value its absence stands for
// (omittedHardware: its defaults, flow_fetch_order "ready" where it acts),
// each group after the ones before it, on which that value may depend.
func defaultOptionalGroups(h *Hardware, present map[string]bool) {
	hv := reflect.ValueOf(h).Elem()
	for _, of := range optionalKeyGroups() {
		d := omittedHardware(h)
		dv := reflect.ValueOf(&d).Elem()
		g := reflect.TypeOf(of(&d))
		absent := true
		for i := range g.NumField() {
			if present[g.Field(i).Name] {
				absent = false
				break
			}
		}
		if !absent {
			continue
		}
		for i := range g.NumField() {
			name := g.Field(i).Name
			hv.FieldByName(name).Set(dv.FieldByName(name))
		}
	}
}
