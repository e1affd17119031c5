package trace

import (
	"bytes"
	"errors"
	"path/filepath"
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

// TestConfJobTrackerSettings reads the out-of-band heartbeat, the slots and
// the scheduler under their Hadoop 1 and 0.21+ names, and keeps the 0.21+
// names, which a Hadoop 2 conf carries as mapred-default.xml's defaults, to
// the jobs a JobTracker ran.
func TestConfJobTrackerSettings(t *testing.T) {
	const jt, rm = "job_201102040848_0119", "job_1369942127770_1205" // JobTracker and ResourceManager ids
	const oob = "mapreduce.tasktracker.outofband.heartbeat"
	for _, c := range []struct {
		id   string
		conf Conf
		want int32
	}{
		{jt, Conf{oob: "true"}, 1},
		{jt, Conf{oob: " TRUE\n"}, 1},
		{jt, Conf{oob: "false"}, 0},
		{jt, Conf{oob: "False "}, 0},
		{jt, Conf{oob: "yes"}, Unknown},
		{jt, Conf{oob: "1"}, Unknown},
		{jt, Conf{oob: ""}, Unknown},
		{jt, Conf{"mapreduce.job.name": "x"}, Unknown},
		{rm, Conf{oob: "true"}, Unknown},                                      // a YARN job: a default only
		{jt, Conf{oob: "true", "mapreduce.framework.name": " YARN"}, Unknown}, // says it ran on YARN
		{jt + "#2", Conf{oob: "true"}, Unknown},                               // not a JobTracker's id
	} {
		j := NewJob(c.id)
		c.conf.applyTo(&j)
		if j.ConfOutOfBandHeartbeat != c.want {
			t.Errorf("job %s, %q: out-of-band heartbeat %d, want %d", c.id, c.conf, j.ConfOutOfBandHeartbeat, c.want)
		}
	}
	const (
		capacity = "org.apache.hadoop.mapred.CapacityTaskScheduler"
		fair     = "org.apache.hadoop.mapred.FairScheduler"
		fifoRM   = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
	)
	for _, c := range []struct {
		id         string
		conf       Conf
		maps, reds int32
		sched      string
	}{
		// Hadoop 1 names
		{jt, Conf{"mapred.tasktracker.map.tasks.maximum": "6", "mapred.tasktracker.reduce.tasks.maximum": "3",
			"mapred.jobtracker.taskScheduler": fair}, 6, 3, fair},
		// 0.21+ names (the Gridmix traces)
		{jt, Conf{"mapreduce.tasktracker.map.tasks.maximum": "4", "mapreduce.tasktracker.reduce.tasks.maximum": "2",
			"mapreduce.jobtracker.taskscheduler": capacity}, 4, 2, capacity},
		// both: the new name first
		{jt, Conf{"mapreduce.tasktracker.map.tasks.maximum": "4", "mapred.tasktracker.map.tasks.maximum": "6",
			"mapreduce.jobtracker.taskscheduler": capacity, "mapred.jobtracker.taskScheduler": fair}, 4, Unknown, capacity},
		// a YARN job: the 0.21+ names are mapred-default.xml's, not read
		{rm, Conf{"mapreduce.tasktracker.map.tasks.maximum": "2", "mapreduce.tasktracker.reduce.tasks.maximum": "2",
			"mapreduce.jobtracker.taskscheduler": "org.apache.hadoop.mapred.JobQueueTaskScheduler"}, Unknown, Unknown, ""},
		{jt, Conf{"mapreduce.framework.name": "yarn", "mapreduce.tasktracker.map.tasks.maximum": "2",
			"mapreduce.jobtracker.taskscheduler": "org.apache.hadoop.mapred.JobQueueTaskScheduler"}, Unknown, Unknown, ""},
		{rm, Conf{"mapreduce.framework.name": "yarn", "mapreduce.jobtracker.taskscheduler": "org.apache.hadoop.mapred.JobQueueTaskScheduler",
			"yarn.resourcemanager.scheduler.class": fifoRM}, Unknown, Unknown, fifoRM},
		// Hadoop 1 names count on any job, as before
		{rm, Conf{"mapred.tasktracker.map.tasks.maximum": "6", "mapred.jobtracker.taskScheduler": fair}, 6, Unknown, fair},
	} {
		j := NewJob(c.id)
		c.conf.applyTo(&j)
		if j.ConfMapSlots != c.maps || j.ConfReduceSlots != c.reds || j.Scheduler != c.sched {
			t.Errorf("job %s, %q: slots %d/%d, scheduler %q; want %d/%d, %q", c.id, c.conf,
				j.ConfMapSlots, j.ConfReduceSlots, j.Scheduler, c.maps, c.reds, c.sched)
		}
	}
	const ver = "hadoop.common.configuration.version"
	for _, c := range []struct {
		id   string
		conf Conf
		want string
	}{
		{jt, Conf{ver: "0.21.0"}, "0.21.0"},
		{jt, Conf{ver: " 0.22.0\n"}, "0.22.0"},
		{jt, Conf{"mapred.jobtracker.taskScheduler": fair}, ""},           // 0.20 and 1.x have no such key
		{rm, Conf{ver: "0.23.0"}, ""},                                     // a YARN job
		{jt, Conf{ver: "0.23.0", "mapreduce.framework.name": "yarn"}, ""}, // says it ran on YARN
	} {
		j := NewJob(c.id)
		c.conf.applyTo(&j)
		if j.ConfCommonVersion != c.want {
			t.Errorf("job %s, %q: common configuration version %q, want %q", c.id, c.conf, j.ConfCommonVersion, c.want)
		}
	}
	// the YARN test histories' confs carry the 0.21+ names (false, 2, 2,
	// JobQueueTaskScheduler): none is read
	for _, f := range []string{"testdata/jhist/job_1329348432655_0001_conf.xml", "testdata/jhist/job_1526555215992_0001_conf.xml"} {
		c, err := ReadConf(f, bytes.NewReader(readInput(t, f)))
		if err != nil {
			t.Fatal(err)
		}
		j := NewJob("job_" + strings.Split(filepath.Base(f), "_")[1] + "_0001")
		c.applyTo(&j)
		if j.ConfOutOfBandHeartbeat != Unknown || j.ConfMapSlots != Unknown || j.ConfReduceSlots != Unknown ||
			strings.Contains(j.Scheduler, "JobQueueTaskScheduler") || j.ConfCommonVersion != "" {
			t.Errorf("%s: %+v", f, j)
		}
	}
}

// TestRumenGridmixConf reads the Gridmix trace's job properties: every job
// records the out-of-band heartbeat on, 4 map and 2 reduce slots and the
// CapacityTaskScheduler, all under their 0.21+ names, and
// hadoop.common.configuration.version = 0.21.0.
func TestRumenGridmixConf(t *testing.T) {
	const f = "testdata/rumen/trace_1m.json.gz"
	tr, err := ReadRumen(f, bytes.NewReader(readInput(t, f)), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) == 0 {
		t.Fatal("no jobs")
	}
	for _, j := range tr.Jobs {
		if j.ConfOutOfBandHeartbeat != 1 || j.ConfMapSlots != 4 || j.ConfReduceSlots != 2 ||
			j.Scheduler != "org.apache.hadoop.mapred.CapacityTaskScheduler" {
			t.Errorf("job %s: out-of-band heartbeat %d, slots %d/%d, scheduler %q", j.ID,
				j.ConfOutOfBandHeartbeat, j.ConfMapSlots, j.ConfReduceSlots, j.Scheduler)
		}
		if j.ConfCommonVersion != "0.21.0" {
			t.Errorf("job %s: common configuration version %q, want 0.21.0", j.ID, j.ConfCommonVersion)
		}
	}
}
