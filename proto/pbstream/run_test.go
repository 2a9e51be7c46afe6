package pbstream

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// loopLaunches are n launches of a loop: kernels taken in turn from a
// cycle of cycle kernels on one immediate list (repeat_of = cycle once
// the cycle has gone round), with execution indexes or SYCL tasks when
// asked, one in untimed every untimed launches (0: none).
func loopLaunches(n, cycle, untimed int, execIndex, sycl bool) []*pb.Record {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(cycle)))
	var recs []*pb.Record
	app := uint64(1e12)
	for i := range n {
		app += 150 + rng.Uint64N(500)
		l := &pb.Launch{Id: uint64(i + 1), KernelId: uint64(1 + i%cycle), DeviceId: 1, CommandListId: 1, Flags: 33,
			GroupCountX: 64, GroupSizeX: 128, HostAppendNs: app, DeviceStartNs: app + rng.Uint64N(100)}
		l.DeviceEndNs = l.DeviceStartNs + rng.Uint64N(3000)
		if execIndex {
			l.ExecutionIndex = uint32(i / 10)
		}
		if sycl && i%3 != 0 {
			l.SyclTaskId = uint64(1000 + i)
		}
		if untimed > 0 && i%untimed == untimed-1 {
			l.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
			l.NoTimestampReason = pb.NoTimestampReason_NO_TIMESTAMP_REASON_POOL_EXHAUSTED
			l.DeviceStartNs, l.DeviceEndNs = 0, 0
		}
		recs = append(recs, launch(l))
	}
	return recs
}

