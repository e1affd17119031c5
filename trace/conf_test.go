package trace

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestReadConfRealLayouts(t *testing.T) {
	tests := []struct {
		file  string
		props int
		want  map[string]string
	}{
		// one property per line with a comment (2012 Sleep job)
		{"testdata/jhist/job_1329348432655_0001_conf.xml", 377, map[string]string{
			"mapreduce.map.memory.mb": "512", "mapreduce.reduce.memory.mb": "512", "mapreduce.job.queuename": "default"}},
		// <source> elements (dr-elephant)
		{"testdata/jhist/job_1526555215992_0001_conf.xml", 166, map[string]string{
			"mapreduce.map.memory.mb": "1024", "mapreduce.map.cpu.vcores": "1", "mapreduce.job.user.name": "vasaxena"}},
		// pretty-printed with a licence comment, Hadoop 1 names
		{"testdata/hadoop1/sample-conf.file.xml", 4, map[string]string{
			"mapred.job.queue.name": "TheQueue", "mapred.job.name": "MyMRJob"}},
		// minimal, no XML declaration
		{"testdata/hadoop1/megacluster.megacorp.com_1265616107882_job_201002080801_40864_conf.xml", 1, map[string]string{
			"mapred.child.java.opts": "-Xmx1024M -Djava.io.tmpdir=./tmp"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			c, err := ReadConf(tc.file, bytes.NewReader(readInput(t, tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			if len(c) != tc.props {
				t.Errorf("%d properties, want %d", len(c), tc.props)
			}
			for k, v := range tc.want {
				if c[k] != v {
					t.Errorf("%s = %q, want %q", k, c[k], v)
				}
			}
		})
	}
}

func TestConfApplyTo(t *testing.T) {
	c, err := ReadConf("c.xml", bytes.NewReader(readInput(t, "testdata/jhist/job_1526555215992_0001_conf.xml")))
	if err != nil {
		t.Fatal(err)
	}
	j := NewJob("job_1526555215992_0001")
	j.User = "user" // the history's user wins over the conf's vasaxena
	c.applyTo(&j)
	if j.User != "user" || j.Queue != "default" || j.MapMemoryMB != 1024 || j.ReduceMemoryMB != 1024 || j.Name != "QuasiMonteCarlo" {
		t.Errorf("job %+v", j)
	}
	if j.InputPath != "" {
		t.Errorf("input path %q, the conf has none", j.InputPath)
	}
	sleep, err := ReadConf("s.xml", bytes.NewReader(readInput(t, "testdata/jhist/job_1329348432655_0001_conf.xml")))
	if err != nil {
		t.Fatal(err)
	}
	j = NewJob("job_1329348432655_0001")
	sleep.applyTo(&j)
	if j.InputPath != "hdfs://localhost:8021/user/user/ignored" || j.MapMemoryMB != 512 {
		t.Errorf("Sleep job conf: %+v", j)
	}
	if j.ConfMapMaxAttempts != 4 || j.ConfReduceMaxAttempts != 4 {
		t.Errorf("Sleep job conf: max attempts %d/%d, want mapreduce.{map,reduce}.maxattempts 4/4", j.ConfMapMaxAttempts, j.ConfReduceMaxAttempts)
	}
	// Hadoop 1's names; the Hadoop 2 name wins when both are given; a value
	// that is not a positive integer is unknown.
	for _, c := range []struct {
		conf     Conf
		maps, rs int32
	}{
		{Conf{"mapred.map.max.attempts": "2", "mapred.reduce.max.attempts": "7"}, 2, 7},
		{Conf{"mapred.map.max.attempts": "2", "mapreduce.map.maxattempts": "3"}, 3, Unknown},
		{Conf{"mapreduce.map.maxattempts": "0", "mapreduce.reduce.maxattempts": "four"}, Unknown, Unknown},
	} {
		j = NewJob("j")
		c.conf.applyTo(&j)
		if j.ConfMapMaxAttempts != c.maps || j.ConfReduceMaxAttempts != c.rs {
			t.Errorf("%v: max attempts %d/%d, want %d/%d", c.conf, j.ConfMapMaxAttempts, j.ConfReduceMaxAttempts, c.maps, c.rs)
		}
	}
	old := Conf{"mapred.job.queue.name": "q1", "mapred.job.map.memory.mb": "-1", "mapred.job.reduce.memory.mb": "2048", "mapred.input.dir": "/in"}
	j = NewJob("j")
	old.applyTo(&j)
	if j.Queue != "q1" || j.MapMemoryMB != Unknown || j.ReduceMemoryMB != 2048 || j.InputPath != "/in" {
		t.Errorf("Hadoop 1 names: %+v", j)
	}
}

func TestReadConfEdgeCases(t *testing.T) {
	tests := []struct {
		name, in string
		want     Conf
		err      string
	}{
		{"later value wins", `<configuration><property><name>a</name><value>1</value></property><property><name>a</name><value>2</value></property></configuration>`, Conf{"a": "2"}, ""},
		{"entities and cdata", `<configuration><property><name> a </name><value>x &amp; <![CDATA[<y>]]></value><final>true</final></property></configuration>`, Conf{"a": "x & <y>"}, ""},
		{"latin1", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><configuration><property><name>a</name><value>caf\xe9</value></property></configuration>", Conf{"a": "café"}, ""},
		{"property without name ignored", `<configuration><property><value>1</value></property></configuration>`, Conf{}, ""},
		{"unterminated", "<configuration>\n<property><name>a</name>\n", nil, "c.xml:3"},
		{"not xml", "Meta VERSION=\"1\" .", nil, "no <configuration> element"},
		{"unknown charset", `<?xml version="1.0" encoding="EBCDIC"?><configuration/>`, nil, "EBCDIC"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ReadConf("c.xml", strings.NewReader(tc.in))
			if tc.err != "" {
				var ie *ParseError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c) != len(tc.want) {
				t.Errorf("got %v, want %v", c, tc.want)
			}
			for k, v := range tc.want {
				if c[k] != v {
					t.Errorf("%s = %q, want %q", k, c[k], v)
				}
			}
		})
	}
}
