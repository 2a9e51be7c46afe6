/*
 * regular_lists.c — regular command lists (appended once, executed many
 * times): which of zestall's events each one holds, the per-execution
 * copies of their times ("snapshots") that let a list be re-executed
 * before its previous execution was read, and the
 * zeCommandQueueExecuteCommandLists callbacks that add those copies to a submission (argument replacement,
 * docs/level-zero-loader.md §5.4 "Prologues can replace arguments") and
 * publish one EXEC slot per list.
 *
 * Callers: the launch epilogue (launch.c) records each launch's event
 * through listev_cached/listev_add (inline, launch_internal.h); the list
 * reset and destroy callbacks (launch.c) clear a list's record; zl_register
 * registers pro_execute/epi_execute; Go's harvester (collector/timing
 * through cgo/timestamps.go) reads and releases the copies
 * (zl_snapshot_results, zl_snapshot_release, zl_list_submits);
 * zl_context_destroy (event_pools.c) frees a context's copies.
 */
#include "launch_internal.h"

#include <stdlib.h>

#include "_cgo_export.h"
#include "layer.h"

/* listev_cached's one-entry cache (launch_internal.h). */
ZL_TLS ze_command_list_handle_t tl_xl;
ZL_TLS zl_listev_t *tl_x_of;
ZL_TLS unsigned tl_x_gen;
atomic_uint listev_gen;
/* Held by listev_free and zl_list_submits (zestall's goroutine, which may
 * ask about a list being destroyed on an application thread): a record
 * is not freed while it is read there. */
static pthread_mutex_t listev_free_lock = PTHREAD_MUTEX_INITIALIZER;

zl_listev_t *listev_of(ze_command_list_handle_t l, bool create) {
    uint64_t v[ZMAP_WORDS];
    if (zmap_get(&listev, (uintptr_t)l, v)) return (zl_listev_t *)(uintptr_t)v[0];
    if (!create) return NULL;
    zl_listev_t *x = calloc(1, sizeof *x);
    if (x == NULL) return NULL;
    uint64_t nv[ZMAP_WORDS] = {(uint64_t)(uintptr_t)x, 0, 0};
    if (!zmap_put(&listev, (uintptr_t)l, nv)) {
        free(x);
        return NULL;
    }
    return x;
}

/* Reset/destroy: the harvester recycles the events; forget them here. */
void listev_clear(ze_command_list_handle_t l) {
    zl_listev_t *x = listev_of(l, false);
    if (x != NULL) {
        x->n = 0;
        x->appended = 0;
        x->executed = false;
        x->last_snapshot = false;
        x->no_snapshots = false;
        x->nexec = 0;
        x->gen++;
    }
}

/* ---- snapshots: per-execution copies of a regular list's times ---------
 *
 * A regular list may be executed again before its previous execution ran
 * (several submissions queued before the application waits): the new
 * execution overwrites the times its kernels leave in zestall's events.
 * So an execution after the first one (see exec_add_snapshots) is followed,
 * in the same zeCommandQueueExecuteCommandLists call (the prologue adds
 * it to the application's lists: same queue, same fence), by a
 * zestall-owned "snapshot" list:
 *
 *     barrier                        all previous commands on the queue
 *                                    completed (spec: numWaitEvents == 0)
 *     QueryKernelTimestamps(events -> host memory of this snapshot, signal marker)
 *     barrier                        nothing after starts before the copy
 *                                    (the same list also serves as a
 *                                    leading copy of the previous execution)
 *
 * A snapshot (list + host memory + marker event) serves one execution at a
 * time: FREE -> INFLIGHT when submitted, back to FREE once the goroutine
 * read its results (marker signalled) and host-reset the marker. The
 * events are not reset: each execution's kernels overwrite them, and the
 * barriers order the query after this execution's kernels and before
 * the next one's. */

enum { ZL_SNAP_FREE = 0, ZL_SNAP_INFLIGHT = 1, ZL_SNAP_ORPHAN = 2, ZL_SNAP_DEAD = 3 };

