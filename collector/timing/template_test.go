package timing

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// templateOf is launch slot s as a template (the tests' shorthand for
// template.set).
func templateOf(s *Slot) template {
	var t template
	t.set(s)
	return t
}

// fillCase is a slot and the arguments its record is made with, for the
// tests that compare fillRecord, fillRecordOf and the literal they replaced.
type fillCase struct {
	name       string
	s          Slot
	id, queue  uint64
	exec       uint32
	execSerial bool
	c          *Clock
}

// A regular list's launches are held as templates, not slots: the record
// made from a template is the one fillRecord makes from the slot it came
// from, for every field that reaches a record, and converting back gives
// that slot again (less what a launch on a regular list leaves empty).
func TestFillRecordOf(t *testing.T) {
	serialLaunch := launch(50, 0x60, SlotFlagSerial, 5)
	noEvent := launch(70, 0, SlotFlagNoEvent, 6)
	noEvent.Reason = 3
	appEvent := launch(80, 0x90, SlotFlagAppEvent, 7)
	appEvent.EvIndex = 0
	clock := &Clock{id: 42}
	cases := []fillCase{
		{"rich, zestall's event", rich(10, 0x20, SlotFlagOurs, 3), 1, 2, 0, false, clock},
		{"rich, serialized execution", rich(11, 0x21, SlotFlagOurs, 3), 9, 1, 4, true, clock},
		{"plain launch", launch(30, 0x40, SlotFlagOurs, 4), 5, 0, 1, false, nil},
		{"serialized launch", serialLaunch, 6, 3, 2, false, clock},
		{"no event", noEvent, 7, 3, 0, false, clock},
		{"application's event", appEvent, 8, 3, 7, true, clock},
		{"every flag", rich(12, 0x22, 0xff, 1<<31), 1 << 40, 1 << 33, 1<<32 - 1, true, clock},
	}
	for _, tc := range cases {
		var want, got stream.Launch
		fillRecord(&want, &tc.s, tc.id, tc.queue, tc.exec, tc.execSerial, tc.c)
		tpl := templateOf(&tc.s)
		fillRecordOf(&got, &tpl, tc.s.ListID, tc.id, tc.queue, tc.exec, tc.execSerial, tc.c)
		if got != want {
			t.Errorf("%s: record of the template\n%+v\nwant (of the slot)\n%+v", tc.name, got, want)
		}
		// Back to a slot: what a launch on a regular list carries.
		back := tpl.slot(&listState{id: tc.s.ListID, device: tc.s.Device, context: tc.s.Context})
		orig := tc.s
		orig.List, orig.Queue, orig.Snapshot, orig.SnapshotPrev, orig.Seq = 0, 0, 0, 0, 0
		if back != orig {
			t.Errorf("%s: slot of the template\n%+v\nwant\n%+v", tc.name, back, orig)
		}
	}
}

// The sizes that bound a regular list's memory per appended launch (the
// templates, and the reads of an execution waiting for its events): a
// field added to either costs every launch a list holds.
func TestListStorageSizes(t *testing.T) {
	for _, c := range []struct {
		what       string
		size, most uintptr
	}{
		{"template", unsafe.Sizeof(template{}), 64},
		{"listRead", unsafe.Sizeof(listRead{}), 48},
	} {
		if c.size > c.most {
			t.Errorf("%s: %d bytes, want at most %d", c.what, c.size, c.most)
		}
	}
	if s := unsafe.Sizeof(Slot{}); s <= unsafe.Sizeof(template{}) {
		t.Errorf("a template (%d bytes) is no smaller than a Slot (%d)", unsafe.Sizeof(template{}), s)
	}
}

