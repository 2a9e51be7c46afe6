package collector

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/ze"
)

// TestHarvesterStopped: executions of a regular list while collection is
// stopped take their readings (so a recorded execution never gets their
// times) and write nothing; a launch appended while stopped is written
// without times when an execution in a window runs it.
func TestHarvesterStopped(t *testing.T) {
	const sec = uint64(1e9)
	exec := func(ns uint64, flags uint8) Slot {
		return Slot{Kind: SlotExec, HostNs: ns, ListID: 5, Queue: 1, Device: 7, Flags: flags}
	}
	tests := []struct {
		name   string
		run    func(x *harness)
		want   []string
		starts []uint64
	}{
		{"stopped execution between two recorded ones, each read late", func(x *harness) {
			x.step(launch(sec, 100, SlotFlagOurs, 5), exec(2*sec, 0))
			x.f.signaled[100] = tsAt(2*sec+100, 2*sec+200)
			x.step(exec(3*sec, SlotFlagStopped))
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step(exec(4*sec, 0))
			x.f.signaled[100] = tsAt(4*sec+100, 4*sec+200)
			x.step()
		}, []string{"timed", "timed"}, []uint64{2*sec + 100, 4*sec + 100}},
		{"stopped execution read before the recorded one was", func(x *harness) {
			// The goroutine reads only after the stopped execution ran: the
			// reading is the stopped one's, the recorded one is lost, and
			// said so (never given the stopped one's times).
			x.step(launch(sec, 100, SlotFlagOurs, 5), exec(2*sec, 0), exec(3*sec, SlotFlagStopped))
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step()
		}, []string{"NO_TIMESTAMP_REASON_OVERWRITTEN"}, nil},
		{"only stopped executions: nothing written", func(x *harness) {
			x.step(launch(sec, 100, SlotFlagOurs, 5), exec(2*sec, SlotFlagStopped))
			x.f.signaled[100] = tsAt(2*sec+100, 2*sec+200)
			x.step()
			x.h.final()
		}, nil, nil},
		{"appended while stopped, executed in a window", func(x *harness) {
			x.step(Slot{Kind: SlotLaunch, HostNs: sec, Device: 7, Context: 9, KernelID: 3, ListID: 5,
				Flags: SlotFlagNoEvent, Reason: uint8(pb.NoTimestampReason_NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED)},
				exec(2*sec, 0))
		}, []string{"NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newHarness()
			tt.run(x)
			var got []string
			var starts []uint64
			for _, r := range x.recs {
				if r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
					got = append(got, r.NoTimestampReason.String())
				} else {
					got = append(got, "timed")
					starts = append(starts, r.DeviceStartNs)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("records %v, want %v", got, tt.want)
			}
			for i, s := range starts {
				if d := int64(s) - int64(tt.starts[i]); d < -30 || d > 30 {
					t.Errorf("record %d starts at %d, want %d", i, s, tt.starts[i])
				}
			}
			if n := uint64(len(tt.want)); x.h.seen != n {
				t.Errorf("launches seen %d, want %d (stopped executions are not launches)", x.h.seen, n)
			}
		})
	}
}

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
