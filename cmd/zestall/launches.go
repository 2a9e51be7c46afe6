package main

import (
	"bufio"
	"container/heap"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// The per-launch views (report --launches, annotate --launch, the web
// page's launch table) keep single launches, which the rest of the model
// never does. Their memory is bounded by what the user selects, never by
// the run: either every launch of one kernel (by name: --kernel), or the
// N launches with the longest device times (a min-heap of N), each with
// its stall samples per reason. Stall rows come after the launches they
// name (proto/zestall.proto "Order of records"), so a launch's samples are
// summed into it as its rows arrive; rows of launches not kept are only
// counted in the model's aggregates.

// launchInfo is one kept launch and the stall samples its rows name.
type launchInfo struct {
	traceLaunch
	own    []uint64 // samples of rows attributed to this launch alone, per reason
	shared []uint64 // samples of rows shared with overlapping launches that name it
}

func (l *launchInfo) durationNs() uint64 {
	if !l.timed() {
		return 0
	}
	return l.DeviceEndNs - l.DeviceStartNs
}

func (l *launchInfo) timed() bool {
	return l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 && l.DeviceEndNs >= l.DeviceStartNs
}

// launchSelection says which launches are kept, and keeps them.
type launchSelection struct {
	kernel string // kernel name (demangled or mangled); "" any kernel
	id     uint64 // annotate --launch: only this launch
	limit  int    // without kernel: keep the limit longest launches
	byID   map[uint64]*launchInfo
	all    []*launchInfo // with kernel: in file order
	top    launchHeap    // without kernel: shortest on top
	seen   int           // launches that matched the selection
}

func newLaunchSelection(kernel string, limit int) *launchSelection {
	return &launchSelection{kernel: kernel, limit: limit, byID: map[uint64]*launchInfo{}}
}

// matches reports whether a kernel object is selected.
func (s *launchSelection) matches(k *pb.Kernel) bool {
	return s.kernel == "" || k != nil && (kernelName(k) == s.kernel || k.Name == s.kernel)
}

func (s *launchSelection) addLaunch(m *runModel, l *pb.Launch) {
	if s.id != 0 {
		if l.Id == s.id {
			s.seen++
			li := &launchInfo{traceLaunch: toTraceLaunch(l)}
			s.all = append(s.all, li)
			s.byID[l.Id] = li
		}
		return
	}
	if !s.matches(m.kernelByID[l.KernelId]) {
		return
	}
	s.seen++
	li := &launchInfo{}
	li.traceLaunch = toTraceLaunch(l)
	if s.kernel != "" {
		s.all = append(s.all, li)
		s.byID[l.Id] = li
		return
	}
	if !li.timed() {
		return // the longest launches are among the timed ones
	}
	if len(s.top) < s.limit {
		heap.Push(&s.top, li)
		s.byID[l.Id] = li
		return
	}
	if s.limit > 0 && li.durationNs() > s.top[0].durationNs() {
		delete(s.byID, s.top[0].Id)
		s.top[0] = li
		heap.Fix(&s.top, 0)
		s.byID[l.Id] = li
	}
}

// addRow adds one stall row's counts (c columns, row i of n) to the kept
// launches it names.
func (s *launchSelection) addRows(r *pb.StallRows, kind pb.StallAttribution) {
	var own *launchInfo
	var shared []*launchInfo
	switch kind {
	case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
		own = s.byID[r.LaunchId]
	case pb.StallAttribution_STALL_ATTRIBUTION_SHARED:
		for _, id := range r.CandidateLaunchIds {
			if li := s.byID[id]; li != nil {
				shared = append(shared, li)
			}
		}
		// STALL_ATTRIBUTION_SHARED_RANGES (addStalls passes it as SHARED):
		// a range may name tens of thousands of launches, of which a
		// selection keeps a few; look up the smaller side.
		rg := r.CandidateLaunchIdRanges
		for i := 0; i+1 < len(rg); i += 2 {
			lo, hi := rg[i], rg[i+1]
			if hi-lo < uint64(len(s.byID)) {
				for id := lo; ; id++ {
					if li := s.byID[id]; li != nil {
						shared = append(shared, li)
					}
					if id >= hi {
						break
					}
				}
				continue
			}
			for id, li := range s.byID {
				if id >= lo && id <= hi {
					shared = append(shared, li)
				}
			}
		}
	}
	if own == nil && shared == nil {
		return
	}
	n, c := len(r.OffsetDeltas), int(r.ColumnCount)
	sum := make([]uint64, c)
	for j := 0; j < c; j++ {
		for i := 0; i < n; i++ {
			sum[j] += r.Counters[j*n+i]
		}
	}
	add := func(dst *[]uint64) {
		if len(*dst) < c {
			*dst = append(*dst, make([]uint64, c-len(*dst))...)
		}
		for j, v := range sum {
			(*dst)[j] += v
		}
	}
	if own != nil {
		add(&own.own)
	}
	for _, li := range shared {
		add(&li.shared)
	}
}

// launches returns the kept launches, longest device time first (then by
// id).
func (s *launchSelection) launches() []*launchInfo {
	var out []*launchInfo
	if s.kernel != "" {
		out = slices.Clone(s.all)
	} else {
		out = slices.Clone([]*launchInfo(s.top))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := out[i].durationNs(), out[j].durationNs(); a != b {
			return a > b
		}
		return out[i].Id < out[j].Id
	})
	return out
}

