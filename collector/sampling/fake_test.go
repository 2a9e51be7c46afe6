package sampling

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zestall/zestall/format/eustall"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
	"github.com/zestall/zestall/ze"
)

// fakeRead is what one Read of a fake stream returns.
type fakeRead struct {
	data    []byte
	dropped bool
	err     error
}

// fakeSource is a Source in Go: streams open as a PVC device's would (the
// driver's metric list, IP first), reads return what the test queued, and
// the calculation is the raw decoder's (an honest driver) unless lie is
// set.
type fakeSource struct {
	mu      sync.Mutex
	off     map[uint64]Off // device -> why Open fails
	reads   []fakeRead
	lie     bool // Calculate adds 1 to every value: the raw path must disagree
	calcs   int  // Calculate calls
	calcErr error
	closed  int
	// readDelay makes every read take this long (a busy reader).
	readDelay time.Duration
	// others: what OtherProcesses answers, one entry per call (the last
	// one repeats); othersErr: its error.
	others    [][]uint32
	othersErr error
	busy      map[uint64]bool // Open fails as on a tile whose stream another process holds
	// sets: a device's calculation sets (a COMPOSITE root's sub-devices),
	// 1 when absent.
	sets map[uint64]uint32
}

func (f *fakeSource) Open(device uint64, periodNs uint32) *Stream {
	if f.busy[device] { // the tile's stream is another process's: what Intel's driver returns
		return &Stream{Device: device, Off: OffOpenFailed, Result: ze.ErrorUnknown}
	}
	if off := f.off[device]; off != On {
		return &Stream{Device: device, Off: off, Result: ze.ErrorNotAvailable, Detail: " (fake)"}
	}
	st := &Stream{Device: device, PeriodNs: periodNs * 2, NotifyReports: 8, SubDevices: max(f.sets[device], 1)}
	for _, n := range eustall.DriverMetricNames(eustall.XeHPC) {
		st.Metrics = append(st.Metrics, Metric{Name: n})
	}
	return st
}

func (f *fakeSource) queue(r ...fakeRead) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, r...)
}

func (f *fakeSource) Read(st *Stream, buf []byte) (int, bool, error) {
	time.Sleep(f.readDelay)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reads) == 0 {
		return 0, false, nil
	}
	r := f.reads[0]
	f.reads = f.reads[1:]
	if r.err != nil {
		return 0, r.dropped, r.err
	}
	n := copy(buf, r.data)
	if n < len(r.data) { // the rest comes with the next read
		f.reads = append([]fakeRead{{data: r.data[n:]}}, f.reads...)
	}
	return n, r.dropped, nil
}

func (f *fakeSource) Notified(*Stream) bool { return false }

func (f *fakeSource) Calculate(st *Stream, raw []byte) ([][]uint64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calcs++
	if f.calcErr != nil {
		return nil, false, f.calcErr
	}
	names := make([]string, len(st.Metrics))
	for i, m := range st.Metrics {
		names[i] = m.Name
	}
	dec, err := eustall.NewDecoder(eustall.XeHPC, names)
	if err != nil {
		return nil, false, err
	}
	v, dropped, err := dec.Aggregate(raw)
	if f.lie {
		for i := range v {
			v[i]++
		}
	}
	return [][]uint64{v}, dropped, err
}

func (f *fakeSource) OtherProcesses(*Stream) ([]uint32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.othersErr != nil {
		return nil, f.othersErr
	}
	if len(f.others) == 0 {
		return nil, nil
	}
	o := f.others[0]
	if len(f.others) > 1 {
		f.others = f.others[1:]
	}
	return o, nil
}

func (f *fakeSource) Close(*Stream) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed++
}

func (f *fakeSource) calculations() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calcs
}

// records returns n PVC raw records: IP field ip+k, the Active counter 1.
// The IP field is bits 0..28, raw counter k bits 29+8k..36+8k: see
// docs/eu-stall-sampling.md §3.2 "Bit layout".
func records(n int, ip uint64) []byte {
	b := make([]byte, 64*n)
	for k := 0; k < n; k++ {
		binary.LittleEndian.PutUint64(b[64*k:], (ip+uint64(k))&0x1fffffff|1<<29)
	}
	return b
}

// window is a read window an attributor was given.
type window struct {
	start, end uint64
	rows       int
}

// fakeAttributor records what the reader gives it.
type fakeAttributor struct {
	mu       sync.Mutex
	cols     int
	windows  []window
	kernels  map[uint64]bool
	untimed  []uint64 // launch ids of LaunchUntimed
	ended    []uint64 // launch ids of UntimedEndedBy
	timed    []uint64
	calls    int // Launches calls
	resolves atomic.Int64
	panicAt  int // AddWindowValues panics on this window (1-based; 0 never)
	// others: the SetOtherProcesses value in force when each window came.
	others      []uint32
	othersKnown bool
	windowOther [][]uint32
}

func (a *fakeAttributor) SetOtherProcesses(pids []uint32, known bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.others, a.othersKnown = pids, known
}

func (a *fakeAttributor) KernelCreated(id, base, size, from uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.kernels[id] = true
}

func (a *fakeAttributor) KernelDestroyed(id, until uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.kernels, id)
}

// Launches records the launches of device in ls as the real attributor
// takes them (attribution.Attributor.Launches): timed ones by id, the
// others with the untimed; calls counts the calls.
func (a *fakeAttributor) Launches(device uint32, ls []stream.Launch) {
	a.calls++
	for _, l := range ls {
		switch {
		case l.DeviceId != device:
		case l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0:
			a.untimed = append(a.untimed, l.Id)
		default:
			a.timed = append(a.timed, l.Id)
		}
	}
}

func (a *fakeAttributor) LaunchUntimed(id, kernel, at uint64) { a.untimed = append(a.untimed, id) }

func (a *fakeAttributor) UntimedEndedBy(id, kernel, by uint64) { a.ended = append(a.ended, id) }

func (a *fakeAttributor) AddWindowValues(start, end uint64, values []uint64, ipIndex int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.windows = append(a.windows, window{start, end, len(values) / (a.cols + 1)})
	a.windowOther = append(a.windowOther, a.others)
	if len(a.windows) == a.panicAt {
		panic("fake attributor")
	}
}

func (a *fakeAttributor) NoSamplesUntil(hostNs uint64) {}

func (a *fakeAttributor) Resolve(pendingBefore uint64, final bool) []*pb.Record {
	a.resolves.Add(1)
	return nil
}

func (a *fakeAttributor) AddCounters(c *pb.Counters) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, w := range a.windows {
		n += w.rows
	}
	c.StallRowsAttributed += uint64(n)
	c.StallRowsUnattributed += 7
}

func (a *fakeAttributor) got() []window {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]window(nil), a.windows...)
}
