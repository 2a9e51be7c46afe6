package collector

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zestall/zestall/ze"
)

// fakeControl is the launch path's condition word as cgo/launch.c keeps
// it, and records what the session asks of it.
type fakeControl struct {
	early     Op
	installed int

	mu      sync.Mutex
	word    Blockers
	history []Blockers // the word after each change
	window  [2]uint64
	signals uint64 // toggle signals received
	sigRead int    // SignalCount calls
	// beforeClear runs inside Block before conditions are cleared: a
	// concurrent change of the launch path.
	beforeClear func(f *fakeControl)
}

func (f *fakeControl) Block(set, clear Blockers) Blockers {
	f.mu.Lock()
	defer f.mu.Unlock()
	if clear != 0 && f.beforeClear != nil {
		hook := f.beforeClear
		f.beforeClear = nil
		hook(f)
	}
	f.changeLocked(set, clear)
	return f.word
}

func (f *fakeControl) changeLocked(set, clear Blockers) {
	if w := (f.word | set) &^ clear; w != f.word {
		f.word = w
		f.history = append(f.history, w)
	}
}

func (f *fakeControl) SetLaunchWindow(from, to uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.window = [2]uint64{from, to}
	if from > 0 {
		f.changeLocked(BlockCount, 0)
	}
}

// launchEdge is what the launch path does at launch n, the window's
// first (on) or the first after it.
func (f *fakeControl) launchEdge(s *Session, on bool, n, ns uint64) {
	f.mu.Lock()
	if on {
		f.changeLocked(0, BlockCount)
	} else {
		f.changeLocked(BlockCount, 0)
	}
	f.mu.Unlock()
	s.LaunchEdge(on, n, ns)
}

func (f *fakeControl) LaunchesWhileStopped() uint64 { return 0 }
func (f *fakeControl) InstallToggleSignal(int) (bool, error) {
	if f.installed < 0 {
		return false, errors.New("sigaction failed")
	}
	return f.installed == 1, nil
}
func (f *fakeControl) SignalCount() (uint64, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sigRead++
	return f.signals, 0
}
func (f *fakeControl) EarlyRequest() Op { return f.early }

// state returns the word and how many changes it went through.
func (f *fakeControl) state() (Blockers, []Blockers) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.word, append([]Blockers(nil), f.history...)
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

// windowEdges are a file's Window records as EDGE/CAUSE, space-separated.
func windowEdges(t *testing.T, path string) string {
	t.Helper()
	var edges []string
	for _, r := range readBack(t, path) {
		if w := r.GetWindow(); w != nil {
			edges = append(edges, fmt.Sprintf("%s/%s", strings.TrimPrefix(w.Edge.String(), "WINDOW_EDGE_"), strings.TrimPrefix(w.Cause.String(), "WINDOW_CAUSE_")))
		}
	}
	return strings.Join(edges, " ")
}

