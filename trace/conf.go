package trace

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Conf is a Hadoop job configuration (a job's _conf.xml): property name → value.
// When a name occurs twice, the later value wins, as in Hadoop.
type Conf map[string]string

// maxConfProperties bounds the properties kept from one configuration file; real
// job configurations hold a few hundred to a few thousand.
const maxConfProperties = 1_000_000

// ReadConf parses a Hadoop configuration XML document (<configuration> with
// <property><name>…</name><value>…</value></property> children; comments,
// <source>, <final> and unknown elements are ignored). Errors name the line.
func ReadConf(name string, r io.Reader) (Conf, error) {
	dec := xml.NewDecoder(bufio.NewReader(newCapReader(r, MaxInputBytes)))
	dec.CharsetReader = charsetReader
	conf := Conf{}
	var (
		inProperty bool
		field      string // "name" or "value" while inside one
		pName      strings.Builder
		pValue     strings.Builder
		sawRoot    bool
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, _ := dec.InputPos()
			return nil, readErrorOr(Diagnostic{File: name, Line: int64(line), Offset: -1,
				Msg: "not a Hadoop configuration XML document"}, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "configuration":
				sawRoot = true
			case "property":
				inProperty, field = true, ""
				pName.Reset()
				pValue.Reset()
			case "name", "value":
				if inProperty {
					field = t.Name.Local
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "property":
				if inProperty && pName.Len() > 0 {
					if len(conf) >= maxConfProperties {
						line, _ := dec.InputPos()
						return nil, Diagnostic{File: name, Line: int64(line), Offset: -1,
							Msg: fmt.Sprintf("more than %d properties", maxConfProperties)}.parseError(nil)
					}
					conf[strings.TrimSpace(pName.String())] = pValue.String()
				}
				inProperty, field = false, ""
			case "name", "value":
				field = ""
			}
		case xml.CharData:
			switch field {
			case "name":
				pName.Write(t)
			case "value":
				pValue.Write(t)
			}
		}
	}
	if !sawRoot {
		return nil, Diagnostic{File: name, Offset: -1,
			Msg: "no <configuration> element: not a Hadoop configuration file"}.parseError(nil)
	}
	return conf, nil
}

// charsetReader accepts the encodings Hadoop writers declare besides UTF-8.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return in, nil
	case "iso-8859-1", "latin1", "latin-1", "iso_8859-1":
		return &latin1Reader{r: bufio.NewReader(in)}, nil
	}
	return nil, fmt.Errorf("unsupported XML encoding %q", label)
}

// latin1Reader converts ISO-8859-1 bytes to UTF-8.
type latin1Reader struct {
	r       *bufio.Reader
	pending []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(l.pending) > 0 {
			c := copy(p[n:], l.pending)
			l.pending = l.pending[c:]
			n += c
			continue
		}
		b, err := l.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if b < utf8.RuneSelf {
			p[n] = b
			n++
			continue
		}
		l.pending = utf8.AppendRune(l.pending[:0], rune(b))
	}
	return n, nil
}

