package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/tracereplay/tracereplay/internal/results"
)

// AllocResults are the results of one static allocation study (BAR §V), the
// directory cmd/replay writes for an experiment with an [alloc_study] table:
// alloc.parquet (one row per case, system, seed and algorithm) and, when the
// study was timed, alloc_timing.parquet.
type AllocResults struct {
	Rows   []results.AllocRow
	Timing []results.AllocTiming // nil when the study was not timed
}

// LoadAllocStudy reads the allocation study in dir. The Run it returns has Dir,
// the labels of dir's key=value segments and Alloc; it has no policy, jobs,
// timeline or summary. Errors name the file, the row and the column.
func LoadAllocStudy(dir string) (Run, error) {
	labels, err := PathLabels(dir)
	if err != nil {
		return Run{}, err
	}
	path := filepath.Join(dir, results.AllocFile)
	rows, err := results.ReadParquet[results.AllocRow](path)
	if err != nil {
		return Run{}, err
	}
	if err := checkAllocRows(path, rows); err != nil {
		return Run{}, err
	}
	res := &AllocResults{Rows: rows}
	tpath := filepath.Join(dir, results.AllocTimingFile)
	switch _, err := os.Stat(tpath); {
	case err == nil:
		if res.Timing, err = results.ReadParquet[results.AllocTiming](tpath); err != nil {
			return Run{}, err
		}
		for i, t := range res.Timing {
			if t.WallNs < 0 || t.Tasks < 1 || t.Algorithm == "" {
				return Run{}, fmt.Errorf("read results %s: row %d: columns wall_ns/tasks/algorithm: want a non-negative time, at least one task and a name, got %d ns, %d tasks, %q",
					tpath, i, t.WallNs, t.Tasks, t.Algorithm)
			}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return Run{}, fmt.Errorf("read results: %w", err)
	}
	return Run{Dir: dir, Labels: labels, Alloc: res}, nil
}

// checkAllocRows rejects rows whose statistics would be meaningless.
func checkAllocRows(path string, rows []results.AllocRow) error {
	if len(rows) == 0 {
		return fmt.Errorf("read results %s: no rows", path)
	}
	for i, r := range rows {
		switch {
		case r.Algorithm == "" || r.Case == "" || r.System == "":
			return fmt.Errorf("read results %s: row %d: columns case/system/algorithm: empty name", path, i)
		case r.Servers < 1 || r.Tasks < 1:
			return fmt.Errorf("read results %s: row %d: columns servers/tasks: want at least 1, got %d and %d", path, i, r.Servers, r.Tasks)
		case r.MakespanUs < 0:
			return fmt.Errorf("read results %s: row %d: column makespan_us: negative makespan %d", path, i, r.MakespanUs)
		case !(r.Locality >= 0 && r.Locality <= 1):
			return fmt.Errorf("read results %s: row %d: column locality: %v is not a fraction in [0, 1]", path, i, r.Locality)
		case math.IsNaN(r.Ratio) || math.IsInf(r.Ratio, 0) || r.Ratio < 0:
			return fmt.Errorf("read results %s: row %d: column ratio: %v is not a non-negative number", path, i, r.Ratio)
		}
	}
	return nil
}

// SplitAllocStudies separates the allocation studies among runs (Run.Alloc set)
// from the simulation runs, keeping their order.
func SplitAllocStudies(runs []Run) (studies, sims []Run) {
	for _, r := range runs {
		if r.Alloc != nil {
			studies = append(studies, r)
		} else {
			sims = append(sims, r)
		}
	}
	return studies, sims
}

// AllocKey is one cell of a study table: an algorithm on a system under a case.
type AllocKey struct {
	Study, Case, System, Alg string
}

// AllocCell gathers one cell's per-seed values.
type AllocCell struct {
	AllocKey
	Servers, Tasks int32
	QUs, WUs       int64
	Ratio, Loc     []float64 // locality in percent
	Makespan       []float64 // seconds
}

// StudyName names a study run: the base name of its directory, "" in memory.
func StudyName(r Run) string {
	if r.Dir == "" {
		return ""
	}
	return filepath.Base(filepath.Clean(r.Dir))
}

// AllocCells groups the rows of the studies among runs by study, case, system
// and algorithm, in the order the rows first appear (the spec's order: case,
// system, then algorithm).
func AllocCells(runs []Run) []*AllocCell {
	var cells []*AllocCell
	idx := map[AllocKey]int{}
	for _, r := range runs {
		if r.Alloc == nil {
			continue
		}
		for _, row := range r.Alloc.Rows {
			k := AllocKey{StudyName(r), row.Case, row.System, row.Algorithm}
			i, ok := idx[k]
			if !ok {
				i = len(cells)
				idx[k] = i
				cells = append(cells, &AllocCell{AllocKey: k, Servers: row.Servers, Tasks: row.Tasks, QUs: row.QUs, WUs: row.WUs})
			}
			c := cells[i]
			c.Ratio = append(c.Ratio, row.Ratio)
			c.Loc = append(c.Loc, 100*row.Locality)
			c.Makespan = append(c.Makespan, Seconds(row.MakespanUs))
		}
	}
	return cells
}

// AllocAlgorithms lists the algorithms of cells in their first appearance order.
func AllocAlgorithms(cells []*AllocCell) []string {
	var algs []string
	for _, c := range cells {
		if !slices.Contains(algs, c.Alg) {
			algs = append(algs, c.Alg)
		}
	}
	return algs
}

// AllocSummaryTable is the summary of allocation studies: per case, system and
// algorithm, the mean makespan ratio (to the study's first algorithm), data
// locality and makespan over seeds with 95% confidence half-widths. report
// prints it in place of the per-run summary when the results are allocation
// studies only.
func AllocSummaryTable(runs []Run) *Table {
	return AllocTable(runs, "Allocation study: means over seeds with 95% CIs", nil)
}

// allocPaper returns the paper's makespan ratio and locality (percent) for a
// cell, ok false when the paper has no such cell.
type allocPaper func(c *AllocCell) (mr, dr float64, ok bool)

// AllocTable lists the cells of the studies among runs; with paper, two more
// columns give the paper's values where it has them.
func AllocTable(runs []Run, title string, paper allocPaper) *Table {
	cells := AllocCells(runs)
	studies := map[string]bool{}
	for _, c := range cells {
		studies[c.Study] = true
	}
	t := &Table{Title: title}
	if len(studies) > 1 {
		t.Columns = append(t.Columns, Column{Header: "study", Name: "study"})
	}
	t.Columns = append(t.Columns,
		Column{Header: "case", Name: "case"}, Column{Header: "system", Name: "system"},
		Column{Header: "servers", Name: "servers", Align: AlignRight}, Column{Header: "tasks", Name: "tasks", Align: AlignRight},
		Column{Header: "algorithm", Name: "algorithm"}, Column{Header: "seeds", Name: "seeds", Align: AlignRight},
		Column{Header: "makespan\nratio", Name: "makespan_ratio", Align: AlignRight},
		Column{Header: "±", Name: "makespan_ratio_ci95", Align: AlignRight},
		Column{Header: "locality\n(%)", Name: "locality_pct", Align: AlignRight},
		Column{Header: "±", Name: "locality_pct_ci95", Align: AlignRight},
		Column{Header: "makespan\n(s)", Name: "makespan_s", Align: AlignRight},
		Column{Header: "±", Name: "makespan_s_ci95", Align: AlignRight})
	if paper != nil {
		t.Columns = append(t.Columns, Column{Header: "paper\nratio", Name: "paper_makespan_ratio", Align: AlignRight},
			Column{Header: "paper\nlocality (%)", Name: "paper_locality_pct", Align: AlignRight})
	}
	for _, c := range cells {
		var row []Cell
		if len(studies) > 1 {
			row = append(row, Str(c.Study))
		}
		mr, mrh := MeanCI95(c.Ratio)
		dr, drh := MeanCI95(c.Loc)
		ms, msh := MeanCI95(c.Makespan)
		row = append(row, Str(c.Case), Str(c.System), Int(int(c.Servers)), Int(int(c.Tasks)), Str(c.Alg), Int(len(c.Ratio)),
			Float(mr, 2), Float(mrh, 2), Float(dr, 1), Float(drh, 1), Float(ms, 1), Float(msh, 1))
		if paper != nil {
			pmr, pdr, ok := paper(c)
			if !ok {
				pmr, pdr = math.NaN(), math.NaN()
			}
			row = append(row, Float(pmr, 2), Float(pdr, 1))
		}
		t.AddRow(row...)
	}
	if len(cells) == 0 {
		t.Notes = append(t.Notes, "No allocation study (alloc.parquet) among the results.")
		return t
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Makespan ratio is an algorithm's makespan over %s's on the same instance (the study's first algorithm), averaged over seeds; locality is local tasks over tasks.", AllocAlgorithms(cells)[0]),
		"± is the half-width of the 95% confidence interval over seeds (Student's t); - when there is one seed.")
	return t
}
