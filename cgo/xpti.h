/*
 * xpti.h — zestall as an XPTI subscriber of the SYCL runtime (xpti.c):
 * the per-thread tag the launch path copies into each launch slot, and
 * what Go reads. Declarations only (see layer.h for why).
 *
 * The XPTI contract zestall relies on is docs/xpti.md; the correlation rule
 * is docs/xpti.md §9 "Correlating a SYCL task with its Level-Zero launch".
 */
#ifndef ZESTALL_CGO_XPTI_H
#define ZESTALL_CGO_XPTI_H

#include <stdint.h>

#include "abi.h"

/* The innermost SYCL task open on this thread (0, 0 outside any task).
 * Written by the XPTI callbacks, read by launch.c on the same thread. */
typedef struct zx_tag {
    uint64_t task;     /* task id (zx_record_t.id of its span) */
    uint32_t location; /* its source location id */
} zx_tag_t;
extern __thread zx_tag_t zx_tag __attribute__((tls_model("initial-exec")));

/* What the constructor decided (Header.sycl). */
typedef struct zx_setup {
    int state;               /* ZX_XPTI_* */
    int streams;             /* ZX_STREAM_* registered so far */
    int debug_policy;        /* other subscribers listed: register on sycl.debug too */
    const char *subscribers; /* XPTI_SUBSCRIBERS as the runtime will see it ("" unset) */
    const char *dispatcher;  /* XPTI_FRAMEWORK_DISPATCHER ("" unset) */
    const char *problem;     /* why XPTI callbacks could not be registered ("" none) */
} zx_setup_t;
void zx_get_setup(zx_setup_t *out);

/* One source location, immutable once published. */
typedef struct zx_location {
    const char *kernel_name;   /* metadata "kernel_name", as the runtime gave it ("" none) */
    const char *function_name; /* payload name */
    const char *file;          /* payload source file ("" none) */
    uint32_t line, column;
} zx_location_t;
/* Locations have ids 1..zx_location_count(); zx_location(id) is valid for
 * the life of the process. */
uint32_t zx_location_count(void);
const zx_location_t *zx_location(uint32_t id);

/* Copies up to cap pending records (the harvester goroutine only). */
uint32_t zx_drain(zx_record_t *dst, uint32_t cap);
uint64_t zx_lost(void);  /* records dropped: ring full, nesting too deep, too many locations */
/* The drain ends (exit): a full ring drops at once from now on. */
void zx_stop_draining(void);
uint64_t zx_tasks(void); /* task spans ended */

/* metadata.cpp: the value (an object id) of key in an XPTI metadata map
 * (a libstdc++ std::unordered_map<int32_t, int32_t>), -1 when absent. */
int32_t zx_metadata_find(const void *map, int32_t key);

#endif
