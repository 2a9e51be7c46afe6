package timing

import (
	"math/bits"

	"golang.org/x/sys/unix"
)

// HostNs returns CLOCK_MONOTONIC_RAW in ns: the host clock in which
// zeDeviceGetGlobalTimestamps reports host time on Linux, so every time in
// the output is comparable with converted device times.
func HostNs() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC_RAW, &ts); err != nil {
		return 0
	}
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

// NewClock describes device id (its number in the file) for timestamp
// conversion: a timer of hz ticks per second whose kernel timestamps keep
// their low kernelBits bits. It returns nil when the device cannot be
// converted (then its launches are written without device times).
func NewClock(id uint32, hz uint64, kernelBits uint32) *Clock {
	if hz == 0 || kernelBits == 0 || kernelBits > 64 {
		return nil
	}
	mask := ^uint64(0)
	if kernelBits < 64 {
		mask = 1<<kernelBits - 1
	}
	c := &Clock{id: id, hz: hz, kernelMask: mask}
	c.setRates()
	return c
}

// setRates makes c's fixed-point factors from its frequency: ns per tick
// (1e9/hz) and ticks per ns (hz/1e9).
func (c *Clock) setRates() {
	c.ns = newRate(1e9, c.hz)
	c.ticks = newRate(c.hz, 1e9)
}

// rate is the factor num/den of a clock conversion in fixed point: an
// integer part and a 64-bit fraction, rounded up. The harvester converts
// two or three times per launch (a kernel's start, its end, and the
// reference that undoes counter wraps); in floating point each was a
// multiplication and a division (`x*1e9/hz`), whose latencies in one
// dependency chain were the largest part of the harvester's own time per
// immediate launch (perf annotate: the conversion back to an integer,
// waiting for the division, about a quarter of harvestImmediate's
// samples). A rate is one 64x64->128-bit multiplication and one ordinary
// one (docs/go-runtime.md section 2, "Clock conversion in fixed point").
type rate struct {
	whole, frac uint64 // num/den = whole + frac/2^64, frac rounded up
}

// newRate is num/den (den > 0).
func newRate(num, den uint64) rate {
	r := rate{whole: num / den}
	if rem := num % den; rem != 0 {
		q, left := bits.Div64(rem, 0, den) // rem < den: no overflow
		if left != 0 {
			q++ // q < 2^64-1 here: rem/den <= 1 - 1/den
		}
		r.frac = q
	}
	return r
}

// scale is x*num/den truncated toward zero, as int64(float64(x)*num/den)
// was: exact while |x| <= 2^64/den (12,500 s of a 38.4 MHz timer's
// ticks for ns per tick; 18 s of host ns for ticks per ns), where the rounded-up
// fraction's excess, below |x|/2^64, cannot reach the next integer
// (x*num/den's fraction is a multiple of 1/den). Floating point was
// exact only while x*num fitted the 53-bit mantissa (|x| < 9.0e6 ticks,
// 0.23 s at 38.4 MHz) and could be 1 ns short beyond (TestRateScale).
func (r rate) scale(x int64) int64 {
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	hi, _ := bits.Mul64(u, r.frac)
	v := int64(u*r.whole + hi)
	if x < 0 {
		return -v
	}
	return v
}
