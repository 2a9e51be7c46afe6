// Package collector is zestall's pure-Go core, between the C glue (package
// cgo) and the output stream (package proto/stream): a Session keeps the
// registry of devices, modules and kernels the application created,
// coordinates the rooms below, and hands every record to the output
// writer so that application threads never wait for I/O: application
// threads and the stall reader queue theirs for the writer goroutine; the
// launch harvester encodes its launch records itself (output.go), so that
// a steady run's harvester pass wakes no other goroutine.
//
// Pipeline position:
//
//	app ─> L0 loader + tracing layer ─> cgo ─> collector ─> proto/stream ─> file
//
// Package cgo calls a Session's event methods (through cgo.Handler) on the
// application's threads and implements the sources a Session reads:
// timing.Source (the launch path), sampling.Source (the metric
// streamers) and window.Source (start/stop in C).
//
// # Rooms
//
//   - collector/config: the ZESTALL_* settings, read once at activation.
//   - collector/sampling: the EU stall reader (streamers, read windows,
//     the raw-path check, collection edges for samples).
//   - collector/attribution: attribution of samples to kernels, offsets
//     and launches, one Attributor per streamer, created here for the
//     stall reader.
//   - collector/timing: launch timing (harvester, clocks).
//   - collector/window: collection control (the user's toggles, the time
//     and launch-count windows, the Window records) over the launch
//     path's condition word.
//   - this package: the Session (registry, harvester loop, lifecycle:
//     session.go; the output writer: output.go; construction: options.go;
//     its wiring of the control: control.go; the Go runtime's P count:
//     procs.go).
//
// # Goroutines and the Go runtime
//
// The library's Go runtime runs in the application's process: the
// harvester (pollLoop: a pass every 1-16 ms by the launch rate, at once on
// a backlog), the writer goroutine (woken by queued records and its flush
// ticker), the stream Writer's compressor (a frame at a time, from the
// first full frame on), the stall reader and the collection control (its
// toggle signal's goroutine from the first signal on). Every wake-up of
// one of them costs the process tens of µs of system time on a virtual
// machine, and the runtime adds its own (docs/level-zero-loader.md §9 "Go
// `-buildmode=c-shared` specifics"), so hand-offs are per frame or flush,
// not per pass. From the harvester's first pass that finds work on (the
// first launches) the runtime has 1 P, 2 while the harvester has a
// backlog or stalls are sampled (procs.go, config.GoProcs), unless the
// user set GOMAXPROCS; before it, the runtime's own count, idle. The exit
// of a session whose goroutines are idle wakes the writer goroutine once
// and waits for no other (Shutdown).
//   - format/zebin and format/eustall: the decoders it shares with the CLI.
//
// # Locks
//
// Locks are taken in this order, never the reverse; a holder may skip
// levels:
//
//  1. window.Control.mu: one collection edge at a time (collector/window).
//     The collection state itself is the launch path's condition word, an
//     atomic in C that takes no lock.
//  2. timing.Harvester.mu: launch timing (collector/timing); its records
//     go out through Session.emitLaunches, which takes Session.wr.mu (or,
//     before the writer is ready, Session.mu briefly to queue them).
//  3. Session.wr.mu (output.go): the output file's stream.Writer and the
//     queues' receiving ends; held while records are encoded and while a
//     flush waits for the compressor.
//  4. Session.mu: the registry and the record queue.
//  5. sampling.Reader.mu: the attributors' inputs (kernels, launches,
//     windows) and the reader's losses.
//  6. attribution.Attributor.mu: one attributor's state.
//
// Nothing holds a lock while it writes to the file: the stream Writer's
// compressor writes, holding none. A control edge waits (bounded, holding window.Control.mu)
// for the harvester's goroutine and for the stall reader's read, neither
// of which takes window.Control.mu.
//
// The package builds with CGO_ENABLED=0; tests build a Session with
// NewSession and its options (WithClock, WithOutput), drive it through its
// public methods with fake sources, and read its output file back.
package collector
