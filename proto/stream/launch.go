package stream

import (
	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// Launch is a Launch record in absolute form as a plain value: what the
// profiler's harvester fills, in reused storage, for every launch, and
// [Writer.WriteLaunch] encodes without a *pb.Launch (one heap object per
// launch cost the harvester more than the rest of its work). Its fields
// are those of pb.Launch that the absolute form uses, with the same names,
// types and meaning (see zestall.proto); the compact fields are the
// Writer's business.
type Launch struct {
	Id, KernelId           uint64
	QueueId, CommandListId uint64
	HostAppendNs           uint64
	DeviceStartNs          uint64
	DeviceEndNs            uint64
	SyclTaskId             uint64
	DeviceId               uint32
	Kind                   pb.LaunchKind
	Flags                  uint32
	NoTimestampReason      pb.NoTimestampReason
	GroupCountX            uint32
	GroupCountY            uint32
	GroupCountZ            uint32
	GroupSizeX             uint32
	GroupSizeY             uint32
	GroupSizeZ             uint32
	ExecutionIndex         uint32
	SyclLocationId         uint32
	CodeCopy               uint32
}

// launchOf is l's absolute fields as a Launch.
func launchOf(l *pb.Launch) Launch {
	return Launch{
		Id: l.Id, KernelId: l.KernelId, DeviceId: l.DeviceId, QueueId: l.QueueId, CommandListId: l.CommandListId,
		Kind: l.Kind, Flags: l.Flags, NoTimestampReason: l.NoTimestampReason,
		GroupCountX: l.GroupCountX, GroupCountY: l.GroupCountY, GroupCountZ: l.GroupCountZ,
		GroupSizeX: l.GroupSizeX, GroupSizeY: l.GroupSizeY, GroupSizeZ: l.GroupSizeZ,
		HostAppendNs: l.HostAppendNs, DeviceStartNs: l.DeviceStartNs, DeviceEndNs: l.DeviceEndNs,
		ExecutionIndex: l.ExecutionIndex, SyclLocationId: l.SyclLocationId, SyclTaskId: l.SyclTaskId, CodeCopy: l.CodeCopy,
	}
}

// Proto is l as a pb.Launch in absolute form.
func (l *Launch) Proto() *pb.Launch {
	return &pb.Launch{
		Id: l.Id, KernelId: l.KernelId, DeviceId: l.DeviceId, QueueId: l.QueueId, CommandListId: l.CommandListId,
		Kind: l.Kind, Flags: l.Flags, NoTimestampReason: l.NoTimestampReason,
		GroupCountX: l.GroupCountX, GroupCountY: l.GroupCountY, GroupCountZ: l.GroupCountZ,
		GroupSizeX: l.GroupSizeX, GroupSizeY: l.GroupSizeY, GroupSizeZ: l.GroupSizeZ,
		HostAppendNs: l.HostAppendNs, DeviceStartNs: l.DeviceStartNs, DeviceEndNs: l.DeviceEndNs,
		ExecutionIndex: l.ExecutionIndex, SyclLocationId: l.SyclLocationId, SyclTaskId: l.SyclTaskId, CodeCopy: l.CodeCopy,
	}
}

// launchState is what the compact form of Launch (see zestall.proto) is
// relative to. Writer and Reader keep one each and reset it at the start of
// every frame, so that every frame decodes on its own and the state is
// bounded by the frame.
type launchState struct {
	prevID, prevAppend uint64 // of the previous Launch of the frame
	// Device end of the previous timed Launch of each command list in
	// the frame: the last list's in lastKey/lastEnd (a loop launches on
	// one list: no map operation per launch), the others in listEnd.
	listEnd map[listKey]uint64
	lastKey listKey
	lastEnd uint64
	hasLast bool
}

type listKey struct{ queue, list uint64 }

func (s *launchState) reset() {
	s.prevID, s.prevAppend = 0, 0
	s.hasLast = false
	clear(s.listEnd)
}

// startRef returns what device_start_delay_ns is relative to: the later of
// the launch's append time and the device end of the previous timed launch
// of its command list in the frame.
func (s *launchState) startRef(queue, list, appendNs uint64) uint64 {
	k := listKey{queue, list}
	if s.hasLast && k == s.lastKey {
		return max(appendNs, s.lastEnd)
	}
	return max(appendNs, s.listEnd[k])
}

// update records a launch, in absolute form, as the previous Launch.
func (s *launchState) update(id, appendNs, queue, list, endNs uint64, timed bool) {
	s.prevID, s.prevAppend = id, appendNs
	if !timed {
		return
	}
	k := listKey{queue, list}
	if s.hasLast && k != s.lastKey {
		if s.listEnd == nil {
			s.listEnd = make(map[listKey]uint64)
		}
		s.listEnd[s.lastKey] = s.lastEnd
	}
	s.lastKey, s.lastEnd, s.hasLast = k, endNs, true
}

// compactHeader is what appendCompactLaunch reserves before the Launch's
// fields: the record's length, Record.launch's tag and the Launch's
// length, one byte each while the Launch takes at most compactShort bytes
// (nearly always: a profiler's launch takes 15 to 40).
const (
	compactHeader = 3
	compactShort  = 125 // 1 + 1 + 125 = 127, the largest one-byte varint
)

// appendCompactLaunch appends a Record holding l in compact form,
// length-delimited, to b: the wire bytes proto.Marshal makes of that Record
// (fields in number order, zero values omitted, host_append_delta_ns always
// present), without the reflection that costs more per launch than the
// rest of the profiler's launch path, and in place (the lengths are
// reserved, then filled in). l is in absolute form; id, appendNs, start and
// end are its absolute values, zeroed in the compact form.
// TestCompactLaunchEncoding holds it to proto.Unmarshal.
func appendCompactLaunch(b []byte, l *Launch, appendDelta, idDelta, startDelay int64, duration uint64) []byte {
	n := len(b)
	b = append(b, 0, byte(protowire.EncodeTag(6, protowire.BytesType)), 0) // Record{launch = 6}
	u := func(num protowire.Number, v uint64) {
		if v != 0 {
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, v)
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
	b = protowire.AppendTag(b, 20, protowire.VarintType) // optional: present even when 0
	b = protowire.AppendVarint(b, protowire.EncodeZigZag(appendDelta))
	u(21, protowire.EncodeZigZag(startDelay))
	u(22, duration)
	u(23, protowire.EncodeZigZag(idDelta))
	u(24, uint64(l.CodeCopy))
	u(26, uint64(l.SyclLocationId))
	u(27, l.SyclTaskId)
	size := len(b) - n - compactHeader
	if size <= compactShort {
		b[n], b[n+2] = byte(size+2), byte(size)
		return b
	}
	// Longer lengths: move the fields after them (rare: huge values).
	var hdr [2*10 + 1]byte // two varints of at most 10 bytes, one tag byte
	h := protowire.AppendVarint(hdr[:0], uint64(protowire.SizeTag(6)+protowire.SizeBytes(size)))
	h = protowire.AppendTag(h, 6, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(size))
	extra := len(h) - compactHeader
	for range extra {
		b = append(b, 0)
	}
	copy(b[n+len(h):], b[n+compactHeader:n+compactHeader+size])
	copy(b[n:], h)
	return b
}
