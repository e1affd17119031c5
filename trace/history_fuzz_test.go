package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Fuzz tests of the history readers: no input may make them panic, hang or
// allocate far beyond its size, and whatever they accept must be a well-formed
// trace. Run one with e.g. go test ./trace -run '^$' -fuzz FuzzJhist -fuzztime 1m.

// checkFuzzResult checks the outcome of one reader call.
func checkFuzzResult(t *testing.T, tr *Trace, err error) {
	t.Helper()
	if err != nil {
		var ie *ParseError
		if !errors.As(err, &ie) {
			t.Fatalf("error is not a ParseError: %v", err)
		}
		return
	}
	checkTraceInvariants(t, tr)
}

// maxSeed bounds the seeds: the fuzzing engine minimises every input that finds
// new coverage (up to a minute each by default), and large seeds made the
// targets spend their time minimising instead of exploring.
const maxSeed = 3 << 10

// addFiles adds the files matching glob (regular files only) as seeds, each
// converted by conv when given, those still larger than maxSeed left out.
func addFiles(f *testing.F, glob string, conv func([]byte) []byte) {
	files, _ := filepath.Glob(glob)
	for _, p := range files {
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		b := readInput(f, p)
		if conv != nil {
			b = conv(b)
		}
		if len(b) > maxSeed {
			continue
		}
		f.Add(b)
	}
}

// shrinkJSON re-encodes a stream of JSON values with every array cut to its
// first two elements, which keeps the shapes of a large real file in a seed of
// a few kilobytes. Text that is not JSON is returned as it is.
func shrinkJSON(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				return out.Bytes()
			}
			return b
		}
		e, err := json.Marshal(cutArrays(v))
		if err != nil {
			return b
		}
		out.Write(e)
		out.WriteByte('\n')
	}
}

func cutArrays(v any) any {
	switch x := v.(type) {
	case []any:
		if len(x) > 2 {
			x = x[:2]
		}
		for i := range x {
			x[i] = cutArrays(x[i])
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = cutArrays(x[k])
		}
	}
	return v
}

// jhistSeed is one seed of FuzzJhist: a schema index and a body.
type jhistSeed struct {
	schema int
	json   []byte
	binary []byte
}

// maxJhistSeed bounds a FuzzJhist seed body: a job-submitted event (500 bytes)
// and one more event.
const maxJhistSeed = 1 << 10

// jhistFuzzSeeds returns the schema lines of the test .jhist files and seeds of
// their events (each shrunk by shrinkJSON): the job-submitted event followed by
// one other event of the file, as Avro-Json and as Avro-Binary.
func jhistFuzzSeeds(f *testing.F) (schemas []string, seeds []jhistSeed) {
	files, _ := filepath.Glob("testdata/jhist/*.jhist")
	for _, p := range files {
		b := readInput(f, p)
		header, rest, _ := bytes.Cut(b, []byte("\n"))
		schema, body, _ := bytes.Cut(rest, []byte("\n"))
		if string(header) != jhistJSONHeader {
			continue
		}
		events := bytes.Split(bytes.TrimSpace(shrinkJSON(body)), []byte("\n"))
		var submitted []byte
		for _, e := range events {
			if bytes.Contains(e, []byte("jobhistory.JobSubmitted")) {
				submitted = e
			}
		}
		for _, e := range events {
			if bytes.Equal(e, submitted) || len(submitted)+len(e)+2 > maxJhistSeed {
				continue
			}
			js := append(append(append(slices.Clip(submitted), '\n'), e...), '\n')
			bin := jhistToBinary(f, []byte(jhistJSONHeader+"\n"+string(schema)+"\n"+string(js)))
			_, bin, _ = bytes.Cut(bin, []byte("\n"))
			_, bin, _ = bytes.Cut(bin, []byte("\n"))
			seeds = append(seeds, jhistSeed{len(schemas), js, bin})
		}
		schemas = append(schemas, string(schema))
	}
	if len(seeds) == 0 {
		f.Fatal("no .jhist test files")
	}
	return schemas, seeds
}

// FuzzJhist fuzzes the events of a .jhist file under the real JobHistory
// schemas: the first byte picks the schema (of the test files) and the
// encoding (low bit: Avro-Json or Avro-Binary), the rest is the body.
// FuzzJhistSchema fuzzes the schema line.
func FuzzJhist(f *testing.F) {
	schemas, seeds := jhistFuzzSeeds(f)
	for _, sd := range seeds {
		f.Add(append([]byte{byte(sd.schema << 1)}, sd.json...))
		f.Add(append([]byte{byte(sd.schema<<1 | 1)}, sd.binary...))
	}
	cache := newCodecCache()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		header := jhistJSONHeader
		if data[0]&1 == 1 {
			header = jhistBinaryHeader
		}
		schema := schemas[int(data[0]>>1)%len(schemas)]
		in := io.MultiReader(strings.NewReader(header+"\n"+schema+"\n"), bytes.NewReader(data[1:]))
		res, err := readJhist("f.jhist", in, false, cache)
		var tr *Trace
		if err == nil {
			tr, err = res.trace(HistoryOptions{}, FormatJhist, "f.jhist")
		}
		checkFuzzResult(t, tr, err)
	})
}