typedef struct zl_snapshot {
    _Atomic uint32_t state; /* ZL_H_*; ORPHAN: its list is gone, the goroutine destroys it */
    uint32_t gen, n, cap;   /* recorded for listev generation gen: n events; ts holds cap */
    bool recorded, valid;
    ze_context_handle_t ctx;
    zl_ctxpool_t *pool;
    ze_command_list_handle_t cl;
    ze_event_handle_t marker;
    ze_kernel_timestamp_result_t *ts; /* zeMemAllocHost */
    struct zl_snapshot *prev, *next;   /* pool->snapshots, under pool->lock */
} zl_snapshot_t;

/* A new snapshot for a list of (ctx, dev, ordinal): the snapshot list must be
 * created with the queue's ordinal, which is the application list's. */
static zl_snapshot_t *snapshot_new(ze_context_handle_t ctx, ze_device_handle_t dev, uint32_t ordinal) {
    zl_ctxpool_t *p = ctxpool_of(ctx, true);
    if (p == NULL) return NULL;
    zl_snapshot_t *u = calloc(1, sizeof *u);
    if (u == NULL) return NULL;
    uint8_t reason;
    u->marker = event_get_shared(p, &reason);
    ze_command_list_desc_t d = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, ordinal, 0};
    if (u->marker == NULL || zeCommandListCreate(ctx, dev, &d, &u->cl) != ZE_RESULT_SUCCESS) {
        event_put_shared(p, u->marker);
        free(u);
        return NULL;
    }
    u->ctx = ctx;
    u->pool = p;
    atomic_init(&u->state, ZL_SNAP_INFLIGHT);
    pthread_mutex_lock(&p->lock);
    bool gone = p->failed && p->npools == 0; /* the context is being destroyed */
    if (!gone) {
        u->next = p->snapshots;
        if (p->snapshots) p->snapshots->prev = u;
        p->snapshots = u;
    }
    pthread_mutex_unlock(&p->lock);
    if (gone) {
        zeCommandListDestroy(u->cl);
        free(u);
        return NULL;
    }
    return u;
}

/* Records u's snapshot list for the list's current events. */
static bool snapshot_record(zl_snapshot_t *u, zl_listev_t *x) {
    u->valid = false;
    if (u->cap < x->n) {
        if (u->ts != NULL) zeMemFree(u->ctx, u->ts);
        u->ts = NULL;
        u->cap = 0;
        ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
        void *m = NULL;
        if (zeMemAllocHost(u->ctx, &hd, (size_t)x->n * sizeof *u->ts, 64, &m) != ZE_RESULT_SUCCESS) return false;
        u->ts = m;
        u->cap = x->n;
    }
    if (u->recorded && zeCommandListReset(u->cl) != ZE_RESULT_SUCCESS) return false;
    u->recorded = true;
    /* barrier: after everything submitted before on the queue; query;
     * barrier: before anything submitted after (a leading copy) */
    if (zeCommandListAppendBarrier(u->cl, NULL, 0, NULL) != ZE_RESULT_SUCCESS ||
        zeCommandListAppendQueryKernelTimestamps(u->cl, x->n, x->ev, u->ts, NULL, u->marker, 0, NULL) !=
            ZE_RESULT_SUCCESS ||
        zeCommandListAppendBarrier(u->cl, NULL, 0, NULL) != ZE_RESULT_SUCCESS ||
        zeCommandListClose(u->cl) != ZE_RESULT_SUCCESS)
        return false;
    u->gen = x->gen;
    u->n = x->n;
    u->valid = true;
    return true;
}

/* Frees u (claimed by the caller, not in flight). After its context was
 * destroyed (DEAD) its resources are gone and the record is kept: a
 * list's record may still point at it. */
