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

// TestWriteLaunches: WriteLaunches writes, batch after batch, the bytes
// WriteLaunch writes for the same launches one by one (the same repeat_of
// and LaunchRun records: a batch's table indices only spare comparisons),
// and the file reads back to the records given: with attributes that vary
// (the synthetic run), cycles of kernels longer and shorter than the
// batch's look-back and the Writer's repeat_of, untimed launches, an
// untimed launch with device times (the absolute path), other records
// between batches, small frames, flushes, and the Writer's options.
func TestWriteLaunches(t *testing.T) {
	withKernels := loopLaunches(3000, 3, 0, false, false)
	for i := 100; i < len(withKernels); i += 700 {
		withKernels = append(withKernels[:i], append([]*pb.Record{kernel(&pb.Kernel{Id: uint64(i), ModuleId: 1, Name: "k"})}, withKernels[i:]...)...)
	}
	untimedWithTimes := loopLaunches(2000, 2, 0, false, false)
	for i := 5; i < len(untimedWithTimes); i += 301 {
		untimedWithTimes[i].GetLaunch().Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
	}
	cases := []struct {
		name      string
		recs      []*pb.Record
		batch     int // launches per batch
		every     int // flush after every so many records (0: never)
		frameSize int
		opts      stream.WriterOptions
	}{
		{"synthetic run", synthLaunchRecords()[:20000], 2048, 0, 0, stream.WriterOptions{}},
		{"synthetic run, batches of 7", synthLaunchRecords()[:5000], 7, 0, 0, stream.WriterOptions{}},
		{"synthetic run, frames of 4 KiB", synthLaunchRecords()[:5000], 300, 0, 4 << 10, stream.WriterOptions{}},
		{"a loop", loopLaunches(5000, 1, 0, false, false), 2048, 0, 0, stream.WriterOptions{}},
		{"a loop, batches of 1, a flush every 333", loopLaunches(3000, 1, 0, false, false), 1, 333, 0, stream.WriterOptions{}},
		{"a cycle of 3 kernels, other records between", withKernels, 50, 0, 0, stream.WriterOptions{}},
		{"a cycle of 6 kernels (past the batch's look-back)", loopLaunches(3000, 6, 0, false, false), 512, 0, 0, stream.WriterOptions{}},
		{"a cycle of 9 kernels (no repeats)", loopLaunches(1000, 9, 0, false, false), 100, 0, 0, stream.WriterOptions{}},
		{"untimed launches", loopLaunches(3000, 2, 7, true, true), 256, 0, 0, stream.WriterOptions{}},
		{"untimed launches with device times", untimedWithTimes, 256, 0, 0, stream.WriterOptions{}},
		{"no runs", synthLaunchRecords()[:5000], 2048, 0, 0, stream.WriterOptions{NoLaunchRuns: true}},
		{"absolute", loopLaunches(2000, 2, 0, false, false), 2048, 0, 0, stream.WriterOptions{AbsoluteLaunches: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			opts.FrameSize = c.frameSize
			var a, b bytes.Buffer
			wa, _ := stream.NewWriter(&a, &opts)
			wb, _ := stream.NewWriter(&b, &opts)
			var batch stream.LaunchBatch
			writeBatch := func() {
				if err := wb.WriteLaunches(&batch); err != nil {
					t.Fatal(err)
				}
				batch.Reset()
			}
			var want []*pb.Record
			for i, r := range c.recs {
				if l := r.GetLaunch(); l != nil {
					v := stream.LaunchOf(pbconv.LaunchToWire(l))
					if err := wa.WriteLaunch(&v); err != nil {
						t.Fatal(err)
					}
					if batch.Add(&v); batch.Len() == c.batch {
						writeBatch()
					}
				} else {
					writeBatch()
					if err := Write(wa, r); err != nil {
						t.Fatal(err)
					}
					if err := Write(wb, r); err != nil {
						t.Fatal(err)
					}
				}
				want = append(want, r)
				if c.every > 0 && (i+1)%c.every == 0 {
					writeBatch()
					wa.Flush()
					wb.Flush()
				}
			}
			writeBatch()
			if err := wa.Close(); err != nil {
				t.Fatal(err)
			}
			if err := wb.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("WriteLaunches wrote %d bytes, WriteLaunch %d, not the same", b.Len(), a.Len())
			}
			got, err := ReadAll(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("read %d records, wrote %d", len(got), len(want))
			}
			for i := range want {
				if !proto.Equal(got[i], want[i]) {
					t.Fatalf("record %d reads %v, want %v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestLaunchBatch: a batch gives back the launches added to it, through
// Reset and reuse, whatever their attributes.
func TestLaunchBatch(t *testing.T) {
	var b stream.LaunchBatch
	for round := range 3 {
		var want []stream.Launch
		for _, r := range synthLaunchRecords()[round*1000 : round*1000+700+round*100] {
			v := stream.LaunchOf(pbconv.LaunchToWire(r.GetLaunch()))
			b.Add(&v)
			want = append(want, v)
		}
		got := b.AppendTo(nil)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d launches, want %d", round, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] || b.At(i) != want[i] {
				t.Fatalf("round %d: launch %d is %+v, want %+v", round, i, got[i], want[i])
			}
		}
		b.Reset()
		if b.Len() != 0 {
			t.Fatalf("round %d: %d launches after Reset", round, b.Len())
		}
	}
}
