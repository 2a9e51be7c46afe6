// Package cgo is zestall's only door to C: it interposes zeInit, creates the
// Level-Zero loader tracer, runs the callback trampolines (in C, on the
// application's threads) and calls Level Zero on behalf of the pure-Go
// collector. Everything that crosses the boundary is copied into Go memory
// before Go keeps it, and every exported entry point recovers from panics:
// the application must never crash because of zestall.
//
// Pipeline position:
//
//	app ─> L0 loader + tracing layer ─> cgo (trampolines, L0 calls) ─> collector ─> proto
//
// The constants its C code shares with Go (layer states, control ops,
// stall-off codes, no-timestamp reasons, the IP metric type) live in
// abi.h alone; package abi is their generated Go mirror. The launch-slot
// contract is in launch.h.
//
// The C of the launch path has one file per concern, listed in
// launch_internal.h: the callbacks and collection state (launch.c), object
// maps and ids (launch_maps.c), zestall's event pools (event_pools.c) and
// per-thread event caches (event_cache.c), the slot rings
// (launch_rings.c), zestall's batched per-event calls for Go
// (event_reads.c), regular command lists with their per-execution
// snapshots (regular_lists.c) and the device-side copies of immediate
// lists' timestamps (timestamp_copies.c). What the callbacks call per launch is
// static inline in launch_internal.h: cgo links without LTO.
//
// The package needs cgo and links libze_loader (so that zestall's exit-time
// flush runs while the loader is still alive,
// docs/level-zero-loader.md §10 "Hazards", P10).
package cgo
