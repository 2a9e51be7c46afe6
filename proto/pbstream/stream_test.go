package pbstream

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

func launch(l *pb.Launch) *pb.Record     { return &pb.Record{Kind: &pb.Record_Launch{Launch: l}} }
func module(m *pb.Module) *pb.Record     { return &pb.Record{Kind: &pb.Record_Module{Module: m}} }
func kernel(k *pb.Kernel) *pb.Record     { return &pb.Record{Kind: &pb.Record_Kernel{Kernel: k}} }
func counters(c *pb.Counters) *pb.Record { return &pb.Record{Kind: &pb.Record_Counters{Counters: c}} }

func header() *pb.Record {
	rank := uint32(3)
	sub := uint32(1)
	return &pb.Record{Kind: &pb.Record_Header{Header: &pb.Header{
		FormatVersion: 1,
		ToolVersion:   "test",
		Pid:           4242,
		MpiRank:       &rank,
		HostName:      "node7",
		Argv:          []string{"./app", "-n", "3"},
		StartHostNs:   1_000_000_000,
		StartUnixNs:   1_790_000_000_000_000_000,
		Config:        []*pb.ConfigEntry{{Key: "ZESTALL_SAMPLING_PERIOD_NS", Value: "1000", FromEnvironment: true}},
		Devices: []*pb.Device{
			{Id: 1, Name: "Intel(R) Data Center GPU Max 1550", PciDeviceId: 0x0BD5, Platform: "PVC",
				XeCoreCount: 64, TimerFrequencyHz: 38_400_000, TimestampValidBits: 36, KernelTimestampValidBits: 32,
				StallSampling: &pb.StallSampling{Enabled: true, SamplingPeriodNs: 1000, NotifyEveryNReports: 512,
					Metrics: []*pb.Metric{{Name: "IP", Description: "IP address", Units: "Address", MetricType: 0x7ffffffe},
						{Name: "Active", Description: "Active cycles", Units: "Events", MetricType: 1}}}},
			{Id: 2, ParentId: 1, SubDeviceIndex: &sub, StallSampling: &pb.StallSampling{
				OffReason: pb.StallSamplingOff_STALL_SAMPLING_OFF_VIA_ROOT}},
		},
	}}}
}

// allKinds returns one record of every kind.
func allKinds() []*pb.Record {
	sub := uint32(0)
	return []*pb.Record{
		header(),
		module(&pb.Module{Id: 1, DeviceId: 1, ContentHash: []byte("h1"), NativeBinary: []byte("\x7fELF..."), DebugInfo: []byte("dbg"), CreatedHostNs: 5}),
		kernel(&pb.Kernel{Id: 1, ModuleId: 1, Name: "_Z3fooPf", DemangledName: "foo(float*)", BaseAddress: 0x8000_0001_2300, IsaSize: 4096, ValidFromHostNs: 6}),
		{Kind: &pb.Record_Window{Window: &pb.Window{Edge: pb.WindowEdge_WINDOW_EDGE_START, HostNs: 7, Cause: pb.WindowCause_WINDOW_CAUSE_INIT}}},
		launch(&pb.Launch{Id: 1, KernelId: 1, DeviceId: 1, CommandListId: 1, GroupCountX: 8, GroupCountY: 1, GroupCountZ: 1,
			GroupSizeX: 256, GroupSizeY: 1, GroupSizeZ: 1, HostAppendNs: 100, DeviceStartNs: 150, DeviceEndNs: 900,
			Flags: uint32(pb.LaunchFlag_LAUNCH_FLAG_TIMESTAMP_SWAPPED)}),
		{Kind: &pb.Record_StallRows{StallRows: &pb.StallRows{KernelId: 1, DeviceId: 1, SubDeviceIndex: &sub,
			Attribution: pb.StallAttribution_STALL_ATTRIBUTION_SHARED, CandidateLaunchIds: []uint64{1, 2},
			WindowStartHostNs: 100, WindowEndHostNs: 1000, ColumnCount: 2,
			OffsetDeltas: []uint64{0, 16, 32}, Counters: []uint64{1, 2, 3, 0, 0, 7}}}},
		{Kind: &pb.Record_Unattributed{Unattributed: &pb.Unattributed{DeviceId: 1, ColumnCount: 1,
			AddressDeltas: []uint64{0x12300, 8}, Counters: []uint64{4, 5}}}},
		{Kind: &pb.Record_KernelDestroyed{KernelDestroyed: &pb.KernelDestroyed{Id: 1, ValidUntilHostNs: 2000}}},
		{Kind: &pb.Record_ModuleDestroyed{ModuleDestroyed: &pb.ModuleDestroyed{Id: 1, HostNs: 2001}}},
		counters(&pb.Counters{Final: true, HostNs: 3000, LaunchesSeen: 1, LaunchesTimed: 1,
			LaunchesWithoutTimestamp: []*pb.ReasonCount{{Reason: pb.NoTimestampReason_NO_TIMESTAMP_REASON_EXIT, Count: 0}},
			Lost:                     []*pb.Loss{{What: "launch queue full", Count: 2}}}),
	}
}

