package report

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
)

// bigRuns are five policies of 20,000 jobs each, the size of a day of a busy
// production trace, with a timeline of 8,000 cluster samples each.
func bigRuns() []Run {
	var runs []Run
	for i, p := range []string{"fifo", "fair", "eas", "coupling", "hpfsp"} {
		r := seqRun(map[string]string{"policy": p}, 20000, int64(i+1))
		var tl = r.Timeline[:0]
		for _, s := range r.Timeline {
			if s.JobIndex == -1 {
				tl = append(tl, s)
			}
		}
		r.Timeline = tl
		runs = append(runs, r)
	}
	return runs
}

func BenchmarkSummaryTable(b *testing.B) {
	runs := bigRuns()
	for b.Loop() {
		if err := SummaryTable(runs).WriteText(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJobsRecord(b *testing.B) {
	runs := bigRuns()
	for b.Loop() {
		JobsRecord(runs, memory.DefaultAllocator).Release()
	}
}

func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	for _, r := range bigRuns() {
		writeRunDir(b, filepath.Join(root, "policy="+r.Policy), r)
	}
	for b.Loop() {
		if _, err := Load(root); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteFigures(b *testing.B) {
	runs := bigRuns()
	for _, format := range FigureFormats {
		b.Run(format, func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				if _, err := WriteFigures(runs, dir, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
