package window_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zestall/zestall/collector/config"
	"github.com/zestall/zestall/collector/window"
	"github.com/zestall/zestall/collector/window/windowtest"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// harness is a Control over a fake launch path, its records kept in order.
type harness struct {
	c   *window.Control
	src *windowtest.Source

	mu      sync.Mutex
	records []*pb.Record
	flushes int
	stderr  strings.Builder
	clock   uint64
}

// start starts a Control with the settings env gives (ZESTALL_*).
func start(t *testing.T, env map[string]string, src *windowtest.Source, stalls window.Stalls, opts ...func(*window.Options)) *harness {
	t.Helper()
	h := &harness{src: src}
	vars := map[string]string{"ZESTALL_TOGGLE_SIGNAL": "none"}
	for k, v := range env {
		vars[k] = v
	}
	var cfgErr strings.Builder
	cfg := config.FromEnv(func(k string) string { return vars[k] }, &cfgErr)
	if cfgErr.Len() != 0 {
		t.Fatalf("settings: %s", cfgErr.String())
	}
	o := window.Options{
		Source: src, Config: cfg, ToggleSignalVar: vars["ZESTALL_TOGGLE_SIGNAL"], Stalls: stalls,
		Now:    h.now,
		Emit:   h.emit,
		Flush:  func() { h.mu.Lock(); h.flushes++; h.mu.Unlock() },
		Settle: func(uint64, bool) bool { return true },
		Stderr: syncWriter{h},
	}
	for _, f := range opts {
		f(&o)
	}
	c, first := window.Start(o)
	h.c = c
	h.emit(first)
	return h
}

func (h *harness) now() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clock += 10
	return h.clock
}

func (h *harness) emit(r *pb.Record) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
}

// edges are the Window records as EDGE/CAUSE, space-separated.
func (h *harness) edges() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var edges []string
	for _, r := range h.records {
		w := r.GetWindow()
		edges = append(edges, fmt.Sprintf("%s/%s", strings.TrimPrefix(w.Edge.String(), "WINDOW_EDGE_"), strings.TrimPrefix(w.Cause.String(), "WINDOW_CAUSE_")))
	}
	return strings.Join(edges, " ")
}

type syncWriter struct{ h *harness }

func (w syncWriter) Write(p []byte) (int, error) {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	return w.h.stderr.Write(p)
}

