package collector

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zestall/zestall/abi"
	"github.com/zestall/zestall/collector/config"
	"github.com/zestall/zestall/collector/sampling"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// ControlSource is the launch path's side of runtime start/stop,
// implemented over C by package cgo.
type ControlSource interface {
	// SetCollecting switches event substitution and launch records on or
	// off for launches that follow.
	SetCollecting(on bool)
	// SetLaunchWindow makes the launch path collect only launches numbered
	// from <= n < to (in append order over all threads); it then calls
	// Session.LaunchEdge at launches from and to.
	SetLaunchWindow(from, to uint64)
	// LaunchesWhileStopped counts launches that were not collected (only
	// while a launch window is set).
	LaunchesWhileStopped() uint64
	// InstallToggleSignal installs the toggle signal's handler; installed
	// is false (and err nil) when the application already handles the
	// signal.
	InstallToggleSignal(sig int) (installed bool, err error)
	// SignalCount is the number of toggle signals received and the host ns
	// of the last.
	SignalCount() (n, lastNs uint64)
	// EarlyRequest is a zestall_start()/zestall_stop() made before
	// activation: OpStart, OpStop, or 0 for none.
	EarlyRequest() int
}

// Control operations of the C API (cgo/abi.h ZC_OP_*).
const (
	OpStart     = abi.OpStart
	OpStop      = abi.OpStop
	OpFlush     = abi.OpFlush
	OpITTResume = abi.OpITTResume // __itt_resume()
	OpITTPause  = abi.OpITTPause  // __itt_pause()
)

// control is the start/stop state of a session. Collection is on while
// every condition allows it: the user's toggles (ZESTALL_START, the C API,
// the signal), the time window (ZESTALL_DELAY/DURATION) and the
// launch-count window (ZESTALL_LAUNCHES).
type control struct {
	src ControlSource
	// mu orders edges: an edge's streamer read completes (bounded) before
	// the next edge is applied.
	mu                 sync.Mutex
	user, timer, count bool
	on                 bool
	sigSeen            uint64
	stop               chan struct{}
	wg                 sync.WaitGroup
}

// edgeWait bounds how long a control call waits for the streamer read
// that marks its edge.
const edgeWait = sampling.EdgeWait

// Controls attaches the control source (before Status(StateActive)).
func (s *Session) Controls(src ControlSource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctlSrc = src
}