static void snapshot_destroy(zl_snapshot_t *u) {
    zl_ctxpool_t *p = u->pool;
    pthread_mutex_lock(&p->lock);
    bool dead = atomic_load(&u->state) == ZL_SNAP_DEAD;
    if (!dead) {
        if (u->prev) u->prev->next = u->next;
        else p->snapshots = u->next;
        if (u->next) u->next->prev = u->prev;
    }
    pthread_mutex_unlock(&p->lock);
    if (dead) return;
    zeCommandListDestroy(u->cl);
    if (u->ts != NULL) zeMemFree(u->ctx, u->ts);
    zeEventHostReset(u->marker);
    event_put_shared(p, u->marker);
    free(u);
}

/* Under p->lock, the context being destroyed (zl_context_destroy): its
 * snapshots' lists, memory and markers go; the goroutine finished
 * their executions already. */
void snapshots_context_destroyed_locked(zl_ctxpool_t *p) {
    for (zl_snapshot_t *u = p->snapshots; u != NULL; u = u->next) {
        zeCommandListDestroy(u->cl);
        if (u->ts != NULL) zeMemFree(p->ctx, u->ts);
        zeEventDestroy(u->marker);
        atomic_store(&u->state, ZL_SNAP_DEAD); /* the record stays: a list may point at it */
    }
    p->snapshots = NULL;
}

/* A FREE snapshot of the list, now INFLIGHT and recorded for its events, or
 * NULL (then this execution is read the old way). lv: the lists entry. */
static zl_snapshot_t *snapshot_acquire(zl_listev_t *x, const uint64_t *lv) {
    if (x->no_snapshots) return NULL;
    /* Snapshots come back about in submission order: the oldest is at rr.
     * A few probes, then a new snapshot (the application thread never scans
     * hundreds of snapshots in flight). */
    for (uint32_t probes = 0; probes < 16 && x->nsnaps > 0;) {
        uint32_t i = x->rr % x->nsnaps;
        zl_snapshot_t *u = x->snapshots[i];
        uint32_t want = ZL_SNAP_FREE;
        if (!atomic_compare_exchange_strong(&u->state, &want, ZL_SNAP_INFLIGHT)) {
            if (want == ZL_SNAP_DEAD) { /* its context was destroyed: forget it */
                x->snapshots[i] = x->snapshots[--x->nsnaps];
                continue;
            }
            x->rr = i + 1;
            probes++;
            continue;
        }
        x->rr = i + 1;
        if ((u->gen != x->gen || !u->valid) && !snapshot_record(u, x)) {
            x->no_snapshots = true;
            atomic_store(&u->state, ZL_SNAP_FREE);
            return NULL;
        }
        return u;
    }
    /* at most ZL_MAX_SNAPSHOTS, and 16 MiB of results per list (at least 2) */
    uint32_t max = (uint32_t)((16u << 20) / ((size_t)x->n * sizeof(ze_kernel_timestamp_result_t)));
    if (max < 2) max = 2;
    if (max > ZL_MAX_SNAPSHOTS) max = ZL_MAX_SNAPSHOTS;
    if (x->nsnaps >= max) return NULL;
    if (x->nsnaps == x->scap) {
        uint32_t cap = x->scap ? x->scap * 2 : 8;
        zl_snapshot_t **nu = realloc(x->snapshots, cap * sizeof *nu);
        if (nu == NULL) return NULL;
        x->snapshots = nu;
        x->scap = cap;
    }
    zl_snapshot_t *u = snapshot_new((ze_context_handle_t)(uintptr_t)lv[0], (ze_device_handle_t)(uintptr_t)lv[1],
                               (uint32_t)((lv[2] >> 40) & 0xffff));
    if (u == NULL) {
        x->no_snapshots = true;
        return NULL;
    }
    x->snapshots[x->nsnaps++] = u;
    if (!snapshot_record(u, x)) {
        x->no_snapshots = true;
        atomic_store(&u->state, ZL_SNAP_FREE);
        return NULL;
    }
    return u;
}

