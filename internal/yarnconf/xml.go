// Package yarnconf reads the queue trees of YARN's CapacityScheduler and
// FairScheduler: Hadoop's own capacity-scheduler.xml (a <configuration> of
// <property> name/value pairs) and fair-scheduler.xml allocation files
// (<allocations>), and a TOML form of each (docs/yarn-schedulers.md). The
// trees it returns are resolved: capacities are fractions, durations are µs,
// inherited and default values are filled in, and every queue has its full
// path. Errors name the file, the line (XML) or key (TOML) and the element
// or property at fault.
package yarnconf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// node is an XML element (or a TOML table read as one): its name, attributes,
// text, children, and where it starts, for error messages.
type node struct {
	name     string
	attrs    map[string]string
	text     string
	children []*node
	where    string // "line 12" or "key root.a.weight"
}

// lineCounter turns decoder offsets into 1-based line numbers without
// rescanning the file from the start each time.
type lineCounter struct {
	data       []byte
	off, lines int
}

func (l *lineCounter) at(off int64) int {
	o := int(min(max(off, 0), int64(len(l.data))))
	if o < l.off {
		l.off, l.lines = 0, 0
	}
	l.lines += bytes.Count(l.data[l.off:o], []byte{'\n'})
	l.off = o
	return l.lines + 1
}

// parseXML reads data as an element tree. Comments, processing instructions
// and directives are skipped; text is trimmed.
func parseXML(data []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	lc := &lineCounter{data: data}
	var stack []*node
	var root *node
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: malformed XML: %w", lc.at(d.InputOffset()), err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{name: t.Name.Local, where: fmt.Sprintf("line %d", lc.at(off))}
			for _, a := range t.Attr {
				if n.attrs == nil {
					n.attrs = map[string]string{}
				}
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root != nil {
				return nil, fmt.Errorf("%s: a second root element <%s>", n.where, n.name)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			n := stack[len(stack)-1]
			n.text = strings.TrimSpace(n.text)
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			} else if len(bytes.TrimSpace(t)) > 0 {
				return nil, fmt.Errorf("line %d: text outside the root element", lc.at(off))
			}
		}
	}
	if root == nil {
		return nil, errors.New("line 1: no root element")
	}
	return root, nil
}

// Load reads a queue file of either scheduler by its name: a .toml file is
// the TOML form (its top-level key scheduler = "capacity" or "fair" says
// which), an .xml file is capacity-scheduler.xml when its root element is
// <configuration> and an allocation file when it is <allocations>. Exactly
// one of the two results is non-nil when err is nil.
func Load(path string) (*CapacityConf, *FairConf, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("yarnconf: %w", err)
	}
	return Parse(path, data)
}

// Parse is Load on data already read; file names it in errors and its
// extension chooses the form (.toml, else XML).
func Parse(file string, data []byte) (*CapacityConf, *FairConf, error) {
	if strings.EqualFold(filepath.Ext(file), ".toml") {
		kind, err := tomlKind(file, data)
		if err != nil {
			return nil, nil, err
		}
		if kind == "fair" {
			f, err := ParseFairTOML(file, data)
			return nil, f, err
		}
		c, err := ParseCapacityTOML(file, data)
		return c, nil, err
	}
	root, err := parseXML(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	switch root.name {
	case "configuration":
		c, err := capacityFromXML(file, root)
		return c, nil, err
	case "allocations":
		f, err := fairFromTree(file, root)
		return nil, f, err
	}
	return nil, nil, fmt.Errorf("%s: %s: root element <%s>: want <configuration> (capacity-scheduler.xml) or <allocations> (fair-scheduler.xml)", file, root.where, root.name)
}
