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

// launchSets are launches to encode in BenchmarkAppendLaunch: a loop of one
// kernel on one command list, shaped like zestall-bench-launch's at full
// rate (every attribute repeats the previous launch's), and a mix of
// kernels, lists and group counts (repeat_of of 1 to 8, or none).
func launchSets() []struct {
	name string
	ls   []Launch
} {
	r := rand.New(rand.NewPCG(9, 10))
	loop := make([]Launch, 4096)
	mix := make([]Launch, 4096)
	host := uint64(1e12)
	for i := range loop {
		host += 150 + r.Uint64N(500)
		start := host + 30 + r.Uint64N(70)
		loop[i] = Launch{Id: uint64(i + 1), KernelId: 1, DeviceId: 1, CommandListId: 1, Flags: 33,
			GroupCountX: 1, GroupCountY: 1, GroupCountZ: 1, GroupSizeX: 1, GroupSizeY: 1, GroupSizeZ: 1,
			HostAppendNs: host, DeviceStartNs: start, DeviceEndNs: start + r.Uint64N(3000)}
		mix[i] = loop[i]
		mix[i].KernelId = 1 + r.Uint64N(6)
		mix[i].CommandListId = 1 + r.Uint64N(2)
		if r.IntN(4) == 0 {
			mix[i].GroupCountX = uint32(r.IntN(1 << 16))
		}
	}
	return []struct {
		name string
		ls   []Launch
	}{{"loop", loop}, {"mix", mix}}
}

// BenchmarkAppendLaunch is the Writer's per-launch encoding (compact form
// and repeat_of, launchState), without compression or the Writer's checks.
// cpu-ns/launch is the process's CPU per launch: on a machine shared with
// other jobs ns/op counts the time the benchmark waited for a core too.
func BenchmarkAppendLaunch(b *testing.B) {
	for _, set := range launchSets() {
		for _, runs := range []bool{true, false} {
			name := set.name + "/runs"
			if !runs {
				name = set.name + "/records"
			}
			b.Run(name, func(b *testing.B) {
				w := &Writer{buf: make([]byte, 0, 1<<20+frameSlack), runs: runs}
				i := 0
				cpu0 := processCPUNs()
				for b.Loop() {
					if len(w.buf)+w.run.reserve() > 1<<20 {
						w.endRun()
						w.buf = w.buf[:0]
						w.launches.reset()
					}
					l := &set.ls[i]
					w.appendLaunch(l, true)
					if i++; i == len(set.ls) {
						i = 0
					}
				}
				b.ReportMetric(float64(processCPUNs()-cpu0)/float64(b.N), "cpu-ns/launch")
			})
		}
	}
}
