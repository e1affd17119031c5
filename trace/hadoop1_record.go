package trace

import (
	"fmt"
	"strings"
)

// A Hadoop 0.20/1.x history record: RecordType KEY="VALUE" KEY="VALUE" … .
// (FORMATS §3.1–3.4). Version 1 escapes '"', '=', '.' and '\' in values with '\'
// and ends a record with " ."; version 0 escapes nothing and ends a record with
// the closing quote of its last value.

// h1Pair is one KEY="VALUE" of a record, value unescaped.
type h1Pair struct{ key, value string }

// h1Record is one parsed logical record.
type h1Record struct {
	typ   string
	pairs []h1Pair
}

// get returns the value of key, and whether the record has it.
func (r *h1Record) get(key string) (string, bool) {
	for i := range r.pairs {
		if r.pairs[i].key == key {
			return r.pairs[i].value, true
		}
	}
	return "", false
}

// str returns the value of key or "".
func (r *h1Record) str(key string) string {
	v, _ := r.get(key)
	return v
}

// recordComplete reports whether the accumulated text of a logical record is
// complete: its trimmed end is the line delimiter ('.' in version 1, '"' in
// version 0) and not the escaped delimiter — the rule of Hadoop's
// JobHistory.parseHistoryFromFS.
func recordComplete(line string, version int) bool {
	t := strings.TrimRight(line, " \t\r\n\f\v")
	delim, escaped := ".", `\.`
	if version == 0 {
		delim, escaped = `"`, `\"`
	}
	return strings.HasSuffix(t, delim) && !strings.HasSuffix(t, escaped)
}

// isWordByte reports whether b matches \w.
func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// parseH1Record splits a logical record into its type and pairs, as Hadoop's
// pair regex (\w+)="([^"\\]*(?:\\.[^"\\]*)*)" would find them. Text that is no
// pair (a record cut in the middle of a key) is returned as junk so that the
// caller can report it.
func parseH1Record(rec string, escaped bool) (r h1Record, junk string) {
	rec = strings.TrimLeft(rec, " \t\r\n")
	sp := strings.IndexByte(rec, ' ')
	if sp < 0 {
		return h1Record{typ: strings.TrimRight(rec, " .\r\n\t")}, ""
	}
	r.typ = rec[:sp]
	data := rec[sp+1:]
	var junkB strings.Builder
	i := 0
	for i < len(data) {
		eq := strings.Index(data[i:], `="`)
		if eq < 0 {
			junkB.WriteString(data[i:])
			break
		}
		eq += i
		k := eq
		for k > i && isWordByte(data[k-1]) {
			k--
		}
		junkB.WriteString(data[i:k])
		if k == eq { // no key before ="
			junkB.WriteString(`="`)
			i = eq + 2
			continue
		}
		v, end, ok := scanH1Value(data, eq+2, escaped)
		if !ok {
			junkB.WriteString(data[k:])
			break
		}
		r.pairs = append(r.pairs, h1Pair{key: data[k:eq], value: v})
		i = end
	}
	j := strings.TrimSpace(junkB.String())
	if escaped {
		j = strings.TrimSpace(strings.TrimSuffix(j, "."))
	}
	return r, j
}

// scanH1Value reads a value starting after its opening quote and returns it
// unescaped (version 1) or raw (version 0), and the index after the closing
// quote.
func scanH1Value(data string, start int, escaped bool) (string, int, bool) {
	if !escaped {
		q := strings.IndexByte(data[start:], '"')
		if q < 0 {
			return "", 0, false
		}
		return data[start : start+q], start + q + 1, true
	}
	var b strings.Builder
	plain := true // no escape seen yet: return a substring, not a copy
	for i := start; i < len(data); i++ {
		switch data[i] {
		case '"':
			if plain {
				return data[start:i], i + 1, true
			}
			return b.String(), i + 1, true
		case '\\':
			if i+1 >= len(data) {
				return "", 0, false
			}
			if plain {
				b.Grow(len(data) - start)
				b.WriteString(data[start:i])
				plain = false
			}
			i++
			b.WriteByte(data[i])
		default:
			if !plain {
				b.WriteByte(data[i])
			}
		}
	}
	return "", 0, false
}

