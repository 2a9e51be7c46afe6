package stream

import (
	"unsafe"

	pb "github.com/zestall/zestall/proto/zestallwire"
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
	// the frame: of up to len(recent) lists in recent[:nrecent] (threads
	// launching on lists of their own: no map operation per launch), of
	// lists evicted from there in listEnd. recent is looked at first.
	recent  [8]listEnd
	nrecent int
	evict   int // the next entry of recent to evict, round robin
	listEnd map[listKey]uint64
	// The attributes of the frame's last Launch records (at most
	// len(attrs)), the latest at attrs[(head-1)%len(attrs)]: what
	// Launch.repeat_of refers to.
	attrs  [maxRepeat]launchAttrs
	head   int
	nattrs int
}

// maxRepeat is the largest Launch.repeat_of (zestall.proto, "Two forms").
const maxRepeat = 8

// launchAttrs are the fields of a Launch that Launch.repeat_of repeats.
type launchAttrs struct {
	kernel, queue, list                         uint64
	device, flags, codeCopy, syclLocation       uint32
	kind                                        pb.LaunchKind
	reason                                      pb.NoTimestampReason
	countX, countY, countZ, sizeX, sizeY, sizeZ uint32
}

// attrWords is launchAttrs' size in 64-bit words: its fields fill them
// with no padding (the arrays below do not compile otherwise), so two
// values are equal exactly when their words are.
const attrWords = 9

var (
	_ [attrWords*8 - unsafe.Sizeof(launchAttrs{})]byte
	_ [unsafe.Sizeof(launchAttrs{}) - attrWords*8]byte
)

// same is a == *b, compared word by word without a branch: the writer
// compares each launch's attributes with the latest ones (repeatOf), and
// == on the 72-byte struct was a call of the runtime's memequal, about 10
// ns a launch of the writer's time (docs/go-runtime.md §1.1 "== on a
// large struct calls the runtime", §1.2 "^ and | have the same
// precedence").
func (a *launchAttrs) same(b *launchAttrs) bool {
	x, y := (*[attrWords]uint64)(unsafe.Pointer(a)), (*[attrWords]uint64)(unsafe.Pointer(b))
	// Parenthesised: in Go ^ and | have the same precedence.
	d := (x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4]) |
		(x[5] ^ y[5]) | (x[6] ^ y[6]) | (x[7] ^ y[7]) | (x[8] ^ y[8])
	return d == 0
}

func attrsOf(l *Launch) launchAttrs {
	return launchAttrs{
		kernel: l.KernelId, queue: l.QueueId, list: l.CommandListId,
		device: l.DeviceId, flags: l.Flags, codeCopy: l.CodeCopy, syclLocation: l.SyclLocationId,
		kind: l.Kind, reason: l.NoTimestampReason,
		countX: l.GroupCountX, countY: l.GroupCountY, countZ: l.GroupCountZ,
		sizeX: l.GroupSizeX, sizeY: l.GroupSizeY, sizeZ: l.GroupSizeZ,
	}
}

// attrsOfProto is attrsOf for a pb.Launch (the reader, and the Writer's
// path for records it is given as messages), through launchOf: one list
// of the attribute fields.
func attrsOfProto(l *pb.Launch) launchAttrs {
	v := launchOf(l)
	return attrsOf(&v)
}

// setOn sets a's fields of l.
func (a *launchAttrs) setOn(l *pb.Launch) {
	l.KernelId, l.QueueId, l.CommandListId = a.kernel, a.queue, a.list
	l.DeviceId, l.Flags, l.CodeCopy, l.SyclLocationId = a.device, a.flags, a.codeCopy, a.syclLocation
	l.Kind, l.NoTimestampReason = a.kind, a.reason
	l.GroupCountX, l.GroupCountY, l.GroupCountZ = a.countX, a.countY, a.countZ
	l.GroupSizeX, l.GroupSizeY, l.GroupSizeZ = a.sizeX, a.sizeY, a.sizeZ
}

// repeatOf is the Launch.repeat_of for a launch with attributes a: how far
// back in the frame the latest Launch with the same attributes is, 0 when
// none of the last maxRepeat has them.
func (s *launchState) repeatOf(a *launchAttrs) uint32 {
	for n := 1; n <= s.nattrs; n++ {
		if s.attrs[(s.head-n)&(maxRepeat-1)].same(a) {
			return uint32(n)
		}
	}
	return 0
}

