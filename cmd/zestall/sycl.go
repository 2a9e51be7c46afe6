package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// syclModel is what report knows of SYCL call sites: the source locations
// (SyclLocation records) and, per location, the launches tagged with it.
// Bounded by the number of call sites, not by the run's length.
type syclModel struct {
	locs  map[uint32]*pb.SyclLocation
	sites map[uint32]*syclSite
	// kernel id -> the one SYCL location its launches came from, or
	// severalSites.
	kernelSite map[uint64]uint32
	// kernel id -> location id -> launches (annotate; bounded by kernels
	// times call sites).
	kernelSites map[uint64]map[uint32]int
	spans       []*pb.SyclSpan // for trace only (runModel.keepLaunches)
}

// syclHostPid is the trace process of the host threads' SYCL spans
// (device ids are small).
const syclHostPid = 1 << 30

// writeSyclSpans emits the SYCL spans as slices on their host threads,
// each task with a flow to the launches it appended (the flow id is the
// task id; writeTrace ends the flows at the launches).
func writeSyclSpans(m *runModel, t0 uint64, emit func(traceEvent)) {
	s := &m.sycl
	if len(s.spans) == 0 {
		return
	}
	emit(traceEvent{Name: "process_name", Ph: "M", Pid: syclHostPid, Args: map[string]any{"name": "host threads (SYCL)"}})
	threads := map[uint32]bool{}
	for _, sp := range s.spans {
		if sp.BeginNs < t0 || sp.EndNs < sp.BeginNs {
			continue
		}
		if !threads[sp.ThreadId] {
			threads[sp.ThreadId] = true
			emit(traceEvent{Name: "thread_name", Ph: "M", Pid: syclHostPid, Tid: uint64(sp.ThreadId),
				Args: map[string]any{"name": fmt.Sprintf("thread %d", sp.ThreadId)}})
		}
		name := strings.ToLower(strings.TrimPrefix(sp.Kind.String(), "SYCL_SPAN_KIND_"))
		args := map[string]any{"node": sp.NodeId, "instance": sp.Instance}
		if l := s.locs[sp.LocationId]; l != nil {
			name = syclSiteName(l)
		}
		if sp.QueueId != nil {
			args["queue"] = *sp.QueueId
		}
		ts := float64(sp.BeginNs-t0) / 1e3
		emit(traceEvent{Name: name, Cat: "sycl", Ph: "X", Pid: syclHostPid, Tid: uint64(sp.ThreadId),
			Ts: ts, Dur: float64(sp.EndNs-sp.BeginNs) / 1e3, Args: args})
		if sp.Kind == pb.SyclSpanKind_SYCL_SPAN_KIND_TASK {
			emit(traceEvent{Name: "launch", Cat: "sycl", Ph: "s", Id: sp.Id, Pid: syclHostPid, Tid: uint64(sp.ThreadId), Ts: ts})
		}
	}
}

// severalSites marks a kernel launched from more than one SYCL call site.
const severalSites = ^uint32(0)

type syclSite struct {
	launches, timed int
	deviceNs        uint64
}

func (s *syclModel) addLocation(l *pb.SyclLocation) {
	if s.locs == nil {
		s.locs = map[uint32]*pb.SyclLocation{}
	}
	s.locs[l.Id] = l
}

func (s *syclModel) addLaunch(l *pb.Launch) {
	if l.SyclLocationId == 0 {
		return
	}
	if s.sites == nil {
		s.sites = map[uint32]*syclSite{}
	}
	site := s.sites[l.SyclLocationId]
	if site == nil {
		site = &syclSite{}
		s.sites[l.SyclLocationId] = site
	}
	if s.kernelSite == nil {
		s.kernelSite = map[uint64]uint32{}
	}
	if prev, ok := s.kernelSite[l.KernelId]; !ok {
		s.kernelSite[l.KernelId] = l.SyclLocationId
	} else if prev != l.SyclLocationId {
		s.kernelSite[l.KernelId] = severalSites
	}
	if s.kernelSites == nil {
		s.kernelSites = map[uint64]map[uint32]int{}
	}
	if s.kernelSites[l.KernelId] == nil {
		s.kernelSites[l.KernelId] = map[uint32]int{}
	}
	s.kernelSites[l.KernelId][l.SyclLocationId]++
	site.launches++
	if l.DeviceEndNs > l.DeviceStartNs && l.DeviceStartNs != 0 {
		site.timed++
		site.deviceNs += l.DeviceEndNs - l.DeviceStartNs
	}
}

