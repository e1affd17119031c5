package trace

import (
	"bytes"
	"errors"
	"path/filepath"
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

func addFiles(f *testing.F, glob string, conv func([]byte) []byte) {
	files, _ := filepath.Glob(glob)
	for _, p := range files {
		b := readInput(f, p)
		if len(b) > 40_000 {
			continue
		}
		if conv != nil {
			b = conv(b)
		}
		f.Add(b)
	}
}

func FuzzJhist(f *testing.F) {
	addFiles(f, "testdata/jhist/*.jhist", nil)
	addFiles(f, "testdata/jhist/job_2.4.0-FAILED.jhist", func(b []byte) []byte { return jhistToBinary(f, b) })
	f.Add([]byte("Avro-Json\n\"string\"\n\"x\"\n"))
	f.Add([]byte("Avro-Binary\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[{\"name\":\"type\",\"type\":\"int\"},{\"name\":\"event\",\"type\":{\"type\":\"array\",\"items\":\"long\"}}]}\n\x02\xfe\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadJhist("f.jhist", bytes.NewReader(data), HistoryOptions{})
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
	addFiles(f, "testdata/rumen/*trace*", nil)
	addFiles(f, "testdata/rumen/wordcount2.json", nil)
	f.Add([]byte(`{"jobID":"job_1_1","submitTime":1,"outcome":"SUCCESS","mapTasks":[{"taskID":"task_1_1_m_0","taskType":"MAP","attempts":[{"result":"SUCCESS","hostName":"/r/h","location":{"layers":[null,"h"]}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadRumen("r", bytes.NewReader(data), HistoryOptions{})
		checkFuzzResult(t, tr, err)
	})
}

func FuzzRumenTopology(f *testing.F) {
	addFiles(f, "testdata/rumen/*topology*", nil)
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
		tr, err := ReadSLS("s", bytes.NewReader(data), HistoryOptions{})
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
	addFiles(f, "testdata/*/*", nil)
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
