package main

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/zestall/zestall/proto/pbstream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// The model keeps EU stall rows summed as the views need them, so that its
// memory is bounded by kernels, instructions and devices, not by how long
// the run was or how many launches it made: one stallAgg per (kernel,
// instruction offset, device, attribution kind). What grows with the run
// is small per unit: 2 to 4 bytes per launch record (its append time, to
// count launches per collection window; timeList), one sum per stall read (to count
// samples per window), and per launch stall sums only for zestall trace,
// which writes one event per launch anyway.

// stallKey is what the views tell rows apart by.
type stallKey struct {
	kernel, off uint64
	device      uint32
	kind        pb.StallAttribution
}

// stallAgg is the sum of the rows of one key.
type stallAgg struct {
	stallKey
	counts []uint64 // per stall reason (column)
	rows   uint64   // rows summed
	ids    launchSet
}

// maxLabelLaunches caps the launch ids an aggregate names (a pprof label
// never holds hundreds of thousands of them).
const maxLabelLaunches = 8

// launchSet is the first distinct launch ids named by the rows of an
// aggregate, and whether there were others.
type launchSet struct {
	ids  []uint64
	more bool
}

func (s *launchSet) add(id uint64) {
	if slices.Contains(s.ids, id) {
		return
	}
	if len(s.ids) == maxLabelLaunches {
		s.more = true
		return
	}
	s.ids = append(s.ids, id)
}

// String is "3,7,9", or "3,7,9,… (more)" when ids were left out.
func (s launchSet) String() string {
	parts := make([]string, len(s.ids))
	for i, id := range s.ids {
		parts[i] = strconv.FormatUint(id, 10)
	}
	out := strings.Join(parts, ",")
	if s.more {
		out += ",… (more)"
	}
	return out
}

// sampleAt is where a stall read's samples are counted per window: the
// input, the device and the host time the read ended (0: summed over
// several windows by the collector).
type sampleAt struct {
	source, device uint32
	end            uint64
}

// sourceDevice names the launches of one input on one device.
type sourceDevice struct{ source, device uint32 }

// addStalls sums a StallRows record into the model.
func (m *runModel) addStalls(s *pb.StallRows) {
	n := len(s.OffsetDeltas)
	c := int(s.ColumnCount)
	if c*n != len(s.Counters) || n == 0 {
		// Malformed (the reader rejects these, be safe anyway), or no
		// rows: then column_count is unchecked and must size nothing.
		return
	}
	kind := s.Attribution
	switch kind {
	case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH, pb.StallAttribution_STALL_ATTRIBUTION_SHARED:
	case pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES:
		kind = pb.StallAttribution_STALL_ATTRIBUTION_SHARED // the same sharing, its ids as ranges
	default:
		kind = pb.StallAttribution_STALL_ATTRIBUTION_KERNEL // unknown kinds name no launch
	}
	if m.launchSel != nil {
		m.launchSel.addRows(s, kind)
	}
	if m.onlyLaunch != 0 && (kind != pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH || s.LaunchId != m.onlyLaunch) {
		return // annotate --launch: only the rows of that launch alone
	}
	var perLaunch []uint64
	if m.keepLaunches && kind == pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH && m.traceSel.keeps(s.LaunchId) {
		perLaunch = m.perLaunch[s.LaunchId]
		if len(perLaunch) < c { // new, or a record with more columns
			perLaunch = append(perLaunch, make([]uint64, c-len(perLaunch))...)
			m.perLaunch[s.LaunchId] = perLaunch
		}
	}
	var read uint64
	off := uint64(0)
	for i, d := range s.OffsetDeltas {
		off += d
		key := stallKey{kernel: s.KernelId, off: off, device: s.DeviceId, kind: kind}
		a := m.stalls[key]
		if a == nil {
			a = &stallAgg{stallKey: key, counts: make([]uint64, c)}
			m.stalls[key] = a
			m.stallOrder = append(m.stallOrder, a)
		}
		a.rows++
		switch kind {
		case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
			a.ids.add(s.LaunchId)
		case pb.StallAttribution_STALL_ATTRIBUTION_SHARED:
			for id := range pbstream.CandidateLaunches(s) {
				if a.ids.add(id); a.ids.more {
					break // a range may name tens of thousands
				}
			}
		}
		if len(a.counts) < c {
			a.counts = append(a.counts, make([]uint64, c-len(a.counts))...)
		}
		for j := 0; j < c; j++ {
			v := s.Counters[j*n+i]
			a.counts[j] += v
			read += v
			if perLaunch != nil {
				perLaunch[j] += v
			}
		}
	}
	m.samplesAt[sampleAt{m.source, s.DeviceId, s.WindowEndHostNs}] += read
	m.devSamples[s.DeviceId] += read
}

