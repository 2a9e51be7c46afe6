package cgo

/*
#include "xpti.h"
*/
import "C"

import (
	"unsafe"

	"github.com/zestall/zestall/collector"
)

// syclSource implements collector.SyclSource over xpti.c.
type syclSource struct {
	raw []C.zx_record_t
}

var _ collector.SyclSource = (*syclSource)(nil)

func (*syclSource) Setup() collector.SyclSetup {
	var st C.zx_setup_t
	C.zx_get_setup(&st)
	return collector.SyclSetup{
		State: int(st.state), Streams: int(st.streams),
		Subscribers: C.GoString(st.subscribers), Dispatcher: C.GoString(st.dispatcher),
		Problem: C.GoString(st.problem),
	}
}

func (*syclSource) Locations(from uint32, dst []collector.SyclLocation) []collector.SyclLocation {
	n := uint32(C.zx_location_count())
	for id := from + 1; id <= n; id++ {
		l := C.zx_location(C.uint32_t(id))
		if l == nil {
			break
		}
		dst = append(dst, collector.SyclLocation{
			ID: id, KernelName: C.GoString(l.kernel_name), FunctionName: C.GoString(l.function_name),
			File: C.GoString(l.file), Line: uint32(l.line), Column: uint32(l.column),
		})
	}
	return dst
}

// syclBatch is how many records one Drain copies.
const syclBatch = 1024

func (s *syclSource) Drain(dst []collector.SyclRecord) []collector.SyclRecord {
	if s.raw == nil {
		s.raw = make([]C.zx_record_t, syclBatch)
	}
	n := int(C.zx_drain((*C.zx_record_t)(unsafe.Pointer(&s.raw[0])), C.uint32_t(len(s.raw))))
	for i := 0; i < n; i++ {
		r := &s.raw[i]
		dst = append(dst, collector.SyclRecord{
			Kind: uint8(r.kind), Span: uint8(r.span), HasQueue: r.has_queue != 0, Depth: uint8(r.depth),
			BeginNs: uint64(r.begin_ns), EndNs: uint64(r.end_ns), ID: uint64(r.id), Node: uint64(r.node),
			Target: uint64(r.target), Queue: uint64(r.queue), Instance: uint64(r.instance),
			Location: uint32(r.location), TID: uint32(r.tid),
		})
	}
	return dst
}

func (*syclSource) Counts() (tasks, lost uint64) {
	return uint64(C.zx_tasks()), uint64(C.zx_lost())
}