// rawKinds counts the records of a file by kind as written, LaunchRun
// records unexpanded.
func rawKinds(t *testing.T, file []byte) map[string]int {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	content, err := dec.DecodeAll(file[len(stream.Magic)+1:], nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for len(content) > 0 {
		n, k := uvarintOf(content)
		var r pb.Record
		if k <= 0 || proto.Unmarshal(content[k:k+int(n)], &r) != nil {
			t.Fatal("bad record in the file")
		}
		kinds[string(r.ProtoReflect().WhichOneof(r.ProtoReflect().Descriptor().Oneofs().Get(0)).Name())]++
		content = content[k+int(n):]
	}
	return kinds
}

func uvarintOf(b []byte) (uint64, int) {
	var x uint64
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// TestLaunchRunRoundTrip: files written with LaunchRun records read back
// as the launches written, the same as files of revision 7's Launch
// records (NoLaunchRuns) do, whatever cuts the runs: other records,
// flushes, frames filling, a full run, attributes that do not repeat,
// untimed launches, execution indexes and SYCL tasks.
func TestLaunchRunRoundTrip(t *testing.T) {
	withKernels := loopLaunches(3000, 1, 0, false, false)
	for i := 100; i < len(withKernels); i += 700 {
		withKernels = append(withKernels[:i], append([]*pb.Record{kernel(&pb.Kernel{Id: uint64(i), ModuleId: 1, Name: "k"})}, withKernels[i:]...)...)
	}
	cases := []struct {
		name      string
		recs      []*pb.Record
		every     int // flush after every so many records (0: never)
		frameSize int
		minRuns   int // LaunchRun records at least
	}{
		{"a loop", loopLaunches(5000, 1, 0, false, false), 0, 0, 5000 / 512},
		{"a loop, a flush every 1000", loopLaunches(5000, 1, 0, false, false), 1000, 0, 10},
		{"a loop, frames of 4 KiB", loopLaunches(5000, 1, 0, false, false), 0, 4 << 10, 5},
		{"a cycle of 5 kernels", loopLaunches(3000, 5, 0, false, false), 0, 0, 5},
		{"a cycle of 9 kernels (no repeats)", loopLaunches(500, 9, 0, false, false), 0, 0, 0},
		{"untimed launches", loopLaunches(3000, 2, 7, false, false), 0, 0, 5},
		{"execution indexes", loopLaunches(3000, 1, 0, true, false), 0, 0, 5},
		{"SYCL tasks", loopLaunches(3000, 3, 0, false, true), 0, 0, 5},
		{"other records between", withKernels, 0, 0, 8},
		{"launches on 13 lists", manyListLaunches(), 0, 0, 0},
		{"awkward launches", awkwardLaunches(), 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs := encode(t, c.recs, c.every, &stream.WriterOptions{FrameSize: c.frameSize})
			plain := encode(t, c.recs, c.every, &stream.WriterOptions{FrameSize: c.frameSize, NoLaunchRuns: true})
			want := expected(c.recs)
			for _, f := range []struct {
				name string
				file []byte
			}{
				{"runs", runs},
				{"no runs", plain},
				// Frames of launches compressed each way, whatever the
				// probe chooses (docs/stream-writer.md §2 "Launch
				// frames: literals only").
				{"runs, encoder", encode(t, c.recs, c.every, &stream.WriterOptions{FrameSize: c.frameSize, LaunchFrames: stream.LaunchFramesEncoder})},
				{"runs, literals", encode(t, c.recs, c.every, &stream.WriterOptions{FrameSize: c.frameSize, LaunchFrames: stream.LaunchFramesLiterals})},
				{"no runs, literals", encode(t, c.recs, c.every, &stream.WriterOptions{FrameSize: c.frameSize, NoLaunchRuns: true, LaunchFrames: stream.LaunchFramesLiterals})},
			} {
				got, err := ReadAll(bytes.NewReader(f.file))
				if err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				clearBytesWritten(got)
				equalRecords(t, got, want)
			}
			if k := rawKinds(t, runs); k["launch_run"] < c.minRuns {
				t.Errorf("%d LaunchRun records (%v), want at least %d", k["launch_run"], k, c.minRuns)
			}
			if k := rawKinds(t, plain); k["launch_run"] != 0 {
				t.Errorf("NoLaunchRuns wrote %d LaunchRun records", k["launch_run"])
			}
		})
	}
}

// TestLaunchRunDamaged: a LaunchRun whose lists disagree, that holds no
// launch or a repeat_of of 0, or whose first launch repeats a Launch the
// frame does not have, is a located ErrCorrupt, after the records before
// it; the frame after it is read.
func TestLaunchRunDamaged(t *testing.T) {
	first := launch(&pb.Launch{Id: 1, KernelId: 1, HostAppendNs: 100, DeviceStartNs: 150, DeviceEndNs: 200})
	d := int64(10)
	cases := []struct {
		name string
		run  *pb.LaunchRun
		lead bool // a Launch before the run in its frame
		good int  // launches of the run returned before the error
		msg  string
	}{
		{"no launch", &pb.LaunchRun{IdDelta: []int64{1}}, true, 0, "no Launch records"},
		{"a short list", &pb.LaunchRun{HostAppendDeltaNs: []int64{1, 2}, DeviceStartDelayNs: []int64{1}}, true, 0, "1 values of device_start_delay_ns"},
		{"a long list", &pb.LaunchRun{HostAppendDeltaNs: []int64{1}, SyclTaskId: []uint64{1, 2}}, true, 0, "2 values of sycl_task_id"},
		{"repeat_of 0", &pb.LaunchRun{HostAppendDeltaNs: []int64{1, 2}, RepeatOf: []uint32{1, 0}}, true, 0, "repeat_of 0"},
		{"nothing to repeat", &pb.LaunchRun{HostAppendDeltaNs: []int64{d}}, false, 0, "LaunchRun record 0"},
		{"repeats too far back", &pb.LaunchRun{HostAppendDeltaNs: []int64{d, d, d}, RepeatOf: []uint32{1, 1, 4}}, true, 2, "LaunchRun record 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var frame []byte
			if c.lead {
				frame = appendDelimited(t, frame, first)
			}
			frame = appendDelimited(t, frame, &pb.Record{Kind: &pb.Record_LaunchRun{LaunchRun: c.run}})
			next := appendDelimited(t, nil, first)
			file := append(encodeRawFrame(t, frame), encodeRawFrame(t, next)[len(stream.Magic)+1:]...)
			rd := NewReader(bytes.NewReader(file))
			var launches int
			var fe *stream.FormatError
			for {
				r, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					if fe != nil || !errors.As(err, &fe) || !errors.Is(err, stream.ErrCorrupt) || !fe.Resumed {
						t.Fatalf("error %v, want one resumed ErrCorrupt", err)
					}
					if !bytes.Contains([]byte(err.Error()), []byte(c.msg)) {
						t.Errorf("error %q does not say %q", err, c.msg)
					}
					if lead := map[bool]int{true: 1}[c.lead]; launches != lead+c.good {
						t.Errorf("%d launches before the error, want %d", launches, lead+c.good)
					}
					continue
				}
				if r.GetLaunch() == nil {
					t.Fatalf("record %v, want launches only", r)
				}
				launches++
			}
			if fe == nil {
				t.Fatal("read without an error")
			}
			if lead := map[bool]int{true: 1}[c.lead]; launches != lead+c.good+1 {
				t.Errorf("%d launches in all, want %d (the next frame's read)", launches, lead+c.good+1)
			}
		})
	}
}

func appendDelimited(t *testing.T, b []byte, r *pb.Record) []byte {
	t.Helper()
	m, err := proto.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, byte(len(m))) // records here are shorter than 128 bytes
	if len(m) >= 128 {
		t.Fatal("record too long for this helper")
	}
	return append(b, m...)
}
