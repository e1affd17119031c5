package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// swimDir is where the real SWIM files are: shared/traces/swim beside the
// repository (override with TRACEREPLAY_SWIM_DIR).
func swimDir(t testing.TB) string {
	dir := os.Getenv("TRACEREPLAY_SWIM_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "traces", "swim")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real SWIM traces not found (%v); set TRACEREPLAY_SWIM_DIR", err)
	}
	return dir
}

// naiveSWIM parses a 6-9 field SWIM file the slow obvious way, as an independent
// check of ReadSWIM.
func naiveSWIM(t *testing.T, data []byte) []Job {
	var jobs []Job
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(line, "\t")
		num := func(i int) int64 {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		j := NewJob(f[0])
		j.Name, j.Queue, j.Status = f[0], "default", StatusUnknown
		j.SubmitMs = num(1) * 1000
		j.InputBytes, j.ShuffleBytes, j.OutputBytes = num(3), num(4), num(5)
		j.FailedAttempts, j.KilledAttempts, j.WastedMs = Unknown, Unknown, Unknown
		if len(f) > 6 {
			j.InputPath = f[6]
		}
		jobs = append(jobs, j)
	}
	return jobs
}

func TestReadSWIMRealFiles(t *testing.T) {
	cases := []struct {
		path                string
		jobs                int
		firstS, lastS       int64
		firstID, lastID     string
		zeroGaps, zeroBytes int
	}{
		{filepath.Join("..", "samples", "traces", "fb2009-first50.tsv"), 50, 49, 2826, "job0", "job49", 1, 21},
		{filepath.Join(swimDir(t), "FB-2009_samples_24_times_1hr_0.tsv"), 5894, 49, 86404, "job0", "job5893", 230, -1},
		{filepath.Join(swimDir(t), "FB-2010_samples_24_times_1hr_0.tsv"), 24442, 9, 86408, "job0", "job24441", 4903, -1},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			data, err := os.ReadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			tr, err := ReadSWIM(c.path, bytes.NewReader(data), ReadOptions{Strict: true, Warnings: &warn})
			if err != nil {
				t.Fatal(err)
			}
			if warn.Len() > 0 {
				t.Errorf("warnings on a real file:\n%s", warn.String())
			}
			jobs := tr.Jobs
			if len(jobs) != c.jobs {
				t.Fatalf("%d jobs, want %d", len(jobs), c.jobs)
			}
			first, last := jobs[0], jobs[len(jobs)-1]
			if first.SubmitMs != c.firstS*1000 || last.SubmitMs != c.lastS*1000 || first.ID != c.firstID || last.ID != c.lastID {
				t.Errorf("first %s@%d, last %s@%d; want %s@%d, %s@%d", first.ID, first.SubmitMs, last.ID, last.SubmitMs,
					c.firstID, c.firstS*1000, c.lastID, c.lastS*1000)
			}
			zeroGaps, zeroBytes := 0, 0
			for i, j := range jobs {
				if i > 0 && j.SubmitMs == jobs[i-1].SubmitMs {
					zeroGaps++
				}
				for _, b := range []int64{j.InputBytes, j.ShuffleBytes, j.OutputBytes} {
					if b == 0 {
						zeroBytes++
					}
				}
			}
			if first.SubmitMs == 0 {
				zeroGaps++
			}
			if zeroGaps != c.zeroGaps || (c.zeroBytes >= 0 && zeroBytes != c.zeroBytes) {
				t.Errorf("%d zero gaps, %d zero byte fields; want %d, %d", zeroGaps, zeroBytes, c.zeroGaps, c.zeroBytes)
			}
			if want := naiveSWIM(t, data); !reflect.DeepEqual(jobs, want) {
				t.Errorf("jobs differ from a naive parse")
			}
			if err := tr.Validate(); err != nil {
				t.Error(err)
			}
			if tr.Meta.SourceFormat != "swim" || !reflect.DeepEqual(tr.Meta.Sources, []string{c.path}) {
				t.Errorf("meta = %+v", tr.Meta)
			}
		})
	}
}

