package trace

import (
	"fmt"
	"sync"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdSmallWindow is the window of the encoder that compresses the pages of
// at most that many bytes (zstdCodec): a power of two, four times
// parquet-go's page buffer (256 KiB), so that the writers' pages take it.
const zstdSmallWindow = 1 << 20

// zstdCodec is parquet-go's ZSTD codec (compress/zstd.Codec at SpeedDefault,
// one goroutine: the writers' settings) with the same bytes and a smaller
// encoder history. parquet-go's encoder has the level's 8 MiB window, and the
// first page longer than a block (128 KiB) gives it a history of twice the
// window, 16 MiB, kept with the encoder in a sync.Pool that the garbage
// collector empties, so it is built afresh every few collections: two of
// them were 32 MB of the 102 MB sampled at the live heap's peak of Coupling
// on FB-2010 (docs/performance.md). Here a page of at most zstdSmallWindow
// bytes is compressed by an encoder with that window, whose history is the
// window plus one block (1.1 MiB, lower-memory mode), and a longer page by
// parquet-go's encoder in lower-memory mode (a history of 8.1 MiB). Neither
// changes the bytes: for a page shorter than the window the frame header
// names the smallest power of two above the page's length (at least 1 KiB)
// whatever the window, a page of more than 1 KiB up to the window is a
// single-segment frame whose header names no window, and a page's matches
// are shorter than the page, so within either window; the lower-memory mode
// changes only how buffers are sized (TestZstdCodecSameBytes compares with
// parquet-go's codec over page sizes from 0 to 9 MiB). The encoders are
// pooled (zstdSmall, zstdLarge), so that the garbage collector releases
// their memory as it releases parquet-go's.
type zstdCodec struct {
	dec zstd.Codec // decoding as parquet-go does
}

// zstdSmall and zstdLarge hold the idle encoders of every zstdCodec (its
// small and its large window), as a cache: EncodeAll keeps nothing of one
// call for the next, so an encoder's output does not depend on what it
// encoded before nor for which writer. Pooled per writer, as parquet-go
// pools its encoders, each Parquet file written built its encoders afresh,
// and their tables (about 1 MB each) are memory the process faults in anew:
// the replay package's fast-lane tests, which write some hundreds of small
// files, made 230 to 400 thousand page faults, 106 and 82 thousand with
// these pools (docs/performance.md, "Fast lane, ninth pass").
var zstdSmall, zstdLarge sync.Pool // *kzstd.Encoder

func newZstdCodec() *zstdCodec {
	return &zstdCodec{dec: zstd.Codec{Level: zstd.SpeedDefault, Concurrency: 1}}
}

// String is the codec's name, as parquet-go's.
func (c *zstdCodec) String() string { return "ZSTD" }

// CompressionCodec is the codec's Parquet code.
func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Encode compresses src into dst (one zstd frame, as parquet-go's codec).
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	pool, window := &zstdLarge, 0
	if len(src) <= zstdSmallWindow {
		pool, window = &zstdSmall, zstdSmallWindow
	}
	e, _ := pool.Get().(*kzstd.Encoder)
	if e == nil {
		var err error
		if e, err = newZstdEncoder(window); err != nil {
			return nil, fmt.Errorf("zstd encoder: %w", err)
		}
	}
	defer pool.Put(e)
	return e.EncodeAll(src, dst[:0]), nil
}

// Decode decompresses src into dst.
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return c.dec.Decode(dst, src) }

// newZstdEncoder is parquet-go's encoder (compress/zstd's Codec.Encode) in
// the lower-memory mode, with the given window (0: the level's).
func newZstdEncoder(window int) (*kzstd.Encoder, error) {
	opts := []kzstd.EOption{
		kzstd.WithEncoderConcurrency(1),
		kzstd.WithEncoderLevel(kzstd.SpeedDefault),
		kzstd.WithZeroFrames(true),
		kzstd.WithEncoderCRC(false),
		kzstd.WithLowerEncoderMem(true),
	}
	if window > 0 {
		opts = append(opts, kzstd.WithWindowSize(window))
	}
	return kzstd.NewWriter(nil, opts...)
}
