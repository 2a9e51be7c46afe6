package collector

import (
	"errors"
	"time"

	"github.com/zestall/zestall/collector/sampling"
	"github.com/zestall/zestall/collector/window"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// Controls attaches the launch path's collection control (before
// Status(StateActive)).
func (s *Session) Controls(src window.Source) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctlSrc = src
}

// startControl starts the collection control (package window; under
// s.mu, at start, after the header and before the launch path is
// enabled): its first Window record follows the header.
func (s *Session) startControl() {
	if s.ctlSrc == nil {
		return
	}
	o := window.Options{
		Source: s.ctlSrc, Config: s.cfg, ToggleSignalVar: s.getenv("ZESTALL_TOGGLE_SIGNAL"),
		Now: s.now, Emit: s.emit, Flush: s.requestFlush, Settle: s.pollNow, Stderr: s.stderr,
		SignalsChecked: s.harvest != nil, // pollLoop calls CheckSignals
	}
	if s.stall != nil {
		o.Stalls = s.stall
	}
	c, first := window.Start(o)
	s.emitLocked(first)
	s.ctl = c
}

// ControlRequest serves zestall_start(), zestall_stop(),
// zestall_flush() and ITT's pause and resume on the application's thread
// (window.Control.Request). It fails with ErrNotCollecting when the
// session writes nothing (not active, or exiting) and
// window.ErrUnknownOp for an op it does not know.
func (s *Session) ControlRequest(op window.Op) error {
	s.mu.Lock()
	c, out := s.ctl, s.out
	s.mu.Unlock()
	if c == nil || out == nil {
		return ErrNotCollecting
	}
	return c.Request(op)
}

// ErrNotCollecting is the error of ControlRequest when the session writes
// nothing.
var ErrNotCollecting = errors.New("zestall is not collecting")

// LaunchEdge is called by the launch path, on the application thread
// and before the append, at the launches that open (on) and close the
// launch-count window (window.Control.LaunchEdge).
func (s *Session) LaunchEdge(on bool, n, ns uint64) {
	s.mu.Lock()
	c := s.ctl
	s.mu.Unlock()
	if c != nil {
		c.LaunchEdge(on, n, ns)
	}
}

// emit queues a record without blocking (application threads).
func (s *Session) emit(r *pb.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitLocked(r)
}

// pollNow makes the harvester drain and harvest now, and says whether
// every launch recorded before t has its device times (then a stop edge
// needs no drain of the streamers).
func (s *Session) pollNow(t uint64, wait bool) bool {
	s.mu.Lock()
	h, req := s.harvest, s.pollReq
	s.mu.Unlock()
	if h == nil || req == nil {
		return false
	}
	ack := make(chan struct{})
	select {
	case req <- ack:
	default:
		return false
	}
	d := sampling.EdgeWait
	if !wait {
		d = time.Second
	}
	if !waitDone(ack, d) {
		return false
	}
	return h.SettledBefore(t)
}

// stopControl ends the collection control at exit; it writes the exit
// edge when collecting.
func (s *Session) stopControl() {
	s.mu.Lock()
	c := s.ctl
	s.mu.Unlock()
	if c != nil {
		c.Stop()
	}
}

// requestFlush makes the writer flush what is queued, without waiting.
func (s *Session) requestFlush() {
	s.emit(flushMarker)
}

// flushMarker, queued like a record, makes the writer flush.
var flushMarker = &pb.Record{}
