package pbstream

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// FuzzReader reads arbitrary bytes, resuming after damage as a caller that
// wants everything intact does. Reading must not panic, must end in io.EOF
// or a *stream.FormatError, and whatever it returns must survive being
// written and read again unchanged (apart from the fields the stream.Writer
// fills).
func FuzzReader(f *testing.F) {
	var groups [][]*pb.Record
	groups = append(groups, allKinds(), awkwardLaunches(), synthLaunchRecords()[:50], synthStallRecords()[:2],
		loopLaunches(300, 2, 7, true, true)) // LaunchRun records
	var seeds [][]byte
	for _, g := range groups {
		seeds = append(seeds, encode(f, g, 3, nil))
	}
	multi := seeds[0]
	seeds = append(seeds, nil, []byte(stream.Magic), []byte(stream.Magic+"\x01"), multi[:len(multi)/2], multi[:len(multi)-1])
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data))
		// Small limits keep the fuzzer fast; the logic is the same.
		rd.maxRecord, rd.maxFrame, rd.maxWindow = 1<<20, 4<<20, 1<<20
		if len(data) > 0 && data[len(data)-1]&1 != 0 {
			rd.maxBuffered = 256 // frames read in two passes
		}
		var recs []*pb.Record
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var fe *stream.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a *stream.FormatError", err)
				}
				if !errors.Is(err, stream.ErrTruncated) && !errors.Is(err, stream.ErrCorrupt) && !errors.Is(err, stream.ErrVersion) {
					t.Fatalf("error %v wraps no sentinel", err)
				}
				if rec != nil {
					t.Fatal("record returned with an error")
				}
				if fe.Resumed {
					if fe.Skipped <= 0 {
						t.Fatalf("resumed after skipping %d bytes: %v", fe.Skipped, err)
					}
					continue
				}
				if again, _ := rd.Next(); again != nil {
					t.Fatal("a record after a final error")
				}
				break
			}
			if rec.Kind != nil {
				recs = append(recs, rec)
			}
		}
		file := encode(t, recs, 7, nil)
		again, err := ReadAll(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("re-reading what was read: %v", err)
		}
		want := rewritten(recs)
		clearBytesWritten(again)
		if len(again) != len(want) {
			t.Fatalf("re-read %d records, want %d", len(again), len(want))
		}
		for i := range want {
			if !proto.Equal(again[i], want[i]) {
				t.Fatalf("record %d changed:\n got %v\nwant %v", i, again[i], want[i])
			}
		}
	})
}

// rewritten returns what reading back recs, written in one stream, gives:
// Counters filled, module content stored once.
func rewritten(recs []*pb.Record) []*pb.Record {
	out := cloneAll(recs)
	seen := map[string]uint64{}
	for i, r := range out {
		switch k := r.Kind.(type) {
		case *pb.Record_Counters:
			k.Counters.RecordsWritten, k.Counters.BytesWritten = uint64(i), 0
		case *pb.Record_Module:
			m := k.Module
			if m.ContentModuleId != 0 || len(m.ContentHash) == 0 {
				continue
			}
			if first, ok := seen[string(m.ContentHash)]; ok && first != m.Id {
				m.ContentModuleId, m.NativeBinary, m.DebugInfo = first, nil, nil
			} else if !ok && (len(m.NativeBinary) > 0 || len(m.DebugInfo) > 0) {
				seen[string(m.ContentHash)] = m.Id
			}
		}
	}
	return out
}