// TestControlEdges: collection is on while no condition blocks it (the
// user's toggles, the time window, the launch-count window); each change
// of that is one Window record, and the launch path's word holds the
// user's and the timer's say (the launch-count window is decided per
// launch in C). The session runs as in the layer, its records read back
// from its file.
func TestControlEdges(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		early Op
		steps func(t *testing.T, s *Session, f *fakeControl)
		want  string // edges as EDGE/CAUSE, space-separated
		last  bool   // the launch path's final state: neither the user nor the timer blocks
	}{
		{"default", nil, 0, func(t *testing.T, s *Session, f *fakeControl) {}, "START/INIT STOP/EXIT", true},
		{"paused", map[string]string{"ZESTALL_START": "paused"}, 0, func(t *testing.T, s *Session, f *fakeControl) {}, "STOP/START_PAUSED", false},
		{"api toggles, repeats ignored", nil, 0, func(t *testing.T, s *Session, f *fakeControl) {
			s.ControlRequest(OpStop)
			s.ControlRequest(OpStop)
			s.ControlRequest(OpStart)
			s.ControlRequest(OpITTPause)
		}, "START/INIT STOP/API START/API STOP/ITT", false},
		{"early stop before zeInit", nil, OpStop, func(t *testing.T, s *Session, f *fakeControl) {
			s.ControlRequest(OpStart)
		}, "STOP/API START/API STOP/EXIT", true},
		{"early start overrides paused", map[string]string{"ZESTALL_START": "paused"}, OpStart, func(t *testing.T, s *Session, f *fakeControl) {}, "START/INIT STOP/EXIT", true},
		{"launch window", map[string]string{"ZESTALL_LAUNCHES": "5:9"}, 0, func(t *testing.T, s *Session, f *fakeControl) {
			f.launchEdge(s, true, 5, 100)
			s.ControlRequest(OpStop) // the user's stop inside the window
			s.ControlRequest(OpStart)
			f.launchEdge(s, false, 9, 200)
		}, "STOP/LAUNCH_COUNT START/LAUNCH_COUNT STOP/API START/API STOP/LAUNCH_COUNT", true},
		{"user stopped when the launch window opens", map[string]string{"ZESTALL_LAUNCHES": "5:9", "ZESTALL_START": "paused"}, 0, func(t *testing.T, s *Session, f *fakeControl) {
			f.launchEdge(s, true, 5, 100)
			s.ControlRequest(OpStart)
		}, "STOP/LAUNCH_COUNT START/API STOP/EXIT", true},
		{"window closes while the user starts", map[string]string{"ZESTALL_LAUNCHES": "5:9", "ZESTALL_START": "paused"}, 0, func(t *testing.T, s *Session, f *fakeControl) {
			f.launchEdge(s, true, 5, 100)
			// Launch 9 sets BlockCount between the session's look at
			// the word and its clearing BlockUser: no start, and
			// LaunchEdge finds no edge to write.
			f.beforeClear = func(f *fakeControl) { f.changeLocked(BlockCount, 0) }
			s.ControlRequest(OpStart)
			s.LaunchEdge(false, 9, 200)
		}, "STOP/LAUNCH_COUNT", true},
		{"window opens while the user stops", map[string]string{"ZESTALL_LAUNCHES": "5:9"}, 0, func(t *testing.T, s *Session, f *fakeControl) {
			// Launch 5 clears BlockCount, then the user stops before
			// its LaunchEdge runs: collection never was on.
			f.mu.Lock()
			f.changeLocked(0, BlockCount)
			f.mu.Unlock()
			s.ControlRequest(OpStop)
			s.LaunchEdge(true, 5, 100)
		}, "STOP/LAUNCH_COUNT", false},
		// A window of 1 µs: its stop comes after its start however late
		// the timer runs.
		{"timer", map[string]string{"ZESTALL_DELAY": "1ms", "ZESTALL_DURATION": "1us"}, 0, func(t *testing.T, s *Session, f *fakeControl) {
			waitFor(t, "the time window to close", func() bool {
				w, h := f.state()
				return len(h) >= 3 && w&BlockTimer != 0
			})
		}, "STOP/TIMER START/TIMER STOP/TIMER", false},
		{"signal toggles on odd counts", map[string]string{"ZESTALL_TOGGLE_SIGNAL": "USR1"}, 0, func(t *testing.T, s *Session, f *fakeControl) {
			signal := func(n uint64, want Blockers) {
				f.mu.Lock()
				f.signals, f.sigRead = n, 0
				f.mu.Unlock()
				waitFor(t, fmt.Sprintf("%d signals to be seen", n), func() bool {
					f.mu.Lock()
					read := f.sigRead
					f.mu.Unlock()
					w, _ := f.state()
					return read >= 2 && w&BlockUser == want
				})
			}
			signal(1, BlockUser) // stop
			signal(3, BlockUser) // two more: no change
			signal(4, 0)         // start
		}, "START/INIT STOP/SIGNAL START/SIGNAL STOP/EXIT", true},
		{"flush is no edge", nil, 0, func(t *testing.T, s *Session, f *fakeControl) { s.ControlRequest(OpFlush) }, "START/INIT STOP/EXIT", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := &fakeControl{early: tt.early, installed: 1}
			env := map[string]string{"ZESTALL_SAMPLING": "0"}
			for k, v := range tt.env {
				env[k] = v
			}
			s, path, _ := testSession(t, env)
			s.Controls(fc)
			s.Timestamps(idleTimestamps{})
			s.Status(StateActive, ze.Success)
			tt.steps(t, s, fc)
			s.Shutdown()
			if got := windowEdges(t, path); got != tt.want {
				t.Errorf("edges %q, want %q", got, tt.want)
			}
			if w, h := fc.state(); (w&^BlockCount == 0) != tt.last {
				t.Errorf("launch path's word %b (history %b), want user and timer clear: %v", w, h, tt.last)
			}
			if tt.env["ZESTALL_LAUNCHES"] == "5:9" && fc.window != [2]uint64{5, 9} {
				t.Errorf("launch window %v, want [5 9]", fc.window)
			}
		})
	}
}

// TestControlRequestErrors: a request the session cannot serve fails with
// an error that says why.
func TestControlRequestErrors(t *testing.T) {
	s, _, _ := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0"})
	if err := s.ControlRequest(OpStart); !errors.Is(err, ErrNotCollecting) {
		t.Errorf("before activation: %v", err)
	}
	s.Controls(&fakeControl{installed: 1})
	s.Timestamps(idleTimestamps{})
	s.Status(StateActive, ze.Success)
	if err := s.ControlRequest(99); !errors.Is(err, ErrUnknownOp) || err.Error() != "unknown control op Op(99)" {
		t.Errorf("op 99: %v", err)
	}
	if err := s.ControlRequest(OpFlush); err != nil {
		t.Errorf("flush: %v", err)
	}
	s.Shutdown()
	if err := s.ControlRequest(OpStop); !errors.Is(err, ErrNotCollecting) {
		t.Errorf("after exit: %v", err)
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
		{0, "USR1", "the application handles SIGUSR1"},
		{0, "", ""}, // the default: silently not installed
	} {
		env := map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_TOGGLE_SIGNAL": tc.env}
		s, _, stderr := testSession(t, env)
		s.Controls(&fakeControl{installed: tc.installed})
		s.Timestamps(idleTimestamps{})
		s.Status(StateActive, ze.Success)
		s.Shutdown()
		if out := stderr.String(); (tc.want == "") != (out == "") || !strings.Contains(out, tc.want) {
			t.Errorf("installed %d, ZESTALL_TOGGLE_SIGNAL=%q: stderr %q, want %q", tc.installed, tc.env, out, tc.want)
		}
	}
}