// fillRecord and fillRecordOf write a reused record field by field: every
// field of stream.Launch must be written, whatever the record held
// before. Each case fills a record full of ones and one of zeros and
// compares both with the composite literal the two functions replaced
// (recordLiteral); a field added to stream.Launch fails the count below
// until both functions (and recordLiteral) write it.
func TestFillRecordEveryField(t *testing.T) {
	if n := reflect.TypeOf(stream.Launch{}).NumField(); n != 21 {
		t.Fatalf("stream.Launch has %d fields, fillRecord and fillRecordOf write 21: update them", n)
	}
	clock := &Clock{id: 42}
	cases := []fillCase{
		{"rich", rich(10, 0x20, SlotFlagOurs, 3), 1, 2, 0, false, clock},
		{"no clock", launch(30, 0x40, SlotFlagOurs, 4), 5, 0, 1, false, nil},
		{"every flag", rich(12, 0x22, 0xff, 1<<31), 1 << 40, 1 << 33, 1<<32 - 1, true, clock},
		{"zero slot", Slot{}, 0, 0, 0, false, nil},
	}
	for _, tc := range cases {
		want := recordLiteral(&tc.s, tc.id, tc.queue, tc.exec, tc.execSerial, tc.c)
		tpl := templateOf(&tc.s)
		for _, fill := range []byte{0x00, 0xff} {
			var got, gotOf stream.Launch
			b := unsafe.Slice((*byte)(unsafe.Pointer(&got)), unsafe.Sizeof(got))
			bOf := unsafe.Slice((*byte)(unsafe.Pointer(&gotOf)), unsafe.Sizeof(gotOf))
			for i := range b {
				b[i], bOf[i] = fill, fill
			}
			fillRecord(&got, &tc.s, tc.id, tc.queue, tc.exec, tc.execSerial, tc.c)
			fillRecordOf(&gotOf, &tpl, tc.s.ListID, tc.id, tc.queue, tc.exec, tc.execSerial, tc.c)
			if got != want {
				t.Errorf("%s, record of %#x bytes: fillRecord made\n%+v\nwant\n%+v", tc.name, fill, got, want)
			}
			if gotOf != want {
				t.Errorf("%s, record of %#x bytes: fillRecordOf made\n%+v\nwant\n%+v", tc.name, fill, gotOf, want)
			}
		}
	}
}

// recordLiteral is the record fillRecord makes, as the composite literal
// it was (every field not named is zero).
func recordLiteral(s *Slot, id, queueID uint64, exec uint32, execSerial bool, c *Clock) stream.Launch {
	rec := stream.Launch{
		Id: id, KernelId: uint64(s.KernelID), CommandListId: uint64(s.ListID),
		QueueId: queueID, Kind: pb.LaunchKind(s.LaunchKind),
		GroupCountX: s.GroupCount[0], GroupCountY: s.GroupCount[1], GroupCountZ: s.GroupCount[2],
		GroupSizeX: uint32(s.GroupSize[0]), GroupSizeY: uint32(s.GroupSize[1]), GroupSizeZ: uint32(s.GroupSize[2]),
		HostAppendNs: s.HostNs, ExecutionIndex: exec,
		SyclTaskId: s.SyclTask, SyclLocationId: s.SyclLocation, CodeCopy: uint32(s.CodeCopy),
		Flags: recordFlags(s.Flags, execSerial),
	}
	if c != nil {
		rec.DeviceId = c.id
	}
	return rec
}

// template.set writes every field of a reused template: on templates
// filled with ones and with zeros it makes the composite literal
// templateOf was; a field added to template fails the count until set
// (and the literal below) write it.
func TestTemplateEveryField(t *testing.T) {
	if n := reflect.TypeOf(template{}).NumField(); n != 12 {
		t.Fatalf("template has %d fields, template.set writes 12: update it", n)
	}
	for _, tc := range []struct {
		name string
		s    Slot
	}{
		{"rich", rich(10, 0x20, SlotFlagOurs, 3)},
		{"every flag", rich(12, 0x22, 0xff, 1<<31)},
		{"plain", launch(30, 0x40, SlotFlagOurs, 4)},
		{"zero slot", Slot{}},
	} {
		s := &tc.s
		want := template{HostNs: s.HostNs, Event: s.Event, SyclTask: s.SyclTask,
			KernelID: s.KernelID, EvIndex: s.EvIndex, SyclLocation: s.SyclLocation, GroupCount: s.GroupCount,
			GroupSize: s.GroupSize, CodeCopy: s.CodeCopy, LaunchKind: s.LaunchKind, Flags: s.Flags, Reason: s.Reason}
		for _, fill := range []byte{0x00, 0xff} {
			var got template
			b := unsafe.Slice((*byte)(unsafe.Pointer(&got)), unsafe.Sizeof(got))
			for i := range b {
				b[i] = fill
			}
			got.set(s)
			if got != want {
				t.Errorf("%s, template of %#x bytes: set made\n%+v\nwant\n%+v", tc.name, fill, got, want)
			}
		}
	}
}
