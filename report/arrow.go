package report

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/summary"
)

// jobColumn is one field of results.Job as an Arrow column.
type jobColumn struct {
	name  string // the field's Parquet column name
	index int    // field index in results.Job
	typ   arrow.DataType
}

// jobColumns lists the columns of results.Job in declaration order, named as
// in Parquet, so that the Arrow table and the Parquet file agree without a second
// list to keep in sync. The policy column is left out: it is the policy label.
func jobColumns() []jobColumn {
	t := reflect.TypeFor[results.Job]()
	cols := make([]jobColumn, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if name == "" || name == "-" || name == PolicyLabel {
			continue
		}
		var typ arrow.DataType
		switch f.Type.Kind() {
		case reflect.String:
			typ = arrow.BinaryTypes.String
		case reflect.Int32:
			typ = arrow.PrimitiveTypes.Int32
		case reflect.Int64:
			typ = arrow.PrimitiveTypes.Int64
		case reflect.Float64:
			typ = arrow.PrimitiveTypes.Float64
		default:
			// A programming error caught by the package tests, not an input error.
			panic(fmt.Sprintf("report: JobResult.%s: no Arrow type for %s", f.Name, f.Type))
		}
		cols = append(cols, jobColumn{name: name, index: i, typ: typ})
	}
	return cols
}

// LabelKeys returns the union of the runs' label keys in canonical order:
// PolicyLabel, which every run has (see Run.Label), then the others sorted.
func LabelKeys(runs []Run) []string { return summary.LabelKeys(runs) }

// JobsRecord returns one Arrow record holding every job of every run: first one
// string column per label key (see LabelKeys; null where a run lacks the label),
// then the columns of results.Job under their Parquet names, without policy,
// which is the policy label. A label whose key clashes with a job column is named
// "label_KEY". Rows follow the order of runs, then of each run's jobs. The caller
// must Release the record.
func JobsRecord(runs []Run, mem memory.Allocator) arrow.Record {
	keys := LabelKeys(runs)
	jcols := jobColumns()
	taken := map[string]bool{}
	for _, c := range jcols {
		taken[c.name] = true
	}
	fields := make([]arrow.Field, 0, len(keys)+len(jcols))
	for _, k := range keys {
		name := k
		if taken[k] {
			name = "label_" + k
		}
		fields = append(fields, arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	for _, c := range jcols {
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ})
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()

	for _, r := range runs {
		for i, k := range keys {
			sb := b.Field(i).(*array.StringBuilder)
			v, ok := r.Label(k)
			for range r.Jobs {
				if ok {
					sb.Append(v)
				} else {
					sb.AppendNull()
				}
			}
		}
		for ci, c := range jcols {
			fb := b.Field(len(keys) + ci)
			for ji := range r.Jobs {
				v := reflect.ValueOf(&r.Jobs[ji]).Elem().Field(c.index)
				switch fb := fb.(type) {
				case *array.StringBuilder:
					fb.Append(v.String())
				case *array.Int32Builder:
					fb.Append(int32(v.Int()))
				case *array.Int64Builder:
					fb.Append(v.Int())
				case *array.Float64Builder:
					fb.Append(v.Float())
				}
			}
		}
	}
	return b.NewRecord()
}