// repeated returns the attributes Launch.repeat_of n refers to; false
// when the frame has no such Launch (or n is above maxRepeat).
func (s *launchState) repeated(n uint32) (launchAttrs, bool) {
	if n == 0 || n > uint32(s.nattrs) {
		return launchAttrs{}, false
	}
	return s.attrs[(s.head-int(n))&(maxRepeat-1)], true
}

type listKey struct{ queue, list uint64 }

type listEnd struct {
	key listKey
	end uint64
}

func (s *launchState) reset() {
	s.prevID, s.prevAppend = 0, 0
	s.nrecent, s.evict = 0, 0
	clear(s.listEnd)
	s.head, s.nattrs = 0, 0
}

// startRef returns what device_start_delay_ns is relative to: the later of
// the launch's append time and the device end of the previous timed launch
// of its command list in the frame.
func (s *launchState) startRef(queue, list, appendNs uint64) uint64 {
	k := listKey{queue, list}
	for i := range s.recent[:s.nrecent] {
		if s.recent[i].key == k {
			return max(appendNs, s.recent[i].end)
		}
	}
	return max(appendNs, s.listEnd[k])
}

// update records a launch, in absolute form, with attributes a, as the
// previous Launch.
func (s *launchState) update(id, appendNs, queue, list, endNs uint64, timed bool, a *launchAttrs) {
	s.prevID, s.prevAppend = id, appendNs
	s.attrs[s.head] = *a
	s.head = (s.head + 1) & (maxRepeat - 1)
	s.nattrs = min(s.nattrs+1, maxRepeat)
	if !timed {
		return
	}
	k := listKey{queue, list}
	for i := range s.recent[:s.nrecent] {
		if s.recent[i].key == k {
			s.recent[i].end = endNs
			return
		}
	}
	if s.nrecent < len(s.recent) {
		s.recent[s.nrecent] = listEnd{k, endNs}
		s.nrecent++
		return
	}
	if s.listEnd == nil {
		s.listEnd = make(map[listKey]uint64)
	}
	e := &s.recent[s.evict]
	s.listEnd[e.key] = e.end
	*e = listEnd{k, endNs}
	s.evict = (s.evict + 1) % len(s.recent)
}

// appendCompactLaunch appends a Record holding l in compact form,
// length-delimited, to b: the wire bytes proto.Marshal makes of that Record
// (fields in number order, zero values omitted, host_append_delta_ns always
// present), without the reflection that costs more per launch than the
// rest of the profiler's launch path, and in place (see fieldWriter). l is
// in absolute form; id, appendNs, start and end are its absolute values,
// zeroed in the compact form; with repeat > 0 (Launch.repeat_of) its
// attributes (launchAttrs) are left out. TestCompactLaunchEncoding holds
// it to proto.Unmarshal.
func appendCompactLaunch(b []byte, l *Launch, appendDelta, idDelta, startDelay int64, duration uint64, repeat uint32) []byte {
	b, f := startRecord(b, 6) // Record{launch = 6}
	if repeat == 0 {
		f.varint(varintTag(2), l.KernelId)
		f.varint(varintTag(3), uint64(l.DeviceId))
		f.varint(varintTag(4), l.QueueId)
		f.varint(varintTag(5), l.CommandListId)
		f.varint(varintTag(6), uint64(int64(l.Kind)))
		f.varint(varintTag(7), uint64(l.Flags))
		f.varint(varintTag(8), uint64(int64(l.NoTimestampReason)))
		f.varint(varintTag(9), uint64(l.GroupCountX))
		f.varint(varintTag(10), uint64(l.GroupCountY))
		f.varint(varintTag(11), uint64(l.GroupCountZ))
		f.varint(varintTag(12), uint64(l.GroupSizeX))
		f.varint(varintTag(13), uint64(l.GroupSizeY))
		f.varint(varintTag(14), uint64(l.GroupSizeZ))
	}
	f.varint(varintTag(18), uint64(l.ExecutionIndex))
	f.put(varintTag(20), encodeZigZag(appendDelta)) // optional: present even when 0
	f.varint(varintTag(21), encodeZigZag(startDelay))
	f.varint(varintTag(22), duration)
	f.varint(varintTag(23), encodeZigZag(idDelta))
	if repeat == 0 {
		f.varint(varintTag(24), uint64(l.CodeCopy))
		f.varint(varintTag(26), uint64(l.SyclLocationId))
	}
	f.varint(varintTag(27), l.SyclTaskId)
	f.varint(varintTag(33), uint64(repeat))
	return endRecord(b, &f)
}
