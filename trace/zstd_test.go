package trace

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go/compress/zstd"
)

// TestZstdCodecSameBytes compresses pages of several sizes, below and above
// a block (128 KiB) and above the 8 MiB window, with zstdCodec and with
// parquet-go's codec at the writer's settings: the bytes must be the same
// (zstdCodec changes only how the encoder's memory is kept), and decode back.
func TestZstdCodecSameBytes(t *testing.T) {
	ours := newZstdCodec()
	theirs := &zstd.Codec{Level: zstd.SpeedDefault, Concurrency: 1}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 10, 1000, 5000, 128 << 10, 300 << 10, 3 << 20, 9 << 20} {
		// Compressible: runs of a few symbols with random lengths.
		src := make([]byte, 0, n)
		for len(src) < n {
			b := byte(r.IntN(8))
			for k := r.IntN(50); k >= 0 && len(src) < n; k-- {
				src = append(src, b)
			}
		}
		for round := range 2 { // the kept encoder is reused
			a, err := ours.Encode(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			b, err := theirs.Encode(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("%d bytes, round %d: zstdCodec wrote %d bytes, parquet-go's codec %d", n, round, len(a), len(b))
			}
			d, err := ours.Decode(nil, a)
			if err != nil || !bytes.Equal(d, src) {
				t.Fatalf("%d bytes: decoding gave %d bytes, err %v", n, len(d), err)
			}
		}
	}
}