func gzipped(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadInputGzip(t *testing.T) {
	path := filepath.Join(swimDir(t), "FB-2009_samples_24_times_1hr_0.tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	plain, f, err := ReadInput("fb.tsv", bytes.NewReader(data), "auto", ReadOptions{})
	if err != nil || f.Name != "swim" {
		t.Fatalf("plain: format %q, err %v", f.Name, err)
	}
	// The name says nothing: gzip is found by its magic bytes.
	gz, f, err := ReadInput("fb.data", bytes.NewReader(gzipped(t, data)), "auto", ReadOptions{})
	if err != nil || f.Name != "swim" {
		t.Fatalf("gzip: format %q, err %v", f.Name, err)
	}
	if !reflect.DeepEqual(plain.Jobs, gz.Jobs) || len(gz.Jobs) != 5894 {
		t.Errorf("gzip input gave %d jobs, different from the plain file's %d", len(gz.Jobs), len(plain.Jobs))
	}
	truncated := gzipped(t, data)
	truncated = truncated[:len(truncated)/2]
	_, _, err = ReadInput("fb.tsv.gz", bytes.NewReader(truncated), "auto", ReadOptions{})
	if err == nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "corrupt gzip data") {
		t.Errorf("truncated gzip: err = %v, want corrupt gzip data marked as bad input", err)
	}
	// the error says that the file is cut short, and after how many
	// decompressed bytes: those the reader received before it
	in, _, err := OpenInput("fb.tsv.gz", bytes.NewReader(truncated))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.Copy(io.Discard, in)
	want := fmt.Sprintf("corrupt gzip data: it ends after %d decompressed bytes, inside a compressed block or before the gzip trailer (the file is cut short)", got)
	if got == 0 || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("truncated gzip after %d bytes: err = %v, want %q", got, err, want)
	}
}

func TestReadSWIMVariants(t *testing.T) {
	cases := []struct {
		name, in string
		paths    []string
	}{
		{"6 fields", "job0\t49\t49\t740773\t2339561\t627471\n", []string{""}},
		{"8 fields", "job0\t9\t9\t1762\t0\t14347\tinputPath1\toutputPath1\n", []string{"inputPath1"}},
		{"9 fields", "job0\t1\t1\t2\t3\t4\tinputPath2\t\t\njob1\t2\t1\t20791551476\t12295202125\t1491950225\tinputPath2\t\t\n",
			[]string{"inputPath2", "inputPath2"}},
		{"7 fields empty path", "job0\t1\t1\t2\t3\t4\t\n", []string{""}},
		{"many empty trailing", "job0\t1\t1\t2\t3\t4\t\t\t\t\t\n", []string{""}},
		{"CRLF and blank lines", "\njob0\t1\t1\t2\t3\t4\r\n\r\n\njob1\t1\t0\t2\t3\t4\r\n\n", []string{"", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var warn bytes.Buffer
			tr, err := ReadSWIM("x.tsv", strings.NewReader(c.in), ReadOptions{Strict: true, Warnings: &warn})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, j := range tr.Jobs {
				paths = append(paths, j.InputPath)
			}
			if !reflect.DeepEqual(paths, c.paths) || warn.Len() > 0 {
				t.Errorf("paths %q, want %q; warnings %q", paths, c.paths, warn.String())
			}
			j := tr.Jobs[0]
			if j.NumMaps != Unknown || j.NumReduces != Unknown || j.LaunchMs != Unknown || j.Queue != "default" ||
				j.Status != StatusUnknown || j.Name != j.ID || j.User != "" {
				t.Errorf("job fields: %+v", j)
			}
		})
	}
}

