package cgo

/*
#include <stdlib.h>
#include "launch.h"
*/
import "C"

import (
	"os"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/zestall/zestall/collector/timing"
)

// source implements timing.Source over the launch path's C: the rings
// (launch_rings.c), zestall's per-event calls (event_reads.c), regular
// lists (regular_lists.c) and the collection state (launch.c).
type source struct {
	snapBuf []C.uint64_t // snapshot results, 4 words each
}

var _ timing.Source = (*source)(nil)

// timing.EventRef is passed to C as zl_event_ref_t: same size and field
// offsets, or this does not compile (a negative array length).
var (
	_ [unsafe.Sizeof(timing.EventRef{}) - C.sizeof_zl_event_ref_t]byte
	_ [C.sizeof_zl_event_ref_t - unsafe.Sizeof(timing.EventRef{})]byte
	_ [unsafe.Offsetof(timing.EventRef{}.Event) - unsafe.Offsetof(C.zl_event_ref_t{}.event)]byte
	_ [unsafe.Offsetof(C.zl_event_ref_t{}.event) - unsafe.Offsetof(timing.EventRef{}.Event)]byte
)

// timing.EventReading has zl_event_reading_t's layout, or this does not
// compile: zl_kernel_timestamps writes the readings straight into the
// harvester's batch.
var (
	_ [unsafe.Sizeof(timing.EventReading{}) - C.sizeof_zl_event_reading_t]byte
	_ [C.sizeof_zl_event_reading_t - unsafe.Sizeof(timing.EventReading{})]byte
	_ [0 - ((unsafe.Offsetof(timing.EventReading{}.TS) ^ unsafe.Offsetof(C.zl_event_reading_t{}.start)) | (unsafe.Sizeof(timing.KernelTimestamp{}) ^ 4*unsafe.Sizeof(C.zl_event_reading_t{}.start)))]byte
	_ [0 - ((unsafe.Offsetof(timing.KernelTimestamp{}.End) ^ (unsafe.Offsetof(C.zl_event_reading_t{}.end) - unsafe.Offsetof(C.zl_event_reading_t{}.start))) | (unsafe.Offsetof(timing.KernelTimestamp{}.ContextStart) ^ (unsafe.Offsetof(C.zl_event_reading_t{}.ctx_start) - unsafe.Offsetof(C.zl_event_reading_t{}.start))) | (unsafe.Offsetof(timing.KernelTimestamp{}.ContextEnd) ^ (unsafe.Offsetof(C.zl_event_reading_t{}.ctx_end) - unsafe.Offsetof(C.zl_event_reading_t{}.start))))]byte
	_ [0 - ((unsafe.Offsetof(timing.EventReading{}.Ready) ^ unsafe.Offsetof(C.zl_event_reading_t{}.ready)) | (unsafe.Sizeof(timing.EventReading{}.Ready) ^ unsafe.Sizeof(C.zl_event_reading_t{}.ready)))]byte
	_ [0 - ((unsafe.Offsetof(timing.EventReading{}.Failed) ^ unsafe.Offsetof(C.zl_event_reading_t{}.failed)) | (unsafe.Sizeof(timing.EventReading{}.Failed) ^ unsafe.Sizeof(C.zl_event_reading_t{}.failed)))]byte
)

// timing.Slot has zl_slot_t's layout, field for field, or this does not
// compile: zl_drain writes the slots straight into the harvester's batch.
var (
	_ [unsafe.Sizeof(timing.Slot{}) - C.sizeof_zl_slot_t]byte
	_ [C.sizeof_zl_slot_t - unsafe.Sizeof(timing.Slot{})]byte
	_ [unsafe.Alignof(timing.Slot{}) - unsafe.Alignof(C.zl_slot_t{})]byte
	_ [unsafe.Alignof(C.zl_slot_t{}) - unsafe.Alignof(timing.Slot{})]byte
)

