package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"testing"
)

// The .jhist ingest speed is stated next to the speed of merely decoding the
// same files' events with encoding/json (into any), per core:
//
//	go test ./trace -run '^$' -bench 'Jhist' -cpu 1
//
// BenchmarkJhistIngest and BenchmarkJhistStdlibJSON process the same bytes, so
// the ratio of their MB/s is the figure of merit (aim: ≥ 0.5).

func benchJhistFiles(b *testing.B) [][]byte {
	files, err := filepath.Glob("testdata/jhist/*.jhist")
	if err != nil || len(files) == 0 {
		b.Fatalf("no .jhist test data: %v", err)
	}
	var out [][]byte
	for _, f := range files {
		out = append(out, readInput(b, f))
	}
	return out
}

func totalLen(bs [][]byte) int64 {
	var n int64
	for _, b := range bs {
		n += int64(len(b))
	}
	return n
}

// BenchmarkJhistIngest reads Avro-Json .jhist files into traces, one core.
func BenchmarkJhistIngest(b *testing.B) {
	benchJhistIngest(b, benchJhistFiles(b))
}

// benchJhistIngest reads .jhist files into traces, one core, reporting MB/s of their bytes.
func benchJhistIngest(b *testing.B, files [][]byte) {
	b.SetBytes(totalLen(files))
	cache := newCodecCache() // as ReadTree shares it between the files of a tree
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			res, err := readJhist("f.jhist", bytes.NewReader(f), false, cache)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := res.trace(HistoryOptions{}, FormatJhist, "f.jhist"); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkJhistIngestBinary reads the same files re-encoded as Avro-Binary;
// MB/s are of the binary bytes.
func BenchmarkJhistIngestBinary(b *testing.B) {
	files := benchJhistFiles(b)
	for i := range files {
		files[i] = jhistToBinary(b, files[i])
	}
	benchJhistIngest(b, files)
}

// BenchmarkJhistStdlibJSON only decodes the same files' header lines and JSON
// events with encoding/json into any: the baseline of BenchmarkJhistIngest.
func BenchmarkJhistStdlibJSON(b *testing.B) {
	files := benchJhistFiles(b)
	b.SetBytes(totalLen(files))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			_, rest, _ := bytes.Cut(f, []byte("\n"))
			schema, events, _ := bytes.Cut(rest, []byte("\n"))
			var s any
			if err := json.Unmarshal(schema, &s); err != nil {
				b.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(events))
			for {
				var v any
				if err := dec.Decode(&v); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