/* The list is being destroyed: free snapshots are destroyed now, snapshots in
 * flight by the goroutine once read. */
void listev_destroy_snapshots(ze_command_list_handle_t l) {
    zl_listev_t *x = listev_of(l, false);
    if (x == NULL) return;
    for (uint32_t i = 0; i < x->nsnaps; i++) {
        zl_snapshot_t *u = x->snapshots[i];
        for (;;) {
            uint32_t st = atomic_load(&u->state);
            if (st == ZL_SNAP_FREE) {
                if (atomic_compare_exchange_strong(&u->state, &st, ZL_SNAP_INFLIGHT)) {
                    snapshot_destroy(u);
                    break;
                }
            } else if (st == ZL_SNAP_INFLIGHT) {
                if (atomic_compare_exchange_strong(&u->state, &st, ZL_SNAP_ORPHAN)) break;
            } else {
                break;
            }
        }
    }
    x->nsnaps = 0;
    x->rr = 0;
}

static ze_result_t zl_snapshot_results_unguarded(uint64_t snapshot, uint64_t *dst, uint32_t cap, uint32_t *n) {
    zl_snapshot_t *u = (zl_snapshot_t *)(uintptr_t)snapshot;
    if (atomic_load(&u->state) == ZL_SNAP_DEAD) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    ze_result_t r = zeEventQueryStatus(u->marker);
    if (r != ZE_RESULT_SUCCESS) return r;
    *n = u->n;
    for (uint32_t i = 0; i < u->n && i < cap; i++) {
        dst[4 * i] = u->ts[i].global.kernelStart;
        dst[4 * i + 1] = u->ts[i].global.kernelEnd;
        dst[4 * i + 2] = u->ts[i].context.kernelStart;
        dst[4 * i + 3] = u->ts[i].context.kernelEnd;
    }
    return ZE_RESULT_SUCCESS;
}
ZESTALL_GUARDED(ze_result_t, zl_snapshot_results, (uint64_t snapshot, uint64_t *dst, uint32_t cap, uint32_t *n), (snapshot, dst, cap, n))

uint64_t zl_list_submits(uint64_t list) {
    pthread_mutex_lock(&listev_free_lock);
    zl_listev_t *x = listev_of((ze_command_list_handle_t)(uintptr_t)list, false);
    uint64_t n = x == NULL ? 0 : atomic_load(&x->submits);
    pthread_mutex_unlock(&listev_free_lock);
    return n;
}

/* In zeCommandListDestroy's prologue, after listev_destroy_snapshots
 * handed the list's snapshots in flight to the goroutine: the record
 * goes. Other threads' one-entry caches see listev_gen change; the
 * goroutine finds no record (zl_list_submits: 0, as for a list it never
 * knew), which is what a destroyed list's remaining events need: its
 * DESTROY slot, published in the prologue, tells the harvester the list
 * will not run again. */
void listev_free(ze_command_list_handle_t l) {
    pthread_mutex_lock(&listev_free_lock);
    zl_listev_t *x = listev_of(l, false);
    if (x != NULL) {
        zmap_del(&listev, (uintptr_t)l);
        atomic_fetch_add_explicit(&listev_gen, 1, memory_order_release);
    }
    pthread_mutex_unlock(&listev_free_lock);
    if (x == NULL) return;
    if (tl_x_of == x) tl_x_of = NULL;
    free(x->snapshots);
    free(x->ev);
    free(x);
}

static void zl_snapshot_release_unguarded(uint64_t snapshot) {
    zl_snapshot_t *u = (zl_snapshot_t *)(uintptr_t)snapshot;
    uint32_t want = ZL_SNAP_INFLIGHT;
    if (atomic_load(&u->state) == ZL_SNAP_DEAD) return;
    zeEventHostReset(u->marker);
    if (atomic_compare_exchange_strong(&u->state, &want, ZL_SNAP_FREE)) return;
    if (want == ZL_SNAP_ORPHAN) snapshot_destroy(u);
}
ZESTALL_GUARDED_VOID(zl_snapshot_release, (uint64_t snapshot), (snapshot))

