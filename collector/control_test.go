package collector

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zestall/zestall/ze"
)

// fakeControl records what the session asks of the launch path.
type fakeControl struct {
	collecting []bool
	window     [2]uint64
	early      int
	installed  int
}

func (f *fakeControl) SetCollecting(on bool)           { f.collecting = append(f.collecting, on) }
func (f *fakeControl) SetLaunchWindow(from, to uint64) { f.window = [2]uint64{from, to} }
func (f *fakeControl) LaunchesWhileStopped() uint64    { return 0 }
func (f *fakeControl) InstallToggleSignal(int) (bool, error) {
	if f.installed < 0 {
		return false, errors.New("sigaction failed")
	}
	return f.installed == 1, nil
}
func (f *fakeControl) SignalCount() (uint64, uint64) { return 0, 0 }
func (f *fakeControl) EarlyRequest() int             { return f.early }

// TestControlEdges: collection is on while the user's toggles, the time
// window and the launch-count window all allow it; each change of that is
// one Window record, and the launch path follows the user's and the
// timer's say (the launch-count window is decided per launch in C). The
// session runs as in the layer, its records read back from its file.
func TestControlEdges(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		early int
		steps func(s *Session)
		want  string // edges as EDGE/CAUSE, space-separated
		last  bool   // the launch path's final state
	}{
		{"default", nil, 0, func(s *Session) {}, "START/INIT STOP/EXIT", true},
		{"paused", map[string]string{"ZESTALL_START": "paused"}, 0, func(s *Session) {}, "STOP/START_PAUSED", false},
		{"api toggles, repeats ignored", nil, 0, func(s *Session) {
			s.ControlRequest(OpStop)
			s.ControlRequest(OpStop)
			s.ControlRequest(OpStart)
			s.ControlRequest(OpITTPause)
		}, "START/INIT STOP/API START/API STOP/ITT", false},
		{"early stop before zeInit", nil, OpStop, func(s *Session) {
			s.ControlRequest(OpStart)
		}, "STOP/API START/API STOP/EXIT", true},
		{"early start overrides paused", map[string]string{"ZESTALL_START": "paused"}, OpStart, func(s *Session) {}, "START/INIT STOP/EXIT", true},
		{"launch window", map[string]string{"ZESTALL_LAUNCHES": "5:9"}, 0, func(s *Session) {
			s.LaunchEdge(true, 5, 100)
			s.ControlRequest(OpStop) // the user's stop inside the window
			s.ControlRequest(OpStart)
			s.LaunchEdge(false, 9, 200)
		}, "STOP/LAUNCH_COUNT START/LAUNCH_COUNT STOP/API START/API STOP/LAUNCH_COUNT", true},
		{"user stopped when the launch window opens", map[string]string{"ZESTALL_LAUNCHES": "5:9", "ZESTALL_START": "paused"}, 0, func(s *Session) {
			s.LaunchEdge(true, 5, 100)
			s.ControlRequest(OpStart)
		}, "STOP/LAUNCH_COUNT START/API STOP/EXIT", true},
		{"flush is no edge", nil, 0, func(s *Session) { s.ControlRequest(OpFlush) }, "START/INIT STOP/EXIT", true},
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
			tt.steps(s)
			s.Shutdown()
			var edges []string
			for _, r := range readBack(t, path) {
				if w := r.GetWindow(); w != nil {
					edges = append(edges, fmt.Sprintf("%s/%s", strings.TrimPrefix(w.Edge.String(), "WINDOW_EDGE_"), strings.TrimPrefix(w.Cause.String(), "WINDOW_CAUSE_")))
				}
			}
			if got := strings.Join(edges, " "); got != tt.want {
				t.Errorf("edges %q, want %q", got, tt.want)
			}
			if n := len(fc.collecting); n == 0 || fc.collecting[n-1] != tt.last {
				t.Errorf("launch path states %v, want last %v", fc.collecting, tt.last)
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
	if err := s.ControlRequest(99); !errors.Is(err, ErrUnknownOp) {
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
