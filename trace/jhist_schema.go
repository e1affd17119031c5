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
// make decoding recurse without consuming input or repeat items that occupy no
// bytes, and checking each binary datum before goavro decodes it. goavro
// allocates arrays and maps with the block count the data claims (up to 2^31
// items) before reading any item, so a hostile count of a few bytes would make
// it allocate tens of gigabytes; the check bounds every count by the bytes
// that remain, adds up an estimate of what goavro will allocate for the datum
// (refusing it past maxEventAlloc), and tells where a datum ends, which gives
// byte offsets for error messages.

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
	// maxEventBytes bounds one event (an Avro-Json value or an Avro-Binary
	// datum); real events are under 100 KB (a job-finished event with three
	// counter sets).
	maxEventBytes = 1 << 20
	// maxEventAlloc bounds the estimated memory goavro allocates to decode one
	// binary event (see avroChecker): a datum of one-byte records makes goavro
	// build a map per byte.
	maxEventAlloc = 16 << 20
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
		if items.minSize == 0 {
			// a count of such items costs no input: one byte could claim 2^63
			// of them. JobHistory's arrays hold strings, ints and records.
			return nil, errors.New("schema has an array of a type that occupies no bytes (null or an empty record); JobHistory schemas have none")
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

// errShortDatum is returned (wrapped) when a binary datum runs past the end of
// the bytes at hand, or claims more items than they can hold: with more input
// the datum may still be complete.
var errShortDatum = errors.New("datum runs past the end of the input")

// Estimated bytes goavro allocates per decoded value (see avroChecker),
// measured with Go 1.26 maps: a map[string]any of up to 8 entries takes about
// 300 bytes, each further entry about 40.
const (
	allocValue  = 16  // an interface value
	allocRecord = 320 // a record's map of up to 8 fields
	allocMapKV  = 48  // one further entry of a Go map[string]any
	allocBlock  = 24  // a slice header per array block
	allocUnion  = 320 // goavro wraps a non-null union value in a one-entry map
)

// avroChecker checks binary datums against a schema without decoding them.
type avroChecker struct {
	buf  []byte
	cost int64 // estimated goavro allocation of the datum so far
}

// avroSkip checks the binary datum of type n at buf[off:] and returns the offset
// just after it. It never allocates in proportion to the counts it reads, and
// fails when goavro would allocate more than maxEventAlloc for the datum.
func avroSkip(n *avroNode, buf []byte, off int) (int, error) {
	c := avroChecker{buf: buf}
	return c.skip(n, off)
}

func (c *avroChecker) spend(b int64, off int) error {
	c.cost += b
	if c.cost > maxEventAlloc {
		return fmt.Errorf("datum would make the decoder allocate more than %d bytes (at byte %d)", maxEventAlloc, off)
	}
	return nil
}

func (c *avroChecker) skip(n *avroNode, off int) (int, error) {
	buf := c.buf
	switch n.kind {
	case avNull:
		return off, nil
	case avBoolean:
		if off >= len(buf) {
			return 0, errShortDatum
		}
		return off + 1, c.spend(allocValue, off)
	case avInt, avLong:
		_, end, err := avroVarint(buf, off)
		if err != nil {
			return 0, err
		}
		return end, c.spend(allocValue, off)
	case avFloat, avDouble, avFixed:
		size := n.minSize
		if off+size > len(buf) {
			return 0, errShortDatum
		}
		return off + size, c.spend(allocValue+int64(size), off)
	case avBytes, avString:
		l, end, err := avroVarint(buf, off)
		if err != nil {
			return 0, err
		}
		if l < 0 {
			return 0, fmt.Errorf("negative string length %d at byte %d", l, off)
		}
		if l > int64(len(buf)-end) {
			return 0, fmt.Errorf("string length %d at byte %d exceeds the %d bytes left: %w", l, off, len(buf)-end, errShortDatum)
		}
		return end + int(l), c.spend(allocValue+l, off)
	case avEnum:
		v, end, err := avroVarint(buf, off)
		if err != nil {
			return 0, err
		}
		if v < 0 || v >= int64(n.symbols) {
			return 0, fmt.Errorf("enum index %d at byte %d out of range 0..%d", v, off, n.symbols-1)
		}
		return end, c.spend(allocValue, off)
	case avUnion:
		v, end, err := avroVarint(buf, off)
		if err != nil {
			return 0, err
		}
		if v < 0 || v >= int64(len(n.fields)) {
			return 0, fmt.Errorf("union branch %d at byte %d out of range 0..%d", v, off, len(n.fields)-1)
		}
		if n.fields[v].kind != avNull {
			if err := c.spend(allocUnion, off); err != nil {
				return 0, err
			}
		}
		return c.skip(n.fields[v], end)
	case avRecord:
		if err := c.spend(allocRecord+allocMapKV*int64(max(len(n.fields)-8, 0)), off); err != nil {
			return 0, err
		}
		var err error
		for _, f := range n.fields {
			if off, err = c.skip(f, off); err != nil {
				return 0, err
			}
		}
		return off, nil
	case avArray, avMap:
		return c.skipBlocks(n, off)
	}
	return 0, fmt.Errorf("unknown schema type %d", n.kind)
}

// skipBlocks checks an array or map: blocks of (count, items) ended by a zero
// count; a negative count is followed by the block's byte size.
func (c *avroChecker) skipBlocks(n *avroNode, off int) (int, error) {
	buf := c.buf
	itemMin := n.items.minSize
	perItem := int64(allocValue)
	if n.kind == avMap {
		itemMin++ // the key's length
		perItem = allocMapKV
	}
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
			if size < 0 {
				return 0, fmt.Errorf("negative block size %d at byte %d", size, start)
			}
			if size > int64(len(buf)-end) {
				return 0, fmt.Errorf("block size %d at byte %d exceeds the %d bytes left: %w", size, start, len(buf)-end, errShortDatum)
			}
			off = end
		}
		// itemMin >= 1: the schema parser refuses arrays of zero-width items
		if count > int64(len(buf)-off)/int64(itemMin) {
			return 0, fmt.Errorf("block of %d items at byte %d cannot fit in the %d bytes left: %w", count, start, len(buf)-off, errShortDatum)
		}
		if err := c.spend(allocBlock+perItem*count, start); err != nil {
			return 0, err
		}
		for range count {
			if n.kind == avMap {
				l, end, err := avroVarint(buf, off)
				if err != nil {
					return 0, err
				}
				if l < 0 {
					return 0, fmt.Errorf("negative map key length %d at byte %d", l, off)
				}
				if l > int64(len(buf)-end) {
					return 0, fmt.Errorf("map key length %d at byte %d exceeds the %d bytes left: %w", l, off, len(buf)-end, errShortDatum)
				}
				off = end + int(l)
			}
			if off, err = c.skip(n.items, off); err != nil {
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
