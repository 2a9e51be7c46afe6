package stream

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestCompactLaunchEncoding: the hand-written encoding of a compact Launch
// record decodes, with proto.Unmarshal, to exactly the Record the reflective
// path would have written, for zero, small, huge and negative values.
func TestCompactLaunchEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() uint64 {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return uint64(r.IntN(300))
		case 2:
			return math.MaxUint64 - uint64(r.IntN(3))
		}
		return r.Uint64()
	}
	for i := 0; i < 2000; i++ {
		l := &pb.Launch{
			KernelId: pick(), DeviceId: uint32(pick()), QueueId: pick(), CommandListId: pick(),
			Kind: pb.LaunchKind(r.IntN(4)), Flags: uint32(pick()), NoTimestampReason: pb.NoTimestampReason(r.IntN(9)),
			GroupCountX: uint32(pick()), GroupCountY: uint32(pick()), GroupCountZ: uint32(pick()),
			GroupSizeX: uint32(pick()), GroupSizeY: uint32(pick()), GroupSizeZ: uint32(pick()),
			ExecutionIndex: uint32(pick()), SyclLocationId: uint32(pick()), SyclTaskId: pick(), CodeCopy: uint32(pick()),
		}
		appendDelta, idDelta, delay, dur := int64(pick()), int64(pick()), int64(pick()), pick()
		repeat := uint32(0)
		if r.IntN(2) == 0 {
			repeat = uint32(1 + r.IntN(maxRepeat))
		}
		v := launchOf(l)
		b := appendCompactLaunch(nil, &v, appendDelta, idDelta, delay, dur, repeat)
		n, k := binary.Uvarint(b)
		if k <= 0 || int(n) != len(b)-k {
			t.Fatalf("case %d: length prefix %d (%d bytes) for %d bytes", i, n, k, len(b)-k)
		}
		var got pb.Record
		if err := proto.Unmarshal(b[k:], &got); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := proto.Clone(l).(*pb.Launch)
		want.HostAppendDeltaNs = &appendDelta
		want.IdDelta, want.DeviceStartDelayNs, want.DeviceDurationNs = idDelta, delay, dur
		if repeat > 0 {
			(&launchAttrs{}).setOn(want) // left out: the repeated Launch's
			want.RepeatOf = repeat
		}
		if !proto.Equal(got.GetLaunch(), want) {
			t.Fatalf("case %d: decoded %v\nwant %v", i, got.GetLaunch(), want)
		}
		if s := proto.Size(&pb.Record{Kind: &pb.Record_Launch{Launch: want}}); s != len(b)-k {
			t.Errorf("case %d: %d bytes, proto.Size says %d", i, len(b)-k, s)
		}
	}
}

// TestWriteLaunch: WriteLaunch writes what Write writes for the same
// Launch record.
func TestWriteLaunch(t *testing.T) {
	recs := synthLaunchRecords()[:2000]
	var a, b bytes.Buffer
	wa, _ := NewWriter(&a, nil)
	wb, _ := NewWriter(&b, nil)
	for _, r := range recs {
		if err := wa.Write(r); err != nil {
			t.Fatal(err)
		}
		v := launchOf(r.GetLaunch())
		if err := wb.WriteLaunch(&v); err != nil {
			t.Fatal(err)
		}
	}
	wa.Close()
	wb.Close()
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("WriteLaunch wrote %d bytes, Write %d, not the same", b.Len(), a.Len())
	}
}

// TestLaunchStateManyLists: launchState's device-end reference (kept for
// the most recent lists without a map, the others in one) is the plain
// rule of zestall.proto: the later of the append time and the device end
// of the previous timed launch of the same command list in the frame.
func TestLaunchStateManyLists(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var s launchState
	want := map[listKey]uint64{}
	for i := range 20000 {
		if r.IntN(3000) == 0 {
			s.reset()
			clear(want)
		}
		q, l := uint64(r.IntN(3)), uint64(r.IntN(1+r.IntN(20)))
		app := r.Uint64() >> 1
		if got, w := s.startRef(q, l, app), max(app, want[listKey{q, l}]); got != w {
			t.Fatalf("step %d: start reference of list (%d, %d) = %d, want %d", i, q, l, got, w)
		}
		end, timed := r.Uint64()>>1, r.IntN(5) > 0
		s.update(uint64(i), app, q, l, end, timed, &launchAttrs{})
		if timed {
			want[listKey{q, l}] = end
		}
	}
}

// TestRepeatOf: a reader takes the attributes of the Launch repeat_of
// names, counting Launch records only, within the frame; a repeat_of
// naming no Launch of the frame is a located error.
func TestRepeatOf(t *testing.T) {
	zero := int64(0)
	compact := func(l *pb.Launch) *pb.Record {
		l.HostAppendDeltaNs = &zero
		l.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
		return launch(l)
	}
	a := &pb.Launch{KernelId: 7, DeviceId: 1, QueueId: 2, CommandListId: 3, GroupCountX: 9, GroupSizeX: 32, CodeCopy: 1, SyclLocationId: 4}
	b := &pb.Launch{KernelId: 8, DeviceId: 1, CommandListId: 5, Kind: pb.LaunchKind_LAUNCH_KIND_COOPERATIVE, GroupSizeY: 2}
	frame := func(recs ...*pb.Record) []byte {
		var content []byte
		for _, r := range recs {
			content = appendRecord(content, r)
		}
		return encodeRawFrame(t, content)
	}
	file := frame(compact(proto.Clone(a).(*pb.Launch)), compact(proto.Clone(b).(*pb.Launch)),
		kernel(&pb.Kernel{Id: 1}), // not a Launch: not counted
		compact(&pb.Launch{RepeatOf: 2, SyclTaskId: 6}), compact(&pb.Launch{RepeatOf: 2}))
	recs, err := ReadAll(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	wantA := proto.Clone(a).(*pb.Launch)
	wantA.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
	wantB := proto.Clone(b).(*pb.Launch)
	wantB.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
	for i, want := range []*pb.Launch{wantA, wantB, nil, wantA, wantB} {
		if want == nil {
			continue
		}
		got := proto.Clone(recs[i].GetLaunch()).(*pb.Launch)
		got.Id, got.HostAppendNs, got.SyclTaskId = 0, 0, 0
		if !proto.Equal(got, want) {
			t.Errorf("record %d: %v, want %v", i, got, want)
		}
	}
	if recs[3].GetLaunch().SyclTaskId != 6 {
		t.Errorf("record 3: sycl_task_id %d, want its own 6", recs[3].GetLaunch().SyclTaskId)
	}
	for _, n := range []uint32{3, maxRepeat + 1} {
		recs := []*pb.Record{compact(proto.Clone(a).(*pb.Launch)), compact(proto.Clone(b).(*pb.Launch)), compact(&pb.Launch{RepeatOf: n})}
		if _, err := ReadAll(bytes.NewReader(frame(recs...))); err == nil || !strings.Contains(err.Error(), "repeats the attributes") {
			t.Errorf("repeat_of %d with 2 launches before it: error %v, want one naming repeat_of", n, err)
		}
	}
	// A new frame starts afresh: its first Launch cannot repeat.
	two := append(frame(compact(proto.Clone(a).(*pb.Launch))), frame(compact(&pb.Launch{RepeatOf: 1}))[len(Magic)+1:]...)
	if _, err := ReadAll(bytes.NewReader(two)); err == nil {
		t.Error("repeat_of 1 in a frame's first Launch read without error")
	}
}
