package trace

import (
	"sync"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdCodec is parquet-go's ZSTD codec at SpeedDefault with one goroutine
// (the same encoder options, so the same bytes) but with the encoder kept for
// the writer's life and in its lower-memory mode. parquet-go's codec takes
// its encoder from a sync.Pool, which the garbage collector empties: a
// writer of pages larger than a block (128 KiB; node_net's) then built a new
// encoder, with a 16 MiB history, for most pages, two of them live at once
// in a heap profile of Coupling on FB-2010 (32 MB of the live heap). The
// lower-memory mode sizes the history as the window plus one block (8.1
// MiB) instead of twice the window; it does not change what is encoded.
type zstdCodec struct {
	mu  sync.Mutex
	enc *kzstd.Encoder
	dec zstd.Codec // decoding as parquet-go does
}

func newZstdCodec() *zstdCodec {
	return &zstdCodec{dec: zstd.Codec{Level: zstd.SpeedDefault, Concurrency: 1}}
}

// String is the codec's name, as parquet-go's.
func (c *zstdCodec) String() string { return "ZSTD" }

// CompressionCodec is the codec's Parquet code.
func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Encode compresses src into dst (one zstd frame, as parquet-go's codec).
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	if !c.mu.TryLock() {
		// Another page of this writer is being compressed: a fresh encoder
		// gives the same bytes.
		e, err := newZstdEncoder()
		if err != nil {
			return nil, err
		}
		defer e.Close()
		return e.EncodeAll(src, dst[:0]), nil
	}
	defer c.mu.Unlock()
	if c.enc == nil {
		e, err := newZstdEncoder()
		if err != nil {
			return nil, err
		}
		c.enc = e
	}
	return c.enc.EncodeAll(src, dst[:0]), nil
}

// Decode decompresses src into dst.
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return c.dec.Decode(dst, src) }

// newZstdEncoder is parquet-go's encoder (compress/zstd's Codec.Encode) in
// the lower-memory mode.
func newZstdEncoder() (*kzstd.Encoder, error) {
	return kzstd.NewWriter(nil,
		kzstd.WithEncoderConcurrency(1),
		kzstd.WithEncoderLevel(kzstd.SpeedDefault),
		kzstd.WithZeroFrames(true),
		kzstd.WithEncoderCRC(false),
		kzstd.WithLowerEncoderMem(true),
	)
}
