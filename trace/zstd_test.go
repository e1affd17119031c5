package trace

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// TestZstdCodecSameBytes compresses pages of sizes around zstd's minimum
// window (1 KiB), a block (128 KiB), zstdSmallWindow and above parquet-go's
// 8 MiB window, compressible, random and with repeats far back in the page,
// with zstdCodec and with parquet-go's codec at the writer's settings: the
// bytes must be the same (zstdCodec changes only how much memory the encoder
// keeps), and decode back. The sizes are compressed twice, in increasing
// then decreasing order, so that pooled encoders are reused across sizes.
func TestZstdCodecSameBytes(t *testing.T) {
	t.Parallel()
	ours := newZstdCodec()
	theirs := &zstd.Codec{Level: zstd.SpeedDefault, Concurrency: 1}
	sizes := []int{0, 10, 1000, 1 << 10, 1<<10 + 1, 5000, 128 << 10, 128<<10 + 1, 300 << 10,
		zstdSmallWindow - 1, zstdSmallWindow, zstdSmallWindow + 1, 3 << 20, 9 << 20}
	r := rand.New(rand.NewPCG(3, 4))
	kinds := []string{"runs", "random", "far repeats"}
	pages := map[[2]int][]byte{}
	for _, n := range sizes {
		for k := range kinds {
			src := make([]byte, 0, n)
			switch k {
			case 0: // runs of a few symbols with random lengths
				for len(src) < n {
					b := byte(r.IntN(8))
					for m := r.IntN(50); m >= 0 && len(src) < n; m-- {
						src = append(src, b)
					}
				}
			case 1:
				for len(src) < n {
					src = append(src, byte(r.Uint32()))
				}
			case 2: // random bytes, then the page's start again from 7/8 of it
				for len(src) < n*7/8 {
					src = append(src, byte(r.Uint32()))
				}
				for i := 0; len(src) < n; i++ {
					src = append(src, src[i])
				}
			}
			pages[[2]int{n, k}] = src
		}
	}
	order := append([]int(nil), sizes...)
	for i := len(sizes) - 1; i >= 0; i-- {
		order = append(order, sizes[i])
	}
	// The full suite gives each call a nil destination; the fast lane hands
	// each codec back the buffer it returned last (as parquet-go's writer
	// does with its page buffers), so that the encoders, which grow their
	// output block by block, do not fault in fresh pages for every call (most
	// of the test's 2.5 CPU-s). The bytes do not depend on the destination.
	reuse := testgate.IsFast()
	var bufA, bufB, bufD []byte
	for round, n := range order {
		for k, kind := range kinds {
			src := pages[[2]int{n, k}]
			a, err := ours.Encode(bufA, src)
			if err != nil {
				t.Fatal(err)
			}
			b, err := theirs.Encode(bufB, src)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("%d bytes, %s, pass %d: zstdCodec wrote %d bytes, parquet-go's codec %d", n, kind, round/len(sizes), len(a), len(b))
			}
			d, err := ours.Decode(bufD, a)
			if err != nil || !bytes.Equal(d, src) {
				t.Fatalf("%d bytes, %s: decoding gave %d bytes, err %v", n, kind, len(d), err)
			}
			if reuse {
				bufA, bufB, bufD = a, b, d
			}
		}
	}
}
