package stream

import (
	"testing"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestSameAs: sameAs is attrsOf(l) == a, field by field: a launch that
// differs from the attributes in any one field (in any bit) is not the
// same, one that differs only outside them is.
func TestSameAs(t *testing.T) {
	base := Launch{Id: 9, KernelId: 3, QueueId: 4, CommandListId: 5, HostAppendNs: 100, DeviceStartNs: 200, DeviceEndNs: 300,
		SyclTaskId: 6, DeviceId: 1, Kind: pb.LaunchKind(2), Flags: 33, NoTimestampReason: pb.NoTimestampReason(1),
		GroupCountX: 7, GroupCountY: 8, GroupCountZ: 9, GroupSizeX: 10, GroupSizeY: 11, GroupSizeZ: 12,
		ExecutionIndex: 13, SyclLocationId: 14, CodeCopy: 15}
	a := attrsOf(&base)
	cases := []struct {
		name string
		set  func(l *Launch)
		same bool
	}{
		{"identical", func(l *Launch) {}, true},
		{"id, times, execution, task", func(l *Launch) {
			l.Id, l.HostAppendNs, l.DeviceStartNs, l.DeviceEndNs, l.ExecutionIndex, l.SyclTaskId = 1, 2, 3, 4, 5, 6
		}, true},
		{"kernel", func(l *Launch) { l.KernelId ^= 1 << 63 }, false},
		{"queue", func(l *Launch) { l.QueueId ^= 1 << 40 }, false},
		{"list", func(l *Launch) { l.CommandListId ^= 1 }, false},
		{"device", func(l *Launch) { l.DeviceId ^= 1 << 31 }, false},
		{"kind", func(l *Launch) { l.Kind ^= 1 }, false},
		{"flags", func(l *Launch) { l.Flags ^= 4 }, false},
		{"reason", func(l *Launch) { l.NoTimestampReason ^= 2 }, false},
		{"count x", func(l *Launch) { l.GroupCountX ^= 1 }, false},
		{"count y", func(l *Launch) { l.GroupCountY ^= 1 }, false},
		{"count z", func(l *Launch) { l.GroupCountZ ^= 1 << 20 }, false},
		{"size x", func(l *Launch) { l.GroupSizeX ^= 1 }, false},
		{"size y", func(l *Launch) { l.GroupSizeY ^= 1 }, false},
		{"size z", func(l *Launch) { l.GroupSizeZ ^= 1 }, false},
		{"code copy", func(l *Launch) { l.CodeCopy ^= 1 }, false},
		{"SYCL location", func(l *Launch) { l.SyclLocationId ^= 1 }, false},
		{"two fields that cancel in an or of xors", func(l *Launch) { l.GroupCountX, l.GroupCountY = l.GroupCountY, l.GroupCountX }, false},
	}
	for _, c := range cases {
		l := base
		c.set(&l)
		if got, want := a.sameAs(&l), attrsOf(&l) == a; got != c.same || got != want {
			t.Errorf("%s: sameAs %v, want %v (attrsOf ==: %v)", c.name, got, c.same, want)
		}
	}
}
