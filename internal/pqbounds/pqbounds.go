// Package pqbounds checks a Parquet file's claims (row counts, page and
// uncompressed sizes, thrift lists, level and index runs) against the file's
// size before parquet-go decodes it: parquet-go allocates from such claims
// before it reads the data behind them, so a few hostile bytes could make it
// ask for gigabytes. The results reader (report) and the trace reader (trace)
// call Check first; the trace reader, which opens a streamed trace's files
// once per pass, checks each version of a file once (pqfile.Checked).
package pqbounds

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// ErrBounds is the error (wrapped with the reason) of a Parquet file
// whose footer or pages claim more than its size can hold: more rows, values,
// uncompressed bytes or list items than the limits below allow. parquet-go
// allocates from such claims before it reads the data behind them, so
// checkParquet refuses them first.
var ErrBounds = errors.New("claim beyond the file's size")

// Limits of the readers, relative to the file's size in bytes. The
// results replay writes hold at most 0.4 rows and 9 uncompressed bytes per
// byte of file (a 1,000,000-row timeline: 0.36 and 8.7; jobs.parquet of the
// FB-2009 trace: 0.02 and 3.3), so the limits leave a margin of ten and more;
// with them a file of n bytes makes the reader allocate at most about
// 2,000·n + 2 MiB (rows of a few hundred bytes in memory each).
const (
	// rows (and values of a column chunk) ≤ minRowsLimit + rowsPerByte·size
	rowsPerByte  = 4
	minRowsLimit = 1024
	// Σ uncompressed page sizes ≤ minUncompressedLimit + expansionPerByte·size
	expansionPerByte     = 256
	minUncompressedLimit = 1 << 20
	// nesting of thrift structures and lists in the footer and page headers
	maxThriftDepth = 32
	// output of one zstd block (RFC 8878 Block_Maximum_Size)
	zstdMaxBlock = 128 << 10
)

func boundsErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBounds}, args...)...)
}

// leafInfo is what the page checks need of a leaf column.
type leafInfo struct {
	path           string
	typ            format.Type
	maxRep, maxDef int
}

// Check checks a Parquet file of size bytes before parquet-go decodes
// it: the footer's thrift lists and strings fit in the footer, the row count is
// within the limits and agrees with the row groups and column chunks, every
// chunk lies inside the file, and every page of every chunk has a header that
// fits, a size that fits, a compressed form (none, snappy or zstd) that cannot
// expand beyond the page's uncompressed size, and level and index runs that
// stay within the page's value count. A file that passes cannot make
// parquet-go allocate more than a bounded multiple of its size. Errors wrap
// ErrBounds when a claim exceeds the file. It first checks the magic bytes
// and the footer length (CheckFooter).
func Check(r io.ReaderAt, size int64) error {
	if err := CheckFooter(r, size); err != nil {
		return fmt.Errorf("not a Parquet file: %w", err)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail[:4]))
	dataEnd := size - 8 - footerLen
	footer := make([]byte, footerLen)
	if _, err := r.ReadAt(footer, dataEnd); err != nil {
		return err
	}
	if n, err := checkThriftStruct(footer, 0); err != nil {
		return fmt.Errorf("footer: %w", err)
	} else if n != len(footer) {
		return fmt.Errorf("footer: %d bytes after its metadata", len(footer)-n)
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	leaves, err := schemaLeaves(md.Schema)
	if err != nil {
		return err
	}
	maxRows := minRowsLimit + rowsPerByte*size
	if md.NumRows < 0 || md.NumRows > maxRows {
		return boundsErr("footer claims %d rows in a file of %d bytes (limit %d)", md.NumRows, size, maxRows)
	}
	var rows int64
	budget := minUncompressedLimit + expansionPerByte*size
	for g, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > md.NumRows-rows {
			return boundsErr("row group %d claims %d rows, more than the %d the footer has left", g, rg.NumRows, md.NumRows-rows)
		}
		rows += rg.NumRows
		if len(rg.Columns) != len(leaves) {
			return fmt.Errorf("row group %d has %d column chunks for %d leaf columns", g, len(rg.Columns), len(leaves))
		}
		for i := range rg.Columns {
			if err := checkChunk(r, dataEnd, &rg.Columns[i].MetaData, rg.Columns[i].FilePath, leaves[i], rg.NumRows, maxRows, &budget); err != nil {
				return fmt.Errorf("row group %d, column %q: %w", g, leaves[i].path, err)
			}
		}
	}
	if rows != md.NumRows {
		return fmt.Errorf("row groups hold %d rows, the footer announces %d", rows, md.NumRows)
	}
	return nil
}

