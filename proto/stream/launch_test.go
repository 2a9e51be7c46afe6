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

// TestCompactLaunchEncoding: the hand-written encoding of a compact Launch
// record decodes, with proto.Unmarshal, to exactly the Record the reflective
// path would have written, for zero, small, huge and negative values.
func TestCompactLaunchEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
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
	for i := 0; i < 2000; i++ {
		l := &pb.Launch{
			KernelId: pick(), DeviceId: uint32(pick()), QueueId: pick(), CommandListId: pick(),
			Kind: pb.LaunchKind(r.IntN(4)), Flags: uint32(pick()), NoTimestampReason: pb.NoTimestampReason(r.IntN(9)),
			GroupCountX: uint32(pick()), GroupCountY: uint32(pick()), GroupCountZ: uint32(pick()),
			GroupSizeX: uint32(pick()), GroupSizeY: uint32(pick()), GroupSizeZ: uint32(pick()),
			ExecutionIndex: uint32(pick()), SyclLocationId: uint32(pick()), SyclTaskId: pick(), CodeCopy: uint32(pick()),
		}
		appendDelta, idDelta, delay, dur := int64(pick()), int64(pick()), int64(pick()), pick()
		repeat := uint32(0)
		if r.IntN(2) == 0 {
			repeat = uint32(1 + r.IntN(maxRepeat))
		}
		v := launchOf(pbconv.LaunchToWire(l))
		b := appendCompactLaunch(nil, &v, appendDelta, idDelta, delay, dur, repeat)
		n, k := binary.Uvarint(b)
		if k <= 0 || int(n) != len(b)-k {
			t.Fatalf("case %d: length prefix %d (%d bytes) for %d bytes", i, n, k, len(b)-k)
		}
		var got pb.Record
		if err := proto.Unmarshal(b[k:], &got); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := proto.Clone(l).(*pb.Launch)
		want.HostAppendDeltaNs = &appendDelta
		want.IdDelta, want.DeviceStartDelayNs, want.DeviceDurationNs = idDelta, delay, dur
		if repeat > 0 {
			// Left out: the repeated Launch's.
			var zero pb.Launch
			want.KernelId, want.DeviceId, want.QueueId, want.CommandListId = zero.KernelId, zero.DeviceId, zero.QueueId, zero.CommandListId
			want.Kind, want.Flags, want.NoTimestampReason = zero.Kind, zero.Flags, zero.NoTimestampReason
			want.GroupCountX, want.GroupCountY, want.GroupCountZ = 0, 0, 0
			want.GroupSizeX, want.GroupSizeY, want.GroupSizeZ = 0, 0, 0
			want.CodeCopy, want.SyclLocationId = 0, 0
			want.RepeatOf = repeat
		}
		if !proto.Equal(got.GetLaunch(), want) {
			t.Fatalf("case %d: decoded %v\nwant %v", i, got.GetLaunch(), want)
		}
		if s := proto.Size(&pb.Record{Kind: &pb.Record_Launch{Launch: want}}); s != len(b)-k {
			t.Errorf("case %d: %d bytes, proto.Size says %d", i, len(b)-k, s)
		}
	}
}

// TestLaunchStateManyLists: launchState's device-end reference (kept for
// the most recent lists without a map, the others in one) is the plain
// rule of zestall.proto: the later of the append time and the device end
// of the previous timed launch of the same command list in the frame.
func TestLaunchStateManyLists(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var s launchState
	want := map[listKey]uint64{}
	for i := range 20000 {
		if r.IntN(3000) == 0 {
			s.reset()
			clear(want)
		}
		q, l := uint64(r.IntN(3)), uint64(r.IntN(1+r.IntN(20)))
		app := r.Uint64() >> 1
		if got, w := s.startRef(q, l, app), max(app, want[listKey{q, l}]); got != w {
			t.Fatalf("step %d: start reference of list (%d, %d) = %d, want %d", i, q, l, got, w)
		}
		end, timed := r.Uint64()>>1, r.IntN(5) > 0
		s.update(uint64(i), app, q, l, end, timed, &launchAttrs{})
		if timed {
			want[listKey{q, l}] = end
		}
	}
}
