package stream

import (
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
	// lists evicted from there in listEnd. recent is looked at first,
	// from recent[last], the list of the latest lookup (a thread's
	// batch is of its own list).
	recent  [8]listEnd
	nrecent int
	last    int // index in recent of the latest list found or added
	evict   int // the next entry of recent to evict, round robin
	listEnd map[listKey]uint64
	// The attributes of the frame's last Launch records (at most
	// maxRepeat), the latest at attrs[(head-1)%len(attrs)]: what
	// Launch.repeat_of refers to. Twice maxRepeat entries, so that
	// attrs[head], where the next launch's attributes are written
	// before they are compared (next), is none of the maxRepeat latest.
	attrs  [2 * maxRepeat]launchAttrs
	head   int
	nattrs int
}

// maxRepeat is the largest Launch.repeat_of (zestall.proto, "Two forms").
const maxRepeat = 8

// attrMask indexes launchState.attrs.
const attrMask = 2*maxRepeat - 1

// attrWords is the size of launchAttrs in 64-bit words.
const attrWords = 9

// launchAttrs are the fields of a Launch that Launch.repeat_of repeats,
// as nine 64-bit words: the three 64-bit identifiers, then the twelve
// 32-bit fields two to a word (set, setOn). Words, not a struct of the
// fields: the writer writes each launch's attributes and compares them
// with earlier ones (repeatOf) at once, and a word loaded right after it
// was stored in halves (a struct's 32-bit fields) waits for the stores
// to retire instead of reading them from the store buffer (a failed
// store-to-load forward): perf annotate put 54 % of appendLaunch's time
// on the copy of a struct so built (docs/go-runtime.md §1.4
// "A wide load of narrower stores").
type launchAttrs [attrWords]uint64

// set sets a to l's attributes, one store per word.
func (a *launchAttrs) set(l *Launch) {
	a[0], a[1], a[2] = l.KernelId, l.QueueId, l.CommandListId
	a[3] = uint64(l.DeviceId) | uint64(l.Flags)<<32
	a[4] = uint64(l.CodeCopy) | uint64(l.SyclLocationId)<<32
	a[5] = uint64(uint32(l.Kind)) | uint64(uint32(l.NoTimestampReason))<<32
	a[6] = uint64(l.GroupCountX) | uint64(l.GroupCountY)<<32
	a[7] = uint64(l.GroupCountZ) | uint64(l.GroupSizeX)<<32
	a[8] = uint64(l.GroupSizeY) | uint64(l.GroupSizeZ)<<32
}

// same is *a == *b, compared word by word without a branch (== on the
// 72-byte array calls the runtime's memequal: docs/go-runtime.md §1.1
// "== on a large struct calls the runtime"; parenthesised: §1.2 "^ and |
// have the same precedence").
func (a *launchAttrs) same(b *launchAttrs) bool {
	d := (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) | (a[4] ^ b[4]) |
		(a[5] ^ b[5]) | (a[6] ^ b[6]) | (a[7] ^ b[7]) | (a[8] ^ b[8])
	return d == 0
}

func attrsOf(l *Launch) launchAttrs {
	var a launchAttrs
	a.set(l)
	return a
}

// attrsOfProto is attrsOf for a pb.Launch (the reader, and the Writer's
// path for records it is given as messages), through launchOf: one list
// of the attribute fields.
func attrsOfProto(l *pb.Launch) launchAttrs {
	v := launchOf(l)
	return attrsOf(&v)
}

// setOn sets a's fields of l (the inverse of set).
func (a *launchAttrs) setOn(l *pb.Launch) {
	l.KernelId, l.QueueId, l.CommandListId = a[0], a[1], a[2]
	l.DeviceId, l.Flags = uint32(a[3]), uint32(a[3]>>32)
	l.CodeCopy, l.SyclLocationId = uint32(a[4]), uint32(a[4]>>32)
	l.Kind, l.NoTimestampReason = pb.LaunchKind(int32(uint32(a[5]))), pb.NoTimestampReason(int32(uint32(a[5]>>32)))
	l.GroupCountX, l.GroupCountY = uint32(a[6]), uint32(a[6]>>32)
	l.GroupCountZ, l.GroupSizeX = uint32(a[7]), uint32(a[7]>>32)
	l.GroupSizeY, l.GroupSizeZ = uint32(a[8]), uint32(a[8]>>32)
}

