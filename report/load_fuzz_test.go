package report

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/trace"
)

// seedParquet returns rows as small Parquet files, one per writer setting the
// readers meet: uncompressed plain (parquet-go's default), zstd as replay
// writes, and dictionary-encoded version 2 pages with snappy. Each is a few KB
// (the schema's column metadata), so a fuzz execution stays cheap.
func seedParquet[T any](tb testing.TB, rows []T) [][]byte {
	tb.Helper()
	var seeds [][]byte
	for _, opts := range [][]parquet.WriterOption{
		nil,
		{parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault, Concurrency: 1})},
		{parquet.Compression(&parquet.Snappy), parquet.DataPageVersion(2), parquet.DefaultEncoding(&parquet.RLEDictionary)},
	} {
		var b bytes.Buffer
		w := parquet.NewGenericWriter[T](&b, opts...)
		if _, err := w.Write(rows); err != nil {
			tb.Fatal(err)
		}
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b.Bytes())
	}
	return seeds
}

// jobRows returns n job rows as replay stores them.
func jobRows(n int) []results.JobRow {
	var rows []results.JobRow
	for _, j := range seqRun(map[string]string{"policy": "x"}, n, 1).Jobs {
		rows = append(rows, j.Row())
	}
	return rows
}

// FuzzLoadRun fuzzes the results reader: a run directory's run.json,
// jobs.parquet and timeline.parquet as replay writes them. No content may make
// LoadRun panic or hang; an error names the file, and a run it accepts has a
// policy and jobs that pass checkJobs.
func FuzzLoadRun(f *testing.F) {
	jobs := seedParquet(f, jobRows(2))
	timeline := seedParquet(f, []results.TimelineSample{{Policy: "fifo", TimeUs: 1, RunningMaps: 2}})
	summary, err := json.Marshal(results.RunSummary{Policy: "fifo", Trace: "t"})
	if err != nil {
		f.Fatal(err)
	}
	for i := range jobs {
		f.Add(summary, jobs[i], timeline[i])
	}
	f.Add([]byte(`{}`), jobs[0], timeline[0])
	f.Add(summary, []byte("PAR1PAR1"), timeline[0])
	f.Add([]byte(`{"policy":1}`), []byte{}, []byte{})
	// The run's files are read from memory (LoadRun is loadRun with
	// os.ReadFile): writing and reading three files an execution cost three
	// quarters of its time here (2.6 to 0.5 ms an execution), and one CI
	// machine made only 331 executions a second with them.
	dir := filepath.Join("run", "policy=p")
	f.Fuzz(func(t *testing.T, summary, jobs, timeline []byte) {
		files := map[string][]byte{
			filepath.Join(dir, results.SummaryFile):  summary,
			filepath.Join(dir, results.JobsFile):     jobs,
			filepath.Join(dir, results.TimelineFile): timeline,
		}
		readFile := func(path string) ([]byte, error) {
			if b, ok := files[path]; ok {
				return b, nil
			}
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
		}
		r, err := loadRun(dir, readFile)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the run's file: %v", err)
			}
			return
		}
		if r.Policy == "" {
			t.Fatal("accepted a run without a policy")
		}
	})
}

// craftRow and craftText are the schemas of craftParquet's files.
type craftRow struct {
	V int64 `parquet:"v"`
}

type craftText struct {
	V string `parquet:"v"`
}

// craftPage is one page of a crafted column chunk: its header and its bytes as
// stored.
type craftPage struct {
	header format.PageHeader
	data   []byte
}

// craftParquet assembles a Parquet file of one required INT64 column "v" from
// raw pages, for claims no writer makes.
func craftParquet(t *testing.T, codec format.CompressionCodec, numRows int64, pages ...craftPage) []byte {
	return craftParquetOf(t, format.Int64, codec, numRows, pages...)
}

