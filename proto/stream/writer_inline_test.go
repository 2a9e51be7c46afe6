package stream_test

import (
	"bytes"
	"testing"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestWriterStoredFramesThenCompressor: the frames a Writer writes on the
// sealing call before its compressor starts (a header flushed, a running
// Counters record) and those its compressor writes once a full frame
// started it (launch records) make one readable file, in order, with the
// counters' byte counts right.
func TestWriterStoredFramesThenCompressor(t *testing.T) {
	for _, tc := range []struct {
		name     string
		launches uint64 // 0: the compressor never starts
	}{
		{"short run", 0},
		{"long run", 100000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := stream.NewWriter(&buf, &stream.WriterOptions{FrameSize: 64 << 10})
			if err != nil {
				t.Fatal(err)
			}
			write := func(r *pb.Record) {
				t.Helper()
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			write(&pb.Record{Kind: &pb.Record_Header{Header: &pb.Header{FormatVersion: stream.SchemaRevision, Pid: 1}}})
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			afterHeader := buf.Len()
			if afterHeader == 0 {
				t.Fatal("Flush wrote nothing")
			}
			write(&pb.Record{Kind: &pb.Record_Counters{Counters: &pb.Counters{HostNs: 1}}})
			for i := uint64(1); i <= tc.launches; i++ {
				l := stream.Launch{Id: i, KernelId: 1 + i%7, DeviceId: 1, CommandListId: 1, GroupCountX: uint32(i),
					GroupSizeX: 64, HostAppendNs: i * 1000, DeviceStartNs: i*1000 + 50, DeviceEndNs: i*1000 + 90}
				if err := w.WriteLaunch(&l); err != nil {
					t.Fatal(err)
				}
				if i == tc.launches/2 {
					if err := w.StartFlush(); err != nil {
						t.Fatal(err)
					}
				}
			}
			write(&pb.Record{Kind: &pb.Record_Counters{Counters: &pb.Counters{HostNs: 2, Final: true}}})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			recs, err := pbstream.ReadAll(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if want := int(tc.launches) + 3; len(recs) != want {
				t.Fatalf("%d records, want %d", len(recs), want)
			}
			var next uint64 = 1
			for i, r := range recs {
				switch {
				case i == 0:
					if r.GetHeader() == nil {
						t.Fatalf("record 0 is %T, want the header", r.GetKind())
					}
				case i == 1 || i == len(recs)-1:
					c := r.GetCounters()
					if c == nil {
						t.Fatalf("record %d is %T, want Counters", i, r.GetKind())
					}
					if i == 1 && c.BytesWritten != uint64(afterHeader) {
						t.Errorf("the running counters say %d bytes written before them, want %d", c.BytesWritten, afterHeader)
					}
					if i == len(recs)-1 && !c.Final {
						t.Error("the last record is not the final Counters")
					}
				default:
					l := r.GetLaunch()
					if l == nil || l.Id != next {
						t.Fatalf("record %d: %v, want launch %d", i, r, next)
					}
					next++
				}
			}
		})
	}
}
