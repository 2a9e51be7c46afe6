package stream

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/zestall/zestall/proto/pbconv"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestSyclEncoding: the hand-written encodings are what proto.Marshal
// makes of the same records, and read back equal.
func TestSyclEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func() uint64 {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return uint64(r.IntN(300))
		case 2:
			return math.MaxUint64 - uint64(r.IntN(3))
		}
		return r.Uint64()
	}
	opt := func() *uint64 {
		if r.IntN(3) == 0 {
			return nil
		}
		v := pick()
		return &v
	}
	check := func(i int, b []byte, want *pb.Record) {
		t.Helper()
		n, k := binary.Uvarint(b)
		if k <= 0 || int(n) != len(b)-k {
			t.Fatalf("case %d: length prefix %d for %d bytes", i, n, len(b)-k)
		}
		m, err := proto.MarshalOptions{Deterministic: true}.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if string(m) != string(b[k:]) {
			t.Fatalf("case %d: encoded %x, proto.Marshal %x", i, b[k:], m)
		}
		var got pb.Record
		if err := proto.Unmarshal(b[k:], &got); err != nil || !proto.Equal(&got, want) {
			t.Fatalf("case %d: read back %v (%v), want %v", i, &got, err, want)
		}
	}
	for i := 0; i < 2000; i++ {
		sp := &pb.SyclSpan{Kind: pb.SyclSpanKind(r.IntN(4)), Id: pick(), ThreadId: uint32(pick()), BeginNs: pick(),
			EndNs: pick(), LocationId: uint32(pick()), NodeId: pick(), QueueId: opt(), Instance: pick(), Depth: uint32(pick())}
		check(i, appendSyclSpan(nil, pbconv.SyclSpanToWire(sp)), &pb.Record{Kind: &pb.Record_SyclSpan{SyclSpan: sp}})
		g := &pb.SyclGraph{Kind: pb.SyclGraphKind(r.IntN(3)), NodeId: pick(), TargetNodeId: pick(), LocationId: uint32(pick()),
			QueueId: opt(), Instance: pick(), HostNs: pick(), ThreadId: uint32(pick())}
		check(i, appendSyclGraph(nil, pbconv.SyclGraphToWire(g)), &pb.Record{Kind: &pb.Record_SyclGraph{SyclGraph: g}})
	}
}
