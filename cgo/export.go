package cgo

/*
#cgo CFLAGS: -O2 -Wall -D_GNU_SOURCE
#cgo LDFLAGS: -lze_loader -ldl
#include <stdlib.h>
#include "layer.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"github.com/zestall/zestall/collector"
	"github.com/zestall/zestall/collector/attribution"
	"github.com/zestall/zestall/collector/sampling"
	"github.com/zestall/zestall/collector/timing"
	"github.com/zestall/zestall/collector/window"
	"github.com/zestall/zestall/ze"
)

// Handler receives the layer's events (implemented by *collector.Session).
// Its methods run on application threads inside Level-Zero callbacks (or in
// the exit-time destructor): they must not block on I/O and must not call
// Level Zero.
type Handler interface {
	Devices(devs []collector.Device)
	Timestamps(src timing.Source)
	Sycl(src collector.SyclSource)
	Stalls(src sampling.Source)
	ContextDestroying(context uint64)
	Status(st collector.LayerState, result ze.Result)
	ModuleCreated(m *collector.Module)
	ModuleDestroyed(handle uintptr)
	KernelCreated(k *collector.Kernel)
	KernelDestroyed(handle uintptr)
	Shutdown()
	SerializedRead()
	SyncPoint()
	Controls(src window.Source)
	ControlRequest(op window.Op) error
	LaunchEdge(on bool, n, ns uint64)
	// Launch separation by copies: the copy source, copies made per
	// eligible module at its create (0: off), whether a module may be
	// copied, and a kernel created in a copy at its first launch there.
	Copies(src collector.CopySource)
	CodeCopies() int
	CopyEligibility(native []byte) attribution.Eligibility
	CopyKernelCreated(kernelID uint64, code uint32, base uint64)
}

var handler atomic.Pointer[Handler]

// SetHandler installs h; events before that are dropped.
func SetHandler(h Handler) { handler.Store(&h) }

func current() Handler {
	if p := handler.Load(); p != nil {
		return *p
	}
	return nil
}

// recoverTo keeps a Go panic from killing the host application.
func recoverTo(where string) {
	if r := recover(); r != nil {
		fmt.Fprintf(os.Stderr, "zestall: internal error in %s: %v (ignored; the application continues)\n", where, r)
		if os.Getenv("ZESTALL_DEBUG_STACKS") == "1" {
			os.Stderr.Write(debug.Stack())
		}
	}
}

// LayerState reports the C side's state.
func LayerState() collector.LayerState { return collector.LayerState(C.zestall_state()) }

// Result is ze.Result under its old name, for the launch path's Go side
// (timestamps.go); new code uses ze.Result.
type Result = ze.Result

// zeErr turns a result into an error: nil for ZE_RESULT_SUCCESS.
func zeErr(r C.ze_result_t) error { return ze.Check(uint32(r)) }

// query runs a size-query-then-fill Level-Zero call into Go memory.
func query(call func(buf unsafe.Pointer, size *C.size_t) C.ze_result_t) ([]byte, error) {
	var n C.size_t
	if err := zeErr(call(nil, &n)); err != nil {
		return nil, err
	}
	if n == 0 {
		return []byte{}, nil
	}
	buf := C.malloc(n)
	if buf == nil {
		return nil, fmt.Errorf("out of memory for %d bytes", n)
	}
	defer C.free(buf)
	if err := zeErr(call(buf, &n)); err != nil {
		return nil, err
	}
	return C.GoBytes(buf, C.int(n)), nil
}

//export zestallReport
func zestallReport(state C.int, code C.uint32_t) {
	defer recoverTo("status")
	h := current()
	if h == nil {
		return
	}
	if collector.LayerState(state) == collector.StateActive {
		h.Devices(devices())
		h.Timestamps(&source{})
		h.Sycl(&syclSource{})
		h.Stalls(&stallSource{})
		h.Controls(controls{})
		h.Copies(copies{})
	}
	h.Status(collector.LayerState(state), ze.Result(code))
}

// devices copies the device table the C side filled at activation.
func devices() []collector.Device {
	n := int(C.zestall_device_count())
	devs := make([]collector.Device, 0, n)
	for i := 0; i < n; i++ {
		d := C.zestall_device(C.int(i))
		if d == nil {
			continue
		}
		devs = append(devs, collector.Device{
			Handle:              uintptr(d.handle),
			Parent:              int(d.parent),
			SubIndex:            int(d.sub_index),
			Name:                C.GoString(&d.name[0]),
			PCIDeviceID:         uint32(d.device_id),
			UUID:                C.GoBytes(unsafe.Pointer(&d.uuid[0]), 16),
			XeCores:             uint32(d.xe_cores),
			TimerHz:             uint64(d.timer_hz),
			TimestampBits:       uint32(d.timestamp_bits),
			KernelTimestampBits: uint32(d.kernel_timestamp_bits),
		})
	}
	return devs
}

//export zestallModuleCreated
func zestallModuleCreated(m C.ze_module_handle_t, dev C.ze_device_handle_t) {
	defer recoverTo("zeModuleCreate epilogue")
	h := current()
	if h == nil {
		return
	}
	mod := &collector.Module{Handle: uintptr(unsafe.Pointer(m)), Device: uintptr(unsafe.Pointer(dev))}
	mod.Native, mod.NativeErr = query(func(b unsafe.Pointer, n *C.size_t) C.ze_result_t {
		return C.zestall_module_native_binary(m, b, n)
	})
	mod.Debug, mod.DebugErr = query(func(b unsafe.Pointer, n *C.size_t) C.ze_result_t {
		return C.zestall_module_debug_info(m, b, n)
	})
	if mod.NativeErr == nil && len(mod.Native) > 0 {
		copyModule(h, mod, m, dev)
	}
	h.ModuleCreated(mod)
}

//export zestallModuleDestroyed
func zestallModuleDestroyed(m C.ze_module_handle_t) {
	defer recoverTo("zeModuleDestroy prologue")
	if h := current(); h != nil {
		h.ModuleDestroyed(uintptr(unsafe.Pointer(m)))
	}
}

//export zestallContextDestroying
func zestallContextDestroying(ctx C.uint64_t) {
	defer recoverTo("zeContextDestroy prologue")
	copiesContextDestroying(ctx)
	if h := current(); h != nil {
		h.ContextDestroying(uint64(ctx))
	}
}

//export zestallKernelCreated
func zestallKernelCreated(k C.ze_kernel_handle_t, m C.ze_module_handle_t, id C.uint32_t) {
	defer recoverTo("zeKernelCreate epilogue")
	h := current()
	if h == nil {
		return
	}
	kern := &collector.Kernel{ID: uint64(id), Handle: uintptr(unsafe.Pointer(k)), Module: uintptr(unsafe.Pointer(m))}
	name, err := query(func(b unsafe.Pointer, n *C.size_t) C.ze_result_t {
		return C.zestall_kernel_name(k, (*C.char)(b), n)
	})
	if err == nil {
		for len(name) > 0 && name[len(name)-1] == 0 {
			name = name[:len(name)-1]
		}
		kern.Name = string(name)
	}
	var base C.uint64_t
	kern.BaseErr = zeErr(C.zestall_kernel_base_address(k, &base))
	kern.Base = uint64(base)
	kern.ISA, kern.ISAErr = query(func(b unsafe.Pointer, n *C.size_t) C.ze_result_t {
		return C.zestall_kernel_binary(k, b, n)
	})
	if kern.BaseErr == nil && h.CodeCopies() > 0 {
		copyKernel(kern, k, m)
	}
	h.KernelCreated(kern)
}

//export zestallKernelDestroyed
func zestallKernelDestroyed(k C.ze_kernel_handle_t) {
	defer recoverTo("zeKernelDestroy prologue")
	if h := current(); h != nil {
		h.KernelDestroyed(uintptr(unsafe.Pointer(k)))
	}
}

//export zestallSerializedRead
func zestallSerializedRead() {
	defer recoverTo("serialized read")
	if h := current(); h != nil {
		h.SerializedRead()
	}
}

//export zestallSyncPoint
func zestallSyncPoint() {
	defer recoverTo("synchronisation epilogue")
	if h := current(); h != nil {
		h.SyncPoint()
	}
}

//export zestallShutdown
func zestallShutdown() {
	defer recoverTo("exit")
	if h := current(); h != nil {
		h.Shutdown()
	}
}