// waitFor waits (10 s at most: timers and the signal poller run late on a
// loaded machine) until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestEdges: collection is on while no condition blocks it (the user's
// toggles, the time window, the launch-count window); each change of that
// is one Window record, and the launch path's word holds the user's and
// the timer's say (the launch-count window is decided per launch in C).
func TestEdges(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		early window.Op
		steps func(t *testing.T, c *window.Control, f *windowtest.Source)
		want  string // edges as EDGE/CAUSE, space-separated
		last  bool   // the launch path's final state: neither the user nor the timer blocks
	}{
		{"default", nil, 0, func(*testing.T, *window.Control, *windowtest.Source) {}, "START/INIT STOP/EXIT", true},
		{"paused", map[string]string{"ZESTALL_START": "paused"}, 0, func(*testing.T, *window.Control, *windowtest.Source) {}, "STOP/START_PAUSED", false},
		{"api toggles, repeats ignored", nil, 0, func(t *testing.T, c *window.Control, f *windowtest.Source) {
			c.Request(window.OpStop)
			c.Request(window.OpStop)
			c.Request(window.OpStart)
			c.Request(window.OpITTPause)
		}, "START/INIT STOP/API START/API STOP/ITT", false},
		{"early stop before zeInit", nil, window.OpStop, func(t *testing.T, c *window.Control, f *windowtest.Source) {
			c.Request(window.OpStart)
		}, "STOP/API START/API STOP/EXIT", true},
		{"early start overrides paused", map[string]string{"ZESTALL_START": "paused"}, window.OpStart, func(*testing.T, *window.Control, *windowtest.Source) {}, "START/INIT STOP/EXIT", true},
		{"launch window", map[string]string{"ZESTALL_LAUNCHES": "5:9"}, 0, func(t *testing.T, c *window.Control, f *windowtest.Source) {
			f.CountEdge(true)
			c.LaunchEdge(true, 5, 100)
			c.Request(window.OpStop) // the user's stop inside the window
			c.Request(window.OpStart)
			f.CountEdge(false)
			c.LaunchEdge(false, 9, 200)
		}, "STOP/LAUNCH_COUNT START/LAUNCH_COUNT STOP/API START/API STOP/LAUNCH_COUNT", true},
		{"user stopped when the launch window opens", map[string]string{"ZESTALL_LAUNCHES": "5:9", "ZESTALL_START": "paused"}, 0, func(t *testing.T, c *window.Control, f *windowtest.Source) {
			f.CountEdge(true)
			c.LaunchEdge(true, 5, 100)
			c.Request(window.OpStart)
		}, "STOP/LAUNCH_COUNT START/API STOP/EXIT", true},
		{"window closes while the user starts", map[string]string{"ZESTALL_LAUNCHES": "5:9", "ZESTALL_START": "paused"}, 0, func(t *testing.T, c *window.Control, f *windowtest.Source) {
			f.CountEdge(true)
			c.LaunchEdge(true, 5, 100)
			// Launch 9 sets BlockCount between the control's look at
			// the word and its clearing BlockUser: no start, and
			// LaunchEdge finds no edge to write.
			f.CountEdgeDuringClear(false)
			c.Request(window.OpStart)
			c.LaunchEdge(false, 9, 200)
		}, "STOP/LAUNCH_COUNT", true},
		{"window opens while the user stops", map[string]string{"ZESTALL_LAUNCHES": "5:9"}, 0, func(t *testing.T, c *window.Control, f *windowtest.Source) {
			// Launch 5 clears BlockCount, then the user stops before
			// its LaunchEdge runs: collection never was on.
			f.CountEdge(true)
			c.Request(window.OpStop)
			c.LaunchEdge(true, 5, 100)
		}, "STOP/LAUNCH_COUNT", false},
		// A window of 1 µs: its stop comes after its start however late
		// the timer runs.
		{"timer", map[string]string{"ZESTALL_DELAY": "1ms", "ZESTALL_DURATION": "1us"}, 0, func(t *testing.T, c *window.Control, f *windowtest.Source) {
			waitFor(t, "the time window to close", func() bool {
				w, h := f.State()
				return len(h) >= 3 && w&window.BlockTimer != 0
			})
		}, "STOP/TIMER START/TIMER STOP/TIMER", false},
		{"signal toggles on odd counts", map[string]string{"ZESTALL_TOGGLE_SIGNAL": "USR1"}, 0, func(t *testing.T, c *window.Control, f *windowtest.Source) {
			signal := func(n uint64, want window.Blockers) {
				f.Signal(n)
				waitFor(t, fmt.Sprintf("%d signals to be seen", n), func() bool {
					w, _ := f.State()
					return f.SignalReads() >= 2 && w&window.BlockUser == want
				})
			}
			signal(1, window.BlockUser) // stop
			signal(3, window.BlockUser) // two more: no change
			signal(4, 0)                // start
		}, "START/INIT STOP/SIGNAL START/SIGNAL STOP/EXIT", true},
		{"flush is no edge", nil, 0, func(t *testing.T, c *window.Control, f *windowtest.Source) { c.Request(window.OpFlush) }, "START/INIT STOP/EXIT", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &windowtest.Source{Early: tt.early, Installed: 1}
			h := start(t, tt.env, src, nil)
			tt.steps(t, h.c, src)
			h.c.Stop()
			if got := h.edges(); got != tt.want {
				t.Errorf("edges %q, want %q", got, tt.want)
			}
			if w, hist := src.State(); (w&^window.BlockCount == 0) != tt.last {
				t.Errorf("launch path's word %b (history %b), want user and timer clear: %v", w, hist, tt.last)
			}
			if tt.env["ZESTALL_LAUNCHES"] == "5:9" && src.LaunchWindow() != [2]uint64{5, 9} {
				t.Errorf("launch window %v, want [5 9]", src.LaunchWindow())
			}
		})
	}
}