// addLaunch counts a launch record into the model.
func (m *runModel) addLaunch(l *pb.Launch) {
	m.launches[l.KernelId]++
	if l.CodeCopy != 0 || m.header.GetLaunchSeparation() == pb.LaunchSeparation_LAUNCH_SEPARATION_COPIES {
		cs := m.codesUsed[l.KernelId]
		cs.add(l.CodeCopy)
		m.codesUsed[l.KernelId] = cs
	}
	m.devLaunches[l.DeviceId]++
	sd := sourceDevice{m.source, l.DeviceId}
	tl := m.appendTimes[sd]
	if tl == nil {
		tl = &timeList{}
		m.appendTimes[sd] = tl
	}
	tl.add(l.HostAppendNs)
	if m.keepLaunches && (m.traceSel == nil || m.traceSel.keep(m, l)) {
		m.launchList.add(l)
	}
	if m.launchSel != nil {
		m.launchSel.addLaunch(m, l)
	}
	if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 && l.DeviceEndNs >= l.DeviceStartNs {
		m.timed[l.KernelId]++
		d := l.DeviceEndNs - l.DeviceStartNs
		if m.timelineOn {
			m.addTimeline(l)
		}
		m.devNs[l.KernelId] += d
		sk := m.durations[l.KernelId]
		if sk == nil {
			sk = newSketch()
			m.durations[l.KernelId] = sk
		}
		sk.add(d)
	}
}

// codeSet is a set of codes a kernel's launches ran: 0 its own, n its
// module's copy n (launch separation by copies, at most 64 copies).
type codeSet [2]uint64

func (c *codeSet) add(code uint32) {
	if code < 128 {
		c[code/64] |= 1 << (code % 64)
	}
}

func (c codeSet) union(o codeSet) codeSet { return codeSet{c[0] | o[0], c[1] | o[1]} }

// len is the number of codes in the set; copies those of them that are
// copies (not 0).
func (c codeSet) len() int    { return bits.OnesCount64(c[0]) + bits.OnesCount64(c[1]) }
func (c codeSet) copies() int { return c.len() - int(c[0]&1) }

// timeList keeps host times compactly: zigzag varint deltas from the one
// before, in fixed chunks (no doubling copies). Append times of one input
// and device mostly ascend by microseconds, so a time takes 2 to 4 bytes.
type timeList struct {
	chunks [][]byte
	prev   uint64
	n      int
}

const timeChunk = 64 << 10