// schemaLeaves returns the leaf columns of a flattened schema in file order.
func schemaLeaves(schema []format.SchemaElement) ([]leafInfo, error) {
	if len(schema) == 0 {
		return nil, errors.New("footer: empty schema")
	}
	var leaves []leafInfo
	i := 1
	var walk func(n int, path string, rep, def, depth int) error
	walk = func(n int, path string, rep, def, depth int) error {
		if depth > maxThriftDepth {
			return errors.New("schema nested too deeply")
		}
		for ; n > 0; n-- {
			if i >= len(schema) {
				return errors.New("schema: a group claims more children than the schema has")
			}
			s := &schema[i]
			i++
			r, d := rep, def
			switch s.RepetitionType.V {
			case format.Optional:
				d++
			case format.Repeated:
				r, d = r+1, d+1
			}
			p := s.Name
			if path != "" {
				p = path + "." + s.Name
			}
			if k := s.NumChildren.V; s.NumChildren.Valid && k > 0 {
				if int(k) > len(schema)-i {
					return fmt.Errorf("schema: group %q claims %d children, more than the schema has", p, k)
				}
				if err := walk(int(k), p, r, d, depth+1); err != nil {
					return err
				}
				continue
			}
			leaves = append(leaves, leafInfo{path: p, typ: s.Type.V, maxRep: r, maxDef: d})
		}
		return nil
	}
	root := schema[0].NumChildren.V
	if root < 0 || int(root) > len(schema)-1 {
		return nil, fmt.Errorf("schema: root claims %d children in a schema of %d elements", root, len(schema))
	}
	if err := walk(int(root), "", 0, 0, 0); err != nil {
		return nil, err
	}
	if i != len(schema) {
		return nil, fmt.Errorf("schema: %d elements belong to no group", len(schema)-i)
	}
	return leaves, nil
}