/* Before a regular list runs again, the timestamps its previous execution
 * left in zestall's events are read here, on the application's thread:
 * the new execution will overwrite them, and zestall's goroutine may not
 * have read them yet (a replay loop synchronised by the application).
 * The readings are published in the list's event order: the harvester
 * looks for each next to the previous one (collector/timing's readOf)
 * before it searches. */
static void listev_read_previous(ze_command_list_handle_t l) {
    zl_listev_t *x = listev_of(l, false);
    if (x == NULL) return;
    if (!x->executed) {
        x->executed = true; /* the first execution: nothing to read yet */
        return;
    }
    for (uint32_t i = 0; i < x->n; i++) {
        ze_kernel_timestamp_result_t ts;
        if (zeEventQueryKernelTimestamp(x->ev[i], &ts) != ZE_RESULT_SUCCESS) continue;
        zl_slot_t s;
        memset(&s, 0, sizeof s);
        s.kind = ZL_SLOT_APP_TS; /* a reading of an event, as for the app's */
        s.host_ns = zl_now_ns();
        s.event = (uint64_t)(uintptr_t)x->ev[i];
        s.list = ts.global.kernelStart;
        s.device = ts.global.kernelEnd;
        s.context = ts.context.kernelStart;
        s.queue = ts.context.kernelEnd;
        push(&s);
    }
}

/* The execution's reference time is taken before the driver call: the
 * kernels may start inside it. */
static ZL_TLS struct {
    bool active;   /* exec_add_snapshots ran for the current call */
    bool replaced; /* the arguments were replaced */
    ze_command_list_handle_t *orig; /* the application's arguments, restored in the epilogue */
    uint32_t norig;
    uint32_t cap;
    ze_command_list_handle_t *lists; /* leading snapshot lists, the application's lists, trailing snapshot lists */
    zl_snapshot_t **trail, **lead;    /* per application list: its snapshots, or NULL */
    uint64_t *seq;                   /* per application list: its submission number (0: none) */
} tl_x;

/* Executions of a regular list holding zestall's events, in the prologue
 * of zeCommandQueueExecuteCommandLists (argument replacement,
 * docs/level-zero-loader.md §5.4 "Prologues can replace arguments"):
 *   - the first execution after (re)recording gets no snapshot list: if
 *     it is the only one (record, execute, wait, reset), the goroutine
 *     reads the events, at no cost to the submission;
 *   - a later execution gets a trailing snapshot list (its own times);
 *   - if the previous execution had none, a leading snapshot list on the
 *     same queue first copies the previous execution's times (it runs
 *     after everything submitted before, and before this execution's
 *     kernels); on another queue, they are read here if complete.
 * The list's submission counter is bumped before the driver call: the
 * goroutine reads events only when it has seen every submission. */