// confKeys lists, per fact, the property names that carry it: new (Hadoop 2+,
// or for the JobTracker and TaskTracker settings Hadoop 0.21+) names first,
// then the Hadoop 1 names.
var confKeys = struct {
	queue, user, name, mapMB, reduceMB, input []string
	mapSlots, reduceSlots, scheduler          []string
	mapMaxAttempts, reduceMaxAttempts         []string
	outOfBandHeartbeat, commonVersion         []string
}{
	queue:    []string{"mapreduce.job.queuename", "mapred.job.queue.name"},
	user:     []string{"mapreduce.job.user.name", "user.name"},
	name:     []string{"mapreduce.job.name", "mapred.job.name"},
	mapMB:    []string{"mapreduce.map.memory.mb", "mapred.job.map.memory.mb"},
	reduceMB: []string{"mapreduce.reduce.memory.mb", "mapred.job.reduce.memory.mb"},
	input:    []string{"mapreduce.input.fileinputformat.inputdir", "mapred.input.dir"},
	// Hadoop 1 only: YARN has no slots. The 0.21+ names (Hadoop's
	// deprecation table, ConfigUtil: TTConfig.TT_MAP_SLOTS and
	// TT_REDUCE_SLOTS) count only for a JobTracker's job (Conf.mr1Keys).
	mapSlots:    []string{"mapreduce.tasktracker.map.tasks.maximum", "mapred.tasktracker.map.tasks.maximum"},
	reduceSlots: []string{"mapreduce.tasktracker.reduce.tasks.maximum", "mapred.tasktracker.reduce.tasks.maximum"},
	// the JobTracker's keys first (0.21+ JTConfig.JT_TASK_SCHEDULER, then
	// Hadoop 1's), the ResourceManager's last (Conf.scheduler)
	scheduler: []string{"mapreduce.jobtracker.taskscheduler", "mapred.jobtracker.taskScheduler", "yarn.resourcemanager.scheduler.class"},
	// Hadoop 2's key first, Hadoop 1's second
	mapMaxAttempts:    []string{"mapreduce.map.maxattempts", "mapred.map.max.attempts"},
	reduceMaxAttempts: []string{"mapreduce.reduce.maxattempts", "mapred.reduce.max.attempts"},
	// the TaskTracker's out-of-band heartbeat on task completion: one name
	// in 0.21+ and in Hadoop 1 alike (TaskTracker.TT_OUTOFBAND_HEARBEAT,
	// apache/hadoop branch-1; TTConfig in 0.21+), no deprecated older one
	outOfBandHeartbeat: []string{"mapreduce.tasktracker.outofband.heartbeat"},
	// the version of the core-default.xml that wrote the conf
	// (hadoop.common.configuration.version: 0.21.0 in apache/hadoop-common
	// branch-0.21's common/src/java/core-default.xml, 0.22.x in branch-0.22's,
	// 0.23.0 in Hadoop 2's; 0.20 and 1.x have no such key)
	commonVersion: []string{"hadoop.common.configuration.version"},
}

// mr1Names are the 0.21+ names of JobTracker and TaskTracker settings in
// confKeys. A Hadoop 2 job's conf carries them too, as defaults from its
// mapred-default.xml (mapreduce.tasktracker.map.tasks.maximum = 2,
// mapreduce.jobtracker.taskscheduler = JobQueueTaskScheduler,
// mapreduce.tasktracker.outofband.heartbeat = false: the YARN test histories
// of testdata/jhist hold them), where no JobTracker or TaskTracker read them;
// so they count only for a job a JobTracker ran (Conf.mr1Keys).
var mr1Names = map[string]bool{
	"mapreduce.tasktracker.map.tasks.maximum":    true,
	"mapreduce.tasktracker.reduce.tasks.maximum": true,
	"mapreduce.jobtracker.taskscheduler":         true,
	"mapreduce.tasktracker.outofband.heartbeat":  true,
}

// mr1Keys returns keys without the mr1Names unless the conf is that of a
// job a Hadoop 1 JobTracker ran: its id is a JobTracker's
// (JobTrackerJobID) and the conf does not say mapreduce.framework.name =
// yarn.
func (c Conf) mr1Keys(jobID string, keys []string) []string {
	if JobTrackerJobID(jobID) && !c.onYARN() {
		return keys
	}
	var out []string
	for _, k := range keys {
		if !mr1Names[k] {
			out = append(out, k)
		}
	}
	return out
}

// onYARN reports whether the conf says the job ran on YARN
// (mapreduce.framework.name = yarn).
func (c Conf) onYARN() bool {
	return strings.EqualFold(strings.TrimSpace(c["mapreduce.framework.name"]), "yarn")
}

