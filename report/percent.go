package report

import "math"

// percent is 100·part/whole, NaN when whole is 0.
func percent(part, whole int64) float64 {
	if whole == 0 {
		return math.NaN()
	}
	return 100 * float64(part) / float64(whole)
}
