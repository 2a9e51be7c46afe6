package cgo

/*
#include <stdlib.h>
#include "launch.h"
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/zestall/zestall/collector/timing"
)

// source implements timing.Source over the launch path's C: the rings
// (launch_rings.c), zestall's per-event calls (event_reads.c), regular
// lists (regular_lists.c) and the collection state (launch.c).
type source struct {
	raw     []C.zl_slot_t
	snapBuf []C.uint64_t // snapshot results, 4 words each
	rd      []C.zl_event_reading_t
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

func (s *source) Drain(dst []timing.Slot) ([]timing.Slot, uint64) {
	if s.raw == nil {
		// C memory, kept for the process's life: a batch's worth on the
		// Go heap would count towards the runtime's first collection
		// (4 MiB) at start-up. zl_drain writes it whole at its first
		// call, so that its pages are not first touched during the
		// application's first burst.
		p := C.calloc(timing.DrainBatch, C.sizeof_zl_slot_t)
		if p == nil {
			return dst, 0
		}
		s.raw = unsafe.Slice((*C.zl_slot_t)(p), timing.DrainBatch)
	}
	// One batch per call: under a sustained launch rate the rings never
	// run empty, and the harvester must get to reading and writing.
	var oldest C.uint64_t
	n := int(C.zl_drain(&s.raw[0], C.uint32_t(len(s.raw)), &oldest))
	for i := 0; i < n; i++ {
		r := &s.raw[i]
		dst = append(dst, timing.Slot{
			Kind:         timing.SlotKind(r.kind),
			HostNs:       uint64(r.host_ns),
			List:         uint64(r.list),
			Event:        uint64(r.event),
			Device:       uint64(r.device),
			Context:      uint64(r.context),
			Queue:        uint64(r.queue),
			KernelID:     uint32(r.kernel_id),
			ListID:       uint32(r.list_id),
			GroupCount:   [3]uint32{uint32(r.group_count[0]), uint32(r.group_count[1]), uint32(r.group_count[2])},
			GroupSize:    [3]uint16{uint16(r.group_size[0]), uint16(r.group_size[1]), uint16(r.group_size[2])},
			LaunchKind:   uint8(r.launch_kind),
			Flags:        uint8(r.flags),
			Reason:       uint8(r.reason),
			EvIndex:      uint32(r.ev_index),
			Snapshot:     uint64(r.snapshot),
			SnapshotPrev: uint64(r.snapshot_prev),
			Seq:          uint64(r.seq),
			SyclTask:     uint64(r.sycl_task),
			SyclLocation: uint32(r.sycl_location),
			CodeCopy:     uint16(r.code_copy),
		})
		if r.kind == C.ZL_SLOT_APP_TS {
			d := &dst[len(dst)-1]
			d.TS = timing.KernelTimestamp{Start: uint64(r.list), End: uint64(r.device),
				ContextStart: uint64(r.context), ContextEnd: uint64(r.queue)}
			d.List, d.Device, d.Context, d.Queue = 0, 0, 0, 0
		}
	}
	return dst, uint64(oldest)
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

func (s *source) KernelTimestamps(events []uint64, dst []timing.EventReading) []timing.EventReading {
	if len(events) == 0 {
		return dst
	}
	if cap(s.rd) < len(events) {
		s.rd = make([]C.zl_event_reading_t, len(events))
	}
	rd := s.rd[:len(events)]
	// events holds no Go pointers: C may read it for the call's duration.
	C.zl_kernel_timestamps((*C.uint64_t)(unsafe.Pointer(&events[0])), C.uint32_t(len(events)), &rd[0])
	for i := range rd {
		r := &rd[i]
		switch r.result {
		case C.ZE_RESULT_SUCCESS:
			dst = append(dst, timing.EventReading{Ready: true, TS: timing.KernelTimestamp{
				Start: uint64(r.start), End: uint64(r.end), ContextStart: uint64(r.ctx_start), ContextEnd: uint64(r.ctx_end)}})
		case C.ZE_RESULT_NOT_READY:
			dst = append(dst, timing.EventReading{})
		default:
			dst = append(dst, timing.EventReading{Err: Result(r.result)})
		}
	}
	return dst
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
