package main

import (
	"strings"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestWindows: launches are counted in the window holding their append
// time, stall rows in the window holding the read that delivered them;
// windows per device and for all devices; cause values this build does not
// know are printed by number; a stop without a start opens at the run's
// start; a window open at the end of the file says so.
func TestWindows(t *testing.T) {
	const t0 = 1_000_000_000
	ms := func(x float64) uint64 { return t0 + uint64(x*1e6) }
	win := func(edge pb.WindowEdge, at float64, cause pb.WindowCause, dev uint32) *pb.Record {
		return &pb.Record{Kind: &pb.Record_Window{Window: &pb.Window{Edge: edge, HostNs: ms(at), Cause: cause, DeviceId: dev}}}
	}
	launch := func(id uint64, at float64, dev uint32) *pb.Record {
		return &pb.Record{Kind: &pb.Record_Launch{Launch: &pb.Launch{Id: id, KernelId: 1, DeviceId: dev, HostAppendNs: ms(at),
			DeviceStartNs: ms(at + 0.01), DeviceEndNs: ms(at + 0.02)}}}
	}
	rows := func(start, end float64, dev uint32, n uint64) *pb.Record {
		s := &pb.StallRows{KernelId: 1, DeviceId: dev, ColumnCount: 1, OffsetDeltas: []uint64{16}, Counters: []uint64{n}}
		if end > 0 {
			s.WindowStartHostNs, s.WindowEndHostNs = ms(start), ms(end)
		}
		return &pb.Record{Kind: &pb.Record_StallRows{StallRows: s}}
	}
	const (
		start = pb.WindowEdge_WINDOW_EDGE_START
		stop  = pb.WindowEdge_WINDOW_EDGE_STOP
	)
	future := pb.WindowCause(42) // a cause added after this build
	recs := []*pb.Record{
		{Kind: &pb.Record_Header{Header: &pb.Header{StartHostNs: t0, Devices: []*pb.Device{{Id: 1}, {Id: 2}}}}},
		{Kind: &pb.Record_Kernel{Kernel: &pb.Kernel{Id: 1, Name: "k"}}},
		win(stop, 1, pb.WindowCause_WINDOW_CAUSE_USER, 2), // device 2 collected from the start
		win(start, 2, pb.WindowCause_WINDOW_CAUSE_INIT, 0),
		launch(1, 0.5, 1), // before any window of device 1
		launch(2, 0.5, 2), // device 2's first window
		launch(3, 2.5, 1),
		launch(4, 2.5, 2),
		rows(2, 3, 1, 7),
		rows(0, 0, 1, 5), // aggregated over windows
		win(stop, 4, future, 0),
		win(start, 5, pb.WindowCause_WINDOW_CAUSE_USER, 1),
		launch(5, 6, 1),
		rows(5, 6, 1, 11),
		rows(4, 4.5, 1, 13), // delivered while nothing collected
	}
	m := newRunModel()
	for _, r := range recs {
		m.add(r)
	}
	var b strings.Builder
	writeWindows(&b, m)
	got := b.String()
	for _, want := range []string{
		"collection windows: 3",
		// device 2: stop without start, launch 2
		"  2       run start  1.000 ms  1.000 ms  -           user                 1         0\n",
		// all devices: 2..4 ms, launches 3 and 4, rows 7
		"  all     2.000 ms   4.000 ms  2.000 ms  init        cause 42             2         7\n",
		// device 1 from 5 ms, still open
		"  1       5.000 ms   -         -         user        open at end of file  1         11\n",
		"outside every window: 1 launches, 13 stall samples",
		"summed over several windows (no window): 5",
	} {
		if !strings.Contains(strings.ToLower(got), strings.ToLower(want)) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}