// checkChunk checks one column chunk and walks its pages. budget is what is
// left of the file's allowance of uncompressed bytes.
func checkChunk(r io.ReaderAt, dataEnd int64, cm *format.ColumnMetaData, filePath string, leaf leafInfo, rgRows, maxRows int64, budget *int64) error {
	if filePath != "" {
		return fmt.Errorf("data in another file (%q)", filePath)
	}
	switch cm.Codec {
	case format.Uncompressed, format.Snappy, format.Zstd:
	default:
		return fmt.Errorf("compression %s is not read (results are written with ZSTD; SNAPPY and none are read too)", cm.Codec)
	}
	if cm.NumValues < 0 || cm.NumValues > maxRows {
		return boundsErr("chunk claims %d values (limit %d)", cm.NumValues, maxRows)
	}
	if leaf.maxRep == 0 && cm.NumValues != rgRows {
		return fmt.Errorf("chunk has %d values for the row group's %d rows", cm.NumValues, rgRows)
	}
	start := cm.DataPageOffset
	if cm.DictionaryPageOffset != 0 {
		if cm.DictionaryPageOffset > cm.DataPageOffset {
			return fmt.Errorf("dictionary page at %d after the data pages at %d", cm.DictionaryPageOffset, cm.DataPageOffset)
		}
		start = cm.DictionaryPageOffset
	}
	if start < 4 || cm.TotalCompressedSize < 0 || cm.TotalCompressedSize > dataEnd-start {
		return boundsErr("chunk of %d bytes at offset %d is not inside the %d bytes before the footer", cm.TotalCompressedSize, start, dataEnd)
	}
	chunk := make([]byte, cm.TotalCompressedSize)
	if _, err := r.ReadAt(chunk, start); err != nil {
		return err
	}
	var values int64
	dict := false
	for pos, page := 0, 0; pos < len(chunk); page++ {
		n, err := checkThriftStruct(chunk[pos:], 0)
		if err != nil {
			return fmt.Errorf("page %d header at offset %d: %w", page, start+int64(pos), err)
		}
		var ph format.PageHeader
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), chunk[pos:pos+n], &ph); err != nil {
			return fmt.Errorf("page %d header at offset %d: %w", page, start+int64(pos), err)
		}
		pos += n
		c, u := int64(ph.CompressedPageSize), int64(ph.UncompressedPageSize)
		if c < 0 || c > int64(len(chunk)-pos) || u < 0 || u > *budget {
			return boundsErr("page %d claims %d bytes (%d uncompressed) with %d bytes left in the chunk and %d of the file's allowance of uncompressed bytes",
				page, c, u, len(chunk)-pos, *budget)
		}
		*budget -= u
		data := chunk[pos : pos+int(c)]
		pos += int(c)
		switch ph.Type {
		case format.DictionaryPage:
			h := ph.DictionaryPageHeader
			if !h.Valid || dict || values > 0 {
				return fmt.Errorf("page %d: misplaced or incomplete dictionary page", page)
			}
			dict = true
			if h.V.NumValues < 0 || int64(h.V.NumValues) > 8*u+8 {
				return boundsErr("dictionary page %d claims %d values in %d bytes", page, h.V.NumValues, u)
			}
			//lint:ignore SA1019 files written by Parquet 1.0 writers still use PLAIN_DICTIONARY; it must be read
			if h.V.Encoding != format.Plain && h.V.Encoding != format.PlainDictionary {
				return fmt.Errorf("dictionary page %d: encoding %s", page, h.V.Encoding)
			}
			if _, err := decompressPage(cm.Codec, data, u); err != nil {
				return fmt.Errorf("page %d: %w", page, err)
			}
		case format.DataPage:
			h := ph.DataPageHeader
			if !h.Valid || h.V.NumValues < 0 || int64(h.V.NumValues) > cm.NumValues-values {
				return boundsErr("data page %d claims more values than the chunk's %d", page, cm.NumValues)
			}
			nv := int(h.V.NumValues)
			values += int64(nv)
			b, err := decompressPage(cm.Codec, data, u)
			if err != nil {
				return fmt.Errorf("page %d: %w", page, err)
			}
			for _, lv := range []struct {
				max int
				enc format.Encoding
			}{{leaf.maxRep, h.V.RepetitionLevelEncoding}, {leaf.maxDef, h.V.DefinitionLevelEncoding}} {
				if lv.max == 0 {
					continue
				}
				if b, err = checkLevelsV1(b, lv.enc, lv.max, nv); err != nil {
					return fmt.Errorf("page %d: levels: %w", page, err)
				}
			}
			if err := checkValues(b, h.V.Encoding, leaf, nv, dict); err != nil {
				return fmt.Errorf("page %d: %w", page, err)
			}
		case format.DataPageV2:
			h := ph.DataPageHeaderV2
			if !h.Valid || h.V.NumValues < 0 || int64(h.V.NumValues) > cm.NumValues-values {
				return boundsErr("data page %d claims more values than the chunk's %d", page, cm.NumValues)
			}
			nv := int(h.V.NumValues)
			values += int64(nv)
			rl, dl := int64(h.V.RepetitionLevelsByteLength), int64(h.V.DefinitionLevelsByteLength)
			if h.V.NumNulls < 0 || h.V.NumNulls > h.V.NumValues || h.V.NumRows < 0 || h.V.NumRows > h.V.NumValues ||
				rl < 0 || dl < 0 || rl+dl > c || rl+dl > u {
				return fmt.Errorf("data page %d: inconsistent header (%d values, %d nulls, %d rows, levels of %d and %d bytes in %d)",
					page, nv, h.V.NumNulls, h.V.NumRows, rl, dl, c)
			}
			if err := checkHybrid(data[:rl], bitWidth(leaf.maxRep), nv); err != nil {
				return fmt.Errorf("page %d: repetition levels: %w", page, err)
			}
			if err := checkHybrid(data[rl:rl+dl], bitWidth(leaf.maxDef), nv); err != nil {
				return fmt.Errorf("page %d: definition levels: %w", page, err)
			}
			b := data[rl+dl:]
			if !h.V.IsCompressed.Valid || h.V.IsCompressed.V {
				if b, err = decompressPage(cm.Codec, b, u-rl-dl); err != nil {
					return fmt.Errorf("page %d: %w", page, err)
				}
			}
			if err := checkValues(b, h.V.Encoding, leaf, nv, dict); err != nil {
				return fmt.Errorf("page %d: %w", page, err)
			}
		default:
			return fmt.Errorf("page %d: page type %s is not read", page, ph.Type)
		}
	}
	if values != cm.NumValues {
		return fmt.Errorf("pages hold %d values, the chunk announces %d", values, cm.NumValues)
	}
	return nil
}

func bitWidth(max int) uint { return uint(bits.Len(uint(max))) }

