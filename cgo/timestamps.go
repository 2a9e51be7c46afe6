package cgo

/*
#include "launch.h"
*/
import "C"

import (
	"github.com/zestall/zestall/collector/timing"
)

// source implements timing.Source over launch.c.
type source struct {
	raw  []C.zl_slot_t
	hbuf []C.uint64_t // harvest results, 4 words each
}

var _ timing.Source = (*source)(nil)

func (s *source) Drain(dst []timing.Slot) []timing.Slot {
	if s.raw == nil {
		s.raw = make([]C.zl_slot_t, 4096)
	}
	for {
		n := int(C.zl_drain(&s.raw[0], C.uint32_t(len(s.raw))))
		for i := 0; i < n; i++ {
			r := &s.raw[i]
			dst = append(dst, timing.Slot{
				Kind:        timing.SlotKind(r.kind),
				HostNs:      uint64(r.host_ns),
				List:        uint64(r.list),
				Event:       uint64(r.event),
				Device:      uint64(r.device),
				Context:     uint64(r.context),
				Queue:       uint64(r.queue),
				KernelID:    uint32(r.kernel_id),
				ListID:      uint32(r.list_id),
				GroupCount:  [3]uint32{uint32(r.group_count[0]), uint32(r.group_count[1]), uint32(r.group_count[2])},
				GroupSize:   [3]uint16{uint16(r.group_size[0]), uint16(r.group_size[1]), uint16(r.group_size[2])},
				LaunchKind:  uint8(r.launch_kind),
				Flags:       uint8(r.flags),
				Reason:      uint8(r.reason),
				EvIndex:     uint32(r.ev_index),
				Harvest:     uint64(r.harvest),
				HarvestPrev: uint64(r.harvest_prev),
				Seq:         uint64(r.seq),
			})
			if r.kind == C.ZL_SLOT_APP_TS {
				d := &dst[len(dst)-1]
				d.TS = timing.KernelTimestamp{Start: uint64(r.list), End: uint64(r.device),
					ContextStart: uint64(r.context), ContextEnd: uint64(r.queue)}
				d.List, d.Device, d.Context, d.Queue = 0, 0, 0, 0
			}
		}
		if n < len(s.raw) {
			return dst
		}
	}
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

func (s *source) Dropped() uint64 { return uint64(C.zl_dropped()) }

func (s *source) SerializeTimeouts() uint64 { return uint64(C.zl_serialize_timeouts()) }

func (s *source) KernelTimestamp(event uint64) (timing.KernelTimestamp, bool, error) {
	var st, en, cs, ce C.uint64_t
	r := C.zl_kernel_timestamp(C.uint64_t(event), &st, &en, &cs, &ce)
	switch r {
	case C.ZE_RESULT_SUCCESS:
		return timing.KernelTimestamp{Start: uint64(st), End: uint64(en), ContextStart: uint64(cs), ContextEnd: uint64(ce)}, true, nil
	case C.ZE_RESULT_NOT_READY:
		return timing.KernelTimestamp{}, false, nil
	default:
		return timing.KernelTimestamp{}, false, Result(r)
	}
}

func (s *source) HarvestResults(unit uint64, dst []timing.KernelTimestamp) ([]timing.KernelTimestamp, bool, error) {
	if cap(s.hbuf) == 0 {
		s.hbuf = make([]C.uint64_t, 4*64)
	}
	for {
		var n C.uint32_t
		r := C.zl_harvest_results(C.uint64_t(unit), &s.hbuf[0], C.uint32_t(len(s.hbuf)/4), &n)
		switch r {
		case C.ZE_RESULT_SUCCESS:
		case C.ZE_RESULT_NOT_READY:
			return dst, false, nil
		default:
			return dst, false, Result(r)
		}
		if int(n)*4 > len(s.hbuf) {
			s.hbuf = make([]C.uint64_t, 4*int(n))
			continue
		}
		for i := 0; i < int(n); i++ {
			w := s.hbuf[4*i : 4*i+4]
			dst = append(dst, timing.KernelTimestamp{Start: uint64(w[0]), End: uint64(w[1]),
				ContextStart: uint64(w[2]), ContextEnd: uint64(w[3])})
		}
		return dst, true, nil
	}
}

func (s *source) HarvestRelease(unit uint64) { C.zl_harvest_release(C.uint64_t(unit)) }

func (s *source) ListSubmits(list uint64) uint64 { return uint64(C.zl_list_submits(C.uint64_t(list))) }

func (s *source) ReleaseEvent(context, event uint64) {
	C.zl_release_event(C.uint64_t(context), C.uint64_t(event))
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
