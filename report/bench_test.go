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

// seededBigRuns are bigRuns' policies over five seeds: 25 runs of 20,000 jobs.
func seededBigRuns() []Run {
	var runs []Run
	for s := range 5 {
		for _, r := range bigRuns() {
			r.Labels = map[string]string{PolicyLabel: r.Policy, SeedLabel: string(rune('1' + s))}
			runs = append(runs, r)
		}
	}
	return runs
}

func BenchmarkCompare(b *testing.B) {
	runs := seededBigRuns()
	th, err := ParseThresholds("flowtime.p95>+5%,starvation.mean>+10%&+1s,locality<-2pt")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c, err := Compare(runs, runs, th)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.WriteJUnit(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderFiguresSeeds(b *testing.B) {
	runs := seededBigRuns()
	for _, st := range []FigureStyle{ScreenStyle, PaperStyle} {
		b.Run(st.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := RenderFigures(runs, FigureOptions{Format: "svg", Style: st}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
