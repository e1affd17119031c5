package replay

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseHardware: any text either fails with an error or gives a model that
// validates and can build its topology; it never panics.
func FuzzParseHardware(f *testing.F) {
	for _, seed := range []string{"", "racks = 2\nnodes_per_rack = 3", "heartbeat = \"1s\"\nreplication = 9",
		"[[queues]]\nname = \"a\"\ncapacity = 0.5", "map_nodes = 1\nreduce_nodes = 1\nracks = 1\nnodes_per_rack = 2",
		"data_node_fraction = 0.01", "colour = 1", "racks = -1",
		"cluster = \"yarn\"\nnode_memory_mb = 4096\nnode_vcores = 2\nam_memory_mb = 2048",
		"cluster = \"yarn\"\nmin_allocation_mb = 1\nnode_memory_mb = 1073741824\nreduce_rampup_limit = 1"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHardware(b)
		if err != nil {
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("accepted a model that does not validate: %v", err)
		}
		if h.Nodes() <= 4096 {
			topo := NewTopology(&h, 1)
			if len(topo.DataNodes) == 0 {
				t.Fatal("a valid model without data nodes")
			}
		}
	})
}

// FuzzExperiment: any spec text either fails with an error or expands into
// cells; it never panics.
func FuzzExperiment(f *testing.F) {
	for _, seed := range []string{
		"policies = [\"fifo\"]\n[[traces]]\ngenerator = \"synthetic\"\n",
		"policies = [\"fifo\", \"fair\"]\nseeds = [1, 2]\n[[traces]]\npath = \"x.tsv\"\n[sweep]\nreplication = [1, 2]\n",
		"policies = [\"fifo\"]\n[[traces]]\ngenerator = \"g\"\n[sweep]\n\"trace.jobs\" = [3]\n",
		"policies = []\n", "[sweep]\nreplication = 3\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "spec.toml")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := LoadExperiment(path)
		if err != nil {
			return
		}
		n, nerr := e.CellCount()
		cells, err := e.Cells()
		if nerr != nil && err == nil {
			t.Fatalf("CellCount refused (%v) but Cells expanded %d cells", nerr, len(cells))
		}
		if err == nil && len(cells) != n {
			t.Fatalf("CellCount %d, Cells %d", n, len(cells))
		}
	})
}