// syclSiteName is "kernel at file:line:column" for a location.
func syclSiteName(l *pb.SyclLocation) string {
	name := l.KernelName
	if name == "" {
		name = l.FunctionName
	}
	if l.File == "" {
		return name
	}
	return fmt.Sprintf("%s at %s:%d:%d", name, l.File, l.Line, l.Column)
}

// writeSyclSites lists the SYCL call sites (kernel name and source
// location of the submission) by device time, at most top of them.
func writeSyclSites(w io.Writer, m *runModel, top int) {
	s := &m.sycl
	if h := m.header; h != nil && h.Sycl != nil && h.Sycl.Problem != "" {
		fmt.Fprintf(w, "SYCL: %s\n", h.Sycl.Problem)
	}
	if c := m.counters; c != nil && c.SyclRecordsLost > 0 {
		fmt.Fprintf(w, "LOST: %d SYCL records (XPTI ring full, tasks nested too deep, or too many call sites)\n", c.SyclRecordsLost)
	}
	if len(s.sites) == 0 {
		return
	}
	ids := make([]uint32, 0, len(s.sites))
	var total int
	for id, site := range s.sites {
		ids = append(ids, id)
		total += site.launches
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := s.sites[ids[i]], s.sites[ids[j]]
		if a.deviceNs != b.deviceNs {
			return a.deviceNs > b.deviceNs
		}
		return ids[i] < ids[j]
	})
	fmt.Fprintf(w, "\nSYCL call sites (%d, %d launches tagged):\n", len(ids), total)
	fmt.Fprintf(w, "  %12s %9s  %s\n", "device ms", "launches", "SYCL kernel at file:line:column")
	for i, id := range ids {
		if top > 0 && i == top {
			fmt.Fprintf(w, "  ... %d more\n", len(ids)-top)
			break
		}
		site := s.sites[id]
		name := fmt.Sprintf("location %d (no SyclLocation record)", id)
		if l := s.locs[id]; l != nil {
			name = syclSiteName(l)
		}
		fmt.Fprintf(w, "  %12.3f %9d  %s\n", float64(site.deviceNs)/1e6, site.launches, name)
	}
}

// hostFrame is the SYCL call site every launch of a kernel came from, for
// a host frame above the kernel's instructions (pprof): its name
// ("kernel at file:line:column", or "(several SYCL call sites)") and
// source position; ok is false when no launch of the kernel was tagged.
func (s *syclModel) hostFrame(kernel uint64) (name, file string, line int64, ok bool) {
	id, ok := s.kernelSite[kernel]
	if !ok || id == 0 {
		return "", "", 0, false
	}
	if id == severalSites {
		return "(several SYCL call sites)", "", 0, true
	}
	l := s.locs[id]
	if l == nil {
		return fmt.Sprintf("SYCL location %d", id), "", 0, true
	}
	return syclSiteName(l), l.File, int64(l.Line), true
}

// callSites lists the SYCL call sites a kernel's launches came from, most
// launches first, at most top of them, as "name (n launches)", and how
// many there were in all.
func (s *syclModel) callSites(kernel uint64, top int) (names []string, all int) {
	counts := s.kernelSites[kernel]
	ids := make([]uint32, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if counts[ids[i]] != counts[ids[j]] {
			return counts[ids[i]] > counts[ids[j]]
		}
		return ids[i] < ids[j]
	})
	for i, id := range ids {
		if i == top {
			break
		}
		name := fmt.Sprintf("SYCL location %d", id)
		if l := s.locs[id]; l != nil {
			name = syclSiteName(l)
		}
		names = append(names, fmt.Sprintf("%s (%d launches)", name, counts[id]))
	}
	return names, len(ids)
}
