package report

import (
	"math"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/internal/version"
)

// Arrow file names written by WriteArrowTables.
const (
	SummaryArrowFile = "summary.arrow"
	JobsArrowFile    = "jobs.arrow"
)

// arrowMetadata is the schema metadata of every Arrow file report writes.
func arrowMetadata() arrow.Metadata {
	return arrow.NewMetadata([]string{"tracereplay.tool"}, []string{"tracereplay report " + version.Version})
}

// TableRecord returns t as one Arrow record with the columns of its CSV form
// (WriteCSV): a column of text cells is utf8, a numeric column int64 when every
// cell is an Int and float64 otherwise, a CI column is followed by a float64
// column NAME_ci95; NaN and missing intervals are null. The caller must Release
// the record.
func TableRecord(t *Table, mem memory.Allocator) arrow.Record {
	type col struct {
		field arrow.Field
		cell  func(row []Cell) Cell
		ci    bool
	}
	var cols []col
	for i, c := range t.Columns {
		text, ints := true, true
		for _, r := range t.Rows {
			text = text && !r[i].IsNum
			ints = ints && r[i].IsInt
		}
		var typ arrow.DataType = arrow.PrimitiveTypes.Float64
		switch {
		case text:
			typ = arrow.BinaryTypes.String
		case ints:
			typ = arrow.PrimitiveTypes.Int64
		}
		cell := func(row []Cell) Cell { return row[i] }
		cols = append(cols, col{field: arrow.Field{Name: c.Name, Type: typ, Nullable: true}, cell: cell})
		if c.CI {
			cols = append(cols, col{field: arrow.Field{Name: c.Name + "_ci95", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, cell: cell, ci: true})
		}
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	md := arrowMetadata()
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, &md))
	defer b.Release()
	for _, r := range t.Rows {
		for i, c := range cols {
			cell := c.cell(r)
			switch fb := b.Field(i).(type) {
			case *array.StringBuilder:
				fb.Append(cell.Text)
			case *array.Int64Builder:
				fb.Append(int64(cell.Num))
			case *array.Float64Builder:
				v := cell.Num
				if c.ci {
					v = cell.CI
				}
				if !cell.IsNum || math.IsNaN(v) {
					fb.AppendNull()
				} else {
					fb.Append(v)
				}
			}
		}
	}
	return b.NewRecord()
}

// WriteArrowFile writes rec to path as an Arrow IPC file (Feather v2,
// uncompressed, which every Arrow reader accepts), through a temporary file in
// the same directory renamed into place. Equal records give equal bytes.
func WriteArrowFile(path string, rec arrow.Record) error {
	return safeout.WriteFileFunc(path, func(f *os.File) error {
		w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return err
		}
		if err := w.Write(rec); err != nil {
			return err
		}
		return w.Close()
	})
}

// WriteArrowTables writes the tables of runs for notebooks into dir:
// summary.arrow (SummaryTable as TableRecord: one row per run, or per cell with
// NAME_ci95 columns when cells have several seeds) and jobs.arrow (JobsRecord:
// one row per job of every run, labels first). It returns the paths written.
func WriteArrowTables(runs []Run, dir string) ([]string, error) {
	mem := memory.DefaultAllocator
	summary := TableRecord(SummaryTable(runs), mem)
	defer summary.Release()
	jobs := JobsRecord(runs, mem)
	defer jobs.Release()
	var paths []string
	for _, f := range []struct {
		name string
		rec  arrow.Record
	}{{SummaryArrowFile, summary}, {JobsArrowFile, jobs}} {
		p := filepath.Join(dir, f.name)
		if err := WriteArrowFile(p, f.rec); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