// launchHeap is a min-heap of launches by device time.
type launchHeap []*launchInfo

func (h launchHeap) Len() int { return len(h) }
func (h launchHeap) Less(i, j int) bool {
	if a, b := h[i].durationNs(), h[j].durationNs(); a != b {
		return a < b
	}
	return h[i].Id > h[j].Id
}
func (h launchHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *launchHeap) Push(x any)   { *h = append(*h, x.(*launchInfo)) }
func (h *launchHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// topReasons names the largest reasons of c: "SbidStall 559, SendStall 78".
func topReasons(m *runModel, c []uint64, n int) string {
	idx := make([]int, len(c))
	for j := range idx {
		idx[j] = j
	}
	sort.SliceStable(idx, func(a, b int) bool { return c[idx[a]] > c[idx[b]] })
	var parts []string
	for _, j := range idx[:min(n, len(idx))] {
		if c[j] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", m.metricName(j), c[j]))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// metricName names stall counter column j.
func (m *runModel) metricName(j int) string {
	if j < len(m.metrics) {
		return m.metrics[j]
	}
	return fmt.Sprintf("col%d", j)
}

// launchMedians returns, per kernel name, the median device time of its
// timed launches (from the duration sketches, within 1%).
func launchMedians(m *runModel) map[string]float64 {
	sk := map[string]*sketch{}
	for _, k := range m.kernels {
		n := kernelName(k)
		if sk[n] == nil {
			sk[n] = newSketch()
		}
		sk[n].merge(m.durations[k.Id])
	}
	out := map[string]float64{}
	for n, s := range sk {
		if s.n > 0 {
			out[n] = s.quantile(0.5)
		}
	}
	return out
}

// writeLaunchTable prints the kept launches (report --launches).
func writeLaunchTable(w io.Writer, m *runModel) {
	s := m.launchSel
	ls := s.launches()
	switch {
	case s.kernel != "":
		fmt.Fprintf(w, "launches of %s: %d (every launch of the kernel), longest device time first\n", s.kernel, len(ls))
	default:
		fmt.Fprintf(w, "the %d longest launches of %d (--limit), longest device time first\n", len(ls), s.seen)
	}
	if len(ls) == 0 {
		return
	}
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	medians := launchMedians(m)
	row := func(l *launchInfo) []string {
		name := "?"
		if k := m.kernelByID[l.KernelId]; k != nil {
			name = kernelName(k)
		}
		start, dur, vs := "-", "untimed", "-"
		if l.timed() {
			start = fmt.Sprintf("%.3f ms", float64(l.DeviceStartNs-min(l.DeviceStartNs, t0))/1e6)
			dur = fmt.Sprintf("%.2f us", float64(l.durationNs())/1e3)
			if med := medians[name]; med > 0 {
				vs = fmt.Sprintf("%.2fx", float64(l.durationNs())/med)
			}
		}
		queue := fmt.Sprintf("q%d", l.QueueId)
		if l.QueueId == 0 {
			queue = fmt.Sprintf("list%d", l.CommandListId)
		}
		return []string{fmt.Sprintf("  %d", l.Id), name, fmt.Sprint(l.DeviceId), queue, start, dur, vs,
			fmt.Sprintf("%dx%dx%d", l.GroupCountX, l.GroupCountY, l.GroupCountZ),
			fmt.Sprintf("%dx%dx%d", l.GroupSizeX, l.GroupSizeY, l.GroupSizeZ),
			fmt.Sprint(sumCounts(l.own)), fmt.Sprint(sumCounts(l.shared)), topReasons(m, l.own, 3)}
	}
	// Two passes (column widths, then the rows) rather than a
	// tabwriter, which would hold the whole table: a kernel may have
	// millions of launches.
	head := []string{"  LAUNCH", "KERNEL", "DEVICE", "QUEUE", "START", "DEVICE TIME", "VS MEDIAN", "GROUPS", "GROUP SIZE", "SAMPLES", "SHARED", "TOP REASONS (SAMPLES)"}
	width := make([]int, len(head))
	widen := func(cells []string) {
		for i, c := range cells[:len(cells)-1] {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	widen(head)
	for _, l := range ls {
		widen(row(l))
	}
	bw := bufio.NewWriter(w)
	put := func(cells []string) {
		for i, c := range cells[:len(cells)-1] {
			bw.WriteString(c)
			bw.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
		}
		bw.WriteString(cells[len(cells)-1])
		bw.WriteByte('\n')
	}
	put(head)
	for _, l := range ls {
		put(row(l))
	}
	bw.Flush()
	if s.kernel != "" {
		slow := 0
		for _, l := range ls {
			k := m.kernelByID[l.KernelId]
			if k == nil || !l.timed() {
				continue
			}
			if med := medians[kernelName(k)]; med > 0 && float64(l.durationNs()) >= 2*med {
				slow++
			}
		}
		fmt.Fprintf(w, "  slow: %d of the %d launches took at least twice the kernel's median device time\n", slow, len(ls))
	}
	fmt.Fprintln(w, "  VS MEDIAN: device time over the median of the kernel's timed launches (within 1%).")
	fmt.Fprintln(w, "  SAMPLES: EU stall samples attributed to this launch alone; SHARED: samples of reads that overlapped")
	fmt.Fprintln(w, "  several launches of the kernel, counted for each of them (so SHARED does not add up across launches).")
}

// jsonLaunches is report --json --launches, schema "zestall-launches/1".
type jsonLaunches struct {
	Schema string `json:"schema"`
	// Kernel is the --kernel selection ("" : the Limit longest launches
	// of every kernel).
	Kernel string `json:"kernel"`
	Limit  int    `json:"limit"`
	// Matched: launch records of the selection in the inputs.
	Matched  int          `json:"matched"`
	Metrics  []string     `json:"metrics"`
	Launches []jsonLaunch `json:"launches"` // longest device time first
}

type jsonLaunch struct {
	ID       uint64 `json:"id"`
	Kernel   string `json:"kernel"`
	KernelID uint64 `json:"kernel_id"`
	Device   uint32 `json:"device"`
	QueueID  uint64 `json:"queue_id"`        // 0: an immediate command list
	ListID   uint64 `json:"command_list_id"` //
	// StartNs from the run's start and DeviceNs; null when untimed.
	StartNs  *uint64 `json:"start_ns"`
	DeviceNs *uint64 `json:"device_ns"`
	// VsMedian: device time over the kernel's median (0 when untimed).
	VsMedian  float64           `json:"vs_median"`
	Groups    [3]uint32         `json:"groups"`
	GroupSize [3]uint32         `json:"group_size"`
	Samples   uint64            `json:"samples"` // attributed to this launch alone
	Reasons   map[string]uint64 `json:"reasons"` // of Samples
	// Shared: samples of reads shared with overlapping launches of the
	// kernel that name this one (counted for each of them).
	Shared        uint64            `json:"shared"`
	SharedReasons map[string]uint64 `json:"shared_reasons"`
}

func writeJSONLaunches(w io.Writer, m *runModel) error {
	s := m.launchSel
	out := jsonLaunches{Schema: "zestall-launches/1", Kernel: s.kernel, Matched: s.seen, Metrics: append([]string{}, m.metrics...), Launches: []jsonLaunch{}}
	if s.kernel == "" {
		out.Limit = s.limit
	}
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	medians := launchMedians(m)
	for _, l := range s.launches() {
		jl := jsonLaunch{ID: l.Id, KernelID: l.KernelId, Device: l.DeviceId, QueueID: l.QueueId, ListID: l.CommandListId,
			Groups: [3]uint32{l.GroupCountX, l.GroupCountY, l.GroupCountZ}, GroupSize: [3]uint32{l.GroupSizeX, l.GroupSizeY, l.GroupSizeZ},
			Samples: sumCounts(l.own), Reasons: reasonMap(m, l.own), Shared: sumCounts(l.shared), SharedReasons: reasonMap(m, l.shared)}
		if k := m.kernelByID[l.KernelId]; k != nil {
			jl.Kernel = kernelName(k)
		}
		if l.timed() {
			st, d := l.DeviceStartNs-min(l.DeviceStartNs, t0), l.durationNs()
			jl.StartNs, jl.DeviceNs = &st, &d
			if med := medians[jl.Kernel]; med > 0 {
				jl.VsMedian = float64(int(float64(d)/med*1000+0.5)) / 1000
			}
		}
		out.Launches = append(out.Launches, jl)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
