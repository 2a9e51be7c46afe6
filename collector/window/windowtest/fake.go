// Package windowtest is a fake of the launch path's collection control
// (window.Source) for the tests of packages window and collector: the
// condition word as cgo/launch.c keeps it, and a record of what was asked
// of it.
package windowtest

import (
	"errors"
	"sync"

	"github.com/zestall/zestall/collector/window"
)

// Source is a window.Source in Go.
type Source struct {
	Early     window.Op // EarlyRequest's answer
	Installed int       // InstallToggleSignal: 1 installed, 0 the application's, -1 failed

	mu      sync.Mutex
	word    window.Blockers
	history []window.Blockers // the word after each change
	win     [2]uint64
	signals uint64 // toggle signals received
	reads   int    // SignalCount calls
	// beforeClear runs inside Block before conditions are cleared.
	beforeClear func(s *Source)
}

var _ window.Source = (*Source)(nil)

// Block implements window.Source.
func (s *Source) Block(set, clear window.Blockers) window.Blockers {
	s.mu.Lock()
	defer s.mu.Unlock()
	if clear != 0 && s.beforeClear != nil {
		hook := s.beforeClear
		s.beforeClear = nil
		hook(s)
	}
	s.changeLocked(set, clear)
	return s.word
}

func (s *Source) changeLocked(set, clear window.Blockers) {
	if w := (s.word | set) &^ clear; w != s.word {
		s.word = w
		s.history = append(s.history, w)
	}
}

// SetLaunchWindow implements window.Source: BlockCount is set when the
// window does not open at the first launch.
func (s *Source) SetLaunchWindow(from, to uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.win = [2]uint64{from, to}
	if from > 0 {
		s.changeLocked(window.BlockCount, 0)
	}
}

// LaunchWindow is what SetLaunchWindow was given.
func (s *Source) LaunchWindow() [2]uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.win
}

// CountEdge is the launch path's change of BlockCount at the first launch
// of its window (open) or the first after it; the caller then calls
// LaunchEdge as the launch path does.
func (s *Source) CountEdge(open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if open {
		s.changeLocked(0, window.BlockCount)
	} else {
		s.changeLocked(window.BlockCount, 0)
	}
}

// CountEdgeDuringClear makes the next Block that clears conditions see
// the launch-count window change first (a launch racing the change).
func (s *Source) CountEdgeDuringClear(open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beforeClear = func(s *Source) {
		if open {
			s.changeLocked(0, window.BlockCount)
		} else {
			s.changeLocked(window.BlockCount, 0)
		}
	}
}

// LaunchesWhileStopped implements window.Source.
func (s *Source) LaunchesWhileStopped() uint64 { return 0 }

// InstallToggleSignal implements window.Source.
func (s *Source) InstallToggleSignal(int) (bool, error) {
	if s.Installed < 0 {
		return false, errors.New("sigaction failed")
	}
	return s.Installed == 1, nil
}

// Signal sets the number of toggle signals received so far.
func (s *Source) Signal(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.signals, s.reads = n, 0
}

// SignalReads counts SignalCount calls since the last Signal.
func (s *Source) SignalReads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// SignalCount implements window.Source.
func (s *Source) SignalCount() (uint64, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	return s.signals, 0
}

// EarlyRequest implements window.Source.
func (s *Source) EarlyRequest() window.Op { return s.Early }

// State returns the word and the words it went through.
func (s *Source) State() (window.Blockers, []window.Blockers) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.word, append([]window.Blockers(nil), s.history...)
}
