package collector

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zestall/zestall/collector/window"
	"github.com/zestall/zestall/collector/window/windowtest"
	"github.com/zestall/zestall/ze"
)

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

// TestControlWiring: the session starts the collection control at
// activation with its settings, hands it the C API's requests and the
// launch path's edges, and writes its Window records to the file (the
// edges themselves: package window's tests).
func TestControlWiring(t *testing.T) {
	s, path, _ := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_LAUNCHES": "5:9"})
	src := &windowtest.Source{Installed: 1}
	s.Controls(src)
	s.Timestamps(idleTimestamps{})
	s.Status(StateActive, ze.Success)
	src.CountEdge(true)
	s.LaunchEdge(true, 5, 100)
	if err := s.ControlRequest(window.OpStop); err != nil {
		t.Errorf("stop: %v", err)
	}
	s.Shutdown()
	if got, want := windowEdges(t, path), "STOP/LAUNCH_COUNT START/LAUNCH_COUNT STOP/API"; got != want {
		t.Errorf("edges %q, want %q", got, want)
	}
	if w, _ := src.State(); w != window.BlockUser || src.LaunchWindow() != [2]uint64{5, 9} {
		t.Errorf("launch path's word %b, window %v", w, src.LaunchWindow())
	}
}

// TestControlRequestErrors: a request the session cannot serve fails with
// an error that says why.
func TestControlRequestErrors(t *testing.T) {
	s, _, _ := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0"})
	if err := s.ControlRequest(window.OpStart); !errors.Is(err, ErrNotCollecting) {
		t.Errorf("before activation: %v", err)
	}
	s.Controls(&windowtest.Source{Installed: 1})
	s.Timestamps(idleTimestamps{})
	s.Status(StateActive, ze.Success)
	if err := s.ControlRequest(99); !errors.Is(err, window.ErrUnknownOp) {
		t.Errorf("op 99: %v", err)
	}
	if err := s.ControlRequest(window.OpFlush); err != nil {
		t.Errorf("flush: %v", err)
	}
	s.Shutdown()
	if err := s.ControlRequest(window.OpStop); !errors.Is(err, ErrNotCollecting) {
		t.Errorf("after exit: %v", err)
	}
}
