package replay

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNoiseDraws checks that a job's log-normal factors, their parameters
// worked out once (newNoise), are bit for bit the formula worked out at
// every draw, as the durations were drawn before: the same seed gives the
// same task times.
func TestNoiseDraws(t *testing.T) {
	for _, cv := range []float64{0, 0.1, 0.25, 0.5, 1, 2.5} {
		a, b := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
		l := newNoise(cv)
		for k := range 2000 {
			got := l.draw(a)
			want := 1.0
			if cv != 0 {
				s2 := math.Log1p(cv * cv)
				want = math.Exp(-s2/2 + math.Sqrt(s2)*b.NormFloat64())
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("cv %g, draw %d: %v, want %v", cv, k, got, want)
			}
		}
	}
}
