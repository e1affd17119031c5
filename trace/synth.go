package trace

import "math"

// SplitSlop is Hadoop's SPLIT_SLOP: FileInputFormat.getSplits cuts a full split
// while the remaining bytes exceed 1.1 splits, so the last split holds up to 1.1
// blocks.
const SplitSlop = 1.1

// Splits returns the map splits of an input of the given size read as one file by
// FileInputFormat.getSplits with split size = block size: n splits, all of
// blockBytes but the last, which holds last bytes. SWIM traces give only a job's
// total input, so the input is taken as one file; an input of 0 bytes gives one
// empty split (SWIM's replayer likewise never runs a job without a map).
func Splits(inputBytes, blockBytes int64) (n int64, last int64) {
	if inputBytes <= 0 {
		return 1, 0
	}
	if blockBytes <= 0 {
		return 1, inputBytes
	}
	full := int64(0)
	rem := inputBytes
	// Closed form of: for rem/blockBytes > SplitSlop { rem -= blockBytes; full++ }.
	if float64(rem)/float64(blockBytes) > SplitSlop {
		k := int64(math.Ceil((float64(rem)/float64(blockBytes) - SplitSlop))) // cuts needed
		if k < 1 {
			k = 1
		}
		for k > 0 && float64(rem-(k-1)*blockBytes)/float64(blockBytes) <= SplitSlop {
			k-- // guard against rounding at the boundary
		}
		for float64(rem-k*blockBytes)/float64(blockBytes) > SplitSlop {
			k++
		}
		full = k
		rem -= k * blockBytes
	}
	return full + 1, rem
}

// SynthReduces returns the number of reduces SWIM's replayer (GenerateReplayScript)
// gives a job: round((shuffle + output) / bytesPerReduce), at least 1, and 0 for a
// map-only job (shuffle 0: SWIM's parser moves a map-only job's map output to the
// output column). maxReduces > 0 caps the result.
func SynthReduces(shuffleBytes, outputBytes int64, bytesPerReduce float64, maxReduces int) int64 {
	if shuffleBytes <= 0 {
		return 0
	}
	r := int64(math.Round(float64(shuffleBytes+max(outputBytes, 0)) / bytesPerReduce))
	r = max(r, 1)
	if maxReduces > 0 {
		r = min(r, int64(maxReduces))
	}
	return r
}