// ... and every field has its zl_slot_t field's offset and size (any
// difference makes the array's length negative).
var (
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.HostNs) ^ unsafe.Offsetof(C.zl_slot_t{}.host_ns)) | (unsafe.Sizeof(timing.Slot{}.HostNs) ^ unsafe.Sizeof(C.zl_slot_t{}.host_ns)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.List) ^ unsafe.Offsetof(C.zl_slot_t{}.list)) | (unsafe.Sizeof(timing.Slot{}.List) ^ unsafe.Sizeof(C.zl_slot_t{}.list)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Event) ^ unsafe.Offsetof(C.zl_slot_t{}.event)) | (unsafe.Sizeof(timing.Slot{}.Event) ^ unsafe.Sizeof(C.zl_slot_t{}.event)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Device) ^ unsafe.Offsetof(C.zl_slot_t{}.device)) | (unsafe.Sizeof(timing.Slot{}.Device) ^ unsafe.Sizeof(C.zl_slot_t{}.device)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Context) ^ unsafe.Offsetof(C.zl_slot_t{}.context)) | (unsafe.Sizeof(timing.Slot{}.Context) ^ unsafe.Sizeof(C.zl_slot_t{}.context)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Queue) ^ unsafe.Offsetof(C.zl_slot_t{}.queue)) | (unsafe.Sizeof(timing.Slot{}.Queue) ^ unsafe.Sizeof(C.zl_slot_t{}.queue)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.KernelID) ^ unsafe.Offsetof(C.zl_slot_t{}.kernel_id)) | (unsafe.Sizeof(timing.Slot{}.KernelID) ^ unsafe.Sizeof(C.zl_slot_t{}.kernel_id)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.ListID) ^ unsafe.Offsetof(C.zl_slot_t{}.list_id)) | (unsafe.Sizeof(timing.Slot{}.ListID) ^ unsafe.Sizeof(C.zl_slot_t{}.list_id)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.GroupCount) ^ unsafe.Offsetof(C.zl_slot_t{}.group_count)) | (unsafe.Sizeof(timing.Slot{}.GroupCount) ^ unsafe.Sizeof(C.zl_slot_t{}.group_count)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.GroupSize) ^ unsafe.Offsetof(C.zl_slot_t{}.group_size)) | (unsafe.Sizeof(timing.Slot{}.GroupSize) ^ unsafe.Sizeof(C.zl_slot_t{}.group_size)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Kind) ^ unsafe.Offsetof(C.zl_slot_t{}.kind)) | (unsafe.Sizeof(timing.Slot{}.Kind) ^ unsafe.Sizeof(C.zl_slot_t{}.kind)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.LaunchKind) ^ unsafe.Offsetof(C.zl_slot_t{}.launch_kind)) | (unsafe.Sizeof(timing.Slot{}.LaunchKind) ^ unsafe.Sizeof(C.zl_slot_t{}.launch_kind)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Flags) ^ unsafe.Offsetof(C.zl_slot_t{}.flags)) | (unsafe.Sizeof(timing.Slot{}.Flags) ^ unsafe.Sizeof(C.zl_slot_t{}.flags)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Reason) ^ unsafe.Offsetof(C.zl_slot_t{}.reason)) | (unsafe.Sizeof(timing.Slot{}.Reason) ^ unsafe.Sizeof(C.zl_slot_t{}.reason)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.CodeCopy) ^ unsafe.Offsetof(C.zl_slot_t{}.code_copy)) | (unsafe.Sizeof(timing.Slot{}.CodeCopy) ^ unsafe.Sizeof(C.zl_slot_t{}.code_copy)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.EvIndex) ^ unsafe.Offsetof(C.zl_slot_t{}.ev_index)) | (unsafe.Sizeof(timing.Slot{}.EvIndex) ^ unsafe.Sizeof(C.zl_slot_t{}.ev_index)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.SyclLocation) ^ unsafe.Offsetof(C.zl_slot_t{}.sycl_location)) | (unsafe.Sizeof(timing.Slot{}.SyclLocation) ^ unsafe.Sizeof(C.zl_slot_t{}.sycl_location)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Snapshot) ^ unsafe.Offsetof(C.zl_slot_t{}.snapshot)) | (unsafe.Sizeof(timing.Slot{}.Snapshot) ^ unsafe.Sizeof(C.zl_slot_t{}.snapshot)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.SnapshotPrev) ^ unsafe.Offsetof(C.zl_slot_t{}.snapshot_prev)) | (unsafe.Sizeof(timing.Slot{}.SnapshotPrev) ^ unsafe.Sizeof(C.zl_slot_t{}.snapshot_prev)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.Seq) ^ unsafe.Offsetof(C.zl_slot_t{}.seq)) | (unsafe.Sizeof(timing.Slot{}.Seq) ^ unsafe.Sizeof(C.zl_slot_t{}.seq)))]byte
	_ [0 - ((unsafe.Offsetof(timing.Slot{}.SyclTask) ^ unsafe.Offsetof(C.zl_slot_t{}.sycl_task)) | (unsafe.Sizeof(timing.Slot{}.SyclTask) ^ unsafe.Sizeof(C.zl_slot_t{}.sycl_task)))]byte
)

