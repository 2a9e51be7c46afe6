package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSketchQuantiles: quantiles within the promised relative error of the
// exact ones, for distributions launch durations have; merging equals
// adding; memory stays a few hundred buckets for a million values.
func TestSketchQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	dists := map[string]func() uint64{
		"uniform 5-50 µs":  func() uint64 { return 5000 + uint64(rng.IntN(45000)) },
		"lognormal":        func() uint64 { return uint64(math.Exp(10 + 2*rng.NormFloat64())) },
		"bimodal with 0s":  func() uint64 { return []uint64{0, 3000, 2_000_000}[rng.IntN(3)] + uint64(rng.IntN(100)) },
		"constant 7000 ns": func() uint64 { return 7000 },
	}
	for name, gen := range dists {
		s, a, b := newSketch(), newSketch(), newSketch()
		vals := make([]uint64, 1_000_000)
		for i := range vals {
			vals[i] = gen()
			s.add(vals[i])
			if i%2 == 0 {
				a.add(vals[i])
			} else {
				b.add(vals[i])
			}
		}
		a.merge(b)
		slices.Sort(vals)
		for _, q := range []float64{0, 0.01, 0.5, 0.9, 0.99, 0.999, 1} {
			exact := float64(vals[int(q*float64(len(vals)-1))])
			for _, sk := range []*sketch{s, a} {
				got := sk.quantile(q)
				if math.Abs(got-exact) > sketchAlpha*exact+1e-9 {
					t.Errorf("%s: q%.3f = %.1f, exact %.1f (relative error %.4f > %.2f)", name, q, got, exact, math.Abs(got-exact)/exact, sketchAlpha)
				}
			}
		}
		if len(s.buckets) > 2000 {
			t.Errorf("%s: %d buckets for %d values", name, len(s.buckets), len(vals))
		}
		t.Logf("%s: %d buckets", name, len(s.buckets))
	}
	if q := newSketch().quantile(0.5); q != 0 {
		t.Errorf("empty sketch: %v", q)
	}
}
