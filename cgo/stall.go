package cgo

/*
#include <stdlib.h>
#include "stall.h"
*/
import "C"

import (
	"os"
	"sync"
	"unsafe"

	"github.com/zestall/zestall/collector/sampling"
	"github.com/zestall/zestall/ze"
)

// stallSource implements sampling.Source over stall.c. Streams live
// in C memory (C keeps pointers into them); Go refers to them by index.
type stallSource struct {
	mu      sync.Mutex
	streams []*C.zs_stream_t
	vals    []C.uint64_t
}

var _ sampling.Source = (*stallSource)(nil)

func (s *stallSource) Open(device uint64, periodNs uint32) *sampling.Stream {
	cs := (*C.zs_stream_t)(C.malloc(C.sizeof_zs_stream_t))
	if cs == nil {
		return &sampling.Stream{Off: sampling.OffOpenFailed, Detail: "out of memory"}
	}
	// Everything but the metrics table is cleared: zs_open writes each
	// entry it counts in num_metrics whole, and the 24 KiB table, cleared,
	// cost every activation 6 page faults per root device, also where the
	// driver has no metrics (issue 14, start-up).
	b := unsafe.Slice((*byte)(unsafe.Pointer(cs)), C.sizeof_zs_stream_t)
	from := unsafe.Offsetof(cs.metrics)
	clear(b[:from])
	clear(b[from+unsafe.Sizeof(cs.metrics):])
	C.zs_open_device(cs, C.uint64_t(device), C.uint32_t(periodNs))
	st := &sampling.Stream{
		Device:        device,
		Result:        ze.Result(cs.result),
		PeriodNs:      uint32(cs.period_ns),
		NotifyReports: uint32(cs.notify_reports),
		SubDevices:    uint32(cs.sub_devices),
		IPIndex:       int(cs.ip_index),
	}
	switch off := sampling.Off(cs.status); off {
	case sampling.On, sampling.OffNoMetrics, sampling.OffNoGroup:
		st.Off = off // one set of values: cgo/abi.h
	default:
		st.Off = sampling.OffOpenFailed
	}
	for i := 0; i < int(cs.num_metrics) && i < C.ZS_MAX_METRICS; i++ {
		m := &cs.metrics[i]
		st.Metrics = append(st.Metrics, sampling.Metric{
			Name:        C.GoString(&m.name[0]),
			Description: C.GoString(&m.description[0]),
			Units:       C.GoString(&m.units[0]),
			Type:        uint32(m._type),
		})
	}
	if st.Off != sampling.On {
		C.free(unsafe.Pointer(cs))
		return st
	}
	s.mu.Lock()
	st.Handle = len(s.streams)
	s.streams = append(s.streams, cs)
	s.mu.Unlock()
	return st
}

func (s *stallSource) stream(st *sampling.Stream) *C.zs_stream_t {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.Off != sampling.On || st.Handle < 0 || st.Handle >= len(s.streams) {
		return nil
	}
	return s.streams[st.Handle]
}

// Read reads raw records into buf (Go memory, pinned for the call).
func (s *stallSource) Read(st *sampling.Stream, buf []byte) (int, bool, error) {
	cs := s.stream(st)
	if cs == nil || len(buf) == 0 {
		return 0, false, ze.ErrorUninitialized
	}
	size := C.size_t(len(buf))
	r := C.zs_read(cs, (*C.uint8_t)(unsafe.Pointer(&buf[0])), &size)
	switch r {
	case C.ZE_RESULT_SUCCESS:
		return int(size), false, nil
	case C.ZE_RESULT_WARNING_DROPPED_DATA:
		return int(size), true, nil
	default:
		return 0, false, ze.Call("zetMetricStreamerReadData", uint32(r))
	}
}

func (s *stallSource) Notified(st *sampling.Stream) bool {
	cs := s.stream(st)
	return cs != nil && C.zs_notified(cs) != 0
}

// Calculate runs zetMetricGroupCalculateMultipleMetricValuesExp: values
// per set, report-major in metric order.
func (s *stallSource) Calculate(st *sampling.Stream, raw []byte) ([][]uint64, bool, error) {
	cs := s.stream(st)
	if cs == nil || len(raw) == 0 {
		return nil, false, nil
	}
	craw := C.CBytes(raw)
	defer C.free(craw)
	var sets, total C.uint32_t
	r := C.zs_calculate_count(cs, (*C.uint8_t)(craw), C.size_t(len(raw)), &sets, &total)
	if r != C.ZE_RESULT_SUCCESS && r != C.ZE_RESULT_WARNING_DROPPED_DATA {
		return nil, false, ze.Call("zetMetricGroupCalculateMultipleMetricValuesExp", uint32(r))
	}
	if total == 0 || sets == 0 {
		return nil, false, nil
	}
	const maxSets = 16
	counts := make([]C.uint32_t, maxSets)
	vals := (*C.uint64_t)(C.calloc(C.size_t(total), 8))
	if vals == nil {
		return nil, false, ze.ErrorOutOfHostMemory
	}
	defer C.free(unsafe.Pointer(vals))
	r = C.zs_calculate(cs, (*C.uint8_t)(craw), C.size_t(len(raw)), &sets, &counts[0], maxSets, vals, &total)
	dropped := r == C.ZE_RESULT_WARNING_DROPPED_DATA
	if r != C.ZE_RESULT_SUCCESS && !dropped {
		return nil, false, ze.Call("zetMetricGroupCalculateMultipleMetricValuesExp", uint32(r))
	}
	all := unsafe.Slice((*uint64)(unsafe.Pointer(vals)), int(total))
	var out [][]uint64
	off := 0
	for i := 0; i < int(sets) && i < maxSets; i++ {
		n := int(counts[i])
		if off+n > len(all) {
			n = len(all) - off
		}
		out = append(out, append([]uint64(nil), all[off:off+n]...))
		off += n
	}
	return out, dropped, nil
}

func (s *stallSource) Close(st *sampling.Stream) {
	cs := s.stream(st)
	if cs != nil {
		C.zs_close(cs)
	}
}

// sysmanOnCore: Intel's driver serves Sysman calls on core device handles
// only when ZES_ENABLE_SYSMAN=1 was set at its initialisation (compute-
// runtime's zesDeviceProcessesGetState answers
// ZE_RESULT_ERROR_UNINITIALIZED otherwise, and after a zesInit it expects
// Sysman's own handles: a core handle must not reach it then). Read once.
var sysmanOnCore = sync.OnceValue(func() bool { return os.Getenv("ZES_ENABLE_SYSMAN") == "1" })

// OtherProcesses asks Sysman which other processes run work on the
// stream's device (only with ZES_ENABLE_SYSMAN=1, see sysmanOnCore).
func (s *stallSource) OtherProcesses(st *sampling.Stream) ([]uint32, error) {
	cs := s.stream(st)
	if cs == nil || !sysmanOnCore() {
		return nil, ze.ErrorUninitialized
	}
	var buf [256]C.uint32_t
	var n C.uint32_t
	if r := ze.Result(C.zs_other_processes(cs, &buf[0], C.uint32_t(len(buf)), &n)); r != ze.Success {
		return nil, r
	}
	out := make([]uint32, 0, int(n))
	for i := 0; i < int(n); i++ {
		out = append(out, uint32(buf[i]))
	}
	return out, nil
}
