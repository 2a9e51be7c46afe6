// Package timing turns the launch path's slots into Launch records with
// device times: the harvester drains the per-thread rings that the launch
// path (cgo/launch.c and the files cgo/launch_internal.h lists) fills on
// application threads, reads the kernel timestamps of zestall's
// events (and the per-execution copies of regular lists) once they have
// signalled, converts device ticks to host ns (Clock), recycles the events
// and hands each finished record to the writer and to stall attribution.
//
// Pipeline position:
//
//	app thread ─> cgo/launch.c (slot rings, events) ─> timing.Harvester ─> collector (writer, attribution)
//
// Used by package collector (Session owns one Harvester and its goroutine)
// and implemented against by package cgo (Source). Every launch the
// application made ends in exactly one counter: timed, without timestamp
// (by reason), or lost before it reached the harvester (by reason).
//
// Memory is bounded by what is in flight, not by the run: a launch waits
// as a value in reused storage (the immediate lists' FIFO; the launch
// slices of regular-list executions with snapshots, reused with them; the
// reads of a regular list, one entry per appended launch, for an
// execution without a snapshot, whose launches wait for their own events:
// the usual record, execute, synchronise, reset), is finished into a
// stream.Launch value in a batch of LaunchBatch that goes to the writer
// and comes back empty, and reaches stall attribution as a copy. Only
// launches sharing an event, which cannot be told apart until read (an
// execution submitted before the previous one was read, without a copy of
// it; application events), wait behind a pointer in a map by event. The
// harvest path makes no heap object per launch (TestHarvestAllocs,
// TestListReadsAllocs; TestReuseNoAliasing and TestListReads check that
// reused storage carries nothing of an earlier launch).
//
// Immediate lists' events are read by device-side copies when the Source
// makes them (TimestampCopier; ZESTALL_TIMESTAMP_READS=device, the
// default): per pass and (context, device), one copy of the launches
// whose kernels have completed (one host query of a list's last launch
// checks it), polled through one marker event, its readings plain memory;
// the events are then host-reset and returned (Source.ReleaseEvents).
// On devices whose event memory is device memory each host query is a
// read across PCIe (docs/level-zero-loader.md §8.8 "Copying timestamps on
// the device"). Launches no copy can take are read on the host.
//
// An event read for the last time on the host (an immediate list's,
// whose one launch it times; a regular list's read at the list's end) is
// reset by its read (Source.KernelTimestampsReset) and only returned
// afterwards (Source.ReturnEvents): its memory is visited once per
// launch, not again by a release pass at the end of the pass. The record of a launch in the
// immediate FIFO or in a list's reads is made once, where the writer
// reads it (the writer's batch), from its drained slot or its list's
// template, when the launch finishes.
//
// A pass's work is bounded, so that the application's rings keep being
// drained: a pass drains at most DrainBatch slots and processes at most
// passWork slots and records (a batch of executions of long lists is
// spread over passes, TestPassWork); a list's events are read in one
// batch per pass with one submission count per list. The drain batches
// (this package's and cgo's) are written once at the first pass, not
// first touched by the passes of the application's first burst.
// The package builds with CGO_ENABLED=0; tests drive it with a fake Source.
package timing

// abi_timing.go mirrors the slot contract of cgo/abi.h (see abi_timing_defs.go).
//go:generate sh genabi.sh
