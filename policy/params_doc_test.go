package policy

import (
	"fmt"
	"strings"
	"testing"
)

func TestParameters(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"fair", "[{node-delay auto} {pool-by user (user|queue)} {rack-delay auto}]"},
		{"gcc", "[{util 0.9}]"},
		{"fifo", "[{assign fill (fill|jobqueue)}]"},
		{"fifo-strict", "[]"},
		{"nope", "[]"},
	} {
		if got := fmt.Sprint(Parameters(c.name)); got != c.want {
			t.Errorf("Parameters(%q) = %s, want %s", c.name, got, c.want)
		}
	}
	// Every listed parameter is accepted with its default value.
	for _, n := range Names() {
		for _, p := range Parameters(n) {
			if p.Default == "auto" {
				continue
			}
			v, _, _ := strings.Cut(p.Default, " (")
			if _, err := New(n + ":" + p.Key + "=" + v); err != nil {
				t.Errorf("%s: default %s=%s rejected: %v", n, p.Key, v, err)
			}
		}
	}
}