// craftParquetOf is craftParquet with a column of type typ.
func craftParquetOf(t *testing.T, typ format.Type, codec format.CompressionCodec, numRows int64, pages ...craftPage) []byte {
	t.Helper()
	proto := new(thrift.CompactProtocol)
	b := []byte("PAR1")
	var values, uncompressed int64
	dictOffset := int64(0)
	dataOffset := int64(-1)
	for _, p := range pages {
		h, err := thrift.Marshal(proto, &p.header)
		if err != nil {
			t.Fatal(err)
		}
		switch p.header.Type {
		case format.DictionaryPage:
			dictOffset = int64(len(b))
		default:
			if dataOffset < 0 {
				dataOffset = int64(len(b))
			}
			values += int64(p.header.DataPageHeader.V.NumValues + p.header.DataPageHeaderV2.V.NumValues)
		}
		uncompressed += int64(len(h)) + int64(p.header.UncompressedPageSize)
		b = append(append(b, h...), p.data...)
	}
	md := format.FileMetaData{
		Version: 1,
		Schema: []format.SchemaElement{
			{Name: "root", NumChildren: thrift.New[int32](1)},
			{Name: "v", Type: thrift.New(typ), RepetitionType: thrift.New(format.Required)},
		},
		NumRows: numRows,
		RowGroups: []format.RowGroup{{NumRows: numRows, TotalByteSize: int64(len(b) - 4), Columns: []format.ColumnChunk{{
			FileOffset: 4,
			MetaData: format.ColumnMetaData{
				Type: typ, Encoding: []format.Encoding{format.Plain}, PathInSchema: []string{"v"}, Codec: codec,
				NumValues: values, TotalUncompressedSize: uncompressed, TotalCompressedSize: int64(len(b) - 4),
				DataPageOffset: dataOffset, DictionaryPageOffset: dictOffset,
			},
		}}}},
	}
	footer, err := thrift.Marshal(proto, &md)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, footer...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
	return append(b, "PAR1"...)
}

// dataPage is a version 1 data page header of n values.
func dataPage(enc format.Encoding, n, compressed, uncompressed int) format.PageHeader {
	return format.PageHeader{Type: format.DataPage, CompressedPageSize: int32(compressed), UncompressedPageSize: int32(uncompressed),
		DataPageHeader: thrift.New(format.DataPageHeader{NumValues: int32(n), Encoding: enc, DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE})}
}

