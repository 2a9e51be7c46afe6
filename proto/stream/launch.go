package stream

import (
	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// launchState is what the compact form of Launch (see zestall.proto) is
// relative to. Writer and Reader keep one each and reset it at the start of
// every frame, so that every frame decodes on its own and the state is
// bounded by the frame.
type launchState struct {
	prevID, prevAppend uint64 // of the previous Launch of the frame
	// Device end of the previous timed Launch of each command list in
	// the frame.
	listEnd map[listKey]uint64
}

type listKey struct{ queue, list uint64 }

func (s *launchState) reset() {
	s.prevID, s.prevAppend = 0, 0
	clear(s.listEnd)
}

// startRef returns what device_start_delay_ns is relative to: the later of
// the launch's append time and the device end of the previous timed launch
// of its command list in the frame.
func (s *launchState) startRef(l *pb.Launch, appendNs uint64) uint64 {
	return max(appendNs, s.listEnd[listKey{l.QueueId, l.CommandListId}])
}

// update records l, in absolute form, as the previous Launch.
func (s *launchState) update(l *pb.Launch, timed bool) {
	s.prevID, s.prevAppend = l.Id, l.HostAppendNs
	if timed {
		if s.listEnd == nil {
			s.listEnd = make(map[listKey]uint64)
		}
		s.listEnd[listKey{l.QueueId, l.CommandListId}] = l.DeviceEndNs
	}
}

// appendCompactLaunch appends a Record holding l in compact form,
// length-delimited, to b: the wire bytes proto.Marshal makes of that Record
// (fields in number order, zero values omitted, host_append_delta_ns always
// present), without the reflection that costs more per launch than the
// rest of the profiler's launch path. l is in absolute form; id, appendNs,
// start and end are its absolute values, zeroed in the compact form.
// TestCompactLaunchEncoding holds it to proto.Unmarshal.
func appendCompactLaunch(b []byte, l *pb.Launch, appendDelta, idDelta, startDelay int64, duration uint64) []byte {
	var m [128]byte
	p := m[:0]
	u := func(num protowire.Number, v uint64) {
		if v != 0 {
			p = protowire.AppendTag(p, num, protowire.VarintType)
			p = protowire.AppendVarint(p, v)
		}
	}
	u(2, l.KernelId)
	u(3, uint64(l.DeviceId))
	u(4, l.QueueId)
	u(5, l.CommandListId)
	u(6, uint64(int64(l.Kind)))
	u(7, uint64(l.Flags))
	u(8, uint64(int64(l.NoTimestampReason)))
	u(9, uint64(l.GroupCountX))
	u(10, uint64(l.GroupCountY))
	u(11, uint64(l.GroupCountZ))
	u(12, uint64(l.GroupSizeX))
	u(13, uint64(l.GroupSizeY))
	u(14, uint64(l.GroupSizeZ))
	u(18, uint64(l.ExecutionIndex))
	p = protowire.AppendTag(p, 20, protowire.VarintType) // optional: present even when 0
	p = protowire.AppendVarint(p, protowire.EncodeZigZag(appendDelta))
	u(21, protowire.EncodeZigZag(startDelay))
	u(22, duration)
	u(23, protowire.EncodeZigZag(idDelta))
	u(24, uint64(l.CodeCopy))
	u(26, uint64(l.SyclLocationId))
	u(27, l.SyclTaskId)
	return appendRecordField(b, 6, p) // Record{launch = 6}
}
