package main

// timeline is the device busy time of a run over time, for the web page's
// timeline: per lane (one device of one input) a fixed number of bins, each
// with its busy nanoseconds per kernel name. The bins cover the run from
// its start; when a launch ends past the last bin, every bin doubles in
// width (neighbours merged), so memory is bounded by lanes × bins ×
// kernels, whatever the run's length. Lanes past maxTimelineLanes are
// counted, not drawn.
type timeline struct {
	t0     uint64 // host ns of the run's start
	width  uint64 // ns per bin
	lanes  map[sourceDevice]*timelineLane
	order  []sourceDevice
	names  map[string]int32 // kernel name -> index
	listed []string         // by index
	extra  int              // lanes not kept
	endNs  uint64           // latest end, from t0
}

const (
	timelineBins     = 400
	maxTimelineLanes = 64
	maxTimelineWidth = 1 << 48 // ns per bin: 400 bins then cover 3.6 years
)

type timelineLane struct {
	bins [timelineBins]map[int32]uint64 // kernel index -> busy ns
}

func newTimeline(t0 uint64) *timeline {
	return &timeline{t0: t0, width: 1000, lanes: map[sourceDevice]*timelineLane{}, names: map[string]int32{}}
}

// add counts one launch [start, end) (host ns) of kernel name on a lane.
func (tl *timeline) add(lane sourceDevice, name string, start, end uint64) {
	if start < tl.t0 || end <= start {
		return
	}
	ln, seen := tl.lanes[lane]
	if !seen {
		if len(tl.order) == maxTimelineLanes {
			tl.extra++
			tl.lanes[lane] = nil // counted once
			return
		}
		ln = &timelineLane{}
		tl.lanes[lane] = ln
		tl.order = append(tl.order, lane)
	}
	if ln == nil {
		return
	}
	s, e := start-tl.t0, end-tl.t0
	// Widen until the end fits; bins never grow past maxTimelineWidth
	// (3.3 days) by more than one doubling, so a hostile end time clips
	// the launch instead of overflowing the width.
	for e > tl.width*timelineBins && tl.width < maxTimelineWidth {
		tl.widen()
	}
	if limit := tl.width * timelineBins; e > limit {
		e = limit
		if s >= e {
			return
		}
	}
	tl.endNs = max(tl.endNs, e)
	k, ok := tl.names[name]
	if !ok {
		k = int32(len(tl.listed))
		tl.names[name] = k
		tl.listed = append(tl.listed, name)
	}
	for b := s / tl.width; b < timelineBins && b*tl.width < e; b++ {
		lo, hi := max(s, b*tl.width), min(e, (b+1)*tl.width)
		if ln.bins[b] == nil {
			ln.bins[b] = map[int32]uint64{}
		}
		ln.bins[b][k] += hi - lo
	}
}

// widen doubles the bin width, merging neighbouring bins.
func (tl *timeline) widen() {
	for _, ln := range tl.lanes {
		if ln == nil {
			continue
		}
		for i := 0; i < timelineBins/2; i++ {
			a, b := ln.bins[2*i], ln.bins[2*i+1]
			if a == nil {
				a = b
			} else {
				for k, v := range b {
					a[k] += v
				}
			}
			ln.bins[i] = a
		}
		for i := timelineBins / 2; i < timelineBins; i++ {
			ln.bins[i] = nil
		}
	}
	tl.width *= 2
}
