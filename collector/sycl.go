package collector

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ianlancetaylor/demangle"

	"github.com/zestall/zestall/abi"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// SyclSource is what the XPTI subscriber (cgo/xpti.c, through package cgo)
// collected: the source locations of SYCL submissions, and the spans,
// nodes and edges the SYCL runtime notified. The launch path tags each
// launch with its task and location itself (timing.Slot); this source only
// supplies what those ids stand for. See docs/xpti.md.
type SyclSource interface {
	// Setup is what the library's constructor decided.
	Setup() SyclSetup
	// Locations appends the locations with ids from+1 up to the last one
	// known, in id order.
	Locations(from uint32, dst []SyclLocation) []SyclLocation
	// Drain appends the records collected since the last call (one
	// goroutine at a time).
	Drain(dst []SyclRecord) []SyclRecord
	// Counts are the tasks ended and the records lost so far.
	Counts() (tasks, lost uint64)
}

// SyclSetup is how zestall took part in XPTI (proto SyclSetup).
type SyclSetup struct {
	State       int // abi.Xpti*
	Streams     int // abi.SyclStream* bits
	Subscribers string
	Dispatcher  string
	Problem     string
}

// SyclLocation is one interned source location (its strings copied out
// of C).
type SyclLocation struct {
	ID           uint32
	KernelName   string // as the runtime gave it (maybe mangled)
	FunctionName string
	File         string
	Line, Column uint32
}

// SyclRecord is one record of the XPTI ring (cgo/abi.h zx_record_t).
type SyclRecord struct {
	Kind     uint8 // abi.SyclRec*
	Span     uint8 // abi.SyclSpan* for a span
	HasQueue bool
	Depth    uint8
	BeginNs  uint64
	EndNs    uint64
	ID       uint64
	Node     uint64
	Target   uint64
	Queue    uint64
	Instance uint64
	Location uint32
	TID      uint32
}

// sycl is the session's side of the SYCL records: which locations were
// written and the drain buffers (one drainer at a time).
//
// The source is set once and read without mu: a drainer holds mu while it
// waits for room in the writer's queues (sendOrLose), and the writer
// goroutine reads the source's totals for every Counters record it
// writes, so a writer taking mu would wait for a drainer that waits for it.
type sycl struct {
	src   atomic.Pointer[SyclSource]
	mu    sync.Mutex // the fields below: one drainer at a time
	sent  uint32     // locations written: ids 1..sent
	locs  []SyclLocation
	recs  []SyclRecord
	demgl map[string]string
}

// Sycl attaches the XPTI subscriber's source (before Status(StateActive)).
func (s *Session) Sycl(src SyclSource) {
	s.sycl.src.Store(&src)
}

// source is the attached source, or nil.
func (y *sycl) source() SyclSource {
	if p := y.src.Load(); p != nil {
		return *p
	}
	return nil
}

// syclHeader describes the XPTI setup for the header.
func syclHeader(src SyclSource) *pb.SyclSetup {
	if src == nil {
		return nil
	}
	st := src.Setup()
	h := &pb.SyclSetup{State: pb.SyclXptiState(st.State), Subscribers: st.Subscribers,
		Dispatcher: st.Dispatcher, Problem: st.Problem}
	if st.Streams&abi.SyclStream != 0 {
		h.Streams = append(h.Streams, "sycl")
	}
	if st.Streams&abi.SyclStreamDebug != 0 {
		h.Streams = append(h.Streams, "sycl.debug")
	}
	return h
}