// TestDecodeParquetBounds feeds the reader small files whose footer or pages
// claim far more than they hold, each a way parquet-go would allocate from the
// claim: each must be refused with ErrParquetBounds, allocating little.
func TestDecodeParquetBounds(t *testing.T) {
	// what parquet-go writes with the settings of seedParquet reads back whole
	want := jobRows(3)
	for i, b := range seedParquet(t, want) {
		got, err := results.DecodeParquet[results.JobRow]("jobs.parquet", bytes.NewReader(b), int64(len(b)))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("writer setting %d: %v, %v; want %v", i, got, err, want)
		}
	}

	plain := binary.LittleEndian.AppendUint64(nil, 42)
	valid := craftParquet(t, format.Uncompressed, 1, craftPage{dataPage(format.Plain, 1, 8, 8), plain})
	rows, err := results.DecodeParquet[craftRow]("v.parquet", bytes.NewReader(valid), int64(len(valid)))
	if err != nil || len(rows) != 1 || rows[0].V != 42 {
		t.Fatalf("crafted valid file: %v, %v", rows, err)
	}

	// a zstd frame of n RLE blocks of 128 KiB each, without a content size
	zstdBomb := func(n int) []byte {
		b := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
		b = append(b, 0x00, 0x50) // no content size, window 2^(10+10)
		for i := 0; i < n; i++ {
			h := uint32(128<<10)<<3 | 1<<1 // a zstd block of Block_Maximum_Size (RFC 8878)
			if i == n-1 {
				h |= 1
			}
			b = append(b, byte(h), byte(h>>8), byte(h>>16), 'x')
		}
		return b
	}
	// a zstd frame declaring 2^28 bytes
	zstdFCS := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	zstdFCS = append(zstdFCS, 0xA0) // single segment, 4-byte content size
	zstdFCS = binary.LittleEndian.AppendUint32(zstdFCS, 1<<28)
	zstdFCS = append(zstdFCS, 0x0b, 0x00, 0x08, 'x') // last RLE block of 256 KiB … never reached
	// an RLE run of 2^26 dictionary indices (bit width 1)
	rleRun := append([]byte{1}, binary.AppendUvarint(nil, 1<<27)...)
	rleRun = append(rleRun, 0)
	dict := craftPage{format.PageHeader{Type: format.DictionaryPage, CompressedPageSize: 8, UncompressedPageSize: 8,
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: 1, Encoding: format.Plain})}, plain}
	// a DELTA_BINARY_PACKED header claiming 2^26 values
	delta := binary.AppendUvarint(nil, 128)
	delta = binary.AppendUvarint(delta, 4)
	delta = binary.AppendUvarint(delta, 1<<26)
	delta = append(binary.AppendVarint(delta, 42), make([]byte, 8)...)
	// DELTA_LENGTH_BYTE_ARRAY: one string of 2^30 bytes, one byte stored
	dlba := binary.AppendUvarint(nil, 128)
	dlba = binary.AppendUvarint(dlba, 4)
	dlba = binary.AppendUvarint(dlba, 1)
	dlba = append(binary.AppendVarint(dlba, 1<<30), 'x')
	snappyClaim := append(binary.AppendUvarint(nil, 1<<30), 0, 0, 0, 0)

	// a footer whose schema list claims 50,000,000 elements
	hugeList := []byte{0x15, 0x02, 0x19, 0xfc}
	hugeList = append(binary.AppendUvarint(hugeList, 50_000_000), 0x00, 0x00)
	listFile := append([]byte("PAR1"), hugeList...)
	listFile = binary.LittleEndian.AppendUint32(listFile, uint32(len(hugeList)))
	listFile = append(listFile, "PAR1"...)

	tests := []struct {
		name string
		file []byte
		text bool // a string column (craftText), else craftRow
	}{
		{"footer list of 5e7 schema elements", listFile, false},
		{"footer claims 2^40 rows", craftParquet(t, format.Uncompressed, 1<<40, craftPage{dataPage(format.Plain, 1, 8, 8), plain}), false},
		{"page claims 2^28 uncompressed bytes", craftParquet(t, format.Zstd, 1, craftPage{dataPage(format.Plain, 1, len(zstdFCS), 1<<28), zstdFCS}), false},
		{"zstd frame declares 2^28 bytes", craftParquet(t, format.Zstd, 1, craftPage{dataPage(format.Plain, 1, len(zstdFCS), 8), zstdFCS}), false},
		{"zstd blocks expand to 12.5 MiB", craftParquet(t, format.Zstd, 1, craftPage{dataPage(format.Plain, 1, len(zstdBomb(100)), 8), zstdBomb(100)}), false},
		{"snappy page declares 1 GiB", craftParquet(t, format.Snappy, 1, craftPage{dataPage(format.Plain, 1, len(snappyClaim), 8), snappyClaim}), false},
		{"dictionary index run of 2^26", craftParquet(t, format.Uncompressed, 1, dict, craftPage{dataPage(format.RLEDictionary, 1, len(rleRun), len(rleRun)), rleRun}), false},
		{"delta header claims 2^26 values", craftParquet(t, format.Uncompressed, 1, craftPage{dataPage(format.DeltaBinaryPacked, 1, len(delta), len(delta)), delta}), false},
		{"string lengths claim 1 GiB", craftParquetOf(t, format.ByteArray, format.Uncompressed, 1, craftPage{dataPage(format.DeltaLengthByteArray, 1, len(dlba), len(dlba)), dlba}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			if tt.text {
				_, err = results.DecodeParquet[craftText]("v.parquet", bytes.NewReader(tt.file), int64(len(tt.file)))
			} else {
				_, err = results.DecodeParquet[craftRow]("v.parquet", bytes.NewReader(tt.file), int64(len(tt.file)))
			}
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrParquetBounds) || !strings.Contains(err.Error(), "v.parquet") {
				t.Errorf("error %v, want ErrParquetBounds naming the file", err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
				t.Errorf("allocated %d bytes for a file of %d", n, len(tt.file))
			}
			// The trace reader refuses the same claims before parquet-go
			// sees them (the bounds are checked before the schema).
			path := filepath.Join(t.TempDir(), "jobs.parquet")
			if err := os.WriteFile(path, tt.file, 0o644); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&before)
			_, _, err = trace.ReadParquetFile[trace.Job](path)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrParquetBounds) || !strings.Contains(err.Error(), path) {
				t.Errorf("trace reader: error %v, want ErrParquetBounds naming the file", err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
				t.Errorf("trace reader: allocated %d bytes for a file of %d", n, len(tt.file))
			}
		})
	}
}
