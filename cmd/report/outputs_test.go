package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/ipc"
)

func TestPaperStyleFigures(t *testing.T) {
	t.Parallel()
	root := resultsTree(t)
	for _, tt := range []struct {
		width string
		px    int
	}{{"one", 1050}, {"two", 2100}} {
		out := filepath.Join(t.TempDir(), "fig")
		if code, _, stderr := runCmd("--out", out, "--style", "paper", "--width", tt.width, root); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		data, err := os.ReadFile(filepath.Join(out, "flowtime_cdf.png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if w := img.Bounds().Dx(); w != tt.px {
			t.Errorf("--width %s: %d pixels wide, want %d (300 dpi)", tt.width, w, tt.px)
		}
	}
}

func TestArrowOutput(t *testing.T) {
	root := resultsTree(t)
	out := filepath.Join(t.TempDir(), "nb")
	code, stdout, stderr := runCmd("--arrow", out, "--preset", "hpfsp", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkGolden(t, "stdout_preset.golden", []byte(stdout))
	for _, name := range []string{"summary.arrow", "jobs.arrow", "hpfsp.arrow"} {
		p := filepath.Join(out, name)
		if !strings.Contains(stderr, "report: wrote "+p+"\n") {
			t.Errorf("stderr does not report %s", p)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ipc.NewFileReader(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rec, err := r.Record(0)
		if err != nil || rec.NumRows() == 0 {
			t.Errorf("%s: %v, %d rows", name, err, rec.NumRows())
		}
		r.Close()
		f.Close()
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("%d entries beside the Arrow directory, want 1", len(entries))
	}
}

func TestHTMLOutput(t *testing.T) {
	root := resultsTree(t)
	page := filepath.Join(t.TempDir(), "sub", "report.html")
	code, stdout, stderr := runCmd("--html", page, "--style", "paper", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkGolden(t, "stdout.golden", []byte(stdout))
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="table-summary"`, `id="fig-flowtime_cdf"`, `id="fig-starvation"`, `id="fig-running_tasks"`, "font-size:7px"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Deterministic.
	again := filepath.Join(t.TempDir(), "again.html")
	if code, _, stderr := runCmd("--html", again, "--style", "paper", root); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b2, _ := os.ReadFile(again); !bytes.Equal(b, b2) {
		t.Error("two HTML reports of the same results differ")
	}
}
