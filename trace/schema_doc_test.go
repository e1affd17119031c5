package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// docColumns returns the (name, type, nullable) rows of the column table that
// follows the heading starting with heading in docs/trace-schema.md.
func docColumns(t *testing.T, doc, heading string) [][3]string {
	_, after, ok := strings.Cut(doc, heading)
	if !ok {
		t.Fatalf("docs/trace-schema.md has no heading %q", heading)
	}
	var rows [][3]string
	inTable := false
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(line, "|")
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if name == "column" || strings.HasPrefix(name, "---") {
			continue
		}
		rows = append(rows, [3]string{name, strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])})
	}
	return rows
}

// schemaColumns describes the top-level columns of row type T the way the doc does.
func schemaColumns(s *parquet.Schema) [][3]string {
	var rows [][3]string
	for _, f := range s.Fields() {
		typ := ""
		switch {
		case !f.Leaf() && f.Type().LogicalType().String() == "LIST" &&
			f.Fields()[0].Fields()[0].Type().Kind() == parquet.ByteArray:
			typ = "list&lt;string&gt;"
		case f.Type().Kind() == parquet.ByteArray:
			typ = "string"
		case f.Type().Kind() == parquet.Int64:
			typ = "int64"
		case f.Type().Kind() == parquet.Int32:
			typ = "int32"
		case f.Type().Kind() == parquet.Boolean:
			typ = "bool"
		default:
			typ = f.Type().String()
		}
		nullable := "no"
		if f.Optional() {
			nullable = "yes"
		}
		rows = append(rows, [3]string{f.Name(), typ, nullable})
	}
	return rows
}

// TestSchemaDoc keeps docs/trace-schema.md in step with JobRow and TaskRow:
// same columns in the same order, same types and nullability.
func TestSchemaDoc(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "trace-schema.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, c := range []struct {
		heading string
		schema  *parquet.Schema
	}{
		{"### `jobs.parquet`", parquet.SchemaOf(JobRow{})},
		{"### `tasks.parquet`", parquet.SchemaOf(TaskRow{})},
		{"### `attempts.parquet`", parquet.SchemaOf(AttemptRow{})},
	} {
		got := docColumns(t, doc, c.heading)
		want := schemaColumns(c.schema)
		if len(got) != len(want) {
			t.Errorf("%s: doc lists %d columns, schema has %d", c.heading, len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("%s column %d: doc says %v, schema says %v", c.heading, i, got[i], want[i])
			}
		}
	}
	for _, key := range []string{MetaSchemaVersion, MetaSourceFormat, MetaSources, MetaOptions, MetaTool} {
		if !strings.Contains(doc, "`"+key+"`") {
			t.Errorf("doc does not describe metadata key %s", key)
		}
	}
}
