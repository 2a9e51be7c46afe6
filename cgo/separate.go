package cgo

/*
#include <stdlib.h>
#include "separate.h"
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/zestall/zestall/collector"
	"github.com/zestall/zestall/ze"
)

// copies implements collector.CopySource over separate.c.
type copies struct{}

var _ collector.CopySource = copies{}

func (copies) Configure(n, maxCopies int, reuseNs, memLimit uint64) {
	C.zsep_configure(C.uint32_t(max(n, 0)), C.uint32_t(max(maxCopies, 0)), C.uint64_t(reuseNs), C.uint64_t(memLimit))
}

func (copies) Ran(kernelID uint64, code uint32, appendNs, endNs uint64, immediate bool) {
	C.zsep_ran(C.uint32_t(kernelID), C.uint32_t(code), C.uint64_t(appendNs), C.uint64_t(endNs), C.bool(immediate))
}

func (copies) Stop(timeout time.Duration) bool {
	return bool(C.zsep_stop(C.uint64_t(timeout.Nanoseconds())))
}

func (copies) Counters() collector.CopyCounters {
	var c C.zsep_counters_t
	C.zsep_counters(&c)
	return collector.CopyCounters{
		OnCopies: uint64(c.on_copies), EarlyReuses: uint64(c.early_reuses), Fallbacks: uint64(c.fallbacks),
		CopiesMade: uint64(c.copies_made), CopyISABytes: uint64(c.copy_isa_bytes), KernelsMade: uint64(c.kernels_made),
		KernelCreateNs: uint64(c.kernel_create_ns), GrowFailed: uint64(c.grow_failed),
	}
}

// copyModule makes the first copies of a module the application just
// created, when the mode is on and its zebin allows (inside the
// zeModuleCreate epilogue: zestall's zeModuleCreate calls are not traced).
func copyModule(h Handler, mod *collector.Module, m C.ze_module_handle_t, dev C.ze_device_handle_t) {
	if h.CodeCopies() <= 0 {
		return
	}
	e := h.CopyEligibility(mod.Native)
	if e.Reason != "" {
		mod.CopyReason = e.Reason
		return
	}
	var ns C.uint64_t
	var failed C.ze_result_t
	var limited C.bool
	made := C.zsep_module_copy(m, dev, unsafe.Pointer(&mod.Native[0]), C.size_t(len(mod.Native)), C.uint64_t(e.ISABytes), &ns, &failed, &limited)
	mod.CopyNs = uint64(ns)
	switch {
	case made == 0 && bool(limited):
		mod.CopyReason = fmt.Sprintf("the copies' memory limit (ZESTALL_SEPARATE_MEMORY) leaves no room for a copy of %d bytes of ISA", e.ISABytes)
		return
	case made == 0:
		mod.CopyReason = "zeModuleCreate of a copy failed: " + ze.Result(failed).Error()
		return
	}
	mod.CodeCopies = int(made)
	mod.CopyISABytes = e.ISABytes * uint64(made)
}

// copyKernel makes the kernel separable: its kernels in the copies are
// created at their first launch (separate.c, zestallCopyKernelCreated).
func copyKernel(kern *collector.Kernel, k C.ze_kernel_handle_t, m C.ze_module_handle_t) {
	if kern.Name == "" || kern.ID == 0 {
		return
	}
	name := C.CString(kern.Name)
	defer C.free(unsafe.Pointer(name))
	var failed C.ze_result_t
	kern.Separated = bool(C.zsep_kernel_created(k, m, name, C.uint32_t(kern.ID), &failed))
}

// zestallCopyKernelCreated: separate.c created kernel id's kernel in copy
// code at base, on an application thread at its first launch on that copy.
//
//export zestallCopyKernelCreated
func zestallCopyKernelCreated(id C.uint32_t, code C.uint32_t, base C.uint64_t) {
	defer recoverTo("copy kernel creation")
	if h := current(); h != nil {
		h.CopyKernelCreated(uint64(id), uint32(code), uint64(base))
	}
}

// copiesContextDestroying stops the copier from making copies on a
// context the application destroys (and waits for one in the making).
func copiesContextDestroying(ctx C.uint64_t) {
	C.zsep_context_destroying(C.uint64_t(ctx))
}