// startControl sets the initial collection state and starts the timers
// and the signal poller (under s.mu, at start, after the header).
func (s *Session) startControl() {
	src := s.ctlSrc
	if src == nil {
		return
	}
	c := &control{src: src, user: !s.cfg.StartPaused, timer: s.cfg.Delay == 0,
		count: !s.cfg.LaunchWindow || s.cfg.LaunchFrom == 0, stop: make(chan struct{})}
	cause, detail := pb.WindowCause_WINDOW_CAUSE_INIT, ""
	switch src.EarlyRequest() {
	case OpStart:
		c.user = true
	case OpStop:
		c.user = false
		cause, detail = pb.WindowCause_WINDOW_CAUSE_API, "zestall_stop() before zeInit"
	}
	if s.cfg.StartPaused && !c.user {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_START_PAUSED, "ZESTALL_START=paused"
	}
	if !c.timer {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_TIMER, "ZESTALL_DELAY="+s.cfg.Delay.String()
	}
	if !c.count {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_LAUNCH_COUNT, fmt.Sprintf("ZESTALL_LAUNCHES from launch %d", s.cfg.LaunchFrom)
	}
	c.on = c.user && c.timer && c.count
	src.SetCollecting(c.user && c.timer)
	if s.cfg.LaunchWindow {
		src.SetLaunchWindow(s.cfg.LaunchFrom, s.cfg.LaunchTo)
	}
	if st := s.stall; st != nil {
		st.SetCollecting(c.on)
		if !c.on {
			st.CollectionStopped(s.now())
		}
	}
	edge := pb.WindowEdge_WINDOW_EDGE_STOP
	if c.on {
		edge = pb.WindowEdge_WINDOW_EDGE_START
	}
	s.emitLocked(windowRecord(edge, s.now(), cause, detail))
	s.ctl = c

	if s.cfg.Delay > 0 {
		s.afterFunc(c, s.cfg.Delay, func() {
			s.setCondition(func(c *control) { c.timer = true }, pb.WindowCause_WINDOW_CAUSE_TIMER,
				"ZESTALL_DELAY="+s.cfg.Delay.String(), false)
		})
	}
	if s.cfg.Duration > 0 {
		s.afterFunc(c, s.cfg.Delay+s.cfg.Duration, func() {
			s.setCondition(func(c *control) { c.timer = false }, pb.WindowCause_WINDOW_CAUSE_TIMER,
				"ZESTALL_DURATION="+s.cfg.Duration.String(), false)
		})
	}
	if sig := s.cfg.ToggleSignal; sig != 0 {
		switch installed, err := src.InstallToggleSignal(sig); {
		case err != nil:
			fmt.Fprintf(s.stderr, "zestall: cannot install the toggle signal %s (%v); ZESTALL_TOGGLE_SIGNAL (default: SIGUSR2) is not in effect.\n", config.SignalName(sig), err)
		case installed:
			c.wg.Add(1)
			go s.signalLoop(c, sig)
		default:
			if !s.cfg.ToggleSignalAuto {
				fmt.Fprintf(s.stderr, "zestall: the application handles %s, so ZESTALL_TOGGLE_SIGNAL=%s is not installed; use zestall_start()/zestall_stop() or another signal (default: SIGUSR2 when the application does not handle it).\n",
					config.SignalName(sig), s.getenv("ZESTALL_TOGGLE_SIGNAL"))
			}
		}
	}
}

func windowRecord(edge pb.WindowEdge, ns uint64, cause pb.WindowCause, detail string) *pb.Record {
	return &pb.Record{Kind: &pb.Record_Window{Window: &pb.Window{Edge: edge, HostNs: ns, Cause: cause, Detail: detail}}}
}

// afterFunc runs f after d unless the session stops first.
func (s *Session) afterFunc(c *control, d time.Duration, f func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer s.guard("the collection timer")
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			f()
		case <-c.stop:
		}
	}()
}

// signalLoop applies toggle signals. The handler only counts them; an odd
// number of new signals toggles collection, up to 10 ms after the signal
// (the edge's time is when it took effect).
func (s *Session) signalLoop(c *control, sig int) {
	defer c.wg.Done()
	defer s.guard("the toggle-signal poller")
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		n, _ := c.src.SignalCount()
		if n == c.sigSeen {
			continue
		}
		odd := (n-c.sigSeen)%2 == 1
		c.sigSeen = n
		if odd {
			s.setCondition(func(c *control) { c.user = !c.user }, pb.WindowCause_WINDOW_CAUSE_SIGNAL, config.SignalName(sig), false)
		}
	}
}

// ControlRequest serves zestall_start(), zestall_stop() and
// zestall_flush() on the application's thread. Start and stop wait
// (bounded) for the streamer read that marks the edge; nothing waits for
// I/O. It fails with ErrNotCollecting when the session writes nothing
// (not active, or exiting) and ErrUnknownOp for an op it does not know.
func (s *Session) ControlRequest(op int) error {
	s.mu.Lock()
	c, out := s.ctl, s.out
	s.mu.Unlock()
	if c == nil || out == nil {
		return ErrNotCollecting
	}
	switch op {
	case OpStart:
		s.setCondition(func(c *control) { c.user = true }, pb.WindowCause_WINDOW_CAUSE_API, "zestall_start()", true)
	case OpStop:
		s.setCondition(func(c *control) { c.user = false }, pb.WindowCause_WINDOW_CAUSE_API, "zestall_stop()", true)
	case OpITTResume:
		s.setCondition(func(c *control) { c.user = true }, pb.WindowCause_WINDOW_CAUSE_ITT, "__itt_resume()", true)
	case OpITTPause:
		s.setCondition(func(c *control) { c.user = false }, pb.WindowCause_WINDOW_CAUSE_ITT, "__itt_pause()", true)
	case OpFlush:
		s.requestFlush()
	default:
		return fmt.Errorf("%w %d", ErrUnknownOp, op)
	}
	return nil
}

