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

// confKeys lists, per fact, the property names that carry it: new (Hadoop 2+)
// names first, then the Hadoop 1 names.
var confKeys = struct {
	queue, user, name, mapMB, reduceMB, input []string
	mapSlots, reduceSlots, scheduler          []string
	mapMaxAttempts, reduceMaxAttempts         []string
}{
	queue:       []string{"mapreduce.job.queuename", "mapred.job.queue.name"},
	user:        []string{"mapreduce.job.user.name", "user.name"},
	name:        []string{"mapreduce.job.name", "mapred.job.name"},
	mapMB:       []string{"mapreduce.map.memory.mb", "mapred.job.map.memory.mb"},
	reduceMB:    []string{"mapreduce.reduce.memory.mb", "mapred.job.reduce.memory.mb"},
	input:       []string{"mapreduce.input.fileinputformat.inputdir", "mapred.input.dir"},
	mapSlots:    []string{"mapred.tasktracker.map.tasks.maximum"}, // Hadoop 1 only: YARN has no slots
	reduceSlots: []string{"mapred.tasktracker.reduce.tasks.maximum"},
	// the JobTracker's key first, the ResourceManager's second (Conf.scheduler)
	scheduler: []string{"mapred.jobtracker.taskScheduler", "yarn.resourcemanager.scheduler.class"},
	// Hadoop 2's key first, Hadoop 1's second
	mapMaxAttempts:    []string{"mapreduce.map.maxattempts", "mapred.map.max.attempts"},
	reduceMaxAttempts: []string{"mapreduce.reduce.maxattempts", "mapred.reduce.max.attempts"},
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
// memory and input directories, which only the configuration knows.
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
		j.ConfMapSlots = c.memoryMB(confKeys.mapSlots)
	}
	if j.ConfReduceSlots < 0 {
		j.ConfReduceSlots = c.memoryMB(confKeys.reduceSlots)
	}
	if j.Scheduler == "" {
		j.Scheduler = c.scheduler()
	}
	if j.ConfMapMaxAttempts < 0 {
		j.ConfMapMaxAttempts = c.memoryMB(confKeys.mapMaxAttempts)
	}
	if j.ConfReduceMaxAttempts < 0 {
		j.ConfReduceMaxAttempts = c.memoryMB(confKeys.reduceMaxAttempts)
	}
}

// scheduler is the scheduler class the conf names. A job that ran on YARN
// (mapreduce.framework.name = yarn) was scheduled by the ResourceManager's
// scheduler: its yarn.resourcemanager.scheduler.class wins over a JobTracker
// key the conf may still carry from Hadoop 1 settings. Otherwise (Hadoop 1, or
// a conf that does not say) the JobTracker's taskScheduler comes first, as a
// Hadoop 1 cluster knows no yarn.* key.
func (c Conf) scheduler() string {
	if strings.EqualFold(strings.TrimSpace(c["mapreduce.framework.name"]), "yarn") {
		if v := strings.TrimSpace(c["yarn.resourcemanager.scheduler.class"]); v != "" {
			return v
		}
	}
	return c.get(confKeys.scheduler)
}
