package cgo

/*
#include <stdlib.h>
#include "separate.h"
*/
import "C"

import (
	"unsafe"

	"github.com/zestall/zestall/collector"
	"github.com/zestall/zestall/ze"
)

// copies implements collector.CopySource over separate.c.
type copies struct{}

var _ collector.CopySource = copies{}

func (copies) Configure(n int, reuseNs uint64) {
	C.zsep_configure(C.uint32_t(max(n, 0)), C.uint64_t(reuseNs))
}

func (copies) Counters() (onCopies, earlyReuses, fallbacks uint64) {
	var a, b, c C.uint64_t
	C.zsep_counters(&a, &b, &c)
	return uint64(a), uint64(b), uint64(c)
}

// copyModule makes the copies of a module the application just created,
// when the mode is on and its zebin allows (inside the zeModuleCreate
// epilogue: zestall's zeModuleCreate calls are not traced).
func copyModule(h Handler, mod *collector.Module, m C.ze_module_handle_t, dev C.ze_device_handle_t) {
	n := h.CodeCopies()
	if n <= 0 {
		return
	}
	e := h.CopyEligibility(mod.Native)
	if e.Reason != "" {
		mod.CopyReason = e.Reason
		return
	}
	var ns C.uint64_t
	var failed C.ze_result_t
	made := C.zsep_module_copy(m, dev, unsafe.Pointer(&mod.Native[0]), C.size_t(len(mod.Native)), C.uint32_t(n), &ns, &failed)
	mod.CopyNs = uint64(ns)
	if made == 0 {
		mod.CopyReason = "zeModuleCreate of a copy failed: " + ze.Result(failed).Error()
		return
	}
	mod.CodeCopies = int(made)
	mod.CopyISABytes = e.ISABytes * uint64(made)
}

// copyKernel creates the kernel in every copy of its module and records
// their base addresses.
func copyKernel(kern *collector.Kernel, k C.ze_kernel_handle_t, m C.ze_module_handle_t) {
	if kern.Name == "" {
		return
	}
	name := C.CString(kern.Name)
	defer C.free(unsafe.Pointer(name))
	var bases [C.ZSEP_MAX_CODES]C.uint64_t
	var failed C.ze_result_t
	n := C.zsep_kernel_created(k, m, name, &bases[0], C.uint32_t(len(bases)), &failed)
	for i := 0; i < int(n); i++ {
		kern.CopyBases = append(kern.CopyBases, uint64(bases[i]))
	}
}
