package stream

import pb "github.com/zestall/zestall/proto/zestallpb"

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