// awkwardLaunches exercises the compact form's corners: ids out of order
// and with gaps, append times going backwards, launches without times,
// with times despite the flag, device times before the append, wrapping
// values, several command lists and queues.
func awkwardLaunches() []*pb.Record {
	noTS := uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
	return []*pb.Record{
		launch(&pb.Launch{Id: 10, KernelId: 1, CommandListId: 1, HostAppendNs: 1000, DeviceStartNs: 1100, DeviceEndNs: 1200}),
		launch(&pb.Launch{Id: 9, KernelId: 1, CommandListId: 2, HostAppendNs: 900, DeviceStartNs: 1150, DeviceEndNs: 1300}),
		launch(&pb.Launch{Id: 20, KernelId: 2, CommandListId: 1, HostAppendNs: 1010, DeviceStartNs: 1190, DeviceEndNs: 1250}),
		launch(&pb.Launch{Id: 21, KernelId: 2, CommandListId: 1, Flags: noTS, NoTimestampReason: pb.NoTimestampReason_NO_TIMESTAMP_REASON_POOL_EXHAUSTED, HostAppendNs: 1020}),
		launch(&pb.Launch{Id: 22, KernelId: 2, CommandListId: 1, Flags: noTS, HostAppendNs: 1030, DeviceStartNs: 5, DeviceEndNs: 6}),
		launch(&pb.Launch{Id: 23, KernelId: 2, QueueId: 4, CommandListId: 1, ExecutionIndex: 2, HostAppendNs: 1030, DeviceStartNs: 99_000, DeviceEndNs: 99_500}),
		launch(&pb.Launch{Id: 0, KernelId: 2, HostAppendNs: 0}),
		launch(&pb.Launch{Id: math.MaxUint64, HostAppendNs: math.MaxUint64, DeviceStartNs: 3, DeviceEndNs: 1}),
		launch(&pb.Launch{Id: 1, HostAppendNs: 1, DeviceStartNs: math.MaxUint64, DeviceEndNs: 0}),
		launch(&pb.Launch{Id: 2, Kind: pb.LaunchKind_LAUNCH_KIND_INDIRECT, HostAppendNs: 2, DeviceStartNs: 1, DeviceEndNs: math.MaxUint64}),
	}
}

// manyListLaunches are launches on more command lists than the stream.Writer
// keeps the previous device end of without a map (launchState.recent), in
// random order, some untimed.
func manyListLaunches() []*pb.Record {
	rng := rand.New(rand.NewPCG(5, 6))
	var recs []*pb.Record
	app := uint64(1e9)
	for i := range 3000 {
		app += uint64(rng.IntN(5000))
		l := &pb.Launch{Id: uint64(i + 1), KernelId: 1, QueueId: uint64(1 + rng.IntN(3)), CommandListId: uint64(1 + rng.IntN(13)), HostAppendNs: app}
		if rng.IntN(10) == 0 {
			l.Flags = uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
			l.NoTimestampReason = pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED
		} else {
			l.DeviceStartNs = app + uint64(rng.IntN(100_000))
			l.DeviceEndNs = l.DeviceStartNs + uint64(rng.IntN(50_000))
		}
		recs = append(recs, launch(l))
	}
	return recs
}

