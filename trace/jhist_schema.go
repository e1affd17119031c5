package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// The Avro decoding of .jhist events is done by github.com/linkedin/goavro/v2
// with the schema written in the file. This file holds a small model of that
// schema used for two things goavro does not do: rejecting schemas that could
// make decoding recurse without consuming input, and checking each binary datum
// before goavro decodes it. goavro allocates arrays and maps with the block
// count the data claims (up to 2^31 items) before reading any item, so a hostile
// count of a few bytes would make it allocate tens of gigabytes; the check
// bounds every count by the bytes that remain and tells where a datum ends,
// which gives byte offsets for error messages.

type avroKind uint8

const (
	avNull avroKind = iota
	avBoolean
	avInt
	avLong
	avFloat
	avDouble
	avBytes
	avString
	avRecord
	avEnum
	avArray
	avMap
	avUnion
	avFixed
)

// avroNode is one type of a parsed schema.
type avroNode struct {
	kind    avroKind
	name    string      // full name of named types
	fields  []*avroNode // record fields, union branches
	items   *avroNode   // array items, map values
	symbols int         // enum size
	size    int         // fixed size
	minSize int         // fewest bytes a datum of this type occupies
}

// Limits on schemas: the .jhist Event schema is about 7 KB, 4 levels deep, with
// some 20 named types.
const (
	maxSchemaBytes = 1 << 20
	maxSchemaDepth = 32
	maxSchemaNodes = 100_000
	// maxZeroWidthItems bounds arrays and maps of types that occupy no bytes
	// (null, empty records), whose counts the input size cannot bound.
	maxZeroWidthItems = 1 << 16
)

type schemaParser struct {
	named   map[string]*avroNode
	pending map[string]bool // named types being defined (recursion)
	nodes   int
}

// parseAvroSchema parses an Avro schema given as JSON text.
func parseAvroSchema(text []byte) (*avroNode, error) {
	if len(text) > maxSchemaBytes {
		return nil, fmt.Errorf("schema longer than %d bytes", maxSchemaBytes)
	}
	var v any
	if err := json.Unmarshal(text, &v); err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	p := &schemaParser{named: map[string]*avroNode{}, pending: map[string]bool{}}
	return p.parse(v, "", 0)
}

var primitiveKinds = map[string]avroKind{
	"null": avNull, "boolean": avBoolean, "int": avInt, "long": avLong,
	"float": avFloat, "double": avDouble, "bytes": avBytes, "string": avString,
}

func fullName(name, namespace string) string {
	if strings.Contains(name, ".") || namespace == "" {
		return name
	}
	return namespace + "." + name
}

func (p *schemaParser) parse(v any, ns string, depth int) (*avroNode, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("schema nested deeper than %d levels", maxSchemaDepth)
	}
	if p.nodes++; p.nodes > maxSchemaNodes {
		return nil, fmt.Errorf("schema has more than %d types", maxSchemaNodes)
	}
	switch s := v.(type) {
	case string:
		return p.ref(s, ns)
	case []any:
		n := &avroNode{kind: avUnion, minSize: 1}
		for _, b := range s {
			c, err := p.parse(b, ns, depth+1)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, c)
		}
		if len(n.fields) == 0 {
			return nil, errors.New("schema has an empty union")
		}
		return n, nil
	case map[string]any:
		return p.parseObject(s, ns, depth)
	}
	return nil, fmt.Errorf("schema has a type of JSON kind %T", v)
}

func (p *schemaParser) ref(s, ns string) (*avroNode, error) {
	if k, ok := primitiveKinds[s]; ok {
		return &avroNode{kind: k, minSize: primitiveMinSize(k)}, nil
	}
	for _, fn := range []string{fullName(s, ns), s} {
		if p.pending[fn] {
			return nil, fmt.Errorf("schema type %q refers to itself; recursive schemas are not accepted", fn)
		}
		if n, ok := p.named[fn]; ok {
			return n, nil
		}
	}
	return nil, fmt.Errorf("schema refers to undefined type %q", s)
}

func primitiveMinSize(k avroKind) int {
	switch k {
	case avNull:
		return 0
	case avFloat:
		return 4
	case avDouble:
		return 8
	}
	return 1
}

func (p *schemaParser) parseObject(s map[string]any, ns string, depth int) (*avroNode, error) {
	typ, _ := s["type"].(string)
	switch typ {
	case "record", "error", "enum", "fixed":
	case "array":
		items, err := p.parse(s["items"], ns, depth+1)
		if err != nil {
			return nil, err
		}
		return &avroNode{kind: avArray, items: items, minSize: 1}, nil
	case "map":
		values, err := p.parse(s["values"], ns, depth+1)
		if err != nil {
			return nil, err
		}
		return &avroNode{kind: avMap, items: values, minSize: 1}, nil
	default:
		if t, ok := s["type"]; ok {
			return p.parse(t, ns, depth+1) // {"type":"string"} or {"type":{…}}
		}
		return nil, errors.New("schema object without a type")
	}
	name, _ := s["name"].(string)
	if name == "" {
		return nil, fmt.Errorf("schema %s without a name", typ)
	}
	if nsv, ok := s["namespace"].(string); ok && !strings.Contains(name, ".") {
		ns = nsv
	}
	fn := fullName(name, ns)
	if i := strings.LastIndexByte(fn, '.'); i >= 0 {
		ns = fn[:i]
	}
	if _, dup := p.named[fn]; dup || p.pending[fn] {
		return nil, fmt.Errorf("schema defines type %q twice", fn)
	}
	n := &avroNode{name: fn}
	switch typ {
	case "enum":
		syms, _ := s["symbols"].([]any)
		if len(syms) == 0 {
			return nil, fmt.Errorf("schema enum %q has no symbols", fn)
		}
		n.kind, n.symbols, n.minSize = avEnum, len(syms), 1
	case "fixed":
		size, ok := s["size"].(float64)
		if !ok || size < 0 || size > maxSchemaBytes || size != math.Trunc(size) {
			return nil, fmt.Errorf("schema fixed %q has a bad size", fn)
		}
		n.kind, n.size, n.minSize = avFixed, int(size), int(size)
	default:
		n.kind = avRecord
		fields, ok := s["fields"].([]any)
		if !ok {
			return nil, fmt.Errorf("schema record %q has no fields", fn)
		}
		p.pending[fn] = true
		for _, f := range fields {
			fm, ok := f.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("schema record %q has a field that is not an object", fn)
			}
			c, err := p.parse(fm["type"], ns, depth+1)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, c)
			n.minSize += c.minSize
			if n.minSize > maxSchemaBytes {
				return nil, fmt.Errorf("schema record %q is too large", fn)
			}
		}
		delete(p.pending, fn)
	}
	p.named[fn] = n
	return n, nil
}

