package main

import (
	"math"
	"slices"
)

// sketch is a quantile sketch of launch durations, after DDSketch
// (Masson, Rim, Lee, VLDB 2019): values fall into logarithmic buckets, so
// any quantile comes back within sketchAlpha relative error, and memory is
// bounded by the range of the values (a few hundred buckets from 1 µs to
// 1 s), not by how many there are.
type sketch struct {
	buckets  map[int32]uint64
	zeros    uint64
	n        uint64
	min, max uint64
}

// sketchAlpha is the relative accuracy of the quantiles.
const sketchAlpha = 0.01

var sketchLogGamma = math.Log((1 + sketchAlpha) / (1 - sketchAlpha))

func newSketch() *sketch { return &sketch{buckets: map[int32]uint64{}} }

func (s *sketch) add(v uint64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	s.max = max(s.max, v)
	s.n++
	if v == 0 {
		s.zeros++
		return
	}
	s.buckets[int32(math.Ceil(math.Log(float64(v))/sketchLogGamma))]++
}

// merge adds o's values to s.
func (s *sketch) merge(o *sketch) {
	if o == nil || o.n == 0 {
		return
	}
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	s.max = max(s.max, o.max)
	s.n += o.n
	s.zeros += o.zeros
	for k, c := range o.buckets {
		s.buckets[k] += c
	}
}

// quantile returns the q-quantile (0 ≤ q ≤ 1) within sketchAlpha relative
// error, clamped to the exact minimum and maximum; 0 when empty.
func (s *sketch) quantile(q float64) float64 {
	if s.n == 0 {
		return 0
	}
	rank := uint64(q * float64(s.n-1))
	if rank < s.zeros {
		return 0
	}
	seen := s.zeros
	keys := make([]int32, 0, len(s.buckets))
	for k := range s.buckets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		seen += s.buckets[k]
		if seen > rank {
			// The bucket (γ^(k-1), γ^k]: its value of least relative error.
			v := 2 * math.Exp(float64(k)*sketchLogGamma) / (1 + math.Exp(sketchLogGamma))
			return math.Min(math.Max(v, float64(s.min)), float64(s.max))
		}
	}
	return float64(s.max)
}