func (l *timeList) add(t uint64) {
	if n := len(l.chunks); n == 0 || len(l.chunks[n-1])+binary.MaxVarintLen64 > cap(l.chunks[n-1]) {
		// Chunks start small and double up to timeChunk: a run (an MPI
		// rank among a thousand) with few launches takes little.
		size := 256
		if n > 0 {
			size = min(timeChunk, 2*cap(l.chunks[n-1]))
		}
		l.chunks = append(l.chunks, make([]byte, 0, size))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = binary.AppendVarint(*c, int64(t-l.prev))
	l.prev = t
	l.n++
}

// each calls fn with every time, in the order added.
func (l *timeList) each(fn func(uint64)) {
	var t uint64
	for _, c := range l.chunks {
		for len(c) > 0 {
			d, n := binary.Varint(c)
			c = c[n:]
			t += uint64(d)
			fn(t)
		}
	}
}

// traceLaunch is what trace needs of a launch record: 96 bytes instead of
// the record's 224. Field names as in pb.Launch.
type traceLaunch struct {
	Id, KernelId, QueueId, CommandListId     uint64
	HostAppendNs, DeviceStartNs, DeviceEndNs uint64
	DeviceId, Flags                          uint32
	GroupCountX, GroupCountY, GroupCountZ    uint32
	GroupSizeX, GroupSizeY, GroupSizeZ       uint32
	SyclTaskId                               uint64 // its SYCL task (cmd/zestall/sycl.go), 0: none
	SyclLocationId                           uint32
}

// launchList keeps traceLaunches in fixed chunks (no doubling copies).
type launchList struct{ chunks [][]traceLaunch }

const launchChunk = 4096

func (ll *launchList) add(l *pb.Launch) {
	if len(ll.chunks) == 0 || len(ll.chunks[len(ll.chunks)-1]) == launchChunk {
		ll.chunks = append(ll.chunks, make([]traceLaunch, 0, launchChunk))
	}
	c := &ll.chunks[len(ll.chunks)-1]
	*c = append(*c, toTraceLaunch(l))
}

func toTraceLaunch(l *pb.Launch) traceLaunch {
	return traceLaunch{Id: l.Id, KernelId: l.KernelId, QueueId: l.QueueId, CommandListId: l.CommandListId,
		HostAppendNs: l.HostAppendNs, DeviceStartNs: l.DeviceStartNs, DeviceEndNs: l.DeviceEndNs,
		DeviceId: l.DeviceId, Flags: l.Flags,
		GroupCountX: l.GroupCountX, GroupCountY: l.GroupCountY, GroupCountZ: l.GroupCountZ,
		GroupSizeX: l.GroupSizeX, GroupSizeY: l.GroupSizeY, GroupSizeZ: l.GroupSizeZ,
		SyclTaskId: l.SyclTaskId, SyclLocationId: l.SyclLocationId}
}

// each calls fn with every launch, in file order.
func (ll *launchList) each(fn func(*traceLaunch)) {
	for _, c := range ll.chunks {
		for i := range c {
			fn(&c[i])
		}
	}
}

// addTimeline counts a timed launch into the web page's timeline.
func (m *runModel) addTimeline(l *pb.Launch) {
	if m.timeline == nil {
		var t0 uint64
		if m.header != nil {
			t0 = m.header.StartHostNs
		}
		m.timeline = newTimeline(t0)
	}
	name := "?"
	if k := m.kernelByID[l.KernelId]; k != nil {
		name = kernelName(k)
	}
	m.timeline.add(sourceDevice{m.source, l.DeviceId}, name, l.DeviceStartNs, l.DeviceEndNs)
}

// traceSelection is zestall trace's --kernel, --from/--to and
// --max-launches: which launches are kept for the trace; the ones past the
// cap are summed into a timeline (bounded) instead.
type traceSelection struct {
	kernel   string
	from, to uint64 // ns from the run's start; to 0: the end
	max      int
	kept     map[uint64]struct{} // ids of the launches kept
	over     int                 // launches past max
	rest     *timeline
}

// keeps reports whether launch id is kept (every launch without a
// selection).
func (s *traceSelection) keeps(id uint64) bool {
	if s == nil {
		return true
	}
	_, ok := s.kept[id]
	return ok
}

func (s *traceSelection) keep(m *runModel, l *pb.Launch) bool {
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 || l.DeviceEndNs < l.DeviceStartNs || l.DeviceStartNs < t0 {
		return false // not traceable
	}
	k := m.kernelByID[l.KernelId]
	if s.kernel != "" && (k == nil || kernelName(k) != s.kernel && k.Name != s.kernel) {
		return false
	}
	start := l.DeviceStartNs - t0
	if start < s.from || s.to != 0 && start >= s.to {
		return false
	}
	if s.max > 0 && len(s.kept) >= s.max {
		s.over++
		if s.rest == nil {
			s.rest = newTimeline(t0)
		}
		name := "?"
		if k != nil {
			name = kernelName(k)
		}
		s.rest.add(sourceDevice{m.source, l.DeviceId}, name, l.DeviceStartNs, l.DeviceEndNs)
		return false
	}
	s.kept[l.Id] = struct{}{}
	return true
}

// restSlices calls fn with each slice of the launches past the cap: lane,
// start ns from the run's start, busy percent of the slice.
func (s *traceSelection) restSlices(fn func(lane sourceDevice, startNs uint64, busyPct int64)) {
	if s == nil || s.rest == nil {
		return
	}
	tl := s.rest
	used := min(int((tl.endNs+tl.width-1)/tl.width), timelineBins)
	for _, lane := range tl.order {
		ln := tl.lanes[lane]
		prev := int64(-1)
		for b := 0; b <= used; b++ {
			var busy uint64
			if b < used {
				for _, v := range ln.bins[b] {
					busy += v
				}
			}
			pct := int64(min(100, (100*busy+tl.width/2)/tl.width))
			if pct != prev {
				fn(lane, uint64(b)*tl.width, pct)
				prev = pct
			}
		}
	}
}
