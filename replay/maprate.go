package replay

// Pass-through maps (passthrough_map_mb_per_s). A modelled map costs
// task_startup + (input + output)/disk_mb_per_s + input/map_compute_mb_per_s:
// its read and its output's write at the disk rate, and the map function's
// work per input byte. A map of a job without reduces writes its output
// straight to HDFS (no sort, spill or merge); when that output is its input,
// byte for byte within 1%, the map is a pass-through (an identity or copy
// map) and does no work per byte beyond its read and write. On the one
// cluster of the validation histories that has them (folder-input-trace, 13
// maps of 10 jobs, 6 MB to 974 MB), their duration less the disk term does
// not grow with the input (Theil–Sen slope's 95% interval includes 0), while
// the other maps of the same cluster cost 1/5.16 MB/s per input byte
// (docs/validation.md, "Model mode"). So by default (0) a pass-through map
// has no compute term; calibrate fits passthrough_map_mb_per_s from a
// schedule's own pass-through maps and leaves them out of the
// map_compute_mb_per_s fit.

// mapRateKeys is passthrough_map_mb_per_s's key group, added after the frozen
// JSON formats (optionalKeyGroups): left out of the run identity and the
// manifest while 0, so that a model without it keeps the identity it had
// before.
type mapRateKeys struct {
	PassThroughMapMBps float64
}

func mapRateKeysOf(h *Hardware) mapRateKeys { return mapRateKeys{h.PassThroughMapMBps} }

// passThroughMap reports whether a map of in input bytes and out output bytes,
// in a job of reduces reduces, is a pass-through map: the job has no reduce,
// the input is known and positive, and the output is the input within 1%.
func passThroughMap(in, out int64, reduces int) bool {
	if reduces != 0 || in <= 0 || out < 0 {
		return false
	}
	d := out - in
	if d < 0 {
		d = -d
	}
	return float64(d) <= 0.01*float64(in)
}

// mapComputeMBps is the compute rate of a modelled map of in input and out
// output bytes in a job of reduces reduces: passthrough_map_mb_per_s for a
// pass-through map, map_compute_mb_per_s otherwise (0: no compute term).
func (h *Hardware) mapComputeMBps(in, out int64, reduces int) float64 {
	if passThroughMap(in, out, reduces) {
		return h.PassThroughMapMBps
	}
	return h.MapComputeMBps
}
