package stream

import (
	"math"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestLaunchAttrs holds launchAttrs to the attribute fields of a Launch
// (those Launch.repeat_of repeats, zestall.proto "Two forms"): every
// attribute field on its own, changed in its low or its high bit, makes
// two launches' attributes differ (same), the other fields do not, and
// setOn gives back every attribute field as set took it, for values
// that fill the field.
func TestLaunchAttrs(t *testing.T) {
	base := Launch{
		Id: 100, KernelId: 7, QueueId: 3, CommandListId: 11, HostAppendNs: 1e12, DeviceStartNs: 2e12, DeviceEndNs: 3e12,
		SyclTaskId: 4, DeviceId: 1, Kind: 1, Flags: 5, NoTimestampReason: 0, GroupCountX: 64, GroupCountY: 1, GroupCountZ: 1,
		GroupSizeX: 256, GroupSizeY: 1, GroupSizeZ: 1, ExecutionIndex: 6, SyclLocationId: 9, CodeCopy: 2,
	}
	tests := []struct {
		name   string
		attr   bool // an attribute: repeat_of repeats it
		change func(l *Launch, v uint64)
	}{
		{"Id", false, func(l *Launch, v uint64) { l.Id ^= v }},
		{"KernelId", true, func(l *Launch, v uint64) { l.KernelId ^= v }},
		{"QueueId", true, func(l *Launch, v uint64) { l.QueueId ^= v }},
		{"CommandListId", true, func(l *Launch, v uint64) { l.CommandListId ^= v }},
		{"HostAppendNs", false, func(l *Launch, v uint64) { l.HostAppendNs ^= v }},
		{"DeviceStartNs", false, func(l *Launch, v uint64) { l.DeviceStartNs ^= v }},
		{"DeviceEndNs", false, func(l *Launch, v uint64) { l.DeviceEndNs ^= v }},
		{"SyclTaskId", false, func(l *Launch, v uint64) { l.SyclTaskId ^= v }},
		{"DeviceId", true, func(l *Launch, v uint64) { l.DeviceId ^= uint32(v) }},
		{"Kind", true, func(l *Launch, v uint64) { l.Kind ^= pb.LaunchKind(uint32(v)) }},
		{"Flags", true, func(l *Launch, v uint64) { l.Flags ^= uint32(v) }},
		{"NoTimestampReason", true, func(l *Launch, v uint64) { l.NoTimestampReason ^= pb.NoTimestampReason(uint32(v)) }},
		{"GroupCountX", true, func(l *Launch, v uint64) { l.GroupCountX ^= uint32(v) }},
		{"GroupCountY", true, func(l *Launch, v uint64) { l.GroupCountY ^= uint32(v) }},
		{"GroupCountZ", true, func(l *Launch, v uint64) { l.GroupCountZ ^= uint32(v) }},
		{"GroupSizeX", true, func(l *Launch, v uint64) { l.GroupSizeX ^= uint32(v) }},
		{"GroupSizeY", true, func(l *Launch, v uint64) { l.GroupSizeY ^= uint32(v) }},
		{"GroupSizeZ", true, func(l *Launch, v uint64) { l.GroupSizeZ ^= uint32(v) }},
		{"ExecutionIndex", false, func(l *Launch, v uint64) { l.ExecutionIndex ^= uint32(v) }},
		{"SyclLocationId", true, func(l *Launch, v uint64) { l.SyclLocationId ^= uint32(v) }},
		{"CodeCopy", true, func(l *Launch, v uint64) { l.CodeCopy ^= uint32(v) }},
	}
	a := attrsOf(&base)
	if b := attrsOf(&base); !a.same(&b) || !b.same(&a) {
		t.Fatalf("equal launches' attributes not the same")
	}
	var zero launchAttrs
	if z := attrsOf(&Launch{}); !zero.same(&z) || zero.same(&a) {
		t.Fatalf("zero value: same %v with a zero launch's, %v with base's", zero.same(&z), zero.same(&a))
	}
	for _, tc := range tests {
		for _, bit := range []uint64{1, 1 << 31, 1 << 63} {
			l := base
			tc.change(&l, bit)
			if l == base {
				continue // the bit is beyond the field's width
			}
			b := attrsOf(&l)
			if got := !a.same(&b) || !b.same(&a); got != tc.attr {
				t.Errorf("%s ^ %#x: differ = %v, want %v", tc.name, bit, got, tc.attr)
			}
		}
	}
	// set then setOn: every attribute field back, at its widest values
	// (the enums negative too), the other fields untouched.
	for _, fill := range []uint64{0, 1, math.MaxUint64, 0x8000_0001_8000_0001} {
		var l Launch
		for _, tc := range tests {
			tc.change(&l, fill)
		}
		want := l.Proto()
		a := attrsOf(&l)
		got := &pb.Launch{Id: want.Id, HostAppendNs: want.HostAppendNs, DeviceStartNs: want.DeviceStartNs,
			DeviceEndNs: want.DeviceEndNs, SyclTaskId: want.SyclTaskId, ExecutionIndex: want.ExecutionIndex}
		a.setOn(got)
		if launchOf(got) != launchOf(want) {
			t.Errorf("fill %#x: setOn gave %+v, want %+v", fill, launchOf(got), launchOf(want))
		}
	}
}