func TestReadSWIMErrors(t *testing.T) {
	cases := []struct {
		name, in string
		strict   bool
		want     string // prefix after "x.tsv:"
	}{
		{"too few fields", "job0\t1\t1\t2\t3\t4\njob1\t2\t1\t5\n", false, "2:11: 4 fields: want at least 6"},
		{"non-empty 9th field", "job0\t1\t1\t2\t3\t4\tin\tout\tx\n", false, "1:23: unexpected non-empty field 9 \"x\""},
		{"bad job id", "job0\t1\t1\t2\t3\t4\nj1\t2\t1\t2\t3\t4\n", false, "2:1: field 1 (job id) \"j1\": want job<N>"},
		{"job id no digits", "job\t1\t1\t2\t3\t4\n", false, "1:1: field 1 (job id) \"job\": want job<N>"},
		{"duplicate id", "job0\t1\t1\t2\t3\t4\njob0\t2\t1\t2\t3\t4\n", false, "2:1: field 1 (job id) \"job0\" repeats"},
		{"strict id order", "job0\t1\t1\t2\t3\t4\njob2\t2\t1\t2\t3\t4\n", true, "2:1: field 1 (job id) \"job2\": want job1"},
		{"negative bytes", "job0\t1\t1\t-2\t3\t4\n", false, "1:10: field 4 (map input bytes) \"-2\" is negative"},
		{"non-numeric", "job0\t1\t1\t2\t3x\t4\n", false, "1:12: field 5 (shuffle bytes) \"3x\": want a non-negative integer"},
		{"empty number", "job0\t1\t1\t2\t3\t\n", false, "1:14: field 6 (reduce output bytes) is empty"},
		{"float", "job0\t1.5\t1\t2\t3\t4\n", false, "1:6: field 2 (submit time (s)) \"1.5\": want a non-negative integer"},
		{"overflow", "job0\t1\t1\t99999999999999999999\t3\t4\n", false, "1:10: field 4 (map input bytes) \"99999999999999999999\" does not fit"},
		{"submit ms overflow", "job0\t9223372036854776\t9223372036854776\t2\t3\t4\n", false, "1:6: field 2 (submit time (s)) 9223372036854776 is beyond the limit of 1125899906842 s"},
		{"submit beyond MaxTimeMs", "job0\t1125899906843\t1125899906843\t2\t3\t4\n", false, "1:6: field 2 (submit time (s)) 1125899906843 is beyond the limit"},
		{"input bytes 2^63-1", "job0\t1\t1\t9223372036854775807\t3\t4\n", false, "1:10: field 4 (map input bytes) 9223372036854775807 is beyond the limit of 1125899906842624 bytes"},
		{"shuffle bytes", "job0\t1\t1\t2\t1125899906842625\t4\n", false, "1:12: field 5 (shuffle bytes) 1125899906842625 is beyond the limit"},
		{"output bytes", "job0\t1\t1\t2\t3\t1125899906842625\n", false, "1:14: field 6 (reduce output bytes) 1125899906842625 is beyond the limit"},
		{"cut in last field", "job0\t1\t1\t2\t3\t4\njob1\t2\t1\t5\t6\t78", false, "2:16: the file ends inside a line (no LF after the last job)"},
		{"cut in last field, strict", "job0\t1\t1\t2\t3\t4\njob1\t2\t1\t5\t6\t78", true, "2:16: the file ends inside a line"},
		{"time backwards", "job0\t5\t5\t2\t3\t4\njob1\t4\t0\t2\t3\t4\n", false, "2:6: field 2 (submit time (s)) 4 is before the previous job's 5 (line 1)"},
		{"gap mismatch strict", "job0\t5\t5\t2\t3\t4\njob1\t9\t3\t2\t3\t4\n", true, "2:8: field 3 (inter-job gap (s)) 3 disagrees"},
		{"empty file", "", false, " no jobs"},
		{"only blank lines", "\n\n\r\n", false, " no jobs"},
		{"long line", strings.Repeat("x", maxSWIMLine+10), false, "1:1: line longer than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSWIM("x.tsv", strings.NewReader(c.in), ReadOptions{Strict: c.strict})
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrBadInput) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if !strings.HasPrefix(err.Error(), "x.tsv:"+c.want) {
				t.Errorf("err = %q\nwant prefix %q", err, "x.tsv:"+c.want)
			}
		})
	}
}

