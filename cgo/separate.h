/*
 * separate.h — launch separation by module copies (issue 15,
 * ZESTALL_SEPARATE_LAUNCHES=copies): per eligible module a ring of copies
 * made from its native binary, per application kernel one kernel per
 * copy, and the launch prologue's substitution of the application's
 * kernel by the next copy's, with the kernel state mirrored onto it.
 * Declarations only; definitions in separate.c.
 */
#ifndef ZESTALL_CGO_SEPARATE_H
#define ZESTALL_CGO_SEPARATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <level_zero/ze_api.h>
#include <level_zero/layers/zel_tracing_api.h>

#include "abi.h"

#define ZSEP_MAX_CODES (ZESTALL_MAX_CODE_COPIES + 1) /* the original and its copies */

/* From Go, at activation: copies per eligible module (0: mode off) and
 * the reuse interval (ns) below which reusing a code counts as early. */
void zsep_configure(uint32_t copies, uint64_t reuse_ns);

/* layer.c, module and kernel create/destroy epilogues (the module's
 * context and build flags, the kernel's creation flags, before Go runs). */
void zsep_module_seen(ze_module_handle_t m, ze_context_handle_t ctx, const char *build_flags);
void zsep_module_destroyed(ze_module_handle_t m);
void zsep_kernel_flags(ze_kernel_flags_t flags);
void zsep_kernel_destroyed(ze_kernel_handle_t k);

/* From Go: makes n copies of module m from its native binary (same
 * context, device and build flags). Returns the number made (all or
 * none); *ns the time it took, *failed the failing call's result. */
uint32_t zsep_module_copy(ze_module_handle_t m, ze_device_handle_t dev, const void *native, size_t size,
                          uint32_t n, uint64_t *ns, ze_result_t *failed);
/* From Go, in the zeKernelCreate epilogue: creates kernel k's kernel in
 * every copy of its module and writes their base addresses to
 * bases[0..copies) (bases[i] is copy i+1's). Returns the number of copies
 * (0: k is not separated; *failed says why when a call failed). */
uint32_t zsep_kernel_created(ze_kernel_handle_t k, ze_module_handle_t m, const char *name, uint64_t *bases,
                             uint32_t cap, ze_result_t *failed);

/* launch.c: the launch prologue substitutes *phKernel when record is
 * true; the epilogue puts the application's kernel back and returns the
 * code the launch ran (0: its own). */
void zsep_prologue(ze_kernel_handle_t *phKernel, bool record);
uint16_t zsep_epilogue(ze_kernel_handle_t *phKernel);
/* launch.c's zeKernelSetGroupSize epilogue (successful calls). */
void zsep_group_size(ze_kernel_handle_t k, uint32_t x, uint32_t y, uint32_t z);
/* Registers the other kernel-state setters' epilogues. */
void zsep_register(zel_tracer_handle_t tracer);

/* Counters, read by Go: launches that ran on a copy, launches whose code
 * was reused within the reuse interval, launches that kept the original
 * because the state could not be mirrored. */
void zsep_counters(uint64_t *on_copies, uint64_t *early_reuses, uint64_t *fallbacks);

#endif
