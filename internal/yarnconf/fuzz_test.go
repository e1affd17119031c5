package yarnconf

import (
	"os"
	"path/filepath"
	"testing"
)

// seeds adds every testdata file of the extension to f.
func seeds(f *testing.F, ext string) {
	files, err := filepath.Glob(filepath.Join("testdata", "*."+ext))
	if err != nil || len(files) == 0 {
		f.Fatalf("no testdata/*.%s: %v", ext, err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzXML: any bytes read as capacity-scheduler.xml or an allocation file
// give a tree or an error, never a panic; a tree has a root whose leaves
// have capacities in [0, 1].
//
// Run it with -fuzzminimizetime=1s: with the default 60 s the worker spends
// its time minimizing the new inputs the large seeds lead to, and reports
// almost no executions (about 22,000 a second with 1 s, one worker).
func FuzzXML(f *testing.F) {
	seeds(f, "xml")
	f.Add([]byte(capXML(p+"root.queues", "a,b", p+"root.a.capacity", "50", p+"root.b.capacity", "50")))
	f.Add([]byte(`<allocations><queue name="root"><weight>1</weight><queue name="a" type="parent"><queue name="b"/></queue></queue>` +
		`<user name="u"><maxRunningApps>1</maxRunningApps></user><queuePlacementPolicy><rule name="specified" create="false"/>` +
		`<rule name="default" queue="a.b"/></queuePlacementPolicy></allocations>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, fc, err := Parse("fuzz.xml", data)
		if err != nil {
			return
		}
		if c != nil {
			for _, q := range c.Leaves() {
				if q.AbsoluteCapacity < 0 || q.AbsoluteCapacity > 1+1e-6 {
					t.Fatalf("queue %s: absolute capacity %g", q.Path, q.AbsoluteCapacity)
				}
			}
		}
		if fc != nil && fc.Find("root.default") == nil {
			t.Fatal("no root.default")
		}
	})
}

// FuzzTOML: the same for the TOML forms.
func FuzzTOML(f *testing.F) {
	seeds(f, "toml")
	for _, s := range []string{
		"scheduler = \"fair\"\nroot = 5\n", // panicked once: a scalar root
		"scheduler = \"fair\"\n[users]\nbob = 2\n[[placement]]\nname = \"user\"\ncreate = false\n",
		"scheduler = \"fair\"\n[root]\nweight = 1\n[root.a]\ntype = \"parent\"\n[root.a.b]\nminResources = \"40%\"\n",
		"scheduler = \"capacity\"\n[root]\nqueues = [\"a\"]\n[root.a]\ncapacity = 100\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, fc, err := Parse("fuzz.toml", data)
		if err != nil {
			return
		}
		if c == nil && fc == nil {
			t.Fatal("no tree and no error")
		}
	})
}

// FuzzResources: resource values parse or fail, never panic.
func FuzzResources(f *testing.F) {
	for _, s := range []string{"1024 mb, 2 vcores", "memory-mb=1024, vcores=2", "50% memory, 25% cpu", "40%", "10000 mb,0vcores"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseResources(s)
		if err == nil && (r.MemoryMB < 0 || r.VCores < 0) {
			t.Fatalf("%q: negative %+v", s, r)
		}
	})
}
