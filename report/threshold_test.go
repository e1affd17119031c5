package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseThresholds(t *testing.T) {
	tests := []struct {
		in   string
		want []Threshold
	}{
		{"", nil},
		{"  ", nil},
		{"flowtime.p95>+5%", []Threshold{{Metric: "flowtime.p95", Increase: true, Relative: true, Limit: 5}}},
		{"flowtime.p95>5%", []Threshold{{Metric: "flowtime.p95", Increase: true, Relative: true, Limit: 5}}},
		{"flowtime.p95>+5%,starvation.mean>+10%,locality<-2pt", []Threshold{
			{Metric: "flowtime.p95", Increase: true, Relative: true, Limit: 5},
			{Metric: "starvation.mean", Increase: true, Relative: true, Limit: 10},
			{Metric: "locality", Increase: false, Limit: -2},
		}},
		{" makespan > +1m30s , flowtime.mean>+500ms", []Threshold{
			{Metric: "makespan", Increase: true, Limit: 90},
			{Metric: "flowtime.mean", Increase: true, Limit: 0.5},
		}},
		{"slowdown.mean>+0.25", []Threshold{{Metric: "slowdown.mean", Increase: true, Limit: 0.25}}},
		{"locality<-1.5%", []Threshold{{Metric: "locality", Relative: true, Limit: -1.5}}},
		{"flowtime.p99>+0%", []Threshold{{Metric: "flowtime.p99", Increase: true, Relative: true, Limit: 0}}},
		{"flowtime.mean<-10%", []Threshold{{Metric: "flowtime.mean", Relative: true, Limit: -10}}},
		{"starvation.mean>+10%&+1s", []Threshold{{Metric: "starvation.mean", Increase: true, Relative: true, Limit: 10, HasFloor: true, Floor: 1}}},
		{"starvation.mean > +500ms & +10%", []Threshold{{Metric: "starvation.mean", Increase: true, Relative: true, Limit: 10, HasFloor: true, Floor: 0.5}}},
		{"locality<-5%&-1pt", []Threshold{{Metric: "locality", Relative: true, Limit: -5, HasFloor: true, Floor: -1}}},
	}
	for _, tt := range tests {
		got, err := ParseThresholds(tt.in)
		if err != nil {
			t.Errorf("ParseThresholds(%q): %v", tt.in, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("ParseThresholds(%q) = %v, want %v", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("ParseThresholds(%q)[%d] = %+v, want %+v", tt.in, i, got[i], tt.want[i])
			}
		}
	}
}

func TestParseThresholdsErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"flowtime.p95", "no '>' or '<'"},
		{"flowtime.p95=5%", "no '>' or '<'"},
		{"flowtime.p95>+5%,", "rule 2: empty rule"},
		{",locality<-2pt", "rule 1: empty rule"},
		{"flowtime.p90>+5%", `unknown metric "flowtime.p90"; metrics: flowtime.mean, flowtime.p95`},
		{"locality<+2pt", "a '<' rule needs a change of that sign, e.g. locality<-2pt"},
		{"flowtime.p95>-5%", "a '>' rule needs a change of that sign, e.g. flowtime.p95>+5%"},
		{"locality<-2", "needs a unit: % (relative) or pt"},
		{"flowtime.p95>+2pt", "unit pt (percentage points) fits locality only"},
		{"flowtime.p95>+5", "want a percentage (5%) or a duration"},
		{"flowtime.p95>+fast", "want a percentage (5%) or a duration"},
		{"flowtime.p95>+x%", `change "x%": not a number`},
		{"flowtime.p95>+%", "want an unsigned number"},
		{"flowtime.p95>++5%", "want an unsigned number"},
		{"flowtime.p95>+NaN%", "not a number"},
		{"flowtime.p95>+5%>3", "more than one comparison"},
		{"makespan>--5s", "want a percentage (5%) or a duration"},
		{"slowdown.mean>+0.1x", "not a number"},
		{"starvation.mean>+10%&+5%", "one relative (%) and one absolute"},
		{"starvation.mean>+1s&+2s", "one relative (%) and one absolute"},
		{"starvation.mean>+10%&+1s&+2%", "at most two limits"},
		{"starvation.mean>+10%&-1s", "a '>' rule needs a change of that sign"},
		{"starvation.mean>+10%&", "want a percentage (5%) or a duration"},
	}
	for _, tt := range tests {
		_, err := ParseThresholds(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseThresholds(%q): error %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

func TestThresholdStringRoundTrips(t *testing.T) {
	for _, in := range []string{"flowtime.p95>+5%", "locality<-2pt", "makespan>+90s", "slowdown.mean>+0.25", "flowtime.mean<-0.5%", "starvation.mean>+10%&+1s", "locality<-3%&-1pt"} {
		th, err := ParseThreshold(in)
		if err != nil {
			t.Fatal(err)
		}
		if th.String() != in {
			t.Errorf("%q parses to %+v, which prints as %q", in, th, th.String())
		}
	}
}

func TestLoadThresholdFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.toml", "# CI thresholds\nfail_on = [\n  \"flowtime.p95 > +5%\",\n  \"locality < -2pt\",\n]\n")
	th, err := LoadThresholdFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(th) != 2 || th[0].String() != "flowtime.p95>+5%" || th[1].String() != "locality<-2pt" {
		t.Errorf("got %v", th)
	}
	for _, tt := range []struct{ name, body, want string }{
		{"syntax.toml", "fail_on = [\"flowtime.p95>+5%\"\n", "line"},
		{"unknown.toml", "fail_on = []\nfail_off = 1\n", "unknown key fail_off"},
		{"badrule.toml", "fail_on = [\"locality<-2pt\", \"locality>2\"]\n", "fail_on[1]"},
		{"type.toml", "fail_on = \"flowtime.p95>+5%\"\n", "thresholds"},
	} {
		p := write(tt.name, tt.body)
		_, err := LoadThresholdFile(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file and containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := LoadThresholdFile(filepath.Join(dir, "missing.toml")); err == nil {
		t.Error("missing file: no error")
	}
}

// FuzzParseThresholds: any input parses or fails without a panic, and what
// parses prints back (String) to rules that parse to the same thresholds.
func FuzzParseThresholds(f *testing.F) {
	for _, s := range []string{"flowtime.p95>+5%,starvation.mean>+10%,locality<-2pt", "makespan>+1h", "slowdown.mean>0.5", "x<y", ",", "locality<-2pt>", "starvation.mean>+10%&+1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThresholds(s)
		if err != nil {
			return
		}
		var parts []string
		for _, x := range th {
			parts = append(parts, x.String())
		}
		again, err := ParseThresholds(strings.Join(parts, ","))
		if err != nil {
			t.Fatalf("%q parsed to %v, whose form %q does not parse: %v", s, th, parts, err)
		}
		for i := range th {
			if again[i] != th[i] {
				t.Fatalf("%q: %+v printed as %q parses to %+v", s, th[i], parts[i], again[i])
			}
		}
	})
}
