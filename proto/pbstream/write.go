package pbstream

import (
	"github.com/zestall/zestall/proto/pbconv"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// Write gives rec to w as [stream.Writer.Write] does, converted to
// package zestallwire's types (pbconv.RecordToWire; lists and bytes are
// shared, so a Counters record's lists must not change after Write, as
// with stream.Writer).
func Write(w *stream.Writer, rec *pb.Record) error {
	return w.Write(pbconv.RecordToWire(rec))
}
