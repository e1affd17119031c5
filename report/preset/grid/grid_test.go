package grid

import (
	"slices"
	"testing"
)

// easLike is a preset with the EAS paper's series (report/preset/eas).
func easLike() *Preset {
	return &Preset{Name: "eas", Label: "EAS", Series: []Series{{"eas", "EAS"}, {"fifo-be", "FIFO-BE"}, {"fifo-s", "FIFO-S"},
		{"hfs-be", "HFS-BE"}, {"hfs-s", "HFS-S"}}}
}

func TestGridFileNameAndCSVName(t *testing.T) {
	p := &Preset{Name: "hybsmrp", Metrics: []Metric{{ID: "locality"}, {ID: "completion"}}}
	b := &gridBlock{metric: &p.Metrics[1], paper: "Table 6", context: []string{"trace=Word Count", "hw=25mbps"}}
	if got := p.fileName(b); got != "hybsmrp_table6_completion_wordcount_25mbps" {
		t.Errorf("file name %s", got)
	}
	for in, want := range map[string]string{"hybsmrp:preset=sjf": "hybsmrp_preset_sjf", "trace.maps": "trace_maps", "fifo-be": "fifo_be", "number of tasks": "number_of_tasks"} {
		if got := csvName(in); got != want {
			t.Errorf("csvName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGridSeriesOrderAndNames(t *testing.T) {
	p := easLike()
	in := []string{"zz", "hfs-s", "eas:threshold=10", "hfs-be:node-delay=0s,rack-delay=0s", "eas:threshold=3", "hfs-be", "eas", "a1"}
	slices.SortFunc(in, p.compareSeries)
	want := []string{"eas", "eas:threshold=3", "eas:threshold=10", "hfs-be", "hfs-be:node-delay=0s,rack-delay=0s", "hfs-s", "a1", "zz"}
	if !slices.Equal(in, want) {
		t.Errorf("order %v, want %v", in, want)
	}
	for policy, name := range map[string]string{"eas": "EAS", "eas:threshold=3": "EAS threshold=3",
		"hfs-be:node-delay=0s,rack-delay=0s": "HFS-BE node-delay=0s rack-delay=0s", "fair": "fair", "fair:x=1": "fair:x=1"} {
		if got := p.display(policy); got != name {
			t.Errorf("display(%q) = %q, want %q", policy, got, name)
		}
	}
	for _, tt := range []struct {
		a, b string
		want int
	}{{"t=3", "t=10", -1}, {"t=10", "t=3", 1}, {"a", "ab", -1}, {"x2y", "x2y", 0}, {"x2b", "x2a", 1}, {"9", "a", -1}} {
		if got := compareNatural(tt.a, tt.b); got != tt.want {
			t.Errorf("compareNatural(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestGridStyleIndex(t *testing.T) {
	p := easLike()
	g := &grid{series: []string{"eas", "fifo-be", "x", "hfs-s", "y"}}
	for s, want := range map[string]int{"eas": 0, "fifo-be": 1, "hfs-s": 4, "x": 5, "y": 6} {
		if got := p.styleIndex(g, s); got != want {
			t.Errorf("styleIndex(%s) = %d, want %d", s, got, want)
		}
	}
}
