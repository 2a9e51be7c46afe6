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
// implemented over C by package cgo. The launch path owns the collection
// state: one condition word, the set of Blockers that block collection
// now (collection is on while it is empty). The session sets and clears
// BlockUser and BlockTimer; the launch path sets and clears BlockCount
// and says so (Session.LaunchEdge).
type ControlSource interface {
	// Block sets and clears conditions in one atomic step and returns the
	// conditions that block collection after it; Block(0, 0) reads them.
	// Event substitution and launch records follow for launches that
	// follow.
	Block(set, clear Blockers) Blockers
	// SetLaunchWindow makes the launch path collect only launches numbered
	// from <= n < to (in append order over all threads): it sets
	// BlockCount outside the window, and calls Session.LaunchEdge after
	// it clears BlockCount at launch from and sets it at launch to.
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
	// activation: OpStart, OpStop, or OpNone.
	EarlyRequest() Op
}

// Op is a request of the C control API (cgo/abi.h ZC_OP_*).
type Op int

// Requests of the C control API.
const (
	OpNone      Op = 0
	OpStart     Op = abi.OpStart     // zestall_start()
	OpStop      Op = abi.OpStop      // zestall_stop()
	OpFlush     Op = abi.OpFlush     // zestall_flush()
	OpITTResume Op = abi.OpITTResume // __itt_resume()
	OpITTPause  Op = abi.OpITTPause  // __itt_pause()
)

var opNames = map[Op]string{OpNone: "none", OpStart: "zestall_start()", OpStop: "zestall_stop()",
	OpFlush: "zestall_flush()", OpITTResume: "__itt_resume()", OpITTPause: "__itt_pause()"}

// String names the call that makes the request.
func (op Op) String() string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// Blockers is a set of conditions that block collection (cgo/abi.h
// ZL_BLOCK_*): collection is on while none does.
type Blockers uint32

const (
	// BlockUser: the user's toggles (ZESTALL_START=paused, the C API,
	// ITT, the toggle signal) say stop.
	BlockUser Blockers = abi.BlockUser
	// BlockTimer: before ZESTALL_DELAY or after ZESTALL_DELAY +
	// ZESTALL_DURATION.
	BlockTimer Blockers = abi.BlockTimer
	// BlockCount: outside the ZESTALL_LAUNCHES window (the launch path's).
	BlockCount Blockers = abi.BlockCount
)