// checkLevelsV1 checks the length-prefixed levels at the start of a version 1
// data page and returns what follows them.
func checkLevelsV1(b []byte, enc format.Encoding, max, nv int) ([]byte, error) {
	w := bitWidth(max)
	switch enc {
	case format.RLE:
		if len(b) < 4 {
			return nil, io.ErrUnexpectedEOF
		}
		n := int64(binary.LittleEndian.Uint32(b))
		if n > int64(len(b)-4) {
			return nil, fmt.Errorf("%d bytes of levels, %d in the page", n, len(b)-4)
		}
		return b[4+n:], checkHybrid(b[4:4+n], w, nv)
	case format.BitPacked: // deprecated: ⌈nv·w/8⌉ bytes, no prefix
		n := (int64(nv)*int64(w) + 7) / 8
		if n > int64(len(b)) {
			return nil, io.ErrUnexpectedEOF
		}
		return b[n:], nil
	}
	return nil, fmt.Errorf("level encoding %s", enc)
}

// checkValues checks the encoded values of a data page holding nv values
// (nulls included): encodings whose decoders allocate from counts in the data
// must not claim more than nv values.
func checkValues(b []byte, enc format.Encoding, leaf leafInfo, nv int, dict bool) error {
	switch enc {
	case format.Plain, format.ByteStreamSplit: // decoded size bounded by the data
		return nil
	//lint:ignore SA1019 files written by Parquet 1.0 writers still use PLAIN_DICTIONARY; it must be read
	case format.RLEDictionary, format.PlainDictionary:
		if !dict {
			return errors.New("dictionary-encoded values without a dictionary page")
		}
		if len(b) == 0 {
			return nil // a page of nulls
		}
		if b[0] > 32 {
			return fmt.Errorf("dictionary index bit width %d", b[0])
		}
		return checkHybrid(b[1:], uint(b[0]), nv)
	case format.RLE:
		if leaf.typ != format.Boolean {
			return fmt.Errorf("RLE values in a %s column", leaf.typ)
		}
		_, err := checkLevelsV1(b, enc, 1, nv)
		return err
	case format.DeltaBinaryPacked, format.DeltaLengthByteArray:
		// both start with a DELTA_BINARY_PACKED header: block size, mini
		// blocks, total values
		b0 := b
		for i := 0; i < 2; i++ {
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return io.ErrUnexpectedEOF
			}
			if v > 1<<20 {
				return fmt.Errorf("delta block of %d", v)
			}
			b = b[n:]
		}
		total, n := binary.Uvarint(b)
		if n <= 0 {
			return io.ErrUnexpectedEOF
		}
		if total > uint64(nv) {
			return boundsErr("delta encoding claims %d values in a page of %d", total, nv)
		}
		if enc == format.DeltaLengthByteArray {
			// parquet-go sizes the values' buffer by the sum of the lengths
			// (decoding at most nv of them, checked above)
			if n := parquet.DeltaLengthByteArray.EstimateDecodeByteArraySize(b0); n < 0 || n > len(b0) {
				return boundsErr("byte array lengths add up to %d bytes in a page of %d", n, len(b0))
			}
		}
		return nil
	}
	return fmt.Errorf("value encoding %s is not read", enc)
}

// checkHybrid checks an RLE/bit-packed hybrid run sequence of width w: its
// runs must not expand to more than nv values (bit-packed runs are groups of
// 8, so up to 7 padding values are allowed).
func checkHybrid(b []byte, w uint, nv int) error {
	if w > 32 {
		return fmt.Errorf("bit width %d", w)
	}
	var count uint64
	limit := uint64(nv) + 7
	for len(b) > 0 {
		h, n := binary.Uvarint(b)
		if n <= 0 {
			return io.ErrUnexpectedEOF
		}
		b = b[n:]
		if h&1 == 1 { // bit-packed: h>>1 groups of 8 values
			groups := h >> 1
			if groups > limit/8+1 {
				return boundsErr("run of %d values in a page of %d", groups*8, nv)
			}
			count += groups * 8
			skip := groups * uint64(w)
			if skip > uint64(len(b)) {
				skip = uint64(len(b)) // a short last group: the decoder's concern
			}
			b = b[skip:]
		} else {
			if h>>1 > limit {
				return boundsErr("run of %d values in a page of %d", h>>1, nv)
			}
			count += h >> 1
			skip := int(w+7) / 8
			if skip > len(b) {
				return io.ErrUnexpectedEOF
			}
			b = b[skip:]
		}
		if count > limit {
			return boundsErr("runs of %d values in a page of %d", count, nv)
		}
	}
	return nil
}

