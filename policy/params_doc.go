package policy

import "slices"

// Param is one parameter a policy accepts in "name:key=value": its key and its
// default (with the valid choices of a string parameter).
type Param struct {
	Key, Default string
}

// Parameters lists the parameters of a registered policy, sorted by key, as its
// constructor reads them with no parameters given; nil for an unknown name or a
// policy without parameters.
func Parameters(name string) []Param {
	e, ok := registry()[name]
	if !ok {
		return nil
	}
	pr := &ParamReader{policy: name, params: Params{}}
	if _, err := e.make(pr); err != nil {
		return nil
	}
	var out []Param
	for k, d := range pr.defs {
		out = append(out, Param{Key: k, Default: d})
	}
	slices.SortFunc(out, func(a, b Param) int {
		if a.Key < b.Key {
			return -1
		}
		if a.Key > b.Key {
			return 1
		}
		return 0
	})
	return out
}