// parseCompactCounters parses a counters value (already history-unescaped) and
// calls set for each counter. It accepts the escaped compact form of Hadoop
// 0.20/1.x, {(group)(display)[(name)(display)(value)]…}…, and the plain compact
// form of version 0 files, "Group.Counter:value,…", which names counters by
// display name only.
func parseCompactCounters(s string, c *counters) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if s[0] != '{' {
		return parseV0Counters(s, c)
	}
	p := counterScanner{s: s}
	for p.i < len(p.s) {
		if err := p.expect('{'); err != nil {
			return err
		}
		group, err := p.paren()
		if err != nil {
			return err
		}
		if _, err := p.paren(); err != nil { // display name
			return err
		}
		for p.i < len(p.s) && p.s[p.i] == '[' {
			p.i++
			name, err := p.paren()
			if err != nil {
				return err
			}
			if _, err := p.paren(); err != nil {
				return err
			}
			val, err := p.paren()
			if err != nil {
				return err
			}
			if err := p.expect(']'); err != nil {
				return err
			}
			v, err := parseInt64(val)
			if err != nil {
				return fmt.Errorf("counter %s.%s: %w", group, name, err)
			}
			c.set(group, name, v)
		}
		if err := p.expect('}'); err != nil {
			return err
		}
	}
	return nil
}

type counterScanner struct {
	s string
	i int
}

func (p *counterScanner) expect(b byte) error {
	if p.i >= len(p.s) || p.s[p.i] != b {
		return fmt.Errorf("counters string: expected %q at character %d", b, p.i)
	}
	p.i++
	return nil
}

// paren reads "(text)" with \x escapes inside.
func (p *counterScanner) paren() (string, error) {
	if err := p.expect('('); err != nil {
		return "", err
	}
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		p.i++
		switch ch {
		case ')':
			return b.String(), nil
		case '\\':
			if p.i < len(p.s) {
				b.WriteByte(p.s[p.i])
				p.i++
			}
		default:
			b.WriteByte(ch)
		}
	}
	return "", fmt.Errorf("counters string: unterminated name at character %d", p.i)
}

// v0CounterNames maps the display names of Hadoop 0.18/0.19 counters to the
// group and counter names the trace keys on.
var v0CounterNames = map[string][2]string{
	"hdfs bytes read":               {"FileSystemCounters", "HDFS_BYTES_READ"},
	"hdfs bytes written":            {"FileSystemCounters", "HDFS_BYTES_WRITTEN"},
	"local bytes written":           {"FileSystemCounters", "FILE_BYTES_WRITTEN"},
	"file bytes written":            {"FileSystemCounters", "FILE_BYTES_WRITTEN"},
	"map output bytes":              {"org.apache.hadoop.mapred.Task$Counter", "MAP_OUTPUT_BYTES"},
	"map output materialized bytes": {"org.apache.hadoop.mapred.Task$Counter", "MAP_OUTPUT_MATERIALIZED_BYTES"},
	"reduce shuffle bytes":          {"org.apache.hadoop.mapred.Task$Counter", "REDUCE_SHUFFLE_BYTES"},
}

func parseV0Counters(s string, c *counters) error {
	for _, item := range strings.Split(s, ",") {
		colon := strings.LastIndexByte(item, ':')
		if colon < 0 {
			return fmt.Errorf("counters string: %q is not Group.Counter:value", clip(item, 60))
		}
		name := strings.ToLower(item[:colon])
		if dot := strings.IndexByte(name, '.'); dot >= 0 {
			name = name[dot+1:]
		}
		gc, ok := v0CounterNames[strings.TrimSpace(name)]
		if !ok {
			continue
		}
		v, err := parseInt64(item[colon+1:])
		if err != nil {
			return fmt.Errorf("counter %q: %w", clip(item[:colon], 60), err)
		}
		c.set(gc[0], gc[1], v)
	}
	return nil
}