// control is the start/stop side of a session: the timers, the signal
// poller and the Window records. The collection state itself is the
// launch path's condition word (ControlSource.Block); on is what the last
// Window record said.
type control struct {
	src ControlSource
	// mu orders edges: an edge's streamer read completes (bounded) before
	// the next edge is applied.
	mu      sync.Mutex
	on      bool
	sigSeen uint64
	stop    chan struct{}
	wg      sync.WaitGroup
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
	c := &control{src: src, stop: make(chan struct{})}
	var block Blockers
	if s.cfg.StartPaused {
		block |= BlockUser
	}
	if s.cfg.Delay > 0 {
		block |= BlockTimer
	}
	cause, detail := pb.WindowCause_WINDOW_CAUSE_INIT, ""
	switch src.EarlyRequest() {
	case OpStart:
		block &^= BlockUser
	case OpStop:
		block |= BlockUser
		cause, detail = pb.WindowCause_WINDOW_CAUSE_API, "zestall_stop() before zeInit"
	}
	if s.cfg.LaunchWindow {
		src.SetLaunchWindow(s.cfg.LaunchFrom, s.cfg.LaunchTo)
	}
	// The launch path is not enabled yet: nothing changes the word
	// meanwhile.
	now := src.Block(block, (BlockUser|BlockTimer)&^block)
	if s.cfg.StartPaused && now&BlockUser != 0 {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_START_PAUSED, "ZESTALL_START=paused"
	}
	if now&BlockTimer != 0 {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_TIMER, "ZESTALL_DELAY="+s.cfg.Delay.String()
	}
	if now&BlockCount != 0 {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_LAUNCH_COUNT, fmt.Sprintf("ZESTALL_LAUNCHES from launch %d", s.cfg.LaunchFrom)
	}
	c.on = now == 0
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

	if s.cfg.Delay > 0 || s.cfg.Duration > 0 {
		c.wg.Add(1)
		go s.timeWindow(c, time.Now())
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

// timeWindow applies the time window counted from start, unless the
// session stops first: ZESTALL_DELAY's start, then ZESTALL_DURATION's
// stop, in this order on one goroutine. (Two timers let a short window's
// stop be applied before its start, and collection then stayed on.)
func (s *Session) timeWindow(c *control, start time.Time) {
	defer c.wg.Done()
	defer s.guard("the collection timer")
	until := func(d time.Duration) bool {
		t := time.NewTimer(time.Until(start.Add(d)))
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-c.stop:
			return false
		}
	}
	if d := s.cfg.Delay; d > 0 {
		if !until(d) {
			return
		}
		s.setCondition(0, BlockTimer, pb.WindowCause_WINDOW_CAUSE_TIMER, "ZESTALL_DELAY="+d.String(), false)
	}
	if d := s.cfg.Duration; d > 0 {
		if !until(s.cfg.Delay + d) {
			return
		}
		s.setCondition(BlockTimer, 0, pb.WindowCause_WINDOW_CAUSE_TIMER, "ZESTALL_DURATION="+d.String(), false)
	}
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
			s.toggleUser(pb.WindowCause_WINDOW_CAUSE_SIGNAL, config.SignalName(sig))
		}
	}
}

// ControlRequest serves zestall_start(), zestall_stop() and
// zestall_flush() on the application's thread. Start and stop wait
// (bounded) for the streamer read that marks the edge; nothing waits for
// I/O. It fails with ErrNotCollecting when the session writes nothing
// (not active, or exiting) and ErrUnknownOp for an op it does not know.
func (s *Session) ControlRequest(op Op) error {
	s.mu.Lock()
	c, out := s.ctl, s.out
	s.mu.Unlock()
	if c == nil || out == nil {
		return ErrNotCollecting
	}
	switch op {
	case OpStart:
		s.setCondition(0, BlockUser, pb.WindowCause_WINDOW_CAUSE_API, "zestall_start()", true)
	case OpStop:
		s.setCondition(BlockUser, 0, pb.WindowCause_WINDOW_CAUSE_API, "zestall_stop()", true)
	case OpITTResume:
		s.setCondition(0, BlockUser, pb.WindowCause_WINDOW_CAUSE_ITT, "__itt_resume()", true)
	case OpITTPause:
		s.setCondition(BlockUser, 0, pb.WindowCause_WINDOW_CAUSE_ITT, "__itt_pause()", true)
	case OpFlush:
		s.requestFlush()
	default:
		return fmt.Errorf("%w %v", ErrUnknownOp, op)
	}
	return nil
}

// Errors of ControlRequest.
var (
	ErrNotCollecting = errors.New("zestall is not collecting")
	ErrUnknownOp     = errors.New("unknown control op")
)

// LaunchEdge is called by the launch path, on the application thread
// and before the append, after it cleared (on) or set BlockCount at the
// launches that open and close the launch-count window.
func (s *Session) LaunchEdge(on bool, n, ns uint64) {
	word := "closes before"
	if on {
		word = "opens at"
	}
	// The launch path already collects from launch n on (or no longer):
	// the edge is at its time, whatever other threads did since.
	cause, detail := pb.WindowCause_WINDOW_CAUSE_LAUNCH_COUNT, fmt.Sprintf("ZESTALL_LAUNCHES window %s launch %d", word, n)
	s.withControl(func(c *control, st *sampling.Reader) {
		switch collecting := c.src.Block(0, 0) == 0; {
		case collecting == c.on:
			// No edge: another condition blocks collection, or a
			// concurrent change of one already wrote it.
		case collecting:
			if st != nil {
				st.StartEdge(true)
			}
			s.startedLocked(c, st, ns, cause, detail)
		default:
			s.stopLocked(c, st, ns, cause, detail, true)
		}
	})
}

