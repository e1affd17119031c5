package policy

import "testing"

// FuzzPolicySpec: any --policy text either names a policy or fails with an
// error; it never panics.
func FuzzPolicySpec(f *testing.F) {
	for _, s := range []string{"fair", "fair:node-delay=5s,rack-delay=10s", "fair:node-delay=-1s", "hpfsp:fair-limit=3",
		"coupling:d=0", "hybsmrp:preset=sjf", "ds0.15:threshold=2", "gcc:util=1.5", "bogus", "fifo:", ":", "fair:=,="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := New(spec)
		if err == nil && p.Name() == "" {
			t.Fatalf("policy %q has no name", spec)
		}
	})
}
