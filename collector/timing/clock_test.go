package timing

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestRateScale holds rate.scale to x*num/den truncated toward zero,
// computed exactly, over the range where it is exact (|x| <= 2^64/den),
// and to the floating-point conversion it replaced: equal where that was
// exact (x*num within float64's 53-bit mantissa), at most 1 apart
// beyond (for results below 2^50, where float64's own rounding is below 1).
func TestRateScale(t *testing.T) {
	exact := func(x int64, num, den uint64) int64 {
		q := new(big.Int).Mul(big.NewInt(x), new(big.Int).SetUint64(num))
		q.Quo(q, new(big.Int).SetUint64(den)) // truncates toward zero
		return q.Int64()
	}
	for _, tc := range []struct {
		name     string
		num, den uint64
	}{
		{"ns per tick, 38.4 MHz", 1e9, 38_400_000},
		{"ticks per ns, 38.4 MHz", 38_400_000, 1e9},
		{"ns per tick, 19.2 MHz", 1e9, 19_200_000},
		{"ticks per ns, 19.2 MHz", 19_200_000, 1e9},
		{"ns per tick, 12.5 MHz", 1e9, 12_500_000},
		{"ns per tick, 52.083 MHz", 1e9, 52_083_333},
		{"ticks per ns, 52.083 MHz", 52_083_333, 1e9},
		{"ns per tick, 1 GHz", 1e9, 1e9},
		{"ns per tick, 2.4 GHz", 1e9, 2_400_000_000},
		{"ticks per ns, 2.4 GHz", 2_400_000_000, 1e9},
		{"ns per tick, 1 Hz", 1e9, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRate(tc.num, tc.den)
			limit := math.MaxUint64 / tc.den
			if tc.num > tc.den {
				limit = min(limit, math.MaxInt64/(tc.num/tc.den+1)) // the result fits an int64
			}
			limit = min(limit, math.MaxInt64)
			rng := rand.New(rand.NewPCG(1, tc.num^tc.den))
			xs := []int64{0, 1, -1, 2, 24, -24, int64(tc.den), -int64(tc.den), int64(limit), -int64(limit)}
			for i := 0; i < 20000; i++ {
				x := int64(rng.Uint64N(limit + 1))
				if i%3 == 0 {
					x = int64(rng.Uint64N(min(limit, 1<<36) + 1))
				}
				if i%2 == 1 {
					x = -x
				}
				xs = append(xs, x)
			}
			for k := int64(1); k < 1000; k++ { // exact integer results
				xs = append(xs, k*int64(tc.den/gcd(tc.num, tc.den)))
			}
			for _, x := range xs {
				if uint64(max(x, -x)) > limit {
					continue
				}
				got, want := r.scale(x), exact(x, tc.num, tc.den)
				if got != want {
					t.Fatalf("scale(%d) = %d, want %d", x, got, want)
				}
				old := int64(float64(x) * float64(tc.num) / float64(tc.den))
				if math.Abs(float64(x))*float64(tc.num) < 1<<53 && old != want {
					t.Fatalf("float conversion of %d: %d, exact %d", x, old, want)
				}
				if d := old - got; math.Abs(float64(want)) < 1<<50 && (d < -1 || d > 1) {
					t.Fatalf("scale(%d) = %d, the float conversion %d", x, got, old)
				}
			}
		})
	}
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
