package stream

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/pbconv"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestRecordWindow: the largest hand-encoded records (every field present
// with a 10-byte value) fit fieldWriter's window, are written after what
// the buffer held, and read back equal.
func TestRecordWindow(t *testing.T) {
	const u64, u32 = math.MaxUint64, math.MaxUint32
	l := &pb.Launch{
		KernelId: u64, DeviceId: u32, QueueId: u64, CommandListId: u64,
		Kind: pb.LaunchKind(-1), Flags: u32, NoTimestampReason: pb.NoTimestampReason(-1),
		GroupCountX: u32, GroupCountY: u32, GroupCountZ: u32, GroupSizeX: u32, GroupSizeY: u32, GroupSizeZ: u32,
		ExecutionIndex: u32, SyclLocationId: u32, SyclTaskId: u64, CodeCopy: u32,
	}
	v := launchOf(pbconv.LaunchToWire(l))
	q := uint64(u64)
	cases := []struct {
		name   string
		encode func([]byte) []byte
		want   *pb.Record
	}{
		{"launch", func(b []byte) []byte { return appendCompactLaunch(b, &v, -1, -1, -1, u64, 0) }, func() *pb.Record {
			w := proto.Clone(l).(*pb.Launch)
			d := int64(-1)
			w.HostAppendDeltaNs, w.IdDelta, w.DeviceStartDelayNs, w.DeviceDurationNs = &d, -1, -1, u64
			return &pb.Record{Kind: &pb.Record_Launch{Launch: w}}
		}()},
		{"sycl span", func(b []byte) []byte {
			return appendSyclSpan(b, pbconv.SyclSpanToWire(&pb.SyclSpan{Kind: -1, Id: u64, ThreadId: u32, BeginNs: u64, EndNs: u64, LocationId: u32, NodeId: u64, QueueId: &q, Instance: u64, Depth: u32}))
		}, &pb.Record{Kind: &pb.Record_SyclSpan{SyclSpan: &pb.SyclSpan{Kind: -1, Id: u64, ThreadId: u32, BeginNs: u64, EndNs: u64, LocationId: u32, NodeId: u64, QueueId: &q, Instance: u64, Depth: u32}}}},
		{"sycl graph", func(b []byte) []byte {
			return appendSyclGraph(b, pbconv.SyclGraphToWire(&pb.SyclGraph{Kind: -1, NodeId: u64, TargetNodeId: u64, LocationId: u32, QueueId: &q, Instance: u64, HostNs: u64, ThreadId: u32}))
		}, &pb.Record{Kind: &pb.Record_SyclGraph{SyclGraph: &pb.SyclGraph{Kind: -1, NodeId: u64, TargetNodeId: u64, LocationId: u32, QueueId: &q, Instance: u64, HostNs: u64, ThreadId: u32}}}},
	}
	for _, c := range cases {
		prefix := []byte("before")
		b := c.encode(append(make([]byte, 0, 8), prefix...))
		if string(b[:len(prefix)]) != string(prefix) {
			t.Fatalf("%s: the buffer's bytes changed: %q", c.name, b[:len(prefix)])
		}
		b = b[len(prefix):]
		n, k := binary.Uvarint(b)
		if k <= 0 || int(n) != len(b)-k {
			t.Fatalf("%s: length prefix %d for %d bytes", c.name, n, len(b)-k)
		}
		// What fieldWriter wrote in its window: the header of three
		// one-byte lengths and the fields.
		if written := recordHeader + len(b) - k - 1 - protowire.SizeVarint(uint64(len(b)-k-1)); written > recordWindow {
			t.Errorf("%s: %d bytes in a window of %d", c.name, written, recordWindow)
		}
		var got pb.Record
		if err := proto.Unmarshal(b[k:], &got); err != nil || !proto.Equal(&got, c.want) {
			t.Errorf("%s: read back %v (%v), want %v", c.name, &got, err, c.want)
		}
	}
}

// BenchmarkAppendCompactLaunch is the encoding of one launch of a loop on
// one command list (the profiler's common record), without compression.
func BenchmarkAppendCompactLaunch(b *testing.B) {
	l := Launch{Id: 1, KernelId: 3, DeviceId: 1, QueueId: 1, CommandListId: 1, Flags: 1, GroupCountX: 4096, GroupSizeX: 128, HostAppendNs: 1e9}
	buf := make([]byte, 0, 1<<20)
	for b.Loop() {
		if len(buf) > 1<<20-recordWindow {
			buf = buf[:0]
		}
		buf = appendCompactLaunch(buf, &l, 1733, 0, 812, 2391, 1)
	}
}

// BenchmarkFieldWriter is one varint field with a two-byte tag and a
// three-byte value, and one omitted (zero) field; BenchmarkAppendVarint
// is the same with protowire, as the encoding was written before.
func BenchmarkFieldWriter(b *testing.B) {
	var a [recordWindow]byte
	v, n := uint64(123456), uint8(0)
	for b.Loop() {
		f := fieldWriter{a: &a}
		f.varint(varintTag(21), v)
		f.varint(varintTag(22), v>>62)
		n += f.n
	}
	sinkByte = n
}

func BenchmarkAppendVarint(b *testing.B) {
	var a [recordWindow]byte
	v, n := uint64(123456), 0
	for b.Loop() {
		p := a[:0]
		u := func(num protowire.Number, v uint64) {
			if v != 0 {
				p = protowire.AppendTag(p, num, protowire.VarintType)
				p = protowire.AppendVarint(p, v)
			}
		}
		u(21, v)
		u(22, v>>62)
		n += len(p)
	}
	sinkByte = uint8(n)
}

var sinkByte uint8

// TestAppendVarints holds appendVarints (a LaunchRun's columns) to
// binary.AppendUvarint (b with room for them, as appendRun grows it), at each varint length's bounds and around the
// one- and two-byte path's limit, for both column types.
func TestAppendVarints(t *testing.T) {
	tests := []struct {
		name string
		vs   []uint64
	}{
		{"empty", nil},
		{"one byte", []uint64{0, 1, 0x7f}},
		{"two bytes", []uint64{0x80, 0x81, 0xff, 0x100, 0x3fff}},
		{"mixed", []uint64{0x7f, 0x80, 0, 0x3fff, 0x4000, 1, 0x3ffe, 0x80}},
		{"wide", []uint64{0x4000, 0x1fffff, 0x200000, 1 << 28, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64}},
	}
	for _, tc := range tests {
		var want []byte
		for _, v := range tc.vs {
			want = binary.AppendUvarint(want, v)
		}
		if got := appendVarints(slices.Grow([]byte{0xee}, 10*len(tc.vs)), tc.vs); !bytes.Equal(got[1:], want) || got[0] != 0xee {
			t.Errorf("%s (uint64): % x, want ee % x", tc.name, got, want)
		}
		var want32 []byte
		var vs32 []uint32
		for _, v := range tc.vs {
			if v <= math.MaxUint32 {
				vs32 = append(vs32, uint32(v))
				want32 = binary.AppendUvarint(want32, v)
			}
		}
		if got := appendVarints(slices.Grow([]byte(nil), 5*len(vs32)), vs32); !bytes.Equal(got, want32) {
			t.Errorf("%s (uint32): % x, want % x", tc.name, got, want32)
		}
	}
}