// get returns the first of the keys that is set to a non-empty value.
func (c Conf) get(keys []string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(c[k]); v != "" {
			return v
		}
	}
	return ""
}

// flag returns 1 for a value of true and 0 for false (trimmed, any case, as
// Hadoop's Configuration.getBoolean reads them), else Unknown.
func (c Conf) flag(keys []string) int32 {
	switch v := c.get(keys); {
	case strings.EqualFold(v, "true"):
		return 1
	case strings.EqualFold(v, "false"):
		return 0
	}
	return Unknown
}

// memoryMB returns a positive int32 (a memory size in MB, a slot count, a
// number of attempts), or Unknown.
func (c Conf) memoryMB(keys []string) int32 {
	v := c.get(keys)
	if v == "" {
		return Unknown
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n <= 0 {
		return Unknown
	}
	return int32(n)
}

// applyTo fills what a job's history leaves open from its configuration: queue,
// user and name only when the history has none (the history records what really
// happened: the scheduler's final queue, the submitting user), and the container
// memory and input directories, which only the configuration knows, and the
// cluster settings it records (slots, scheduler, out-of-band heartbeat, and
// for a JobTracker's job the common configuration version).
func (c Conf) applyTo(j *Job) {
	if j.Queue == "" {
		j.Queue = c.get(confKeys.queue)
	}
	if j.User == "" {
		j.User = c.get(confKeys.user)
	}
	if j.Name == "" {
		j.Name = c.get(confKeys.name)
	}
	if j.MapMemoryMB < 0 {
		j.MapMemoryMB = c.memoryMB(confKeys.mapMB)
	}
	if j.ReduceMemoryMB < 0 {
		j.ReduceMemoryMB = c.memoryMB(confKeys.reduceMB)
	}
	if j.InputPath == "" {
		j.InputPath = c.get(confKeys.input)
	}
	if j.ConfMapSlots < 0 {
		j.ConfMapSlots = c.memoryMB(c.mr1Keys(j.ID, confKeys.mapSlots))
	}
	if j.ConfReduceSlots < 0 {
		j.ConfReduceSlots = c.memoryMB(c.mr1Keys(j.ID, confKeys.reduceSlots))
	}
	if j.Scheduler == "" {
		j.Scheduler = c.scheduler(j.ID)
	}
	if j.ConfOutOfBandHeartbeat < 0 {
		j.ConfOutOfBandHeartbeat = c.flag(c.mr1Keys(j.ID, confKeys.outOfBandHeartbeat))
	}
	if j.ConfCommonVersion == "" && JobTrackerJobID(j.ID) && !c.onYARN() {
		// a JobTracker's job only, as mr1Keys: what reads it is the
		// JobTracker scheduler's version
		j.ConfCommonVersion = c.get(confKeys.commonVersion)
	}
	if j.ConfMapMaxAttempts < 0 {
		j.ConfMapMaxAttempts = c.memoryMB(confKeys.mapMaxAttempts)
	}
	if j.ConfReduceMaxAttempts < 0 {
		j.ConfReduceMaxAttempts = c.memoryMB(confKeys.reduceMaxAttempts)
	}
}

// scheduler is the scheduler class the conf of job jobID names. A job that
// ran on YARN (mapreduce.framework.name = yarn) was scheduled by the
// ResourceManager's scheduler: its yarn.resourcemanager.scheduler.class wins
// over a JobTracker key the conf may still carry from Hadoop 1 settings.
// Otherwise (Hadoop 1, or a conf that does not say) the JobTracker's
// taskScheduler comes first, as a Hadoop 1 cluster knows no yarn.* key; its
// 0.21+ name only for a JobTracker's job (Conf.mr1Keys).
func (c Conf) scheduler(jobID string) string {
	if c.onYARN() {
		if v := strings.TrimSpace(c["yarn.resourcemanager.scheduler.class"]); v != "" {
			return v
		}
	}
	return c.get(c.mr1Keys(jobID, confKeys.scheduler))
}
