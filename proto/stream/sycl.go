package stream

import (
	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// The SYCL records (SyclSpan, SyclGraph) come one or more per SYCL
// submission, as often as launches: like the compact Launch, they are
// encoded here without reflection, to the bytes proto.Marshal makes
// (fields in number order, zero values omitted, optional fields present
// when set). TestSyclEncoding holds them to proto.Marshal.

// appendSyclSpan appends a Record holding sp, length-delimited.
func appendSyclSpan(b []byte, sp *pb.SyclSpan) []byte {
	var m [96]byte
	p := m[:0]
	u := func(num protowire.Number, v uint64) {
		if v != 0 {
			p = protowire.AppendTag(p, num, protowire.VarintType)
			p = protowire.AppendVarint(p, v)
		}
	}
	u(1, uint64(int64(sp.Kind)))
	u(2, sp.Id)
	u(3, uint64(sp.ThreadId))
	u(4, sp.BeginNs)
	u(5, sp.EndNs)
	u(6, uint64(sp.LocationId))
	u(7, sp.NodeId)
	if sp.QueueId != nil {
		p = protowire.AppendTag(p, 8, protowire.VarintType)
		p = protowire.AppendVarint(p, *sp.QueueId)
	}
	u(9, sp.Instance)
	u(10, uint64(sp.Depth))
	return appendRecordField(b, 14, p)
}

// appendSyclGraph appends a Record holding g, length-delimited.
func appendSyclGraph(b []byte, g *pb.SyclGraph) []byte {
	var m [96]byte
	p := m[:0]
	u := func(num protowire.Number, v uint64) {
		if v != 0 {
			p = protowire.AppendTag(p, num, protowire.VarintType)
			p = protowire.AppendVarint(p, v)
		}
	}
	u(1, uint64(int64(g.Kind)))
	u(2, g.NodeId)
	u(3, g.TargetNodeId)
	u(4, uint64(g.LocationId))
	if g.QueueId != nil {
		p = protowire.AppendTag(p, 5, protowire.VarintType)
		p = protowire.AppendVarint(p, *g.QueueId)
	}
	u(6, g.Instance)
	u(7, g.HostNs)
	u(8, uint64(g.ThreadId))
	return appendRecordField(b, 15, p)
}

// appendRecordField appends Record{<num> = msg}, length-delimited.
func appendRecordField(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendVarint(b, uint64(protowire.SizeTag(num)+protowire.SizeBytes(len(msg))))
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}
