package stream

import (
	"testing"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestLaunchAttrsSame holds launchAttrs.same to ==: every field on its own
// makes two values differ, in its low and its high bits (a word compared
// in part would miss one of them), and equal values are the same.
func TestLaunchAttrsSame(t *testing.T) {
	base := launchAttrs{
		kernel: 7, queue: 3, list: 11, device: 1, flags: 5, codeCopy: 2, syclLocation: 9,
		kind: 1, reason: 0, countX: 64, countY: 1, countZ: 1, sizeX: 256, sizeY: 1, sizeZ: 1,
	}
	tests := []struct {
		name   string
		change func(a *launchAttrs, v uint64)
	}{
		{"kernel", func(a *launchAttrs, v uint64) { a.kernel ^= v }},
		{"queue", func(a *launchAttrs, v uint64) { a.queue ^= v }},
		{"list", func(a *launchAttrs, v uint64) { a.list ^= v }},
		{"device", func(a *launchAttrs, v uint64) { a.device ^= uint32(v) }},
		{"flags", func(a *launchAttrs, v uint64) { a.flags ^= uint32(v) }},
		{"codeCopy", func(a *launchAttrs, v uint64) { a.codeCopy ^= uint32(v) }},
		{"syclLocation", func(a *launchAttrs, v uint64) { a.syclLocation ^= uint32(v) }},
		{"kind", func(a *launchAttrs, v uint64) { a.kind ^= pb.LaunchKind(uint32(v)) }},
		{"reason", func(a *launchAttrs, v uint64) { a.reason ^= pb.NoTimestampReason(uint32(v)) }},
		{"countX", func(a *launchAttrs, v uint64) { a.countX ^= uint32(v) }},
		{"countY", func(a *launchAttrs, v uint64) { a.countY ^= uint32(v) }},
		{"countZ", func(a *launchAttrs, v uint64) { a.countZ ^= uint32(v) }},
		{"sizeX", func(a *launchAttrs, v uint64) { a.sizeX ^= uint32(v) }},
		{"sizeY", func(a *launchAttrs, v uint64) { a.sizeY ^= uint32(v) }},
		{"sizeZ", func(a *launchAttrs, v uint64) { a.sizeZ ^= uint32(v) }},
	}
	same := base
	if !base.same(&same) || !same.same(&base) {
		t.Fatalf("equal values not the same")
	}
	var zero launchAttrs
	if !zero.same(&launchAttrs{}) || zero.same(&base) {
		t.Fatalf("zero value: same %v with zero, %v with base", zero.same(&launchAttrs{}), zero.same(&base))
	}
	for _, tc := range tests {
		for _, bit := range []uint64{1, 1 << 31, 1 << 63} {
			a := base
			tc.change(&a, bit)
			if a == base {
				continue // the bit is beyond the field's width
			}
			if a.same(&base) || base.same(&a) {
				t.Errorf("%s ^ %#x: same, want different", tc.name, bit)
			}
		}
	}
}
