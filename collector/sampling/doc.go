// Package sampling is zestall's EU stall reader: it opens one metric
// streamer per root device through a [Source], reads the raw records on
// its own goroutine ([Reader.Run]), turns them into per-IP values (the
// driver's calculation, replaced by zestall's raw decoder of
// format/eustall once both agreed on the first reads), and hands each read
// window to the attributors, which give its samples to kernels and
// launches. It also applies collection edges to the samples (discarded
// while stopped, attributed until every launch before a stop completed).
//
// Pipeline position:
//
//	cgo (Source over zetMetricStreamer*) ─> sampling.Reader ─> attribution.Attributor ─> records
//
// Package collector creates the Reader when the layer becomes active,
// feeds it kernels, launches and completions from the application's
// threads, gives it its attributors and its record sink, and stops it at
// exit. Package cgo implements Source; tests use a fake Source in Go. The
// package builds with CGO_ENABLED=0.
//
// # Threads
//
// Read windows, the raw-path state and the counters belong to the reader
// goroutine. Attributors and kernel liveness are guarded by Reader.mu:
// application threads feed them kernels and collection edges, and the
// harvester's goroutine feeds them its finished launch records a batch at
// a time (Launches: one lock of Reader.mu and one call per attributor per
// batch, the batch handed over by the end of the harvester's pass that
// finished it), while the reader adds windows and resolves them. Nothing here blocks an
// application thread beyond a bounded wait for a read it asked for
// (ReadNow, collection edges with wait).
package sampling