// TestSignalsChecked: with Options.SignalsChecked the toggle signal's
// goroutine has no 10 ms timer: a signal takes effect when CheckSignals
// (the session's harvester, every pass) sees it.
func TestSignalsChecked(t *testing.T) {
	src := &windowtest.Source{Installed: 1}
	t0 := time.Now()
	h := start(t, map[string]string{"ZESTALL_TOGGLE_SIGNAL": "USR1"}, src, nil, func(o *window.Options) { o.SignalsChecked = true })
	defer h.c.Stop()
	src.Signal(1)
	time.Sleep(100 * time.Millisecond) // ten polls of the old timer
	if w, _ := src.State(); w&window.BlockUser != 0 {
		// Only the one-second backstop may have seen it.
		if time.Since(t0) < 900*time.Millisecond {
			t.Fatalf("the signal took effect without CheckSignals after %v (a poller of its own)", time.Since(t0))
		}
		t.Logf("the backstop saw the signal (the machine is slow: %v)", time.Since(t0))
	}
	h.c.CheckSignals()
	waitFor(t, "the signal to stop collection after CheckSignals", func() bool {
		w, _ := src.State()
		return w&window.BlockUser != 0
	})
	src.Signal(2)
	h.c.CheckSignals()
	waitFor(t, "the second signal to start it again", func() bool {
		w, _ := src.State()
		return w&window.BlockUser == 0
	})
	if got, want := h.edges(), "START/INIT STOP/SIGNAL START/SIGNAL"; got != want {
		t.Errorf("edges %q, want %q", got, want)
	}
	var none *window.Control
	none.CheckSignals() // no Control (not collecting): nothing to do
}

// TestRequests: a flush goes to the writer; an unknown request fails with
// an error that names it; after Stop nothing changes.
func TestRequests(t *testing.T) {
	src := &windowtest.Source{Installed: 1}
	h := start(t, nil, src, nil)
	if err := h.c.Request(window.OpFlush); err != nil || h.flushes != 1 {
		t.Errorf("flush: %v, %d flushes", err, h.flushes)
	}
	if err := h.c.Request(99); !errors.Is(err, window.ErrUnknownOp) || err.Error() != "unknown control op Op(99)" {
		t.Errorf("op 99: %v", err)
	}
	h.c.Stop()
	h.c.Request(window.OpStop)
	if w, _ := src.State(); w != 0 {
		t.Errorf("a stop after Stop blocked collection: %b", w)
	}
	if got := h.edges(); got != "START/INIT STOP/EXIT" {
		t.Errorf("edges %q", got)
	}
}

// TestToggleSignalNotInstalled: the signal's handler could not be
// installed, or the application has its own: said on stderr when the user
// asked for the signal.
func TestToggleSignalNotInstalled(t *testing.T) {
	for _, tc := range []struct {
		installed int
		env, want string
	}{
		{-1, "USR1", "cannot install the toggle signal SIGUSR1 (sigaction failed)"},
		{0, "USR1", "the application handles SIGUSR1, so ZESTALL_TOGGLE_SIGNAL=USR1 is not installed"},
		{0, "", ""}, // the default: silently not installed
	} {
		h := start(t, map[string]string{"ZESTALL_TOGGLE_SIGNAL": tc.env}, &windowtest.Source{Installed: tc.installed}, nil)
		h.c.Stop()
		if out := h.stderr.String(); (tc.want == "") != (out == "") || !strings.Contains(out, tc.want) {
			t.Errorf("installed %d, ZESTALL_TOGGLE_SIGNAL=%q: stderr %q, want %q", tc.installed, tc.env, out, tc.want)
		}
	}
}

// stalls records what the stall reader is asked, with the launch path's
// word at the time.
type stalls struct {
	src   *windowtest.Source
	mu    sync.Mutex
	calls []string
}

func (s *stalls) add(call string) {
	w, _ := s.src.State()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, fmt.Sprintf("%s@%b", call, w))
}

func (s *stalls) SetCollecting(on bool)    { s.add(fmt.Sprintf("collecting(%v)", on)) }
func (s *stalls) StartEdge(wait bool)      { s.add(fmt.Sprintf("startEdge(%v)", wait)) }
func (s *stalls) CollectionStarted(uint64) { s.add("started") }
func (s *stalls) CollectionStopped(uint64) { s.add("stopped") }
func (s *stalls) StopEdge(_ uint64, settled, wait bool) {
	s.add(fmt.Sprintf("stopEdge(%v,%v)", settled, wait))
}

// TestStallEdges: a start reads the streamers while the launch path is
// still stopped, then it collects; a stop is given to the reader after the
// launch path stopped, with what launch timing says of its launches.
func TestStallEdges(t *testing.T) {
	src := &windowtest.Source{Installed: 1}
	st := &stalls{src: src}
	h := start(t, map[string]string{"ZESTALL_START": "paused"}, src, st)
	h.c.Request(window.OpStart)
	h.c.Request(window.OpStop)
	h.c.Stop()
	want := "collecting(false)@1 stopped@1 startEdge(true)@1 started@0 stopped@1 stopEdge(true,true)@1"
	if got := strings.Join(st.calls, " "); got != want {
		t.Errorf("stall reader calls\n%s\nwant\n%s", got, want)
	}
}
