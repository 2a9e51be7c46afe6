package window

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zestall/zestall/abi"
	"github.com/zestall/zestall/collector/config"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// Source is the launch path's side of collection control, implemented
// over C by package cgo. The launch path owns the collection state: one
// condition word, the set of Blockers that block collection now
// (collection is on while it is empty). A Control sets and clears
// BlockUser and BlockTimer; the launch path sets and clears BlockCount
// and says so (Control.LaunchEdge).
type Source interface {
	// Block sets and clears conditions in one atomic step and returns the
	// conditions that block collection after it; Block(0, 0) reads them.
	// Event substitution and launch records follow for launches that
	// follow.
	Block(set, clear Blockers) Blockers
	// SetLaunchWindow makes the launch path collect only launches numbered
	// from <= n < to (in append order over all threads): it sets
	// BlockCount outside the window, and calls Control.LaunchEdge after
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

// String names the call that makes the request. A switch, not a
// package-level map: nothing is built when libzestall.so is loaded
// (docs/level-zero-loader.md §8.4 "Start-up cost of `LD_PRELOAD`").
func (op Op) String() string {
	switch op {
	case OpNone:
		return "none"
	case OpStart:
		return "zestall_start()"
	case OpStop:
		return "zestall_stop()"
	case OpFlush:
		return "zestall_flush()"
	case OpITTResume:
		return "__itt_resume()"
	case OpITTPause:
		return "__itt_pause()"
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// ErrUnknownOp is the error of Request for an op it does not know.
var ErrUnknownOp = errors.New("unknown control op")

// Stalls is the stall reader's side of the edges (sampling.Reader).
type Stalls interface {
	SetCollecting(on bool)
	// StartEdge reads the streamers and discards what they held; with
	// wait, the caller waits (bounded) for that read.
	StartEdge(wait bool)
	CollectionStarted(at uint64)
	CollectionStopped(at uint64)
	// StopEdge keeps the streamers attributed until every launch before
	// at has completed (settled: they all have).
	StopEdge(at uint64, settled, wait bool)
}

// Options are what a Control needs of its session.
type Options struct {
	Source Source
	Config config.Config // the control settings (ZESTALL_START, _DELAY, _DURATION, _LAUNCHES, _TOGGLE_SIGNAL)
	// ToggleSignalVar is ZESTALL_TOGGLE_SIGNAL as the user wrote it (for
	// messages).
	ToggleSignalVar string
	Stalls          Stalls // nil: no stall sampling
	Now             func() uint64
	// Emit queues a record without blocking (any thread, no lock of
	// the caller held).
	Emit func(*pb.Record)
	// Flush makes the writer flush what is queued, without waiting.
	Flush func()
	// Settle makes launch timing harvest now and says whether every
	// launch recorded before at has its device times (wait: the caller
	// is the application, bound the wait tightly).
	Settle func(at uint64, wait bool) bool
	// SignalsChecked: the session calls CheckSignals regularly (every
	// launch-harvester pass, at most 16 ms apart), so the toggle signal's
	// goroutine waits for it instead of polling every 10 ms.
	SignalsChecked bool
	Stderr         io.Writer
}

// Control is the collection control of one session, from activation to
// exit.
type Control struct {
	o Options
	// mu orders edges: an edge's streamer read completes (bounded) before
	// the next edge is applied.
	mu      sync.Mutex
	on      bool // what the last Window record said
	sigSeen uint64
	// sigNoted: the signal count CheckSignals last passed on through
	// sigWake (signalLoop's wake-up).
	sigNoted atomic.Uint64
	sigWake  chan struct{}
	// The toggle signal's goroutine (signalLoop): with
	// Options.SignalsChecked it starts at the first signal
	// (CheckSignals), under sigMu, unless Stop came first.
	sig        int
	sigMu      sync.Mutex
	sigStarted bool
	stop       chan struct{}
	wg         sync.WaitGroup
}

// Start sets the initial collection state (before the launch path is
// enabled) and starts the timers and the signal poller. It returns the
// first Window record, for the caller to queue after the header.
func Start(o Options) (*Control, *pb.Record) {
	c := &Control{o: o, stop: make(chan struct{})}
	src, cfg := o.Source, o.Config
	var block Blockers
	if cfg.StartPaused {
		block |= BlockUser
	}
	if cfg.Delay > 0 {
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
	if cfg.LaunchWindow {
		src.SetLaunchWindow(cfg.LaunchFrom, cfg.LaunchTo)
	}
	// The launch path is not enabled yet: nothing changes the word
	// meanwhile.
	now := src.Block(block, (BlockUser|BlockTimer)&^block)
	if cfg.StartPaused && now&BlockUser != 0 {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_START_PAUSED, "ZESTALL_START=paused"
	}
	if now&BlockTimer != 0 {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_TIMER, "ZESTALL_DELAY="+cfg.Delay.String()
	}
	if now&BlockCount != 0 {
		cause, detail = pb.WindowCause_WINDOW_CAUSE_LAUNCH_COUNT, fmt.Sprintf("ZESTALL_LAUNCHES from launch %d", cfg.LaunchFrom)
	}
	c.on = now == 0
	if st := o.Stalls; st != nil {
		st.SetCollecting(c.on)
		if !c.on {
			st.CollectionStopped(o.Now())
		}
	}
	edge := pb.WindowEdge_WINDOW_EDGE_STOP
	if c.on {
		edge = pb.WindowEdge_WINDOW_EDGE_START
	}
	first := record(edge, o.Now(), cause, detail)

	if cfg.Delay > 0 || cfg.Duration > 0 {
		c.wg.Add(1)
		go c.timeWindow(time.Now())
	}
	if sig := cfg.ToggleSignal; sig != 0 {
		switch installed, err := src.InstallToggleSignal(sig); {
		case err != nil:
			fmt.Fprintf(o.Stderr, "zestall: cannot install the toggle signal %s (%v); ZESTALL_TOGGLE_SIGNAL (default: SIGUSR2) is not in effect.\n", config.SignalName(sig), err)
		case installed:
			c.sigWake = make(chan struct{}, 1)
			c.sig = sig
			if !o.SignalsChecked {
				c.startSignalLoop()
			}
		default:
			if !cfg.ToggleSignalAuto {
				fmt.Fprintf(o.Stderr, "zestall: the application handles %s, so ZESTALL_TOGGLE_SIGNAL=%s is not installed; use zestall_start()/zestall_stop() or another signal (default: SIGUSR2 when the application does not handle it).\n",
					config.SignalName(sig), o.ToggleSignalVar)
			}
		}
	}
	return c, first
}

func record(edge pb.WindowEdge, ns uint64, cause pb.WindowCause, detail string) *pb.Record {
	return &pb.Record{Kind: &pb.Record_Window{Window: &pb.Window{Edge: edge, HostNs: ns, Cause: cause, Detail: detail}}}
}

// timeWindow applies the time window counted from start, unless the
// control stops first: ZESTALL_DELAY's start, then ZESTALL_DURATION's
// stop, in this order on one goroutine. (Two timers let a short window's
// stop be applied before its start, and collection then stayed on.)
func (c *Control) timeWindow(start time.Time) {
	defer c.wg.Done()
	defer c.guard("the collection timer")
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
	cfg := c.o.Config
	if d := cfg.Delay; d > 0 {
		if !until(d) {
			return
		}
		c.change(0, BlockTimer, pb.WindowCause_WINDOW_CAUSE_TIMER, "ZESTALL_DELAY="+d.String(), false)
	}
	if d := cfg.Duration; d > 0 {
		if !until(cfg.Delay + d) {
			return
		}
		c.change(BlockTimer, 0, pb.WindowCause_WINDOW_CAUSE_TIMER, "ZESTALL_DURATION="+d.String(), false)
	}
}

// signalPoll is how often signalLoop looks at the signal count itself:
// every 10 ms when nothing else does, every second as a backstop when the
// session's CheckSignals does (a timer every 10 ms was 100 wake-ups a
// second of an idle process, each waking the Go runtime's sysmon too);
// CheckSignals starts the loop at the first signal.
const (
	signalPoll        = 10 * time.Millisecond
	signalPollChecked = time.Second
)

// signalLoop applies toggle signals. The handler only counts them; an odd
// number of new signals toggles collection, up to 10 ms after the signal,
// or one launch-harvester pass (at most 16 ms) with Options.SignalsChecked
// (the edge's time is when it took effect).
func (c *Control) signalLoop(sig int) {
	defer c.wg.Done()
	defer c.guard("the toggle-signal poller")
	poll := signalPoll
	if c.o.SignalsChecked {
		poll = signalPollChecked
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		case <-c.sigWake:
		}
		n, _ := c.o.Source.SignalCount()
		if n == c.sigSeen {
			continue
		}
		odd := (n-c.sigSeen)%2 == 1
		c.sigSeen = n
		if odd {
			c.toggleUser(pb.WindowCause_WINDOW_CAUSE_SIGNAL, config.SignalName(sig))
		}
	}
}

// startSignalLoop starts the toggle signal's goroutine, once, unless the
// Control is stopped.
func (c *Control) startSignalLoop() {
	c.sigMu.Lock()
	defer c.sigMu.Unlock()
	if c.sigStarted {
		return
	}
	select {
	case <-c.stop:
		return
	default:
	}
	c.sigStarted = true
	c.wg.Add(1)
	go c.signalLoop(c.sig)
}

// CheckSignals wakes the toggle signal's goroutine when signals came since
// it last did (Options.SignalsChecked; any goroutine, never blocks: a
// cgo call reading a counter when the toggle signal is installed). The
// goroutine starts at the first signal: a process that is never sent
// one does not start it, nor wake it at exit (issue 14: each goroutine a
// short program starts and stops costs it wake-ups of other threads).
func (c *Control) CheckSignals() {
	if c == nil || c.sigWake == nil {
		return
	}
	n, _ := c.o.Source.SignalCount()
	if n == c.sigNoted.Load() {
		return
	}
	c.sigNoted.Store(n)
	c.startSignalLoop()
	select {
	case c.sigWake <- struct{}{}:
	default:
	}
}

// guard keeps a panic in one of the Control's goroutines from killing the
// application: it is reported once and the goroutine ends.
func (c *Control) guard(where string) {
	if r := recover(); r != nil {
		fmt.Fprintf(c.o.Stderr, "zestall: internal error in %s: %v (this part of zestall stops; the application continues)\n", where, r)
	}
}

// Request serves zestall_start(), zestall_stop(), zestall_flush() and
// ITT's pause and resume on the application's thread. Start and stop
// wait (bounded) for the streamer read that marks the edge; nothing waits
// for I/O. It fails with ErrUnknownOp for an op it does not know.
func (c *Control) Request(op Op) error {
	switch op {
	case OpStart:
		c.change(0, BlockUser, pb.WindowCause_WINDOW_CAUSE_API, "zestall_start()", true)
	case OpStop:
		c.change(BlockUser, 0, pb.WindowCause_WINDOW_CAUSE_API, "zestall_stop()", true)
	case OpITTResume:
		c.change(0, BlockUser, pb.WindowCause_WINDOW_CAUSE_ITT, "__itt_resume()", true)
	case OpITTPause:
		c.change(BlockUser, 0, pb.WindowCause_WINDOW_CAUSE_ITT, "__itt_pause()", true)
	case OpFlush:
		c.o.Flush()
	default:
		return fmt.Errorf("%w %v", ErrUnknownOp, op)
	}
	return nil
}

// LaunchEdge is called by the launch path, on the application thread
// and before the append, after it cleared (on) or set BlockCount at the
// launches that open and close the launch-count window.
func (c *Control) LaunchEdge(on bool, n, ns uint64) {
	word := "closes before"
	if on {
		word = "opens at"
	}
	// The launch path already collects from launch n on (or no longer):
	// the edge is at its time, whatever other threads did since.
	cause, detail := pb.WindowCause_WINDOW_CAUSE_LAUNCH_COUNT, fmt.Sprintf("ZESTALL_LAUNCHES window %s launch %d", word, n)
	c.locked(func() {
		switch collecting := c.o.Source.Block(0, 0) == 0; {
		case collecting == c.on:
			// No edge: another condition blocks collection, or a
			// concurrent change of one already wrote it.
		case collecting:
			if st := c.o.Stalls; st != nil {
				st.StartEdge(true)
			}
			c.started(ns, cause, detail)
		default:
			c.stopped(ns, cause, detail, true)
		}
	})
}

// locked runs f under c.mu; not once Stop began (the exit edge is
// written by Stop).
func (c *Control) locked(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.stop:
	default:
		f()
	}
}

// change blocks the conditions set and unblocks those in clear, then
// applies the resulting edge, if any: the launch path, a Window record
// and the stall streamers. Edges are applied one at a time, and an edge's
// time is taken when the launch path changes: a start's before it
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
func (c *Control) change(set, clear Blockers, cause pb.WindowCause, detail string, wait bool) {
	c.locked(func() { c.changeLocked(set, clear, cause, detail, wait) })
}

// toggleUser flips BlockUser (the toggle signal).
func (c *Control) toggleUser(cause pb.WindowCause, detail string) {
	c.locked(func() {
		if c.o.Source.Block(0, 0)&BlockUser != 0 {
			c.changeLocked(0, BlockUser, cause, detail, false)
		} else {
			c.changeLocked(BlockUser, 0, cause, detail, false)
		}
	})
}

// changeLocked is change under c.mu.
func (c *Control) changeLocked(set, clear Blockers, cause pb.WindowCause, detail string, wait bool) {
	src := c.o.Source
	if set != 0 {
		if src.Block(set, clear) != 0 && c.on {
			c.stopped(c.o.Now(), cause, detail, wait)
		}
		return
	}
	if c.on || src.Block(0, 0)&^clear != 0 {
		src.Block(0, clear) // no start
		return
	}
	if st := c.o.Stalls; st != nil {
		st.StartEdge(wait)
	}
	at := c.o.Now()
	if src.Block(0, clear) != 0 {
		return // the launch-count window closed meanwhile: its LaunchEdge says so
	}
	c.started(at, cause, detail)
}

// started records a start edge at host ns at (under c.mu).
func (c *Control) started(at uint64, cause pb.WindowCause, detail string) {
	c.on = true
	if st := c.o.Stalls; st != nil {
		st.CollectionStarted(at)
	}
	c.o.Emit(record(pb.WindowEdge_WINDOW_EDGE_START, at, cause, detail))
}

// stopped records a stop edge at host ns at, after the launch path
// stopped collecting (under c.mu).
func (c *Control) stopped(at uint64, cause pb.WindowCause, detail string, wait bool) {
	c.on = false
	c.o.Emit(record(pb.WindowEdge_WINDOW_EDGE_STOP, at, cause, detail))
	if st := c.o.Stalls; st != nil {
		st.CollectionStopped(at)
		settled := c.o.Settle(at, wait)
		st.StopEdge(at, settled, wait)
	}
}

// Stop ends the timers and the signal poller at exit and writes the exit
// edge when collecting. Later requests and edges change nothing.
func (c *Control) Stop() {
	c.mu.Lock()
	c.sigMu.Lock() // no signal goroutine starts after this
	close(c.stop)
	c.sigMu.Unlock()
	on := c.on
	c.mu.Unlock()
	c.wg.Wait()
	if on {
		c.o.Emit(record(pb.WindowEdge_WINDOW_EDGE_STOP, c.o.Now(), pb.WindowCause_WINDOW_CAUSE_EXIT, ""))
	}
}
