/*
 * timestamp_copies.c — device-side copies of immediate lists' kernel
 * timestamps, for Go's harvester (collector/timing through
 * cgo/timestamps.go).
 *
 * A launch on an immediate list signals one of zestall's events, which
 * then holds that launch's times. Read on the host, that is one driver
 * query per launch; on the Data Center GPU Max and Xe2 Intel's driver
 * keeps event memory in the device, so each query is an uncached read
 * across PCIe, on zestall's harvester (docs/level-zero-loader.md §8.7
 * "What one event costs on Intel's driver"). Here the device copies a
 * batch's timestamps into host memory instead
 * (zeCommandListAppendQueryKernelTimestamps, docs/level-zero-loader.md
 * §8.8 "Copying timestamps on the device"), and the harvester polls one
 * marker event per batch and reads plain memory.
 *
 * A copier per (context, device): a command queue of zestall's own on the
 * device's compute group (its last queue index, so that on a device with
 * several compute engines the copies' waits do not sit on the engine the
 * application most likely uses), and ZL_COPY_UNITS copies, each a regular
 * command list, a host-memory result array and a marker event. A copy is
 * recorded anew for each batch (reset, query, close), which also frees
 * the driver's per-call allocation (64 KiB on Intel's), and executed on
 * the copier's queue. Its wait list is the batch's own events: the query
 * itself does not wait for them, and every one of them was appended by
 * the application before the batch was made (its slot is published at
 * the end of the append), so the wait never precedes its producer.
 *
 * Callers: only Go's harvester, under its lock (Harvester.mu): zl_copy_*
 * from its passes, zl_context_destroy (event_pools.c) from
 * Harvester.ContextDestroying. So the copiers need no lock of their own.
 * zestall's driver calls here are made inside one traced call per start
 * or poll (run_in_batch, cgo/event_reads.c), so the tracing layer passes
 * them straight to the driver and the launch path's callbacks never see
 * the copier's lists, queue, executions and markers
 * (docs/level-zero-loader.md §5.5 "Re-entrancy guard"); a context's
 * copiers are destroyed inside its zeContextDestroy prologue.
 */
#include "launch_internal.h"

#include <stdio.h>

#include "layer.h"

enum { ZL_COPY_FREE = 0, ZL_COPY_INFLIGHT = 1, ZL_COPY_ABANDONED = 2 };

/* Copies in flight per (context, device): a pass submits at most one per
 * (context, device), and a copy completes after its batch's kernels. */
#define ZL_COPY_UNITS 8
/* How long a context's destruction waits for its copies still in flight. */
#define ZL_COPY_DESTROY_WAIT_NS 2000000000ull

typedef struct zl_copier zl_copier_t;

typedef struct zl_copy {
    uint32_t state; /* ZL_COPY_*; ABANDONED: in flight, its results not wanted */
    uint32_t n, cap; /* events copied; results ts holds */
    bool recorded;
    zl_copier_t *copier;
    ze_command_list_handle_t cl;
    ze_event_handle_t marker;
    ze_kernel_timestamp_result_t *ts; /* zeMemAllocHost */
} zl_copy_t;

struct zl_copier {
    uint64_t ctx, dev;
    zl_ctxpool_t *pool;
    ze_command_queue_handle_t q; /* NULL: the copier could not be made */
    uint32_t ordinal;
    zl_copy_t units[ZL_COPY_UNITS];
    zl_copier_t *link;
};

static zl_copier_t *copiers;
static _Atomic uint64_t copies_made, events_copied, copies_failed;

/* The device's first compute queue group and its last queue index, or
 * false. */