func (s *source) Drain(dst []timing.Slot) ([]timing.Slot, uint64) {
	room := cap(dst) - len(dst)
	if room <= 0 {
		return dst, 0
	}
	room = min(room, timing.DrainBatch)
	// One batch per call: under a sustained launch rate the rings never
	// run empty, and the harvester must get to reading and writing.
	// zl_drain writes the slots into dst's free room itself (timing.Slot
	// is zl_slot_t, see above): Go memory without Go pointers, which C
	// uses for the call's duration only and does not keep.
	var oldest C.uint64_t
	free := dst[len(dst):cap(dst)]
	n := int(C.zl_drain((*C.zl_slot_t)(unsafe.Pointer(&free[0])), C.uint32_t(room), &oldest))
	// Events the launch path asked to have ahead of need are created
	// here, on the harvester's thread (cgo/event_pools.c).
	idle := C.int(0)
	if n == 0 {
		idle = 1
	}
	C.zl_pools_ahead(idle)
	return dst[:len(dst)+n], uint64(oldest)
}

func (s *source) Enable(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.zl_set_enabled(v)
}

func (s *source) Serialize(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.zl_set_serialize(v)
}

func (s *source) WakeOnSync(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.zl_set_sync_wake(v)
}

func (s *source) Dropped() (launches, slots uint64) {
	return uint64(C.zl_launches_dropped()), uint64(C.zl_dropped())
}

func (s *source) SerializeTimeouts() uint64 { return uint64(C.zl_serialize_timeouts()) }

func (s *source) ListsWithoutID() uint64 { return uint64(C.zl_lists_without_id()) }
func (s *source) WaitOnFullRing(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.zl_set_ring_wait(v)
}

func (s *source) RingWaits() (launches uint64, wait time.Duration) {
	var n, ns C.uint64_t
	C.zl_ring_waits(&n, &ns)
	return uint64(n), time.Duration(ns)
}

// RingFills relays the launch path's wake-ups (cgo/launch_rings.c,
// "Waking the harvester"): a launch whose ring fills while the harvester
// sleeps writes an eventfd, which Go's poller watches, so that no thread
// blocks on it; each read becomes one token on the returned channel (nil
// when the eventfd could not be made: the harvester then wakes on its
// timer alone).
func (s *source) RingFills() <-chan struct{} {
	ringFills.once.Do(func() {
		fd := int(C.zl_ring_wake_fd())
		if fd < 0 {
			return
		}
		// Non-blocking, so os.NewFile makes it pollable: a Read parks the
		// goroutine, not a thread.
		f := os.NewFile(uintptr(fd), "zestall-ring-wake")
		ch := make(chan struct{}, 1)
		go func() {
			var b [8]byte // the eventfd's counter: the wake-ups since the last read
			for {
				if _, err := f.Read(b[:]); err != nil {
					return // the timer still wakes the harvester
				}
				select {
				case ch <- struct{}{}:
				default: // a token is pending already
				}
			}
		}()
		ringFills.ch = ch
	})
	return ringFills.ch
}

// ringFills: one eventfd and relay per process (the launch path's).
var ringFills struct {
	once sync.Once
	ch   chan struct{}
}

// ArmRingFill asks the launch path for a wake-up until the next drain.
func (s *source) ArmRingFill() { C.zl_ring_wake_arm() }

// RingFillWakes counts the wake-ups the launch path made.
func (s *source) RingFillWakes() uint64 { return uint64(C.zl_ring_wakes()) }

// SetRingSlots sets the rings' growth budget from ZESTALL_RING_SLOTS:
// the slots a lone thread's ring may reach, of which its first
// ZL_RING_MIN are its own (cgo/launch_rings.c, "Ring capacity").
func (s *source) SetRingSlots(slots uint32) {
	C.zl_set_ring_budget(C.uint32_t(max(slots, C.ZESTALL_RING_MIN_SLOTS) - C.ZESTALL_RING_MIN_SLOTS))
}

func (s *source) KernelTimestamps(events []uint64, dst []timing.EventReading) []timing.EventReading {
	return kernelTimestamps(events, dst, false)
}

func (s *source) KernelTimestampsReset(events []uint64, dst []timing.EventReading) []timing.EventReading {
	return kernelTimestamps(events, dst, true)
}