static void exec_add_snapshots(ze_command_queue_execute_command_lists_params_t *p) {
    uint32_t n = *p->pnumCommandLists;
    ze_command_list_handle_t *ls = *p->pphCommandLists;
    ze_command_queue_handle_t q = *p->phCommandQueue;
    tl_x.active = false;
    tl_x.replaced = false;
    tl_x.orig = ls;
    tl_x.norig = n;
    if (ls == NULL || n == 0) return;
    if (tl_x.cap < n) {
        uint32_t cap = n < 16 ? 16 : n;
        ze_command_list_handle_t *nl = realloc(tl_x.lists, 3 * (size_t)cap * sizeof *nl);
        if (nl != NULL) tl_x.lists = nl;
        zl_snapshot_t **nt = realloc(tl_x.trail, (size_t)cap * sizeof *nt);
        if (nt != NULL) tl_x.trail = nt;
        zl_snapshot_t **nd = realloc(tl_x.lead, (size_t)cap * sizeof *nd);
        if (nd != NULL) tl_x.lead = nd;
        uint64_t *ns = realloc(tl_x.seq, (size_t)cap * sizeof *ns);
        if (ns != NULL) tl_x.seq = ns;
        if (nl == NULL || nt == NULL || nd == NULL || ns == NULL) return;
        tl_x.cap = cap;
    }
    tl_x.active = true;
    /* Stopped (runtime control): this execution is not recorded, so it
     * needs no copy of its own; the previous one may still need one. */
    bool stopped = !collect_executions();
    uint32_t nlead = 0, ntrail = 0;
    for (uint32_t k = 0; k < n; k++) {
        tl_x.trail[k] = tl_x.lead[k] = NULL;
        tl_x.seq[k] = 0;
        zl_listev_t *x = listev_of(ls[k], false);
        if (x == NULL || x->n == 0) continue;
        tl_x.seq[k] = atomic_fetch_add(&x->submits, 1) + 1;
        if (x->nexec++ == 0) {
            x->executed = true;
            x->last_snapshot = false;
            x->last_queue = q;
            continue;
        }
        uint64_t lv[ZMAP_WORDS];
        bool known = zmap_get(&lists, (uintptr_t)ls[k], lv);
        if (!x->last_snapshot) {
            if (known && x->last_queue == q) tl_x.lead[k] = snapshot_acquire(x, lv);
            if (tl_x.lead[k] == NULL) listev_read_previous(ls[k]);
            else nlead++;
        }
        tl_x.trail[k] = known && !stopped ? snapshot_acquire(x, lv) : NULL;
        if (tl_x.trail[k] != NULL) ntrail++;
        x->last_snapshot = tl_x.trail[k] != NULL;
        x->last_queue = q;
    }
    if (nlead + ntrail == 0) return;
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++)
        if (tl_x.lead[k] != NULL) tl_x.lists[m++] = tl_x.lead[k]->cl;
    memcpy(tl_x.lists + m, ls, n * sizeof *ls);
    m += n;
    for (uint32_t k = 0; k < n; k++)
        if (tl_x.trail[k] != NULL) tl_x.lists[m++] = tl_x.trail[k]->cl;
    *p->pphCommandLists = tl_x.lists;
    *p->pnumCommandLists = m;
    tl_x.replaced = true;
}

static void snapshot_unsubmitted(zl_snapshot_t *u) {
    uint32_t want = ZL_SNAP_INFLIGHT;
    if (u != NULL) atomic_compare_exchange_strong(&u->state, &want, ZL_SNAP_FREE);
}

/* Epilogue: restores the arguments; if the call failed, the snapshots are
 * free again. */
static void exec_restore(ze_command_queue_execute_command_lists_params_t *p, bool ok) {
    if (!tl_x.replaced) return;
    tl_x.replaced = false;
    *p->pphCommandLists = tl_x.orig;
    *p->pnumCommandLists = tl_x.norig;
    if (ok) return;
    for (uint32_t k = 0; k < tl_x.norig; k++) {
        snapshot_unsubmitted(tl_x.lead[k]);
        snapshot_unsubmitted(tl_x.trail[k]);
        tl_x.lead[k] = tl_x.trail[k] = NULL;
    }
}
static ZL_TLS uint64_t tl_exec_t0;
static ZL_TLS pthread_mutex_t *tl_exec_ser;
void ZE_APICALL pro_execute(ze_command_queue_execute_command_lists_params_t *p, ze_result_t r, void *u,
                                   void **i) {
    (void)r, (void)u, (void)i;
    tl_exec_ser = NULL;
    if (tl_own_calls) return; /* zestall's own queue (timestamp_copies.c) */
    if (atomic_load_explicit(&zl_enabled, memory_order_relaxed) &&
        atomic_load_explicit(&zl_serialize, memory_order_relaxed) && *p->pnumCommandLists > 0 &&
        *p->pphCommandLists != NULL) {
        uint64_t v[ZMAP_WORDS];
        if (zmap_get(&lists, (uintptr_t)(*p->pphCommandLists)[0], v)) {
            tl_exec_ser = ser_lock_of(v[1]);
            pthread_mutex_lock(tl_exec_ser);
        }
    }
    if (atomic_load_explicit(&zl_enabled, memory_order_relaxed)) exec_add_snapshots(p);
    tl_exec_t0 = zl_now_ns();
}