static bool compute_queue(ze_device_handle_t dev, uint32_t *ordinal, uint32_t *index) {
    uint32_t n = 0;
    if (zeDeviceGetCommandQueueGroupProperties(dev, &n, NULL) != ZE_RESULT_SUCCESS || n == 0) return false;
    ze_command_queue_group_properties_t *g = calloc(n, sizeof *g);
    if (g == NULL) return false;
    for (uint32_t i = 0; i < n; i++) g[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    bool ok = false;
    if (zeDeviceGetCommandQueueGroupProperties(dev, &n, g) == ZE_RESULT_SUCCESS)
        for (uint32_t i = 0; i < n && !ok; i++)
            if ((g[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) && g[i].numQueues > 0) {
                *ordinal = i;
                *index = g[i].numQueues - 1;
                ok = true;
            }
    free(g);
    return ok;
}

/* Said once per process: a device whose timestamps zestall cannot copy
 * is read on the host, as with ZESTALL_TIMESTAMP_READS=host. */
static void copies_unavailable(const char *why, ze_result_t r) {
    static atomic_bool said;
    if (atomic_exchange(&said, true)) return;
    fprintf(stderr,
            "zestall: kernel timestamps cannot be copied on the device (%s, result 0x%x): each launch's event is "
            "queried on the host instead (ZESTALL_TIMESTAMP_READS=device, the default)\n",
            why, (unsigned)r);
}

static zl_copier_t *copier_of(uint64_t ctx, uint64_t dev) {
    for (zl_copier_t *c = copiers; c != NULL; c = c->link)
        if (c->ctx == ctx && c->dev == dev) return c;
    zl_copier_t *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->ctx = ctx;
    c->dev = dev;
    c->link = copiers;
    copiers = c;
    c->pool = ctxpool_of((ze_context_handle_t)(uintptr_t)ctx, true);
    uint32_t index = 0;
    if (c->pool == NULL) return c;
    if (!compute_queue((ze_device_handle_t)(uintptr_t)dev, &c->ordinal, &index)) {
        copies_unavailable("the device has no compute queue group", 0);
        return c;
    }
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, c->ordinal, index, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_result_t r = zeCommandQueueCreate((ze_context_handle_t)(uintptr_t)ctx, (ze_device_handle_t)(uintptr_t)dev,
                                         &qd, &c->q);
    if (r != ZE_RESULT_SUCCESS) {
        c->q = NULL;
        copies_unavailable("zeCommandQueueCreate failed", r);
    }
    return c;
}

/* A free unit of c, made on first use; NULL when all are in flight or a
 * unit cannot be made (*broken). An abandoned copy (its results given up:
 * the harvester stopped waiting for it and read its events on the host,
 * which reset and reused them) is free again once it completed; until
 * then nothing is submitted behind it on the in-order queue, where it
 * might wait for an event that is never signalled again (*broken: the
 * batch is read on the host). */
static zl_copy_t *unit_take(zl_copier_t *c, bool *broken) {
    for (uint32_t k = 0; k < ZL_COPY_UNITS; k++) {
        zl_copy_t *u = &c->units[k];
        if (u->state != ZL_COPY_ABANDONED) continue;
        if (zeEventQueryStatus(u->marker) != ZE_RESULT_SUCCESS) {
            *broken = true;
            return NULL;
        }
        zeEventHostReset(u->marker);
        u->state = ZL_COPY_FREE;
    }
    /* The lowest free unit: a copy that completes before the next one
     * starts (as in a launch-bound loop) leaves the others unmade, and
     * their result arrays unallocated. */
    for (uint32_t k = 0; k < ZL_COPY_UNITS; k++) {
        zl_copy_t *u = &c->units[k];
        if (u->state != ZL_COPY_FREE) continue;
        if (u->cl == NULL) {
            uint8_t reason;
            u->copier = c;
            u->marker = event_get_shared(c->pool, &reason);
            ze_command_list_desc_t d = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, c->ordinal, 0};
            if (u->marker == NULL || zeCommandListCreate((ze_context_handle_t)(uintptr_t)c->ctx,
                                                         (ze_device_handle_t)(uintptr_t)c->dev, &d,
                                                         &u->cl) != ZE_RESULT_SUCCESS) {
                event_put_shared(c->pool, u->marker);
                u->marker = NULL;
                u->cl = NULL;
                *broken = true;
                return NULL;
            }
        }
        return u;
    }
    return NULL;
}

/* Records and submits u's copy of n events. */
static bool unit_submit(zl_copy_t *u, const uint64_t *events, uint32_t n) {
    zl_copier_t *c = u->copier;
    if (u->cap < n) {
        if (u->ts != NULL) zeMemFree((ze_context_handle_t)(uintptr_t)c->ctx, u->ts);
        u->ts = NULL;
        u->cap = 0;
        uint32_t cap = n < 1024 ? 1024 : n;
        ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
        void *m = NULL;
        if (zeMemAllocHost((ze_context_handle_t)(uintptr_t)c->ctx, &hd, (size_t)cap * sizeof *u->ts, 64, &m) !=
            ZE_RESULT_SUCCESS)
            return false;
        u->ts = m;
        u->cap = cap;
    }
    if (u->recorded && zeCommandListReset(u->cl) != ZE_RESULT_SUCCESS) return false;
    u->recorded = true;
    ze_event_handle_t *evs = (ze_event_handle_t *)(uintptr_t)events; /* a handle is a pointer: same layout */
    if (zeCommandListAppendQueryKernelTimestamps(u->cl, n, evs, u->ts, NULL, u->marker, n, evs) !=
            ZE_RESULT_SUCCESS ||
        zeCommandListClose(u->cl) != ZE_RESULT_SUCCESS ||
        zeCommandQueueExecuteCommandLists(c->q, 1, &u->cl, NULL) != ZE_RESULT_SUCCESS)
        return false;
    u->n = n;
    u->state = ZL_COPY_INFLIGHT;
    return true;
}

/* zl_copy_start's work, made inside one traced call (run_in_batch). */
typedef struct {
    uint64_t ctx, dev;
    const uint64_t *events;
    uint32_t n, status;
    uint64_t handle;
} copy_start_t;

static void copy_start(void *arg) {
    copy_start_t *a = arg;
    a->status = ZL_COPY_UNAVAILABLE;
    zl_copier_t *c = copier_of(a->ctx, a->dev);
    if (c != NULL && c->q != NULL) {
        bool broken = false;
        zl_copy_t *u = unit_take(c, &broken);
        if (u == NULL) {
            a->status = broken ? ZL_COPY_FAILED : ZL_COPY_BUSY;
        } else if (unit_submit(u, a->events, a->n)) {
            a->status = ZL_COPY_STARTED;
            a->handle = (uint64_t)(uintptr_t)u;
        } else {
            a->status = ZL_COPY_FAILED;
        }
    }
}

static uint64_t zl_copy_start_unguarded(uint64_t ctx, uint64_t dev, const uint64_t *events, uint32_t n,
                                        uint32_t *status) {
    copy_start_t a = {.ctx = ctx, .dev = dev, .events = events, .n = n, .status = ZL_COPY_FAILED};
    if (n > 0 && n <= ZL_COPY_MAX_EVENTS) run_in_batch(events[0], copy_start, &a);
    switch (a.status) {
    case ZL_COPY_STARTED:
        atomic_fetch_add_explicit(&copies_made, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&events_copied, n, memory_order_relaxed);
        break;
    case ZL_COPY_FAILED:
    case ZL_COPY_UNAVAILABLE:
        atomic_fetch_add_explicit(&copies_failed, 1, memory_order_relaxed);
        break;
    }
    *status = a.status;
    return a.handle;
}
ZESTALL_GUARDED(uint64_t, zl_copy_start,
                (uint64_t ctx, uint64_t dev, const uint64_t *events, uint32_t n, uint32_t *status),
                (ctx, dev, events, n, status))

/* zl_copy_results' work, made inside one traced call (run_in_batch). */
typedef struct {
    zl_copy_t *u;
    zl_event_reading_t *out;
    uint64_t wait_ns;
    ze_result_t r;
} copy_results_t;

static void copy_results(void *arg) {
    copy_results_t *a = arg;
    zl_copy_t *u = a->u;
    a->r = a->wait_ns == 0 ? zeEventQueryStatus(u->marker) : zeEventHostSynchronize(u->marker, a->wait_ns);
    if (a->r == ZE_RESULT_SUCCESS) {
        for (uint32_t i = 0; i < u->n; i++) a->out[i] = reading_of(&u->ts[i]);
        zeEventHostReset(u->marker);
        u->state = ZL_COPY_FREE;
    } else if (a->r != ZE_RESULT_NOT_READY) {
        /* The marker cannot be read: the unit is not used again until it
         * can (unit_take). */
        u->state = ZL_COPY_ABANDONED;
    }
}

static ze_result_t zl_copy_results_unguarded(uint64_t copy, zl_event_reading_t *out, uint32_t n,
                                             uint64_t wait_ns) {
    zl_copy_t *u = (zl_copy_t *)(uintptr_t)copy;
    if (u->state != ZL_COPY_INFLIGHT || n != u->n) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    copy_results_t a = {.u = u, .out = out, .wait_ns = wait_ns, .r = ZE_RESULT_ERROR_UNKNOWN};
    run_in_batch((uint64_t)(uintptr_t)u->marker, copy_results, &a);
    return a.r;
}
ZESTALL_GUARDED(ze_result_t, zl_copy_results, (uint64_t copy, zl_event_reading_t *out, uint32_t n, uint64_t wait_ns),
                (copy, out, n, wait_ns))

void zl_copy_abandon(uint64_t copy) {
    zl_copy_t *u = (zl_copy_t *)(uintptr_t)copy;
    if (u->state == ZL_COPY_INFLIGHT) u->state = ZL_COPY_ABANDONED;
}

/* Before zestall's pools in context ctx are destroyed (zl_context_destroy,
 * p->lock not held): the context's copiers go. A copy still in flight is
 * waited for, a bounded time, before its list is destroyed; the
 * harvester read or gave up the results already. */
void copiers_context_destroyed(uint64_t ctx) {
    bool was = zl_own_call(true);
    for (zl_copier_t **at = &copiers; *at != NULL;) {
        zl_copier_t *c = *at;
        if (c->ctx != ctx) {
            at = &c->link;
            continue;
        }
        *at = c->link;
        if (c->q != NULL) zeCommandQueueSynchronize(c->q, ZL_COPY_DESTROY_WAIT_NS);
        for (uint32_t k = 0; k < ZL_COPY_UNITS; k++) {
            zl_copy_t *u = &c->units[k];
            if (u->cl != NULL) zeCommandListDestroy(u->cl);
            if (u->ts != NULL) zeMemFree((ze_context_handle_t)(uintptr_t)ctx, u->ts);
            if (u->marker != NULL) zeEventDestroy(u->marker);
        }
        if (c->q != NULL) zeCommandQueueDestroy(c->q);
        free(c);
    }
    zl_own_call(was);
}

void zl_copies(uint64_t out[3]) {
    out[0] = atomic_load_explicit(&copies_made, memory_order_relaxed);
    out[1] = atomic_load_explicit(&events_copied, memory_order_relaxed);
    out[2] = atomic_load_explicit(&copies_failed, memory_order_relaxed);
}
