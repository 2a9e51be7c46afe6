// Package collector is zestall's pure-Go core, between the C glue (package
// cgo) and the output stream (package proto/stream): a Session keeps the
// registry of devices, modules and kernels the application created,
// coordinates the rooms below, and hands every record to a single writer
// goroutine so that application threads never wait for I/O.
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
//   - this package: the Session (registry, writer, lifecycle: session.go;
//     construction: options.go; its wiring of the control: control.go).
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
//     go out through Session.emitBlocking, which takes Session.mu briefly.
//  3. Session.mu: the registry and the record queue.
//  4. sampling.Reader.mu: the attributors' inputs (kernels, launches,
//     windows) and the reader's losses.
//  5. attribution.Attributor.mu: one attributor's state.
//
// Nothing holds a lock while it writes to the file; the writer goroutine
// holds none. A control edge waits (bounded, holding window.Control.mu)
// for the harvester's goroutine and for the stall reader's read, neither
// of which takes window.Control.mu.
//
// The package builds with CGO_ENABLED=0; tests build a Session with
// NewSession and its options (WithClock, WithOutput), drive it through its
// public methods with fake sources, and read its output file back.
package collector
