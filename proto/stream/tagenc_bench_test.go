package stream

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/pbconv"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// stallRowsRecord is a StallRows record of rows rows of 10 counters, as
// the attributor writes them.
func stallRowsRecord(rows int) *pb.Record {
	s := &pb.StallRows{KernelId: 7, DeviceId: 1, Attribution: pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH, LaunchId: 123456,
		WindowStartHostNs: 1e12, WindowEndHostNs: 1e12 + 5e6, ColumnCount: 10}
	for i := range rows {
		s.OffsetDeltas = append(s.OffsetDeltas, 16+uint64(i%7)*16)
		for j := range 10 {
			s.Counters = append(s.Counters, uint64((i*31+j*7)%50))
		}
	}
	return &pb.Record{Kind: &pb.Record_StallRows{StallRows: s}}
}

// BenchmarkEncodeStallRows: the Writer's encoding of a StallRows record
// of 200 rows (zestallwire's generated AppendWire, through tagenc.go)
// against the reflective encoder by the struct tags and proto.Marshal of
// its zestallpb twin, which the Writer used before it took zestallwire's
// types.
func BenchmarkEncodeStallRows(b *testing.B) {
	rec := stallRowsRecord(200)
	b.Run("tagenc", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = appendTagged(buf[:0], rec)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("by-tags", func(b *testing.B) { // the reflective encoder (tagAppendReflect)
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = tagAppendReflect(buf[:0], rec)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("proto.Marshal", func(b *testing.B) {
		m := pbconv.RecordFromWire(rec)
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], m)
		}
		b.SetBytes(int64(len(buf)))
	})
}