func cloneAll(recs []*pb.Record) []*pb.Record {
	out := make([]*pb.Record, len(recs))
	for i, r := range recs {
		out[i] = proto.Clone(r).(*pb.Record)
	}
	return out
}

func equalRecords(t *testing.T, got, want []*pb.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Fatalf("record %d:\n got %v\nwant %v", i, got[i], want[i])
		}
	}
}

// expected returns what a reader returns for recs written in one stream:
// the same records, with the fields the stream.Writer fills filled.
func expected(recs []*pb.Record) []*pb.Record {
	out := cloneAll(recs)
	for i, r := range out {
		if c := r.GetCounters(); c != nil {
			c.RecordsWritten = uint64(i)
			c.BytesWritten = 0 // checked separately
		}
	}
	return out
}

func clearBytesWritten(recs []*pb.Record) {
	for _, r := range recs {
		if c := r.GetCounters(); c != nil {
			c.BytesWritten = 0
		}
	}
}

func TestRoundTrip(t *testing.T) {
	many := synthLaunchRecords()[:5000]
	tests := []struct {
		name  string
		recs  []*pb.Record
		every int // flush every n records; 0: only at Close
		opts  *stream.WriterOptions
	}{
		{"empty", nil, 0, nil},
		{"header", []*pb.Record{header()}, 0, nil},
		{"all kinds", allKinds(), 0, nil},
		{"all kinds, a frame each", allKinds(), 1, nil},
		{"awkward launches", awkwardLaunches(), 0, nil},
		{"awkward launches, a frame each", awkwardLaunches(), 1, nil},
		{"awkward launches, frames of 3", awkwardLaunches(), 3, nil},
		{"awkward launches, absolute", awkwardLaunches(), 0, &stream.WriterOptions{AbsoluteLaunches: true}},
		{"many launches", many, 1000, nil},
		{"many launches, small frames", many, 0, &stream.WriterOptions{FrameSize: 1000}},
		{"many launches, level 1", many, 0, &stream.WriterOptions{Level: 1}},
		{"many launches, level 4", many, 0, &stream.WriterOptions{Level: 4}},
		{"launches on 13 lists", manyListLaunches(), 0, nil},
		{"launches on 13 lists, frames of 500", manyListLaunches(), 500, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := cloneAll(tt.recs)
			file := encode(t, tt.recs, tt.every, tt.opts)
			// The stream.Writer leaves the records it is given unchanged.
			equalRecords(t, tt.recs, orig)
			got, err := ReadAll(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			clearBytesWritten(got)
			equalRecords(t, got, expected(tt.recs))
		})
	}
}

func TestModuleContentStoredOnce(t *testing.T) {
	bin := bytes.Repeat([]byte("zebin"), 1000)
	recs := []*pb.Record{
		module(&pb.Module{Id: 1, ContentHash: []byte("same"), NativeBinary: bin, DebugInfo: []byte("d")}),
		module(&pb.Module{Id: 2, ContentHash: []byte("other"), NativeBinary: []byte("x")}),
		module(&pb.Module{Id: 3, ContentHash: []byte("same"), NativeBinary: bin, DebugInfo: []byte("d")}),
		module(&pb.Module{Id: 4, ContentHash: nil, NativeBinary: bin}),
	}
	got, err := ReadAll(bytes.NewReader(encode(t, recs, 1, nil)))
	if err != nil {
		t.Fatal(err)
	}
	want := cloneAll(recs)
	m3 := want[2].GetModule()
	m3.ContentModuleId, m3.NativeBinary, m3.DebugInfo = 1, nil, nil
	equalRecords(t, got, want)
}