// withControl runs f with the session's control and stall reader, under
// control.mu; not once the exit path began (the exit edge is written by
// Shutdown), nor before the control started.
func (s *Session) withControl(f func(c *control, st *sampling.Reader)) {
	s.mu.Lock()
	c, st := s.ctl, s.stall
	s.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.exiting() {
		f(c, st)
	}
}

// setCondition blocks the conditions set and unblocks those in clear,
// then applies the resulting edge, if any: the launch path, a Window
// record and the stall streamers. Edges are applied one at a time, and an
// edge's time is taken when the launch path changes: a start's before it
// (launches collected are appended after it), a stop's after it (launches
// collected were appended before it, unless a thread was preempted
// between its check and its clock read).
//
// Start: the streamers are read and the samples discarded (they were taken
// while stopped), then launches are collected. Stop: launches stop being
// collected, then the streamers keep being read and attributed until every
// launch of the window has completed; later reads are discarded.
//
// Blocking can only stop collection and unblocking only start it; an
// edge the other way comes from the launch-count window changing
// concurrently, and its LaunchEdge writes it.
func (s *Session) setCondition(set, clear Blockers, cause pb.WindowCause, detail string, wait bool) {
	s.withControl(func(c *control, st *sampling.Reader) {
		s.changeLocked(c, st, set, clear, cause, detail, wait)
	})
}

// toggleUser flips BlockUser (the toggle signal).
func (s *Session) toggleUser(cause pb.WindowCause, detail string) {
	s.withControl(func(c *control, st *sampling.Reader) {
		if c.src.Block(0, 0)&BlockUser != 0 {
			s.changeLocked(c, st, 0, BlockUser, cause, detail, false)
		} else {
			s.changeLocked(c, st, BlockUser, 0, cause, detail, false)
		}
	})
}

// changeLocked is setCondition under c.mu.
func (s *Session) changeLocked(c *control, st *sampling.Reader, set, clear Blockers, cause pb.WindowCause, detail string, wait bool) {
	if set != 0 {
		if c.src.Block(set, clear) != 0 && c.on {
			s.stopLocked(c, st, s.now(), cause, detail, wait)
		}
		return
	}
	if c.on || c.src.Block(0, 0)&^clear != 0 {
		c.src.Block(0, clear) // no start
		return
	}
	if st != nil {
		st.StartEdge(wait)
	}
	at := s.now()
	if c.src.Block(0, clear) != 0 {
		return // the launch-count window closed meanwhile: its LaunchEdge says so
	}
	s.startedLocked(c, st, at, cause, detail)
}

// startedLocked records a start edge at host ns at (under c.mu).
func (s *Session) startedLocked(c *control, st *sampling.Reader, at uint64, cause pb.WindowCause, detail string) {
	c.on = true
	if st != nil {
		st.CollectionStarted(at)
	}
	s.emit(windowRecord(pb.WindowEdge_WINDOW_EDGE_START, at, cause, detail))
}

// stopLocked records a stop edge at host ns at, after the launch path
// stopped collecting (under c.mu).
func (s *Session) stopLocked(c *control, st *sampling.Reader, at uint64, cause pb.WindowCause, detail string, wait bool) {
	c.on = false
	s.emit(windowRecord(pb.WindowEdge_WINDOW_EDGE_STOP, at, cause, detail))
	if st != nil {
		st.CollectionStopped(at)
		settled := s.pollNow(at, wait)
		st.StopEdge(at, settled, wait)
	}
}

// exiting says whether stopControl began (under c.mu).
func (c *control) exiting() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
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