// next is where the next launch's attributes are written (set), to be
// compared with the latest ones (repeatOf) and kept (push).
func (s *launchState) next() *launchAttrs { return &s.attrs[s.head] }

// repeatOf is the Launch.repeat_of for a launch with attributes a: how far
// back in the frame the latest Launch with the same attributes is, 0 when
// none of the last maxRepeat has them.
func (s *launchState) repeatOf(a *launchAttrs) uint32 {
	for n := 1; n <= s.nattrs; n++ {
		if s.attrs[(s.head-n)&attrMask].same(a) {
			return uint32(n)
		}
	}
	return 0
}

// push keeps the attributes written at next() as the latest.
func (s *launchState) push() {
	s.head = (s.head + 1) & attrMask
	s.nattrs = min(s.nattrs+1, maxRepeat)
}

// repeated returns the attributes Launch.repeat_of n refers to; false
// when the frame has no such Launch (or n is above maxRepeat).
func (s *launchState) repeated(n uint32) (launchAttrs, bool) {
	if n == 0 || n > uint32(s.nattrs) {
		return launchAttrs{}, false
	}
	return s.attrs[(s.head-int(n))&attrMask], true
}

type listKey struct{ queue, list uint64 }

type listEnd struct {
	key listKey
	end uint64
}

func (s *launchState) reset() {
	s.prevID, s.prevAppend = 0, 0
	s.nrecent, s.evict, s.last = 0, 0, 0
	clear(s.listEnd)
	s.head, s.nattrs = 0, 0
}

// find is the index in recent of list (queue, list), or -1.
func (s *launchState) find(queue, list uint64) int {
	if i := s.last; i < s.nrecent && s.recent[i].key.list == list && s.recent[i].key.queue == queue {
		return i
	}
	for i := range s.recent[:s.nrecent] {
		if s.recent[i].key.list == list && s.recent[i].key.queue == queue {
			s.last = i
			return i
		}
	}
	return -1
}

// startRef returns what device_start_delay_ns is relative to: the later of
// the launch's append time and the device end of the previous timed launch
// of its command list in the frame.
func (s *launchState) startRef(queue, list, appendNs uint64) uint64 {
	return s.startRefAt(s.find(queue, list), queue, list, appendNs)
}

// startRefAt is startRef for the list at index i of recent (find), -1
// when it is not there: the Writer finds a launch's list once for both
// its start reference and its end (setEndAt).
func (s *launchState) startRefAt(i int, queue, list, appendNs uint64) uint64 {
	if i >= 0 {
		return max(appendNs, s.recent[i].end)
	}
	return max(appendNs, s.listEnd[listKey{queue, list}])
}

// update records a launch, in absolute form, with attributes a, as the
// previous Launch.
func (s *launchState) update(id, appendNs, queue, list, endNs uint64, timed bool, a *launchAttrs) {
	*s.next() = *a
	s.push()
	s.prevID, s.prevAppend = id, appendNs
	if timed {
		s.setEndAt(s.find(queue, list), queue, list, endNs)
	}
}

// setEndAt records endNs as the device end of the latest timed launch of
// the list at index i of recent (find), or of list (queue, list), added,
// when i is -1.
func (s *launchState) setEndAt(i int, queue, list, endNs uint64) {
	if i >= 0 {
		s.recent[i].end = endNs
		return
	}
	s.addList(listKey{queue, list}, endNs)
}

// addList adds a list not in recent, evicting one to listEnd when recent
// is full. Not inlined: the rare path (a list new to the frame), kept out
// of setEndAt so that setEndAt inlines into the Writer's per-launch path.
//
//go:noinline
func (s *launchState) addList(k listKey, endNs uint64) {
	if s.nrecent < len(s.recent) {
		s.recent[s.nrecent] = listEnd{k, endNs}
		s.last = s.nrecent
		s.nrecent++
		return
	}
	if s.listEnd == nil {
		s.listEnd = make(map[listKey]uint64)
	}
	e := &s.recent[s.evict]
	s.listEnd[e.key] = e.end
	*e = listEnd{k, endNs}
	s.last = s.evict
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