/* Serialized mode, regular lists: the execution completes (queue
 * synchronised) and the streamers are read before the device is released;
 * kernels inside one list still run back to back. */
static void exec_serialize_end(ze_command_queue_handle_t q, bool ok) {
    pthread_mutex_t *m = tl_exec_ser;
    if (m == NULL) return;
    tl_exec_ser = NULL;
    if (ok) {
        if (zeCommandQueueSynchronize(q, 2000000000ull) != ZE_RESULT_SUCCESS) atomic_fetch_add(&ser_timeouts, 1);
        zestallSerializedRead();
    }
    pthread_mutex_unlock(m);
}
void ZE_APICALL epi_execute(ze_command_queue_execute_command_lists_params_t *p, ze_result_t r, void *u,
                                   void **i) {
    (void)u, (void)i;
    if (tl_own_calls) return;
    bool active = tl_x.active;
    tl_x.active = false;
    exec_restore(p, r == ZE_RESULT_SUCCESS);
    if (*p->pphCommandLists == NULL || !atomic_load_explicit(&zl_enabled, memory_order_relaxed) ||
        (r != ZE_RESULT_SUCCESS && !active)) {
        exec_serialize_end(*p->phCommandQueue, false);
        return;
    }
    uint64_t now = tl_exec_t0;
    /* Stopped: the execution is not recorded, but an execution of a list
     * holding zestall's events (appended while collecting) is still
     * announced: it overwrites their timestamps, and the harvester must
     * not take them for a recorded execution's. */
    bool stopped = !collect_executions();
    for (uint32_t k = 0; k < *p->pnumCommandLists; k++) {
        ze_command_list_handle_t l = (*p->pphCommandLists)[k];
        uint64_t v[ZMAP_WORDS];
        if (stopped) {
            zl_listev_t *x = listev_of(l, false);
            if (x == NULL || x->n == 0) continue;
        }
        if (!zmap_get(&lists, (uintptr_t)l, v)) continue;
        zl_slot_t s;
        memset(&s, 0, sizeof s);
        s.kind = ZL_SLOT_EXEC;
        s.host_ns = now;
        s.list = (uint64_t)(uintptr_t)l;
        s.list_id = (uint32_t)(v[2] >> 2);
        s.context = v[0];
        s.device = v[1];
        s.queue = (uint64_t)(uintptr_t)*p->phCommandQueue;
        if (active) {
            s.seq = tl_x.seq[k];
            s.snapshot = (uint64_t)(uintptr_t)tl_x.trail[k];
            s.snapshot_prev = (uint64_t)(uintptr_t)tl_x.lead[k];
        }
        if (r != ZE_RESULT_SUCCESS) {
            /* Nothing ran; the goroutine still learns the submission number. */
            if (s.seq == 0) continue;
            s.flags |= ZL_FLAG_FAILED;
            s.snapshot = s.snapshot_prev = 0;
        }
        if (tl_exec_ser != NULL) s.flags |= ZL_FLAG_SERIALIZED;
        if (stopped) s.flags |= ZL_FLAG_STOPPED;
        if (!push(&s) && !stopped && r == ZE_RESULT_SUCCESS) {
            /* The execution's launches will never be seen: they are lost,
             * and counted as such (every launch in one counter). */
            zl_listev_t *x = listev_of(l, false);
            if (x != NULL) atomic_fetch_add_explicit(&launches_dropped, x->appended, memory_order_relaxed);
        }
    }
    exec_serialize_end(*p->phCommandQueue, r == ZE_RESULT_SUCCESS);
}