func TestReadSWIMGapMismatchWarns(t *testing.T) {
	// Line 2 was hand-edited: its gap disagrees. The submit time wins.
	in := "job0\t5\t5\t1\t1\t1\njob1\t9\t3\t1\t1\t1\njob2\t10\t1\t1\t1\t1\n"
	var warn bytes.Buffer
	tr, err := ReadSWIM("x.tsv", strings.NewReader(in), ReadOptions{Warnings: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if got := []int64{tr.Jobs[0].SubmitMs, tr.Jobs[1].SubmitMs, tr.Jobs[2].SubmitMs}; !reflect.DeepEqual(got, []int64{5000, 9000, 10000}) {
		t.Errorf("submit times %v", got)
	}
	if want := "x.tsv:2:8: warning: field 3 (inter-job gap (s)) 3 disagrees with the submit times: 5 (previous) + 3 != 9; using the submit time\n"; warn.String() != want {
		t.Errorf("warnings %q, want %q", warn.String(), want)
	}
	// Many mismatches: a bounded number of lines, then a count.
	var b strings.Builder
	for i := range 25 {
		fmt.Fprintf(&b, "job%d\t%d\t0\t1\t1\t1\n", i, i+1)
	}
	warn.Reset()
	if _, err := ReadSWIM("y.tsv", strings.NewReader(b.String()), ReadOptions{Warnings: &warn}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(warn.String(), "\n"), "\n")
	if len(lines) != maxWarnings+1 || lines[maxWarnings] != "y.tsv: 15 more warnings not shown" {
		t.Errorf("warnings:\n%s", warn.String())
	}
}

func TestDetectFormat(t *testing.T) {
	cases := []struct {
		name, head, want string
	}{
		{"fb.tsv", "job0\t49\t49\t740773\t2339561\t627471\n", "swim"},
		{"-", "job1\t2\t1\t20791551476\t12295202125\t1491950225\tinputPath2\t\t\n", "swim"},
		{"x.tsv", "id\tsubmit\tgap\tin\tshuffle\tout\n", ""},
		{"x.tsv", "job0\t49\t49\n", ""},
		{"x.json", `{"jobID":"job_1"}`, "rumen"},
		{"x.json", `{"a":1}`, ""},
		{"x.jhist", "Avro-Json\n{\"type\":\"record\"}\n", "jhist"},
		{"x.jhist", "Avro-Binary\n", "jhist"},
		{"h", "Meta VERSION=\"1\" .\n", "hadoop1"},
		{"h", "Job JOBID=\"job_1_1\" JOBNAME=\"a\"\n", "hadoop1"},
		{"b", "\f!!FILE=x_conf.xml!!\n", "hadoop1"},
		{"s.json", `{"job.start.ms":0,"job.queue.name":"q","job.tasks":[]}`, "sls"},
		{"topology", `{"name":"<root>","children":[]}`, ""},
		{"empty", "", ""},
	}
	for _, c := range cases {
		f, err := DetectFormat(c.name, []byte(c.head))
		if f.Name != c.want || (c.want == "") != (err != nil) {
			t.Errorf("DetectFormat(%q, %q) = %q, %v; want %q", c.name, c.head, f.Name, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), "swim") {
			t.Errorf("detection error does not list the formats: %v", err)
		}
	}
	if _, err := LookupFormat("nope"); err == nil || !strings.Contains(err.Error(), "want auto or one of swim") {
		t.Errorf("LookupFormat(nope): %v", err)
	}
	if f, err := LookupFormat("swim"); err != nil || f.Read == nil || f.Detect == nil {
		t.Errorf("LookupFormat(swim) = %+v, %v", f, err)
	}
}

func BenchmarkReadSWIMFB2010(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(swimDir(b), "FB-2010_samples_24_times_1hr_0.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadSWIM("fb2010", bytes.NewReader(data), ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