// errShortDatum is returned when a binary datum runs past the end of the input.
var errShortDatum = errors.New("datum runs past the end of the file")

// avroSkip checks the binary datum of type n at buf[off:] and returns the offset
// just after it. It never allocates in proportion to the counts it reads.
func avroSkip(n *avroNode, buf []byte, off int) (int, error) {
	switch n.kind {
	case avNull:
		return off, nil
	case avBoolean:
		if off >= len(buf) {
			return 0, errShortDatum
		}
		return off + 1, nil
	case avInt, avLong:
		_, end, err := avroVarint(buf, off)
		return end, err
	case avFloat, avDouble, avFixed:
		size := n.minSize
		if off+size > len(buf) {
			return 0, errShortDatum
		}
		return off + size, nil
	case avBytes, avString:
		l, end, err := avroVarint(buf, off)
		if err != nil {
			return 0, err
		}
		if l < 0 || l > int64(len(buf)-end) {
			return 0, fmt.Errorf("string length %d at byte %d exceeds the %d bytes left", l, off, len(buf)-end)
		}
		return end + int(l), nil
	case avEnum:
		v, end, err := avroVarint(buf, off)
		if err != nil {
			return 0, err
		}
		if v < 0 || v >= int64(n.symbols) {
			return 0, fmt.Errorf("enum index %d at byte %d out of range 0..%d", v, off, n.symbols-1)
		}
		return end, nil
	case avUnion:
		v, end, err := avroVarint(buf, off)
		if err != nil {
			return 0, err
		}
		if v < 0 || v >= int64(len(n.fields)) {
			return 0, fmt.Errorf("union branch %d at byte %d out of range 0..%d", v, off, len(n.fields)-1)
		}
		return avroSkip(n.fields[v], buf, end)
	case avRecord:
		var err error
		for _, f := range n.fields {
			if off, err = avroSkip(f, buf, off); err != nil {
				return 0, err
			}
		}
		return off, nil
	case avArray, avMap:
		return avroSkipBlocks(n, buf, off)
	}
	return 0, fmt.Errorf("unknown schema type %d", n.kind)
}

// avroSkipBlocks checks an array or map: blocks of (count, items) ended by a zero
// count; a negative count is followed by the block's byte size.
func avroSkipBlocks(n *avroNode, buf []byte, off int) (int, error) {
	itemMin := n.items.minSize
	if n.kind == avMap {
		itemMin++ // the key's length
	}
	var total int64
	for {
		start := off
		count, end, err := avroVarint(buf, off)
		if err != nil {
			return 0, err
		}
		off = end
		if count == 0 {
			return off, nil
		}
		if count < 0 {
			if count == math.MinInt64 {
				return 0, fmt.Errorf("block count at byte %d out of range", start)
			}
			count = -count
			size, end, err := avroVarint(buf, off)
			if err != nil {
				return 0, err
			}
			if size < 0 || size > int64(len(buf)-end) {
				return 0, fmt.Errorf("block size %d at byte %d exceeds the %d bytes left", size, start, len(buf)-end)
			}
			off = end
		}
		total += count
		if itemMin == 0 {
			if total > maxZeroWidthItems {
				return 0, fmt.Errorf("more than %d zero-width items at byte %d", maxZeroWidthItems, start)
			}
		} else if count > int64(len(buf)-off)/int64(itemMin) {
			return 0, fmt.Errorf("block of %d items at byte %d cannot fit in the %d bytes left", count, start, len(buf)-off)
		}
		for range count {
			if n.kind == avMap {
				l, end, err := avroVarint(buf, off)
				if err != nil {
					return 0, err
				}
				if l < 0 || l > int64(len(buf)-end) {
					return 0, fmt.Errorf("map key length %d at byte %d exceeds the %d bytes left", l, off, len(buf)-end)
				}
				off = end + int(l)
			}
			if off, err = avroSkip(n.items, buf, off); err != nil {
				return 0, err
			}
		}
	}
}

// avroVarint reads a zig-zag varint (Avro int or long).
func avroVarint(buf []byte, off int) (int64, int, error) {
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		if off >= len(buf) {
			return 0, 0, errShortDatum
		}
		b := buf[off]
		off++
		u |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return int64(u>>1) ^ -int64(u&1), off, nil
		}
	}
	return 0, 0, fmt.Errorf("varint longer than 10 bytes at byte %d", off-10)
}
