package stream

import (
	"fmt"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// LaunchFrame is the reading side of the compact form of Launch records
// (zestall.proto, "Two forms"): what a frame's Launch records are relative
// to. A reader keeps one, calls Reset at the start of every frame and
// Resolve on every Launch record of the frame, in order. Package pbstream's
// Reader does; it lives here, with the Writer's side of the same state, so
// that the form is implemented once.
type LaunchFrame struct {
	s launchState
}

// Reset starts a frame.
func (f *LaunchFrame) Reset() { f.s.reset() }

// Resolve turns l, the next Launch record of the frame as decoded, into
// absolute form (a record already in absolute form keeps its values; the
// compact form's fields are cleared in both) and
// records it for the records after it. It fails when l repeats the
// attributes of a Launch the frame does not have.
func (f *LaunchFrame) Resolve(l *pb.Launch) error {
	s := &f.s
	if l.RepeatOf != 0 {
		a, ok := s.repeated(l.RepeatOf)
		if !ok {
			return fmt.Errorf("Launch repeats the attributes of the Launch %d back in its frame, which has %d before it (at most %d count)",
				l.RepeatOf, s.nattrs, maxRepeat)
		}
		a.setOn(l)
		l.RepeatOf = 0
	}
	timed := l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0
	if l.HostAppendDeltaNs != nil {
		l.Id = s.prevID + 1 + uint64(l.IdDelta)
		l.HostAppendNs = s.prevAppend + uint64(*l.HostAppendDeltaNs)
		if timed {
			l.DeviceStartNs = s.startRef(l.QueueId, l.CommandListId, l.HostAppendNs) + uint64(l.DeviceStartDelayNs)
			l.DeviceEndNs = l.DeviceStartNs + l.DeviceDurationNs
		} else {
			l.DeviceStartNs, l.DeviceEndNs = 0, 0
		}
	}
	// The compact form's own fields mean nothing in the absolute form (a
	// damaged or hand-made record may carry them): returned as 0 either
	// way, so that a record read and written again reads the same
	// (FuzzReader).
	l.HostAppendDeltaNs, l.IdDelta, l.DeviceStartDelayNs, l.DeviceDurationNs = nil, 0, 0, 0
	a := attrsOfProto(l)
	s.update(l.Id, l.HostAppendNs, l.QueueId, l.CommandListId, l.DeviceEndNs, timed, &a)
	return nil
}

// MaxRepeat is the largest Launch.repeat_of a reader accepts and the
// Writer writes (zestall.proto, "Two forms").
const MaxRepeat = maxRepeat

// LaunchOf is the absolute-form fields of l as a Launch, for
// [Writer.WriteLaunch].
func LaunchOf(l *pb.Launch) Launch { return launchOf(l) }
