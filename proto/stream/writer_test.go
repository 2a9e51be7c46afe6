package stream

import (
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
