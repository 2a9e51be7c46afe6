package collector

import (
	"testing"

	"reflect"
	"time"

	"github.com/zestall/zestall/abi"
	pb "github.com/zestall/zestall/proto/zestallwire"
	"github.com/zestall/zestall/ze"
)

func TestSyclDemangled(t *testing.T) {
	var y sycl
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"vadd", "vadd"},                             // a plain name stays
		{"Z4mainE9VectorAdd", "main::VectorAdd"},     // typeid(T).name() of a class local to main
		{"N2ns6KernelE", "ns::Kernel"},               // a class in a namespace
		{"6Kernel", "Kernel"},                        // a class at namespace scope
		{"_Z3fooi", "foo(int)"},                      // a mangled symbol
		{"Z4main_not_mangled", "Z4main_not_mangled"}, // does not demangle: kept
		{"i", "i"},                                   // a builtin type code is no kernel name
	} {
		if got := y.demangled(tc.in); got != tc.want {
			t.Errorf("demangled(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSyclLocationRecord(t *testing.T) {
	var y sycl
	got := y.location(SyclLocation{ID: 3, KernelName: "Z4mainE1K", FunctionName: "main", File: "a.cpp", Line: 7, Column: 9})
	want := &pb.SyclLocation{Id: 3, KernelName: "main::K", KernelNameRaw: "Z4mainE1K", FunctionName: "main", File: "a.cpp", Line: 7, Column: 9}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	got = y.location(SyclLocation{ID: 4, KernelName: "plain"})
	if got.KernelName != "plain" || got.KernelNameRaw != "" {
		t.Errorf("plain name: %v", got)
	}
}

func TestSyclRecord(t *testing.T) {
	q := uint64(0)
	for _, tc := range []struct {
		name string
		in   SyclRecord
		want *pb.Record
	}{
		{"task", SyclRecord{Kind: abi.SyclRecSpan, Span: abi.SyclSpanTask, ID: 5, HasQueue: true, Queue: 0, BeginNs: 1, EndNs: 2, Node: 9, Instance: 3, Location: 4, TID: 77, Depth: 1},
			&pb.Record{Kind: &pb.Record_SyclSpan{SyclSpan: &pb.SyclSpan{Kind: pb.SyclSpanKind_SYCL_SPAN_KIND_TASK, Id: 5, QueueId: &q,
				BeginNs: 1, EndNs: 2, NodeId: 9, Instance: 3, LocationId: 4, ThreadId: 77, Depth: 1}}}},
		{"wait has no task id", SyclRecord{Kind: abi.SyclRecSpan, Span: abi.SyclSpanWait, ID: 5, BeginNs: 1, EndNs: 2, TID: 7},
			&pb.Record{Kind: &pb.Record_SyclSpan{SyclSpan: &pb.SyclSpan{Kind: pb.SyclSpanKind_SYCL_SPAN_KIND_WAIT, BeginNs: 1, EndNs: 2, ThreadId: 7}}}},
		{"node", SyclRecord{Kind: abi.SyclRecNode, Node: 9, Location: 4, Instance: 2, BeginNs: 8, TID: 7},
			&pb.Record{Kind: &pb.Record_SyclGraph{SyclGraph: &pb.SyclGraph{Kind: pb.SyclGraphKind_SYCL_GRAPH_KIND_NODE, NodeId: 9, LocationId: 4, Instance: 2, HostNs: 8, ThreadId: 7}}}},
		{"edge", SyclRecord{Kind: abi.SyclRecEdge, Node: 9, Target: 10, BeginNs: 8, TID: 7},
			&pb.Record{Kind: &pb.Record_SyclGraph{SyclGraph: &pb.SyclGraph{Kind: pb.SyclGraphKind_SYCL_GRAPH_KIND_EDGE, NodeId: 9, TargetNodeId: 10, HostNs: 8, ThreadId: 7}}}},
		{"unknown kind", SyclRecord{Kind: 99}, nil},
	} {
		got := syclRecord(&tc.in)
		if (got == nil) != (tc.want == nil) || (got != nil && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// fakeSycl is a SyclSource with fixed contents.
type fakeSycl struct {
	setup SyclSetup
	locs  []SyclLocation
	recs  []SyclRecord
}

func (f *fakeSycl) Setup() SyclSetup { return f.setup }
func (f *fakeSycl) Locations(from uint32, dst []SyclLocation) []SyclLocation {
	for _, l := range f.locs {
		if l.ID > from {
			dst = append(dst, l)
		}
	}
	return dst
}
func (f *fakeSycl) Drain(dst []SyclRecord) []SyclRecord {
	dst = append(dst, f.recs...)
	f.recs = nil
	return dst
}
func (f *fakeSycl) Counts() (uint64, uint64) { return 1, 2 }

func TestSyclHeader(t *testing.T) {
	if syclHeader(nil) != nil {
		t.Error("a header without a source")
	}
	h := syclHeader(&fakeSycl{setup: SyclSetup{State: abi.XptiAppended, Streams: abi.SyclStream | abi.SyclStreamDebug, Subscribers: "a,b", Dispatcher: "d"}})
	want := &pb.SyclSetup{State: pb.SyclXptiState_SYCL_XPTI_STATE_APPENDED, Streams: []string{"sycl", "sycl.debug"}, Subscribers: "a,b", Dispatcher: "d"}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("got %v, want %v", h, want)
	}
}

// TestSyclLocationsOnce: each location is written once, in id order, and
// later calls add only new ones.
func TestSyclLocationsOnce(t *testing.T) {
	s, path, _ := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0"})
	f := &fakeSycl{locs: []SyclLocation{{ID: 1, File: "a"}, {ID: 2, File: "b"}}}
	s.Sycl(f)
	s.Status(StateActive, ze.Success)
	s.syclLocations()
	s.syclLocations()
	f.locs = append(f.locs, SyclLocation{ID: 3, File: "c"})
	s.syclLocations()
	s.Shutdown()
	var ids []uint32
	for _, r := range readBack(t, path) {
		if l := r.GetSyclLocation(); l != nil {
			ids = append(ids, l.GetId())
		}
	}
	if len(ids) != 3 || ids[0] != 1 || ids[1] != 2 || ids[2] != 3 {
		t.Errorf("locations written: %v, want [1 2 3]", ids)
	}
}

// TestSyclCountersWhileDraining: the writer goroutine's Counters do not
// wait for a drainer, which holds sycl.mu while it waits for room in the
// writer's queues (a deadlock when the writer took that lock).
func TestSyclCountersWhileDraining(t *testing.T) {
	var s Session
	s.Sycl(&fakeSycl{})
	s.sycl.mu.Lock() // a drainer waiting for the writer
	defer s.sycl.mu.Unlock()
	done := make(chan *pb.Counters, 1)
	go func() {
		c := &pb.Counters{}
		s.syclCounters(c)
		done <- c
	}()
	select {
	case c := <-done:
		if c.SyclTasks != 1 || c.SyclRecordsLost != 2 {
			t.Errorf("totals %d, %d; want the source's 1, 2", c.SyclTasks, c.SyclRecordsLost)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("syclCounters waited for the drainer's lock")
	}
}
