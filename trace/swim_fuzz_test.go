package trace

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// FuzzSWIM checks that ReadSWIM never panics, that what it accepts is a valid
// trace, and that writing the accepted jobs back as SWIM lines reads back the same.
func FuzzSWIM(f *testing.F) {
	seeds := []string{
		"job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t1700537\t432269\n",
		"job0\t9\t9\t1762\t0\t14347\tinputPath1\toutputPath1\n",
		"job1\t2\t1\t20791551476\t12295202125\t1491950225\tinputPath2\t\t\n",
		"job0\t5\t5\t1\t1\t1\r\n\njob1\t4\t0\t1\t1\t1",
		"job0\t1\t1\t-2\t3\t4\n",
		"job0\t9223372036854776\t1\t2\t3\t4\tx\ty\tz\n",
		"",
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, strict bool) {
		tr, err := ReadSWIM("fuzz.tsv", bytes.NewReader(data), ReadOptions{Strict: strict})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.tsv:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		if len(tr.Jobs) > bytes.Count(data, []byte{'\n'})+1 {
			t.Fatalf("%d jobs from %d lines", len(tr.Jobs), bytes.Count(data, []byte{'\n'})+1)
		}
		var b strings.Builder
		prev := int64(0)
		for _, j := range tr.Jobs {
			// The input path is followed by an empty output path, so that a
			// path ending in CR is not read back as a CRLF line end.
			fmt.Fprintf(&b, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", j.ID, j.SubmitMs/1000, j.SubmitMs/1000-prev,
				j.InputBytes, j.ShuffleBytes, j.OutputBytes, j.InputPath)
			prev = j.SubmitMs / 1000
		}
		again, err := ReadSWIM("fuzz.tsv", strings.NewReader(b.String()), ReadOptions{})
		if err != nil {
			t.Fatalf("re-reading accepted jobs: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(again.Jobs, tr.Jobs) {
			t.Fatalf("round trip differs")
		}
	})
}

// FuzzReadInput checks that decompression, detection and reading never panic on
// any bytes, and that every failure is reported against the input's name.
func FuzzReadInput(f *testing.F) {
	plain := []byte("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t1700537\t432269\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	f.Add(plain)
	f.Add(gz.Bytes())
	f.Add(gz.Bytes()[:len(gz.Bytes())/2])
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte("{\"jobID\": 1}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, _, err := ReadInput("in.gz", bytes.NewReader(data), "auto", ReadOptions{})
		if err != nil {
			if !strings.Contains(err.Error(), "in.gz") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
	})
}
