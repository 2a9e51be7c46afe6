package stream

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestWriterShortRunBuffers: a run whose file is a header and a trailer
// does not allocate frame buffers of FrameSize (two of them were 2 MiB
// of a trivial program's Go heap: BENCHMARKS.md, start-up) nor make the
// Zstandard encoder nor start the compressor goroutine, and a long
// run's buffers still reach FrameSize and slack, once.
func TestWriterShortRunBuffers(t *testing.T) {
	w, err := NewWriter(io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&pb.Record{Kind: &pb.Record_Header{Header: &pb.Header{FormatVersion: SchemaRevision, Pid: 1}}}); err != nil {
		t.Fatal(err)
	}
	if c := cap(w.buf); c > firstFrameBuffer {
		t.Errorf("after a header: buffer of %d bytes, want at most %d", c, firstFrameBuffer)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.enc != nil {
		t.Error("a header's frame made the Zstandard encoder (it is stored: rawFrameMax)")
	}
	if w.jobs != nil {
		t.Error("a header's frame started the compressor goroutine (a stored frame is written by Flush)")
	}
	// Launch records until a frame is sealed for its size: both buffers
	// have grown to their full size, and no further.
	full := DefaultFrameSize + frameSlack
	r := rand.New(rand.NewPCG(3, 4))
	for i := uint64(1); ; i++ {
		app := i * 1000
		l := Launch{Id: i, KernelId: 1 + r.Uint64N(40), DeviceId: 1, CommandListId: 1 + r.Uint64N(8), GroupCountX: uint32(r.IntN(1 << 20)),
			GroupSizeX: 64, HostAppendNs: app, DeviceStartNs: app + r.Uint64N(1e6), ExecutionIndex: uint32(i)}
		l.DeviceEndNs = l.DeviceStartNs + r.Uint64N(1e5)
		if err := w.WriteLaunch(&l); err != nil {
			t.Fatal(err)
		}
		if c := cap(w.buf); c > full {
			t.Fatalf("buffer of %d bytes, want at most %d", c, full)
		}
		if w.records > 200000 {
			break
		}
	}
	if c := cap(w.buf); c != full {
		t.Errorf("after a long run: buffer of %d bytes, want %d", c, full)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWriteLaunches: a file written by batches (WriteLaunches, the
// profiler's path) is byte for byte the file written launch by launch
// (WriteLaunch), whatever the batches' size and the frames' (frames
// sealed inside a batch: room's inline check, setRoomAt), with other
// records and flushes between batches; a batch given to a Writer whose
// underlying writer failed returns that error, and one given to a closed
// Writer ErrClosed.
func TestWriteLaunches(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 16))
	ls := make([]Launch, 30_000)
	app := uint64(1e12)
	for i := range ls {
		app += 150 + r.Uint64N(500)
		ls[i] = Launch{Id: uint64(i + 1), KernelId: 1 + r.Uint64N(3), DeviceId: 1, CommandListId: 1 + r.Uint64N(2), Flags: 33,
			GroupCountX: 1, GroupSizeX: 1, HostAppendNs: app, DeviceStartNs: app + r.Uint64N(100)}
		ls[i].DeviceEndNs = ls[i].DeviceStartNs + r.Uint64N(1000)
		if i%97 == 0 {
			ls[i].Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
			ls[i].DeviceStartNs, ls[i].DeviceEndNs = 0, 0
		}
	}
	kernel := &pb.Record{Kind: &pb.Record_Kernel{Kernel: &pb.Kernel{Id: 9, Name: "k"}}}
	for _, frameSize := range []int{0, 4 << 10, 10_000} {
		for _, batch := range []int{7, 100, 4096} {
			want := writeBatches(t, ls, frameSize, batch, kernel, true)
			if got := writeBatches(t, ls, frameSize, batch, kernel, false); !bytes.Equal(got, want) {
				t.Errorf("frames of %d, batches of %d: %d bytes, launch by launch %d", frameSize, batch, len(got), len(want))
			}
		}
	}
	// A failed underlying writer: the batch returns its error.
	w, err := NewWriter(failingWriter{}, &WriterOptions{FrameSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLaunches(ls); err == nil || err == ErrClosed {
		t.Errorf("WriteLaunches to a failing writer: %v, want its error", err)
	}
	if err := w.WriteLaunches(ls[:1]); err == nil {
		t.Error("WriteLaunches after the failure: no error")
	}
}

// writeBatches writes ls in batches of batch launches, with a kernel
// record and a flush after every 50 batches, as TestWriteLaunches does:
// each batch with one WriteLaunches call, or (oneByOne) with WriteLaunch
// per launch. After Close, WriteLaunches must say ErrClosed.
func writeBatches(t *testing.T, ls []Launch, frameSize, batch int, kernel *pb.Record, oneByOne bool) []byte {
	var file bytes.Buffer
	w, err := NewWriter(&file, &WriterOptions{FrameSize: frameSize})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(ls); i += batch {
		b := ls[i:min(i+batch, len(ls))]
		if oneByOne {
			for j := range b {
				if err := w.WriteLaunch(&b[j]); err != nil {
					t.Fatal(err)
				}
			}
		} else if err := w.WriteLaunches(b); err != nil {
			t.Fatal(err)
		}
		if i/batch%50 == 49 {
			if err := w.Write(kernel); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLaunches(ls[:1]); err != ErrClosed {
		t.Errorf("WriteLaunches after Close: %v, want ErrClosed", err)
	}
	return file.Bytes()
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