// decompressPage returns the uncompressed form of a page stored with codec,
// which must be exactly u bytes. Compressed forms are checked before they are
// expanded: a snappy page declares its length, a zstd frame its content size
// or blocks whose output is bounded.
func decompressPage(codec format.CompressionCodec, b []byte, u int64) ([]byte, error) {
	switch codec {
	case format.Uncompressed:
		return b, nil
	case format.Snappy:
		n, k := binary.Uvarint(b)
		if k <= 0 || n != uint64(u) {
			return nil, boundsErr("snappy page declares %d bytes, its header %d", n, u)
		}
	case format.Zstd:
		if err := checkZstd(b, u); err != nil {
			return nil, err
		}
	}
	out, err := parquet.LookupCompressionCodec(codec).Decode(make([]byte, 0, u), b)
	if err != nil {
		return nil, fmt.Errorf("decompressing %s page: %w", codec, err)
	}
	if int64(len(out)) != u {
		return nil, fmt.Errorf("%s page of %d bytes, its header says %d", codec, len(out), u)
	}
	return out, nil
}

// checkZstd walks the frames of a zstd page (RFC 8878) without decoding them:
// a frame's declared content size must not exceed u, and the blocks of frames
// without one must not be able to produce more than u plus one block.
func checkZstd(b []byte, u int64) error {
	var bound int64
	for len(b) > 0 {
		if len(b) < 4 {
			return io.ErrUnexpectedEOF
		}
		magic := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if magic&0xFFFFFFF0 == 0x184D2A50 { // skippable frame
			if len(b) < 4 {
				return io.ErrUnexpectedEOF
			}
			n := int64(binary.LittleEndian.Uint32(b))
			if n > int64(len(b)-4) {
				return io.ErrUnexpectedEOF
			}
			b = b[4+n:]
			continue
		}
		if magic != 0xFD2FB528 {
			return fmt.Errorf("not a zstd frame (magic %#x)", magic)
		}
		if len(b) < 1 {
			return io.ErrUnexpectedEOF
		}
		fhd := b[0]
		b = b[1:]
		single := fhd&0x20 != 0
		if fhd&0x08 != 0 {
			return errors.New("zstd frame: reserved bit set")
		}
		hdr := 0
		if !single {
			hdr++ // window descriptor
		}
		hdr += [4]int{0, 1, 2, 4}[fhd&3] // dictionary ID
		fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
		if fhd>>6 == 0 && single {
			fcsLen = 1
		}
		if len(b) < hdr+fcsLen {
			return io.ErrUnexpectedEOF
		}
		fcs := int64(-1)
		if fcsLen > 0 {
			var v [8]byte
			copy(v[:], b[hdr:hdr+fcsLen])
			x := binary.LittleEndian.Uint64(v[:])
			if fcsLen == 2 {
				x += 256
			}
			if x > uint64(u) {
				return boundsErr("zstd frame declares %d bytes in a page of %d", x, u)
			}
			fcs = int64(x)
		}
		b = b[hdr+fcsLen:]
		var out int64
		for {
			if len(b) < 3 {
				return io.ErrUnexpectedEOF
			}
			h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
			b = b[3:]
			n := int64(h >> 3)
			if n > zstdMaxBlock {
				return fmt.Errorf("zstd block of %d bytes", n)
			}
			switch (h >> 1) & 3 {
			case 0: // raw
				if n > int64(len(b)) {
					return io.ErrUnexpectedEOF
				}
				b, out = b[n:], out+n
			case 1: // RLE: one byte repeated n times
				if len(b) < 1 {
					return io.ErrUnexpectedEOF
				}
				b, out = b[1:], out+n
			case 2: // compressed: at most one block of output
				if n > int64(len(b)) {
					return io.ErrUnexpectedEOF
				}
				b, out = b[n:], out+zstdMaxBlock
			default:
				return errors.New("zstd frame: reserved block type")
			}
			if h&1 == 1 {
				break
			}
		}
		if fhd&0x04 != 0 { // content checksum
			if len(b) < 4 {
				return io.ErrUnexpectedEOF
			}
			b = b[4:]
		}
		if fcs >= 0 {
			out = fcs // the decoder stops at the declared size
		}
		bound += out
		if bound > u+zstdMaxBlock {
			return boundsErr("zstd frames can expand to %d bytes in a page of %d", bound, u)
		}
	}
	return nil
}

