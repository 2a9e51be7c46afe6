package main

import (
	"math/rand/v2"
	"testing"
)

// TestTimelineKeepsBusyTime: however often the bins widen, every
// nanosecond of every launch stays in exactly one bin of its lane and
// kernel; launches before the run's start are not counted; lanes past the
// cap are counted as such.
func TestTimelineKeepsBusyTime(t *testing.T) {
	const t0 = 1_000_000
	tl := newTimeline(t0)
	rng := rand.New(rand.NewPCG(3, 4))
	want := map[string]uint64{}
	at := uint64(t0)
	for i := 0; i < 20000; i++ {
		at += rng.Uint64N(5000)
		d := 1 + rng.Uint64N(20000)
		name := []string{"a", "b", "c"}[i%3]
		tl.add(sourceDevice{0, uint32(1 + i%2)}, name, at, at+d)
		want[name] += d
	}
	tl.add(sourceDevice{0, 1}, "a", t0-10, t0+10) // starts before the run
	for i := 0; i < maxTimelineLanes+3; i++ {
		tl.add(sourceDevice{uint32(i + 1), 9}, "x", t0+1, t0+2)
	}
	got := map[string]uint64{}
	for _, lane := range tl.order {
		if lane.device == 9 {
			continue
		}
		for _, b := range tl.lanes[lane].bins {
			for k, v := range b {
				got[tl.listed[k]] += v
			}
		}
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("kernel %s: %d ns in the bins, %d added", n, got[n], w)
		}
	}
	if tl.width <= 1000 || tl.endNs > tl.width*timelineBins {
		t.Errorf("width %d ns for an end at %d ns", tl.width, tl.endNs)
	}
	if tl.extra != 5 || len(tl.order) != maxTimelineLanes {
		t.Errorf("lanes: %d kept, %d extra", len(tl.order), tl.extra)
	}
}

// TestTimelineHostileTimes: end times near 2^64 (a damaged or hostile
// file) neither overflow the bin width nor loop: the width stops at its
// cap and the launch is clipped.
func TestTimelineHostileTimes(t *testing.T) {
	tl := newTimeline(10)
	tl.add(sourceDevice{0, 1}, "a", 20, 1<<63)
	tl.add(sourceDevice{0, 1}, "a", ^uint64(0)-5, ^uint64(0))
	if tl.width < maxTimelineWidth || tl.width >= 2*maxTimelineWidth {
		t.Errorf("width %d, want the first doubling at or past the cap %d", tl.width, uint64(maxTimelineWidth))
	}
	var busy uint64
	for _, b := range tl.lanes[sourceDevice{0, 1}].bins {
		busy += b[0]
	}
	if want := tl.width*timelineBins - 10; busy != want {
		t.Errorf("busy %d, want %d (clipped at the last bin)", busy, want)
	}
}
