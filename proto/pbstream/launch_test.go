package pbstream

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/pbconv"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestWriteLaunch: WriteLaunch writes what Write writes for the same
// Launch record.
func TestWriteLaunch(t *testing.T) {
	recs := synthLaunchRecords()[:2000]
	var a, b bytes.Buffer
	wa, _ := stream.NewWriter(&a, nil)
	wb, _ := stream.NewWriter(&b, nil)
	for _, r := range recs {
		if err := Write(wa, r); err != nil {
			t.Fatal(err)
		}
		v := stream.LaunchOf(pbconv.LaunchToWire(r.GetLaunch()))
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
			content = appendMarshaled(content, r)
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
	for _, n := range []uint32{3, stream.MaxRepeat + 1} {
		recs := []*pb.Record{compact(proto.Clone(a).(*pb.Launch)), compact(proto.Clone(b).(*pb.Launch)), compact(&pb.Launch{RepeatOf: n})}
		if _, err := ReadAll(bytes.NewReader(frame(recs...))); err == nil || !strings.Contains(err.Error(), "repeats the attributes") {
			t.Errorf("repeat_of %d with 2 launches before it: error %v, want one naming repeat_of", n, err)
		}
	}
	// A new frame starts afresh: its first Launch cannot repeat.
	two := append(frame(compact(proto.Clone(a).(*pb.Launch))), frame(compact(&pb.Launch{RepeatOf: 1}))[len(stream.Magic)+1:]...)
	if _, err := ReadAll(bytes.NewReader(two)); err == nil {
		t.Error("repeat_of 1 in a frame's first Launch read without error")
	}
}

// appendMarshaled appends rec, length-delimited, as proto.Marshal encodes
// it (records the Writer would not write, to test the Reader).
func appendMarshaled(b []byte, rec *pb.Record) []byte {
	m, err := proto.Marshal(rec)
	if err != nil {
		panic(err)
	}
	return append(protowire.AppendVarint(b, uint64(len(m))), m...)
}