// Errors of ControlRequest.
var (
	ErrNotCollecting = errors.New("zestall is not collecting")
	ErrUnknownOp     = errors.New("unknown control op")
)

// LaunchEdge is called by the launch path, on the application thread
// and before the append, at the launches that open (on) and close the
// launch-count window.
func (s *Session) LaunchEdge(on bool, n, ns uint64) {
	s.mu.Lock()
	c := s.ctl
	s.mu.Unlock()
	if c == nil {
		return
	}
	word := "closes before"
	if on {
		word = "opens at"
	}
	// The launch path already collects from launch n on (or no longer):
	// the edge is at its time, whatever other threads did since.
	s.setConditionAt(func(c *control) { c.count = on }, pb.WindowCause_WINDOW_CAUSE_LAUNCH_COUNT,
		fmt.Sprintf("ZESTALL_LAUNCHES window %s launch %d", word, n), true, ns)
}

// setCondition changes one condition and applies the resulting edge, if
// any: the launch path, a Window record and the stall streamers. Edges are
// applied one at a time, and an edge's time is taken when the launch path
// changes: a start's before it (launches collected are appended after
// it), a stop's after it (launches collected were appended before it,
// unless a thread was preempted between its check and its clock read).
//
// Start: the streamers are read and the samples discarded (they were taken
// while stopped), then launches are collected. Stop: launches stop being
// collected, then the streamers keep being read and attributed until every
// launch of the window has completed; later reads are discarded.
func (s *Session) setCondition(change func(*control), cause pb.WindowCause, detail string, wait bool) {
	s.setConditionAt(change, cause, detail, wait, 0)
}

// setConditionAt is setCondition with the edge's time given (0: now).
func (s *Session) setConditionAt(change func(*control), cause pb.WindowCause, detail string, wait bool, edgeNs uint64) {
	s.mu.Lock()
	c, st := s.ctl, s.stall
	s.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.stop:
		return // exiting: the exit edge is written by Shutdown
	default:
	}
	change(c)
	on := c.user && c.timer && c.count
	if on == c.on {
		c.src.SetCollecting(c.user && c.timer)
		return
	}
	c.on = on
	if on {
		if st != nil {
			st.StartEdge(wait)
		}
		at := s.now()
		c.src.SetCollecting(c.user && c.timer)
		if edgeNs != 0 {
			at = edgeNs
		}
		if st != nil {
			st.CollectionStarted(at)
		}
		s.emit(windowRecord(pb.WindowEdge_WINDOW_EDGE_START, at, cause, detail))
		return
	}
	c.src.SetCollecting(c.user && c.timer)
	at := s.now()
	if edgeNs != 0 {
		at = edgeNs
	}
	s.emit(windowRecord(pb.WindowEdge_WINDOW_EDGE_STOP, at, cause, detail))
	if st != nil {
		st.CollectionStopped(at)
		settled := s.pollNow(at, wait)
		st.StopEdge(at, settled, wait)
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
	d := edgeWait
	if !wait {
		d = time.Second
	}
	if !waitDone(ack, d) {
		return false
	}
	return h.SettledBefore(t)
}

// stopControl ends the timers and the signal poller at exit and writes
// the exit edge when collecting.
func (s *Session) stopControl() {
	s.mu.Lock()
	c := s.ctl
	s.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	close(c.stop)
	on := c.on
	c.mu.Unlock()
	c.wg.Wait()
	if on {
		s.emit(windowRecord(pb.WindowEdge_WINDOW_EDGE_STOP, s.now(), pb.WindowCause_WINDOW_CAUSE_EXIT, ""))
	}
}

// requestFlush makes the writer flush what is queued, without waiting.
func (s *Session) requestFlush() {
	s.emit(flushMarker)
}

// flushMarker, queued like a record, makes the writer flush.
var flushMarker = &pb.Record{}