// syclLocations queues the SyclLocation records not written yet, before
// any launch naming them (emitLaunches calls it first: records of the
// application threads' queue are written before launch batches queued
// after them). Called on zestall's goroutines only: it may wait for the
// writer.
func (s *Session) syclLocations() {
	y := &s.sycl
	src := y.source()
	if src == nil {
		return
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	y.locs = src.Locations(y.sent, y.locs[:0])
	for _, l := range y.locs {
		r := &pb.Record{Kind: &pb.Record_SyclLocation{SyclLocation: y.location(l)}}
		sendOrLose(s, func() chan *pb.Record { return s.out }, r, 1)
		y.sent = l.ID
	}
}

// syclRecords writes the spans, nodes and edges collected so far (from
// zestall's goroutines only: it may wait for the writer) and returns how
// many there were.
func (s *Session) syclRecords() int {
	s.syclLocations()
	y := &s.sycl
	src := y.source()
	if src == nil {
		return 0
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	n := 0
	for {
		y.recs = src.Drain(y.recs[:0])
		if len(y.recs) == 0 {
			return n
		}
		n += len(y.recs)
		// One queue operation per batch: a record at a time cost a
		// writer wake-up each (about 4 µs a record on 2 loaded cores).
		batch := make([]*pb.Record, 0, len(y.recs))
		for i := range y.recs {
			if r := syclRecord(&y.recs[i]); r != nil {
				batch = append(batch, r)
			}
		}
		sendOrLose(s, func() chan []*pb.Record { return s.syclq }, batch, uint64(len(batch)))
	}
}

// syclCounters adds the XPTI totals to c. The writer goroutine calls it:
// it takes no lock a drainer may hold (see sycl).
func (s *Session) syclCounters(c *pb.Counters) {
	if src := s.sycl.source(); src != nil {
		c.SyclTasks, c.SyclRecordsLost = src.Counts()
	}
}

func (y *sycl) location(l SyclLocation) *pb.SyclLocation {
	r := &pb.SyclLocation{Id: l.ID, KernelName: l.KernelName, FunctionName: l.FunctionName,
		File: l.File, Line: l.Line, Column: l.Column}
	if d := y.demangled(l.KernelName); d != l.KernelName {
		r.KernelName, r.KernelNameRaw = d, l.KernelName
	}
	return r
}

// demangled is a SYCL kernel name as written in the source. The runtime
// passes what the compiler named the kernel: a mangled symbol ("_Z…"), or
// the mangled name of the kernel's name type (what typeid(T).name()
// gives, e.g. "Z4mainE9VectorAdd" or "N2ns3FooE"), or a plain name. A
// type name is demangled as the typeinfo name it is part of; anything
// that does not demangle is kept as given. (zestall's own rule; see
// docs/xpti.md §5.5 "Metadata access rules" for where the name comes
// from.)
func (y *sycl) demangled(name string) string {
	if name == "" {
		return name
	}
	if d, ok := y.demgl[name]; ok {
		return d
	}
	d := name
	switch {
	case strings.HasPrefix(name, "_Z"):
		if v, err := demangle.ToString(name); err == nil {
			d = v
		}
	case name[0] == 'N' || name[0] == 'Z' || (name[0] >= '1' && name[0] <= '9'):
		const prefix = "typeinfo name for "
		if v, err := demangle.ToString("_ZTS" + name); err == nil && strings.HasPrefix(v, prefix) {
			d = v[len(prefix):]
		}
	}
	if y.demgl == nil {
		y.demgl = map[string]string{}
	}
	if len(y.demgl) < 1<<14 { // bounded like the C side's location table
		y.demgl[name] = d
	}
	return d
}

func optional(has bool, v uint64) *uint64 {
	if !has {
		return nil
	}
	return &v
}

// syclRecord is the record of one ring entry, nil for an unknown kind.
func syclRecord(r *SyclRecord) *pb.Record {
	switch r.Kind {
	case abi.SyclRecSpan:
		sp := &pb.SyclSpan{Kind: pb.SyclSpanKind(r.Span), ThreadId: r.TID, BeginNs: r.BeginNs,
			EndNs: r.EndNs, LocationId: r.Location, NodeId: r.Node, QueueId: optional(r.HasQueue, r.Queue),
			Instance: r.Instance, Depth: uint32(r.Depth)}
		if r.Span == abi.SyclSpanTask {
			sp.Id = r.ID
		}
		return &pb.Record{Kind: &pb.Record_SyclSpan{SyclSpan: sp}}
	case abi.SyclRecNode:
		return &pb.Record{Kind: &pb.Record_SyclGraph{SyclGraph: &pb.SyclGraph{
			Kind: pb.SyclGraphKind_SYCL_GRAPH_KIND_NODE, NodeId: r.Node, LocationId: r.Location,
			QueueId: optional(r.HasQueue, r.Queue), Instance: r.Instance, HostNs: r.BeginNs, ThreadId: r.TID}}}
	case abi.SyclRecEdge:
		return &pb.Record{Kind: &pb.Record_SyclGraph{SyclGraph: &pb.SyclGraph{
			Kind: pb.SyclGraphKind_SYCL_GRAPH_KIND_EDGE, NodeId: r.Node, TargetNodeId: r.Target,
			HostNs: r.BeginNs, ThreadId: r.TID}}}
	}
	return nil
}
