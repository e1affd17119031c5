package summary

import "math"

// z975 is the 0.975 quantile of the standard normal distribution.
const z975 = 1.959963984540054

// T975 returns the 0.975 quantile of Student's t distribution with df ≥ 1
// degrees of freedom: the multiplier of the standard error in a two-sided 95%
// confidence interval. Up to len(t975) degrees of freedom it is read from a table
// of gonum's values; beyond, the Cornish–Fisher expansion in 1/df to the fourth
// order (Abramowitz and Stegun 26.7.5), whose error there is below 1e-10.
func T975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df <= len(t975) {
		return t975[df-1]
	}
	z, n := z975, float64(df)
	z2 := z * z
	g1 := z * (z2 + 1) / 4
	g2 := z * ((5*z2+16)*z2 + 3) / 96
	g3 := z * (((3*z2+19)*z2+17)*z2 - 15) / 384
	g4 := z * ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) / 92160
	return z + g1/n + g2/(n*n) + g3/(n*n*n) + g4/(n*n*n*n)
}
