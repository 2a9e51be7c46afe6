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

/* From Go, at activation: copies made per eligible module at its create
 * (0: mode off), the most copies the ring may grow to (max_copies >
 * copies starts the copier thread), the reuse interval (ns): a code is
 * free again that long after its last launch ended, and the most ISA
 * bytes all copies may take. */
void zsep_configure(uint32_t copies, uint32_t max_copies, uint64_t reuse_ns, uint64_t mem_limit);
/* From Go at exit: stops the copier, waits up to timeout_ns for a copy in
 * the making. False: it did not finish. */
bool zsep_stop(uint64_t timeout_ns);
/* zeContextDestroy prologue: no more copies on ctx; waits for one in the
 * making. */
void zsep_context_destroying(uint64_t ctx);

/* True on zestall's copier thread: layer.c ignores the module calls it
 * makes (they are traced, being outside any callback). */
bool zsep_internal_thread(void);

/* layer.c, module and kernel create epilogues and destroy prologues (the module's
 * context and build flags, the kernel's creation flags, before Go runs). */
void zsep_module_seen(ze_module_handle_t m, ze_context_handle_t ctx, const char *build_flags);
void zsep_module_destroyed(ze_module_handle_t m);
void zsep_kernel_flags(ze_kernel_flags_t flags);
void zsep_kernel_destroyed(ze_kernel_handle_t k);

/* From Go: makes the configured copies of module m from its native
 * binary (same context, device and build flags) and keeps the binary for
 * copies made later; isa_each is one copy's ISA bytes. Returns the number
 * made (all or none of those the memory limit allows; *limited: it allowed
 * fewer than configured); *ns the time it took, *failed the failing
 * call's result. */
uint32_t zsep_module_copy(ze_module_handle_t m, ze_device_handle_t dev, const void *native, size_t size,
                          uint64_t isa_each, uint64_t *ns, ze_result_t *failed, bool *limited);
/* From Go, in the zeKernelCreate epilogue: k (launch records' kernel id
 * id) is separated when its module has copies. Its kernels in the copies
 * are created at first use (zestallCopyKernelCreated tells Go). */
bool zsep_kernel_created(ze_kernel_handle_t k, ze_module_handle_t m, const char *name, uint32_t id,
                         ze_result_t *failed);
/* From the harvester (Go): a launch of kernel id that ran code `code`,
 * appended at append_ns, ended at end_ns (host ns): the code's samples
 * can arrive until end_ns + the reuse interval. */
void zsep_ran(uint32_t id, uint32_t code, uint64_t append_ns, uint64_t end_ns, bool immediate);

/* launch.c: the launch prologue substitutes *phKernel when record is
 * true; the epilogue puts the application's kernel back and returns the
 * code the launch ran (0: its own). */
void zsep_prologue(ze_kernel_handle_t *phKernel, bool record);
uint16_t zsep_epilogue(ze_kernel_handle_t *phKernel);
/* launch.c's zeKernelSetGroupSize epilogue (successful calls). */
void zsep_group_size(ze_kernel_handle_t k, uint32_t x, uint32_t y, uint32_t z);
/* Registers the other kernel-state setters' epilogues. */
void zsep_register(zel_tracer_handle_t tracer);

/* Counters, read by Go. */
typedef struct zsep_counters {
    uint64_t on_copies;        /* launches that ran on a copy */
    uint64_t early_reuses;     /* launches that found every code busy */
    uint64_t fallbacks;        /* launches that kept the original: a copy could not be given the state */
    uint64_t copies_made;      /* module copies made (at create and grown) */
    uint64_t copy_isa_bytes;   /* their ISA bytes */
    uint64_t kernels_made;     /* kernels created in copies (lazily) */
    uint64_t kernel_create_ns; /* time those creations took on the application's threads */
    uint64_t grow_failed;      /* copies the copier failed to make */
} zsep_counters_t;
void zsep_counters(zsep_counters_t *c);

#endif