// kernelTimestamps appends the readings of events to dst, resetting each
// signalled event in the same pass when reset is set.
func kernelTimestamps(events []uint64, dst []timing.EventReading, reset bool) []timing.EventReading {
	if len(events) == 0 {
		return dst
	}
	dst = slices.Grow(dst, len(events))
	out := dst[len(dst) : len(dst)+len(events)]
	// events and out hold no Go pointers: C uses them for the call's
	// duration only. timing.EventReading is zl_event_reading_t (see
	// above): C writes the readings in place, no conversion.
	ev, n, rd := (*C.uint64_t)(unsafe.Pointer(&events[0])), C.uint32_t(len(events)), (*C.zl_event_reading_t)(unsafe.Pointer(&out[0]))
	if reset {
		C.zl_kernel_timestamps_reset(ev, n, rd)
	} else {
		C.zl_kernel_timestamps(ev, n, rd)
	}
	return dst[:len(dst)+len(events)]
}

func (s *source) SnapshotResults(snapshot uint64, dst []timing.KernelTimestamp) ([]timing.KernelTimestamp, bool, error) {
	if cap(s.snapBuf) == 0 {
		s.snapBuf = make([]C.uint64_t, 4*64)
	}
	for {
		var n C.uint32_t
		r := C.zl_snapshot_results(C.uint64_t(snapshot), &s.snapBuf[0], C.uint32_t(len(s.snapBuf)/4), &n)
		switch r {
		case C.ZE_RESULT_SUCCESS:
		case C.ZE_RESULT_NOT_READY:
			return dst, false, nil
		default:
			return dst, false, Result(r)
		}
		if int(n)*4 > len(s.snapBuf) {
			s.snapBuf = make([]C.uint64_t, 4*int(n))
			continue
		}
		for i := 0; i < int(n); i++ {
			w := s.snapBuf[4*i : 4*i+4]
			dst = append(dst, timing.KernelTimestamp{Start: uint64(w[0]), End: uint64(w[1]),
				ContextStart: uint64(w[2]), ContextEnd: uint64(w[3])})
		}
		return dst, true, nil
	}
}

func (s *source) SnapshotRelease(snapshot uint64) { C.zl_snapshot_release(C.uint64_t(snapshot)) }

func (s *source) ListSubmits(list uint64) uint64 { return uint64(C.zl_list_submits(C.uint64_t(list))) }

func (s *source) ReleaseEvents(refs []timing.EventRef) {
	if len(refs) == 0 {
		return
	}
	// timing.EventRef has zl_event_ref_t's layout (TestEventRefLayout).
	C.zl_release_events((*C.zl_event_ref_t)(unsafe.Pointer(&refs[0])), C.uint32_t(len(refs)))
}

func (s *source) ReturnEvents(refs []timing.EventRef) {
	if len(refs) == 0 {
		return
	}
	C.zl_return_events((*C.zl_event_ref_t)(unsafe.Pointer(&refs[0])), C.uint32_t(len(refs)))
}

func (s *source) GlobalTimestamps(device uint64) (uint64, uint64, error) {
	var host, ticks C.uint64_t
	if r := C.zl_global_timestamps(C.uint64_t(device), &host, &ticks); r != C.ZE_RESULT_SUCCESS {
		return 0, 0, Result(r)
	}
	return uint64(host), uint64(ticks), nil
}

func (s *source) DestroyContextPools(context uint64) {
	C.zl_context_destroy(C.uint64_t(context))
}

// CopyTimestamps starts a device-side copy of events' kernel timestamps
// (cgo/timestamp_copies.c); events is used for the call only.
func (s *source) CopyTimestamps(context, device uint64, events []uint64) (uint64, timing.CopyStatus) {
	if len(events) == 0 {
		return 0, timing.CopyFailed
	}
	var status C.uint32_t
	c := C.zl_copy_start(C.uint64_t(context), C.uint64_t(device), (*C.uint64_t)(unsafe.Pointer(&events[0])),
		C.uint32_t(len(events)), &status)
	return uint64(c), timing.CopyStatus(status)
}

// CopyResults appends copy's n readings to dst once it completed
// (timing.EventReading is zl_event_reading_t: C writes them in place).
func (s *source) CopyResults(copy uint64, n int, dst []timing.EventReading, wait time.Duration) ([]timing.EventReading, bool, error) {
	if n == 0 {
		return dst, false, Result(C.ZE_RESULT_ERROR_INVALID_ARGUMENT)
	}
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	r := C.zl_copy_results(C.uint64_t(copy), (*C.zl_event_reading_t)(unsafe.Pointer(&out[0])), C.uint32_t(n),
		C.uint64_t(max(wait, 0)))
	switch r {
	case C.ZE_RESULT_SUCCESS:
		return dst[:len(dst)+n], true, nil
	case C.ZE_RESULT_NOT_READY:
		return dst, false, nil
	}
	return dst, false, Result(r)
}

// CopyAbandon gives up a copy's results.
func (s *source) CopyAbandon(copy uint64) { C.zl_copy_abandon(C.uint64_t(copy)) }
