package stream

import (
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// The SYCL records (SyclSpan, SyclGraph) come one or more per SYCL
// submission, as often as launches: like the compact Launch, they are
// encoded here without reflection, to the bytes proto.Marshal makes
// (fields in number order, zero values omitted, optional fields present
// when set). TestSyclEncoding holds them to proto.Marshal.

// appendSyclSpan appends a Record holding sp, length-delimited.
func appendSyclSpan(b []byte, sp *pb.SyclSpan) []byte {
	b, f := startRecord(b, 14) // Record{sycl_span = 14}
	f.varint(varintTag(1), uint64(int64(sp.Kind)))
	f.varint(varintTag(2), sp.Id)
	f.varint(varintTag(3), uint64(sp.ThreadId))
	f.varint(varintTag(4), sp.BeginNs)
	f.varint(varintTag(5), sp.EndNs)
	f.varint(varintTag(6), uint64(sp.LocationId))
	f.varint(varintTag(7), sp.NodeId)
	if sp.QueueId != nil {
		f.put(varintTag(8), *sp.QueueId)
	}
	f.varint(varintTag(9), sp.Instance)
	f.varint(varintTag(10), uint64(sp.Depth))
	return endRecord(b, &f)
}

// appendSyclGraph appends a Record holding g, length-delimited.
func appendSyclGraph(b []byte, g *pb.SyclGraph) []byte {
	b, f := startRecord(b, 15) // Record{sycl_graph = 15}
	f.varint(varintTag(1), uint64(int64(g.Kind)))
	f.varint(varintTag(2), g.NodeId)
	f.varint(varintTag(3), g.TargetNodeId)
	f.varint(varintTag(4), uint64(g.LocationId))
	if g.QueueId != nil {
		f.put(varintTag(5), *g.QueueId)
	}
	f.varint(varintTag(6), g.Instance)
	f.varint(varintTag(7), g.HostNs)
	f.varint(varintTag(8), uint64(g.ThreadId))
	return endRecord(b, &f)
}