// checkThriftStruct checks the thrift compact-protocol struct at b[0:] and
// returns its length: every list, map and string claims no more items or bytes
// than remain, so that decoding it allocates in proportion to len(b).
func checkThriftStruct(b []byte, depth int) (int, error) {
	if depth > maxThriftDepth {
		return 0, errors.New("thrift: nested too deeply")
	}
	pos := 0
	for {
		if pos >= len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		h := b[pos]
		pos++
		typ := h & 0x0f
		if typ == 0 { // stop
			return pos, nil
		}
		if h>>4 == 0 { // long form: zigzag i16 field id
			_, n := binary.Uvarint(b[pos:])
			if n <= 0 {
				return 0, io.ErrUnexpectedEOF
			}
			pos += n
		}
		n, err := checkThriftValue(b[pos:], typ, depth)
		if err != nil {
			return 0, err
		}
		pos += n
	}
}

// checkThriftValue checks one value of compact type typ at b[0:] and returns
// its length.
func checkThriftValue(b []byte, typ byte, depth int) (int, error) {
	switch typ {
	case 1, 2: // boolean in a field header: no payload
		return 0, nil
	case 3: // byte
		if len(b) < 1 {
			return 0, io.ErrUnexpectedEOF
		}
		return 1, nil
	case 4, 5, 6: // i16, i32, i64 varints
		_, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, io.ErrUnexpectedEOF
		}
		return n, nil
	case 7: // double
		if len(b) < 8 {
			return 0, io.ErrUnexpectedEOF
		}
		return 8, nil
	case 8: // binary
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, io.ErrUnexpectedEOF
		}
		if v > uint64(len(b)-n) {
			return 0, boundsErr("thrift string of %d bytes with %d left", v, len(b)-n)
		}
		return n + int(v), nil
	case 9, 10: // list, set
		if len(b) < 1 {
			return 0, io.ErrUnexpectedEOF
		}
		size, et, pos := uint64(b[0]>>4), b[0]&0x0f, 1
		if size == 15 {
			v, n := binary.Uvarint(b[1:])
			if n <= 0 {
				return 0, io.ErrUnexpectedEOF
			}
			size, pos = v, 1+n
		}
		// every item takes at least one byte
		if size > uint64(len(b)-pos) {
			return 0, boundsErr("thrift list of %d items with %d bytes left", size, len(b)-pos)
		}
		if et == 1 || et == 2 { // booleans in a list: one byte each
			return pos + int(size), nil
		}
		for ; size > 0; size-- {
			n, err := checkThriftElem(b[pos:], et, depth)
			if err != nil {
				return 0, err
			}
			pos += n
		}
		return pos, nil
	case 11: // map
		size, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, io.ErrUnexpectedEOF
		}
		if size == 0 {
			return n, nil
		}
		pos := n + 1
		if pos > len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		if size > uint64(len(b)-pos)/2 {
			return 0, boundsErr("thrift map of %d entries with %d bytes left", size, len(b)-pos)
		}
		kt, vt := b[n]>>4, b[n]&0x0f
		for ; size > 0; size-- {
			for _, t := range []byte{kt, vt} {
				m, err := checkThriftElem(b[pos:], t, depth)
				if err != nil {
					return 0, err
				}
				pos += m
			}
		}
		return pos, nil
	case 12: // struct
		return checkThriftStruct(b, depth+1)
	}
	return 0, fmt.Errorf("thrift: unknown type %d", typ)
}

// checkThriftElem checks a list or map item, where booleans take one byte.
func checkThriftElem(b []byte, typ byte, depth int) (int, error) {
	if typ == 1 || typ == 2 {
		if len(b) < 1 {
			return 0, io.ErrUnexpectedEOF
		}
		return 1, nil
	}
	if typ == 9 || typ == 10 || typ == 11 {
		depth++
		if depth > maxThriftDepth {
			return 0, errors.New("thrift: nested too deeply")
		}
	}
	return checkThriftValue(b, typ, depth)
}

// CheckFooter checks a Parquet file's magic bytes and footer length (an
// encrypted file, with PARE magic, is not read).
func CheckFooter(r io.ReaderAt, size int64) error {
	const magic = 4
	if size < 2*magic+4 {
		return fmt.Errorf("%d bytes, too short", size)
	}
	var head [magic]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return err
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(head[:]) != "PAR1" || string(tail[4:]) != "PAR1" {
		return fmt.Errorf("magic bytes %q and %q, want PAR1 (encrypted files are not read)", head[:], tail[4:])
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-2*magic-4 {
		return fmt.Errorf("footer of %d bytes in a file of %d bytes", n, size)
	}
	return nil
}
