package collector

import (
	"fmt"
	"strings"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
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
func (f *fakeControl) InstallToggleSignal(int) int     { return f.installed }
func (f *fakeControl) SignalCount() (uint64, uint64)   { return 0, 0 }
func (f *fakeControl) EarlyRequest() int               { return f.early }

// TestControlEdges: collection is on while the user's toggles, the time
// window and the launch-count window all allow it; each change of that is
// one Window record, and the launch path follows the user's and the
// timer's say (the launch-count window is decided per launch in C).
func TestControlEdges(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		early int
		steps func(s *Session)
		want  string // edges as EDGE/CAUSE, space-separated
		last  bool   // the launch path's final state
	}{
		{"default", nil, 0, func(s *Session) {}, "START/INIT", true},
		{"paused", map[string]string{"ZESTALL_START": "paused"}, 0, func(s *Session) {}, "STOP/START_PAUSED", false},
		{"api toggles, repeats ignored", nil, 0, func(s *Session) {
			s.ControlRequest(OpStop)
			s.ControlRequest(OpStop)
			s.ControlRequest(OpStart)
			s.ControlRequest(OpITTPause)
		}, "START/INIT STOP/API START/API STOP/ITT", false},
		{"early stop before zeInit", nil, OpStop, func(s *Session) {
			s.ControlRequest(OpStart)
		}, "STOP/API START/API", true},
		{"early start overrides paused", map[string]string{"ZESTALL_START": "paused"}, OpStart, func(s *Session) {}, "START/INIT", true},
		{"launch window", map[string]string{"ZESTALL_LAUNCHES": "5:9"}, 0, func(s *Session) {
			s.LaunchEdge(true, 5, 100)
			s.ControlRequest(OpStop) // the user's stop inside the window
			s.ControlRequest(OpStart)
			s.LaunchEdge(false, 9, 200)
		}, "STOP/LAUNCH_COUNT START/LAUNCH_COUNT STOP/API START/API STOP/LAUNCH_COUNT", true},
		{"user stopped when the launch window opens", map[string]string{"ZESTALL_LAUNCHES": "5:9", "ZESTALL_START": "paused"}, 0, func(s *Session) {
			s.LaunchEdge(true, 5, 100)
			s.ControlRequest(OpStart)
		}, "STOP/LAUNCH_COUNT START/API", true},
		{"flush is no edge", nil, 0, func(s *Session) { s.ControlRequest(OpFlush) }, "START/INIT", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := &fakeControl{early: tt.early, installed: 1}
			var clock uint64
			s := NewSession(func(k string) string { return tt.env[k] }, &strings.Builder{})
			s.now = func() uint64 { clock += 10; return clock }
			s.cfg = ConfigFromEnv(s.getenv, &strings.Builder{})
			s.cfg.ToggleSignal = 0
			s.out = make(chan *pb.Record, 100)
			s.ctlSrc = fc
			s.mu.Lock()
			s.startControl()
			s.mu.Unlock()
			tt.steps(s)
			s.stopControl()
			close(s.out)
			var edges []string
			for r := range s.out {
				if r == flushMarker {
					continue
				}
				w := r.GetWindow()
				if w == nil {
					t.Fatalf("unexpected record %v", r)
				}
				edges = append(edges, fmt.Sprintf("%s/%s", strings.TrimPrefix(w.Edge.String(), "WINDOW_EDGE_"), strings.TrimPrefix(w.Cause.String(), "WINDOW_CAUSE_")))
			}
			want := tt.want
			if tt.last && s.ctl.on {
				want += " STOP/EXIT"
			}
			if got := strings.Join(edges, " "); got != want {
				t.Errorf("edges %q, want %q", got, want)
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
