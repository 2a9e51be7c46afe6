package collector

import (
	"crypto/sha256"
	"io"
	"os"

	"github.com/zestall/zestall/collector/timing"
	"github.com/zestall/zestall/proto/stream"
)

// NewSession returns a session that reports on stderr. The configuration
// is read with getenv only when the layer becomes active (the first
// successful zeInit), and nothing is opened before. The layer passes no
// option; tests replace the clock and the output with options and attach
// fake sources with the methods the layer uses (Timestamps, Stalls,
// Controls, Copies, Sycl), never by setting a Session's fields.
func NewSession(getenv func(string) string, stderr io.Writer, opts ...Option) *Session {
	s := &Session{
		getenv:    getenv,
		stderr:    stderr,
		now:       timing.HostNs,
		create:    stream.CreateExclusive,
		reported:  map[LayerState]bool{},
		modules:   map[uintptr]uint64{},
		contents:  map[[sha256.Size]byte]uint64{},
		kernels:   map[uintptr]uint64{},
		deviceIDs: map[uintptr]uint32{},
		said:      map[string]bool{},
		modSecs:   map[uint64]map[string]uint64{},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Option changes how a Session is built (tests).
type Option func(*Session)

// WithClock replaces the host clock (ns, CLOCK_MONOTONIC_RAW in a real
// run) that dates every record.
func WithClock(now func() uint64) Option {
	return func(s *Session) { s.now = now }
}

// WithOutput replaces how the output file is created (by default
// exclusively, at the path ZESTALL_OUTPUT gives, stream.CreateExclusive):
// create is called once, on the writer goroutine after activation (not on
// the application thread that activates), with that path.
func WithOutput(create func(path string) (*os.File, error)) Option {
	return func(s *Session) { s.create = create }
}
