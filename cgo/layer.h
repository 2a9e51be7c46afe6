/*
 * layer.h — C side of zestall's Level-Zero glue: the zeInit interposer,
 * the tracer, and the callback trampolines that hand events to Go.
 * Declarations only; definitions are in layer.c (cgo rule: a file with
 * //export may only carry declarations in its preamble).
 */
#ifndef ZESTALL_CGO_LAYER_H
#define ZESTALL_CGO_LAYER_H

#include <stdint.h>
#include <stddef.h>
#include <level_zero/ze_api.h>

#include "abi.h"

/* Layer state (ZESTALL_STATE_*, abi.h), read by Go for status and by the
 * trampolines. */
int zestall_state(void);
int zestall_in_fork_child(void);

/* Level-Zero calls made by zestall's own threads (the reader and harvester
 * goroutines) run between zestall_driver_enter and _leave. fork() waits
 * until none is inside the driver (pthread_atfork), so a forked child never
 * inherits a driver lock held by a thread it does not have. The
 * application's own threads are not held back: their calls are its own. */
void zestall_driver_enter(void);
void zestall_driver_leave(void);
/* Defines name as name##_unguarded between enter and leave. */
#define ZESTALL_GUARDED(ret, name, params, args) \
    ret name params {                                 \
        zestall_driver_enter();                       \
        ret r_ = name##_unguarded args;               \
        zestall_driver_leave();                       \
        return r_;                                    \
    }
#define ZESTALL_GUARDED_VOID(name, params, args) \
    void name params {                                \
        zestall_driver_enter();                       \
        name##_unguarded args;                        \
        zestall_driver_leave();                       \
    }


/* Devices seen at activation (roots and sub-devices), read by Go. */
typedef struct zestall_device_info {
    void *handle;
    int parent;                    /* index of the root in this table, -1 for a root */
    int sub_index;                 /* sub-device index, -1 for a root */
    char name[256];
    uint32_t device_id;
    uint8_t uuid[16];
    uint32_t xe_cores;             /* numSlices * numSubslicesPerSlice */
    uint64_t timer_hz;             /* 1.2 properties: cycles per second */
    uint32_t timestamp_bits;
    uint32_t kernel_timestamp_bits;
} zestall_device_info_t;
int zestall_device_count(void);
const zestall_device_info_t *zestall_device(int i);

/* Small L0 helpers used from Go (never traced: they run inside callbacks
 * or from the collector goroutine through the re-entrancy guard). */
ze_result_t zestall_module_native_binary(ze_module_handle_t m, void *buf, size_t *size);
ze_result_t zestall_module_debug_info(ze_module_handle_t m, void *buf, size_t *size);
ze_result_t zestall_kernel_base_address(ze_kernel_handle_t k, uint64_t *base);
ze_result_t zestall_kernel_binary(ze_kernel_handle_t k, void *buf, size_t *size);
ze_result_t zestall_kernel_name(ze_kernel_handle_t k, char *buf, size_t *size);

#endif
