package replay_test

import (
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// folderInputTrace is the 59-job Hadoop 0.20 Rumen trace of Apache Hadoop's
// Rumen test data (the same file as ../shared/traces/rumen/…, committed for
// the validation harness; testdata/traces/README.md names its origin).
const folderInputTrace = "../internal/validation/testdata/traces/rumen/apache-hadoop-branch-1-rumen-testdata/small-trace-test/folder-input-trace.json.gz"

// h020Sample is the bundled hardware model whose task costs and lifecycle say
// they were fitted by replay calibrate on folderInputTrace.
const h020Sample = "../samples/hardware/fb-600-h020.toml"

// h020ClusterKeys are the fitted keys fb-600-h020.toml does not take: its
// cluster shape is fb-600's (calibrate's slots are peak tasks per host).
var h020ClusterKeys = map[string]bool{"map_slots": true, "reduce_slots": true}

// TestH020SampleIsWhatCalibrateFits: every key replay calibrate fits on the
// folder trace (its header's commands, with the default base model) is in
// samples/hardware/fb-600-h020.toml with the same value, and the comment
// just above it gives calibrate's sample count, so the sample cannot drift
// from calibrate silently again (setup_task and cleanup_task stayed at the
// attempts' medians, 1.65 s and 1.629 s, after ab19fcc added the launch lag).
func TestH020SampleIsWhatCalibrateFits(t *testing.T) {
	f, err := os.Open(folderInputTrace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(folderInputTrace, f, "auto", trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cal, err := replay.Calibrate(tr, replay.DefaultHardware())
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(h020Sample)
	if err != nil {
		t.Fatal(err)
	}
	var sample map[string]any
	if _, err := toml.Decode(string(src), &sample); err != nil {
		t.Fatalf("%s: %v", h020Sample, err)
	}
	comments := keyComments(string(src))
	count := regexp.MustCompile(`(\d[\d,]*) samples?\b`)
	checked := 0
	for _, v := range cal.Values {
		if h020ClusterKeys[v.Key] {
			continue
		}
		checked++
		var want map[string]any
		if _, err := toml.Decode(v.Key+" = "+v.Value, &want); err != nil {
			t.Fatalf("calibrate's %s = %s: %v", v.Key, v.Value, err)
		}
		got, ok := sample[v.Key]
		switch {
		case !ok:
			t.Errorf("%s lacks %s; calibrate fits %s (%d samples)", h020Sample, v.Key, v.Value, v.Samples)
			continue
		case !reflect.DeepEqual(got, want[v.Key]):
			t.Errorf("%s: %s = %v; calibrate fits %s (%d samples)", h020Sample, v.Key, got, v.Value, v.Samples)
		}
		m := count.FindStringSubmatch(comments[v.Key])
		if m == nil {
			t.Errorf("%s: the comment above %s gives no sample count; calibrate's is %d", h020Sample, v.Key, v.Samples)
		} else if n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); n != v.Samples {
			t.Errorf("%s: the comment above %s says %s samples; calibrate's are %d", h020Sample, v.Key, m[1], v.Samples)
		}
	}
	if checked < 10 {
		t.Fatalf("calibrate fitted only %d keys on the folder trace, want at least 10", checked)
	}
	if _, err := replay.LoadHardware(h020Sample); err != nil {
		t.Errorf("the sample does not load: %v", err)
	}
}

// keyComments maps each top-level key of a TOML file to the comment lines
// directly above it (joined with spaces; empty when there are none).
func keyComments(src string) map[string]string {
	out := map[string]string{}
	var block []string
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "#"):
			block = append(block, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case line == "":
			block = nil
		default:
			if k, _, ok := strings.Cut(line, "="); ok {
				out[strings.TrimSpace(k)] = strings.Join(block, " ")
			}
			block = nil
		}
	}
	return out
}
