package trace

import (
	"slices"
	"strings"
	"testing"
)

// TestFormatTable pins what the one format table derives: the --format names
// and their order, the history kinds a tree walk reads, and the messages that
// name them.
func TestFormatTable(t *testing.T) {
	if got, want := FormatNames(), []string{"swim", "jhist", "hadoop1", "rumen", "sls"}; !slices.Equal(got, want) {
		t.Errorf("FormatNames() = %v, want %v", got, want)
	}
	if got, want := HistoryKinds(), []FileKind{KindJhist, KindHadoop1, KindRumen, KindSLS}; !slices.Equal(got, want) {
		t.Errorf("HistoryKinds() = %v, want %v", got, want)
	}
	if got, want := DirFormatError("swim"), "--format swim reads files, not directories (a directory holds jhist, hadoop1, rumen or sls histories)"; got != want {
		t.Errorf("DirFormatError = %q, want %q", got, want)
	}
	if got, want := NoHistoriesMsg(), "no job histories found (.jhist, Hadoop 1 logs, Rumen or SLS files)"; got != want {
		t.Errorf("NoHistoriesMsg = %q, want %q", got, want)
	}
	for _, name := range []string{"jhist", "sls"} {
		if k, ok := HistoryKind(name); !ok || string(k) != name {
			t.Errorf("HistoryKind(%q) = %q, %v", name, k, ok)
		}
	}
	for _, name := range []string{"swim", "conf", "topology", ""} {
		if _, ok := HistoryKind(name); ok {
			t.Errorf("HistoryKind(%q) accepted", name)
		}
	}
	for _, f := range formatTable() {
		switch {
		case f.Kind == KindNotATrace && (f.Ignored == "" || f.walk != nil):
			t.Errorf("%s: an ignored kind needs a reason and no reader", f.Name)
		case f.Kind != KindNotATrace && f.walk == nil:
			t.Errorf("%s: kind %s has no tree reader", f.Name, f.Kind)
		case f.Kind.IsHistory() && (f.Read == nil || f.Files == ""):
			t.Errorf("%s: a history format needs Read and Files", f.Name)
		}
	}
}

// TestSWIMDetectionDisjoint checks the claim that lets SWIM lead the one
// table although a tree walk used to try it last: no other detector accepts a
// SWIM file, and SWIM's accepts none of the others' test files.
func TestSWIMDetectionDisjoint(t *testing.T) {
	swim := "job0\t0\t10\t100\t200\t300\njob1\t5\t10\t100\t200\t300\n"
	for _, f := range formatTable() {
		if f.Name != "swim" && f.Detect("x", []byte(swim)) {
			t.Errorf("%s accepts a SWIM file", f.Name)
		}
	}
	for _, head := range []string{"Avro-Json\n", "Meta VERSION=\"1\" .\n", "Job JOBID=\"job_1\"", "{\"jobID\":1}", "<configuration>", "\f!!FILE=x\n"} {
		if detectSWIM("x", []byte(head)) {
			t.Errorf("SWIM accepts %q", strings.TrimSpace(head))
		}
	}
}