// FuzzJhistSchema fuzzes the Avro-Binary path with the schema mutated: a
// schema and a body; no schema may make the reader panic, hang or allocate
// beyond its bounds.
func FuzzJhistSchema(f *testing.F) {
	schemas, seeds := jhistFuzzSeeds(f)
	for i := range schemas {
		// the real schemas (7 KB) cut to two fields, symbols and branches per
		// level: under a kilobyte, so that minimising an input stays quick
		small := bytes.TrimSpace(shrinkJSON([]byte(schemas[i])))
		for _, sd := range seeds {
			if sd.schema == i {
				f.Add(small, sd.binary[:min(len(sd.binary), 256)])
				break
			}
		}
	}
	f.Add([]byte(`{"type":"record","name":"Event","fields":[{"name":"type","type":"int"},{"name":"event","type":{"type":"array","items":"long"}}]}`),
		[]byte("\x02\xfe\xff\xff\xff\x0f"))
	f.Add([]byte(`{"type":"record","name":"Event","fields":[{"name":"type","type":"int"},{"name":"event","type":{"type":"array","items":{"type":"array","items":"long"}}}]}`),
		[]byte("\x02\xfe\xff\xff\xff\x0f\xfe\xff\xff\xff\x0f"))
	f.Add([]byte(`{"type":"record","name":"Event","fields":[{"name":"type","type":"int"},{"name":"event","type":{"type":"map","values":{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}}}]}`),
		[]byte("\x02\x10\x01a\x00"))
	f.Fuzz(func(t *testing.T, schema, body []byte) {
		in := io.MultiReader(strings.NewReader(jhistBinaryHeader+"\n"), bytes.NewReader(schema), strings.NewReader("\n"), bytes.NewReader(body))
		tr, err := ReadJhist("f.jhist", in, HistoryOptions{})
		checkFuzzResult(t, tr, err)
	})
}

func FuzzHadoop1(f *testing.F) {
	addFiles(f, "testdata/hadoop1/*.gz", nil)
	f.Add([]byte(h1Small))
	f.Add([]byte("\f!!FILE=a_job_1_1_conf.xml!!\n<configuration><property><name>mapred.job.queue.name</name><value>q</value></property></configuration>\n\f!!FILE=x!!\n" + h1Small))
	f.Add([]byte("Job JOBID=\"job_1_1\" SUBMIT_TIME=\"1\"\nTask TASKID=\"task_1_1_m_0\" TASK_TYPE=\"MAP\" COUNTERS=\"a.b:1\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadHadoop1("h", bytes.NewReader(data), HistoryOptions{})
		checkFuzzResult(t, tr, err)
	})
}

func FuzzCompactCounters(f *testing.F) {
	f.Add(`{(FileSystemCounters)(FileSystemCounters)[(HDFS_BYTES_READ)(HDFS_BYTES_READ)(53639)]}{(g)(\(x\))[(a\[b\])(c)(-1)]}`)
	f.Add(`File Systems.HDFS bytes read:100,Map-Reduce Framework.Map output bytes:30`)
	f.Fuzz(func(t *testing.T, s string) {
		c := newCounters()
		_ = parseCompactCounters(s, &c)
	})
}

func FuzzRumen(f *testing.F) {
	addFiles(f, "testdata/rumen/*trace*", shrinkJSON)
	addFiles(f, "testdata/rumen/wordcount2.json", shrinkJSON)
	f.Add([]byte(`{"jobID":"job_1_1","submitTime":1,"outcome":"SUCCESS","mapTasks":[{"taskID":"task_1_1_m_0","taskType":"MAP","attempts":[{"result":"SUCCESS","hostName":"/r/h","location":{"layers":[null,"h"]}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadRumen("r", bytes.NewReader(data), HistoryOptions{})
		checkFuzzResult(t, tr, err)
	})
}

func FuzzRumenTopology(f *testing.F) {
	addFiles(f, "testdata/rumen/*topology*", shrinkJSON)
	f.Add([]byte(`{"name":"<root>","children":[{"name":"r","children":[{"name":"h","children":null}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadRumenTopology("t", bytes.NewReader(data))
		if err == nil && len(m) == 0 {
			t.Fatal("empty topology accepted")
		}
	})
}

func FuzzSLS(f *testing.F) {
	addFiles(f, "testdata/sls/*sls*.json", nil)
	f.Add([]byte(`{"job.start.ms":"1","job.queue.name":"q","job.count":3,"job.tasks":[{"container.duration.ms":5,"count":2,"container.type":"reduce"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// a container limit of 1,000 instead of maxSLSTasksPerFile: job.count
		// and count let a few bytes ask for up to the limit, and executions
		// that build a million tasks would leave no time to explore
		res, err := readSLS("s", bytes.NewReader(data), false, 1_000)
		var tr *Trace
		if err == nil {
			tr, err = res.trace(HistoryOptions{}, FormatSLS, "s")
		}
		checkFuzzResult(t, tr, err)
	})
}

func FuzzSLSNodes(f *testing.F) {
	addFiles(f, "testdata/sls/nodes*.json", nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadSLSNodes("n", bytes.NewReader(data))
		if err == nil && len(m) == 0 {
			t.Fatal("empty node file accepted")
		}
	})
}

func FuzzConf(f *testing.F) {
	addFiles(f, "testdata/hadoop1/*.xml", nil)
	f.Add([]byte(`<?xml version="1.0" encoding="latin1"?><configuration><property><name>a</name><value>b</value></property></configuration>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadConf("c", bytes.NewReader(data))
		if err == nil {
			j := NewJob("j")
			c.applyTo(&j)
		}
	})
}

// FuzzDetect checks that the detectors never panic and that no input is claimed
// by two trace formats at once.
func FuzzDetect(f *testing.F) {
	addFiles(f, "testdata/*/*", nil) // regular files: not testdata/fuzz/*
	f.Fuzz(func(t *testing.T, head []byte) {
		var claimed []string
		for name, d := range map[string]func(string, []byte) bool{
			"jhist": DetectJhist, "hadoop1": DetectHadoop1, "rumen": DetectRumen, "sls": DetectSLS,
		} {
			if d("x", head) {
				claimed = append(claimed, name)
			}
		}
		if len(claimed) > 1 {
			t.Fatalf("claimed by %v", claimed)
		}
	})
}