func TestCountersFilledByWriter(t *testing.T) {
	var buf bytes.Buffer
	w, err := stream.NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*pb.Record{header(), counters(&pb.Counters{})} {
		if err := Write(w, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	flushed := buf.Len()
	if err := Write(w, counters(&pb.Counters{Final: true})); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := got[1].GetCounters(), got[2].GetCounters()
	if c1.RecordsWritten != 1 || c1.BytesWritten != stream.PrefixSize || c2.RecordsWritten != 2 || c2.BytesWritten != uint64(flushed) {
		t.Errorf("counters %v and %v; want 1 record/%d bytes and 2 records/%d bytes", c1, c2, stream.PrefixSize, flushed)
	}
}

func TestWriterRejects(t *testing.T) {
	w, err := stream.NewWriter(io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := int64(1)
	for name, rec := range map[string]*pb.Record{
		"nil":          nil,
		"no kind":      {},
		"compact":      launch(&pb.Launch{HostAppendDeltaNs: &d}),
		"launch run":   {Kind: &pb.Record_LaunchRun{LaunchRun: &pb.LaunchRun{HostAppendDeltaNs: []int64{1}}}},
		"nil launch":   {Kind: &pb.Record_Launch{}},
		"nil module":   {Kind: &pb.Record_Module{}},
		"nil counters": {Kind: &pb.Record_Counters{}},
		"nil header":   {Kind: &pb.Record_Header{}},
		"too big":      module(&pb.Module{NativeBinary: make([]byte, stream.MaxRecordSize)}),
	} {
		if err := Write(w, rec); err == nil {
			t.Errorf("%s: Write succeeded", name)
		}
	}
	if _, err := stream.NewWriter(io.Discard, &stream.WriterOptions{Level: 5}); err == nil {
		t.Error("level 5 accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Write(w, header()); !errors.Is(err, stream.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriterErrorIsSticky(t *testing.T) {
	w, err := stream.NewWriter(&failWriter{n: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := Write(w, header()); err != nil {
			t.Fatal(err)
		}
		err = w.Flush()
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("second Flush: %v", err)
	}
	if err2 := Write(w, header()); err2 == nil {
		t.Error("Write after a failed Flush succeeded")
	}
	if err2 := w.Close(); err2 == nil {
		t.Error("Close after a failed Flush succeeded")
	}
}

func TestEmptyAndPrefix(t *testing.T) {
	tests := []struct {
		name string
		in   string
		kind error // nil: clean end
	}{
		{"empty", "", stream.ErrTruncated},
		{"partial prefix", "ZEST", stream.ErrTruncated},
		{"magic only", "ZESTALL", stream.ErrTruncated},
		{"prefix only", "ZESTALL\x01", nil},
		{"prefix only, version 2", "ZESTALL\x02", nil},
		{"version 0", "ZESTALL\x00", stream.ErrVersion},
		{"newer version", "ZESTALL\x03", stream.ErrVersion},
		{"not zestall", "PK\x03\x04", stream.ErrCorrupt},
		{"not zestall, long", "hello, world, this is text", stream.ErrCorrupt},
		{"garbage frame", "ZESTALL\x01garbage!", stream.ErrCorrupt},
		{"partial magic", "ZESTALL\x01\x28\xb5", stream.ErrTruncated},
		{"skippable frame", "ZESTALL\x01\x50\x2a\x4d\x18\x02\x00\x00\x00ab", nil},
		{"truncated skippable", "ZESTALL\x01\x50\x2a\x4d\x18\x09\x00\x00\x00ab", stream.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := ReadAll(strings.NewReader(tt.in))
			if len(recs) != 0 {
				t.Errorf("got %d records", len(recs))
			}
			if tt.kind == nil {
				if err != nil {
					t.Errorf("err = %v, want nil", err)
				}
				return
			}
			var fe *stream.FormatError
			if !errors.Is(err, tt.kind) || !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *stream.FormatError wrapping %v", err, tt.kind)
			}
		})
	}
}

// frameFile writes recs with a flush after each group and returns the file
// and the offsets at which frames end.
func frameFile(t *testing.T, groups [][]*pb.Record) ([]byte, []int) {
	var buf bytes.Buffer
	w, err := stream.NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ends []int
	for _, g := range groups {
		for _, r := range g {
			if err := Write(w, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, buf.Len())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), ends
}

func smallGroups() [][]*pb.Record {
	kinds := allKinds()
	return [][]*pb.Record{kinds[:3], awkwardLaunches()[:4], kinds[3:]}
}

// TestTruncation cuts a three-frame file at every byte offset: the records
// of the complete frames all come back, and the error is stream.ErrTruncated
// located at the frame that was cut (nil at a frame boundary).
func TestTruncation(t *testing.T) {
	groups := smallGroups()
	file, ends := frameFile(t, groups)
	all, err := ReadAll(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("file of %d bytes, frames end at %v", len(file), ends)
	for cut := 0; cut <= len(file); cut++ {
		complete, nrec, frameStart := 0, 0, stream.PrefixSize
		for complete < len(ends) && ends[complete] <= cut {
			nrec += len(groups[complete])
			frameStart = ends[complete]
			complete++
		}
		recs, err := ReadAll(bytes.NewReader(file[:cut]))
		equalRecords(t, recs, all[:nrec])
		atBoundary := cut == stream.PrefixSize || cut == frameStart && complete > 0
		if atBoundary {
			if err != nil {
				t.Fatalf("cut at frame boundary %d: %v", cut, err)
			}
			continue
		}
		var fe *stream.FormatError
		if !errors.Is(err, stream.ErrTruncated) || !errors.As(err, &fe) {
			t.Fatalf("cut at %d: err = %v, want stream.ErrTruncated", cut, err)
		}
		wantOff := int64(frameStart)
		if cut < stream.PrefixSize {
			wantOff = 0
		}
		if fe.Offset != wantOff {
			t.Fatalf("cut at %d: error at offset %d, want %d: %v", cut, fe.Offset, wantOff, err)
		}
	}
}

// TestCorruption flips every bit of a small file: reading never panics,
// returns only records that were written, in order, and fails with a
// stream.FormatError unless the flip changed nothing that matters.
func TestCorruption(t *testing.T) {
	file, _ := frameFile(t, smallGroups())
	all, err := ReadAll(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	bad := make([]byte, len(file))
	undetected := 0
	for i := range file {
		for bit := 0; bit < 8; bit++ {
			copy(bad, file)
			bad[i] ^= 1 << bit
			recs, err := ReadAll(bytes.NewReader(bad))
			if len(recs) > len(all) {
				t.Fatalf("flip %d.%d: %d records, more than written", i, bit, len(recs))
			}
			for j, r := range recs {
				if !proto.Equal(r, all[j]) {
					t.Fatalf("flip %d.%d: record %d differs:\n got %v\nwant %v", i, bit, j, r, all[j])
				}
			}
			if err == nil {
				if len(recs) != len(all) {
					t.Fatalf("flip %d.%d: no error but %d of %d records", i, bit, len(recs), len(all))
				}
				undetected++
				continue
			}
			var fe *stream.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("flip %d.%d: %v is not a *stream.FormatError", i, bit, err)
			}
		}
	}
	// Flips of bits Zstandard ignores (unused header bit, window size
	// larger than needed) are harmless.
	t.Logf("%d of %d bit flips changed nothing that is read", undetected, 8*len(file))
}

func TestStallShapeChecked(t *testing.T) {
	rec := &pb.Record{Kind: &pb.Record_StallRows{StallRows: &pb.StallRows{
		ColumnCount: 3, OffsetDeltas: []uint64{0, 16}, Counters: []uint64{1, 2, 3, 4, 5}}}}
	file := encode(t, []*pb.Record{header(), rec}, 0, nil)
	recs, err := ReadAll(bytes.NewReader(file))
	var fe *stream.FormatError
	if len(recs) != 1 || !errors.Is(err, stream.ErrCorrupt) || !errors.As(err, &fe) || fe.Record != 1 {
		t.Fatalf("got %d records, err %v; want 1 and stream.ErrCorrupt at record 1", len(recs), err)
	}
}

func TestCandidateRangesChecked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ranges []uint64
	}{
		{"odd count", []uint64{1, 5, 9}},
		{"first after last", []uint64{5, 4}},
		{"overlapping", []uint64{1, 5, 5, 9}},
		{"descending", []uint64{10, 12, 1, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &pb.Record{Kind: &pb.Record_StallRows{StallRows: &pb.StallRows{
				Attribution: pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES, CandidateLaunchIdRanges: tc.ranges,
				ColumnCount: 1, OffsetDeltas: []uint64{0}, Counters: []uint64{1}}}}
			file := encode(t, []*pb.Record{header(), rec}, 0, nil)
			recs, err := ReadAll(bytes.NewReader(file))
			var fe *stream.FormatError
			if len(recs) != 1 || !errors.Is(err, stream.ErrCorrupt) || !errors.As(err, &fe) || fe.Record != 1 {
				t.Fatalf("got %d records, err %v; want 1 and stream.ErrCorrupt at record 1", len(recs), err)
			}
		})
	}
}

func TestCandidateRangesRoundTrip(t *testing.T) {
	want := []uint64{1, 5, 7, 9, 1 << 40, 1<<40 + 3}
	rec := &pb.Record{Kind: &pb.Record_StallRows{StallRows: &pb.StallRows{
		Attribution: pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES, CandidateLaunchIdRanges: want,
		ColumnCount: 1, OffsetDeltas: []uint64{0}, Counters: []uint64{1}}}}
	recs, err := ReadAll(bytes.NewReader(encode(t, []*pb.Record{header(), rec}, 0, nil)))
	if err != nil || len(recs) != 2 {
		t.Fatalf("got %d records, err %v", len(recs), err)
	}
	s := recs[1].GetStallRows()
	if s.GetAttribution() != pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES || !equalU64(s.GetCandidateLaunchIdRanges(), want) {
		t.Fatalf("read back %v", s)
	}
	if n := CandidateCount(s); n != 5+3+4 {
		t.Fatalf("CandidateCount = %d, want 12", n)
	}
}

func TestCandidateLaunches(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *pb.StallRows
		want []uint64
	}{
		{"none", &pb.StallRows{}, nil},
		{"list", &pb.StallRows{CandidateLaunchIds: []uint64{3, 7, 9}}, []uint64{3, 7, 9}},
		{"one range", &pb.StallRows{CandidateLaunchIdRanges: []uint64{10, 14}}, []uint64{10, 11, 12, 13, 14}},
		{"ranges", &pb.StallRows{CandidateLaunchIdRanges: []uint64{1, 2, 5, 5, 8, 9}}, []uint64{1, 2, 5, 8, 9}},
		{"at the top", &pb.StallRows{CandidateLaunchIdRanges: []uint64{math.MaxUint64 - 1, math.MaxUint64}}, []uint64{math.MaxUint64 - 1, math.MaxUint64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := slices.Collect(CandidateLaunches(tc.s)); !equalU64(got, tc.want) {
				t.Errorf("CandidateLaunches = %v, want %v", got, tc.want)
			}
			if n := CandidateCount(tc.s); n != uint64(len(tc.want)) {
				t.Errorf("CandidateCount = %d, want %d", n, len(tc.want))
			}
			var first []uint64 // stopping early
			for id := range CandidateLaunches(tc.s) {
				first = append(first, id)
				break
			}
			if len(tc.want) > 0 && (len(first) != 1 || first[0] != tc.want[0]) {
				t.Errorf("first candidate %v, want %d", first, tc.want[0])
			}
		})
	}
}

func TestDelta(t *testing.T) {
	vals := []uint64{0, 16, 24, 1 << 40, math.MaxUint64}
	d := stream.DeltaEncode(nil, vals)
	if got := stream.DeltaDecode(nil, d); !equalU64(got, vals) {
		t.Fatalf("stream.DeltaDecode(stream.DeltaEncode(%v)) = %v", vals, got)
	}
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.zst")
	f, err := stream.CreateExclusive(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := stream.NewWriter(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(w, header()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&^0o644 != 0 {
		t.Errorf("mode %v has bits outside 0644", perm)
	}

	// An existing file is refused and left alone.
	before, _ := os.ReadFile(path)
	if _, err := stream.CreateExclusive(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("existing file: err = %v, want fs.ErrExist", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("existing file was changed")
	}

	// A symbolic link is never followed, whether its target exists or not.
	target := filepath.Join(dir, "target")
	dangling := filepath.Join(dir, "dangling.zst")
	if err := os.Symlink(target, dangling); err != nil {
		t.Skipf("cannot create symbolic links here: %v", err)
	}
	if _, err := stream.CreateExclusive(dangling); err == nil {
		t.Error("dangling symlink: stream.CreateExclusive succeeded")
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dangling symlink: target was created (%v)", err)
	}
	if err := os.WriteFile(target, []byte("victim"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.zst")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.CreateExclusive(link); err == nil {
		t.Error("symlink to a file: stream.CreateExclusive succeeded")
	}
	if b, _ := os.ReadFile(target); string(b) != "victim" {
		t.Error("symlink target was changed")
	}
}

// TestReaderLimits checks that hostile sizes are refused before they are
// allocated: a record length beyond the limit, and a frame that
// decompresses beyond the limit.
func TestReaderLimits(t *testing.T) {
	big := module(&pb.Module{Id: 1, NativeBinary: bytes.Repeat([]byte{0}, 1<<20)})
	file := encode(t, []*pb.Record{header(), big}, 1, nil)

	rd := NewReader(bytes.NewReader(file))
	rd.maxRecord = 1 << 16
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); !errors.Is(err, stream.ErrCorrupt) || !strings.Contains(err.Error(), "limit") {
		t.Errorf("record over the limit: err = %v", err)
	}

	rd = NewReader(bytes.NewReader(file))
	rd.maxFrame = 1 << 19
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); !errors.Is(err, stream.ErrCorrupt) {
		t.Errorf("frame over the limit: err = %v", err)
	}

	// A frame declaring a 2 GiB window (Window_Descriptor exponent 21).
	hostile := []byte("ZESTALL\x01\x28\xb5\x2f\xfd\x00\xa8\x01\x00\x00")
	if _, err := ReadAll(bytes.NewReader(hostile)); !errors.Is(err, stream.ErrCorrupt) {
		t.Errorf("2 GiB window: err = %v", err)
	} else {
		t.Logf("2 GiB window: %v", err)
	}
	// A record claiming 1 TiB.
	var frame []byte
	frame = append(frame, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20)
	hostile = encodeRawFrame(t, frame)
	if _, err := ReadAll(bytes.NewReader(hostile)); !errors.Is(err, stream.ErrCorrupt) {
		t.Errorf("1 TiB record: err = %v", err)
	}
}

// encodeRawFrame returns a file with one frame holding content as is.
func encodeRawFrame(t *testing.T, content []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithWindowSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(content, []byte(stream.Magic+"\x01"))
}

func TestUnknownKindSkippable(t *testing.T) {
	// Field 99 of Record: a record kind from the future.
	future := []byte{0x9a, 0x06, 0x02, 0x08, 0x01}
	var content []byte
	content = append(content, byte(len(future)))
	content = append(content, future...)
	recs, err := ReadAll(bytes.NewReader(encodeRawFrame(t, content)))
	if err != nil || len(recs) != 1 || recs[0].Kind != nil {
		t.Fatalf("got %v, %v; want one record without kind", recs, err)
	}
	if len(recs[0].ProtoReflect().GetUnknown()) == 0 {
		t.Error("unknown fields dropped")
	}
}

// TestUnknownFieldsKept: unknown fields, in a record or in its message,
// survive being written and read back, for every kind, those the writer
// encodes without reflection included (a fuzzer found a SyclSpan record
// whose Record carried a mistyped field 6 that the SYCL shortcut dropped).
func TestUnknownFieldsKept(t *testing.T) {
	// In a Record: field 6 as a varint, the wrong wire type for its kind,
	// so it stays unknown, and field 99, a field from the future. In a
	// message: fields 99 and 100 from the future.
	unknown := map[string][]byte{
		"record":  {0x30, 0x72, 0x98, 0x06, 0x01},
		"message": {0x98, 0x06, 0x01, 0xa2, 0x06, 0x01, 0x7a},
	}
	recs := append(allKinds(),
		&pb.Record{Kind: &pb.Record_SyclSpan{SyclSpan: &pb.SyclSpan{Kind: pb.SyclSpanKind_SYCL_SPAN_KIND_TASK, Id: 3, LocationId: 48}}},
		&pb.Record{Kind: &pb.Record_SyclGraph{SyclGraph: &pb.SyclGraph{NodeId: 4, LocationId: 2}}})
	for i := range recs {
		for _, where := range []string{"record", "message"} {
			rec := proto.Clone(recs[i]).(*pb.Record)
			m := rec.ProtoReflect()
			kind := m.WhichOneof(m.Descriptor().Oneofs().ByName("kind"))
			t.Run(string(kind.Name())+" "+where, func(t *testing.T) {
				if where == "message" {
					m = m.Get(kind).Message()
				}
				m.SetUnknown(unknown[where])
				got, err := ReadAll(bytes.NewReader(encode(t, []*pb.Record{rec}, 0, nil)))
				if err != nil {
					t.Fatal(err)
				}
				clearBytesWritten(got)
				equalRecords(t, got, expected([]*pb.Record{rec}))
			})
		}
	}
}

// TestReadFile: ReadFile reads a file as ReadAll reads its bytes, and
// reports a file it cannot open.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.zst")
	if err := os.WriteFile(path, encode(t, allKinds(), 0, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clearBytesWritten(got)
	equalRecords(t, got, expected(allKinds()))
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// cutWriter records the length of the file after every Write.
type cutWriter struct {
	bytes.Buffer
	cuts []int
}

func (c *cutWriter) Write(p []byte) (int, error) {
	n, err := c.Buffer.Write(p)
	c.cuts = append(c.cuts, c.Len())
	return n, err
}

// TestWriterWholeFrames: the compressor writes whole frames only, in
// order, each as soon as it is compressed: a file cut after any write
// (a killed process) reads without error up to that write, and the frames
// sealed before a Flush are all in the file when it returns.
func TestWriterWholeFrames(t *testing.T) {
	recs := synthLaunchRecords()[:20000]
	var cw cutWriter
	w, err := stream.NewWriter(&cw, &stream.WriterOptions{FrameSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if err := Write(w, r); err != nil {
			t.Fatal(err)
		}
		if i == len(recs)/2 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			got, err := ReadAll(bytes.NewReader(cw.Bytes()))
			if err != nil || len(got) != i+1 {
				t.Fatalf("after Flush: %d records of %d, %v", len(got), i+1, err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(cw.cuts) < 10 {
		t.Fatalf("%d writes: frames were not written as they were sealed", len(cw.cuts))
	}
	prev := 0
	for _, cut := range cw.cuts {
		got, err := ReadAll(bytes.NewReader(cw.Bytes()[:cut]))
		if err != nil {
			t.Fatalf("file cut at %d (after a write): %v", cut, err)
		}
		if len(got) < prev {
			t.Fatalf("file cut at %d: %d records, fewer than %d before", cut, len(got), prev)
		}
		prev = len(got)
	}
	if prev != len(recs) {
		t.Errorf("%d records, want %d", prev, len(recs))
	}
}
