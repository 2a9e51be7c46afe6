/*
 * event_pools.c — zestall's timestamp events, per context: the pools they
 * are created in (a pool at a time, at most ZL_MAX_POOLS), the context's
 * shared free list, and the teardown of a context's pools.
 *
 * Callers: the launch path's slow paths (event_cache.c refills a thread's
 * cache from the free list; launch.c creates a context's first pool with
 * its first command list; regular_lists.c takes marker events), Go
 * through event_reads.c (zl_release_events hands read events back here
 * and the pools grow ahead of need) and zl_context_destroy. Why
 * swapped-in events at all: docs/level-zero-loader.md §12 "Prior art:
 * kernel device times and signal-event swapping".
 */
#include "launch_internal.h"

#include <stdlib.h>

#include "layer.h"

static pthread_mutex_t ctxs_create_lock = PTHREAD_MUTEX_INITIALIZER;
atomic_uint ctxs_gen;
/* Every context's pool (pushed under ctxs_create_lock, never removed:
 * a destroyed context's stays, failed), for zl_pools_ahead. */
static _Atomic(zl_ctxpool_t *) ctxpools_all;
atomic_uint_fast64_t events_created_launch, events_created_list, events_created_ahead;
void zl_events_created(uint64_t out[3]) {
    out[0] = atomic_load(&events_created_launch);
    out[1] = atomic_load(&events_created_list);
    out[2] = atomic_load(&events_created_ahead);
}
/* Some context asked for events ahead (pools_ahead_request_locked). */
static atomic_bool ahead_wanted;

zl_ctxpool_t *ctxpool_of(ze_context_handle_t ctx, bool create) {
    uint64_t v[ZMAP_WORDS];
    if (zmap_get(&ctxs, (uintptr_t)ctx, v)) return (zl_ctxpool_t *)(uintptr_t)v[0];
    if (!create) return NULL;
    pthread_mutex_lock(&ctxs_create_lock);
    zl_ctxpool_t *p = NULL;
    if (zmap_get(&ctxs, (uintptr_t)ctx, v)) {
        p = (zl_ctxpool_t *)(uintptr_t)v[0];
    } else if ((p = calloc(1, sizeof *p)) != NULL) {
        p->ctx = ctx;
        pthread_mutex_init(&p->lock, NULL);
        uint64_t nv[ZMAP_WORDS] = {(uint64_t)(uintptr_t)p, 0, 0};
        if (!zmap_put(&ctxs, (uintptr_t)ctx, nv)) {
            free(p);
            p = NULL;
        } else {
            p->all_next = atomic_load(&ctxpools_all);
            atomic_store(&ctxpools_all, p);
        }
        atomic_fetch_add_explicit(&ctxs_gen, 1, memory_order_release);
    }
    pthread_mutex_unlock(&ctxs_create_lock);
    return p;
}

/* ctxpool_cached's one-entry cache (launch_internal.h). */
ZL_TLS ze_context_handle_t tl_ctx;
ZL_TLS zl_ctxpool_t *tl_ctxpool;
ZL_TLS unsigned tl_ctx_gen;

/* Set while grow_events makes its driver calls. From a launch callback
 * they are not traced; from zestall's goroutine (zl_release_events) they
 * are (docs/level-zero-loader.md §5.5 "Re-entrancy guard": the guard is
 * per thread), and zestall's own pool and events must not be taken for the
 * application's (epi_pool_create, epi_event_create): their resets and
 * queries would then be read as application timestamp events, and the
 * goroutine's thread would own a ring (and be parked at exit). */
ZL_TLS bool tl_own_calls;

/* Creates up to want more of zestall's timestamp events for p (at least
 * one on success); called WITHOUT p->lock. Events are created in the
 * context's last pool that is not full (a new pool only when all are),
 * their indices reserved under the lock and the driver calls made outside
 * it, so application threads taking events meanwhile do not wait for
 * them. Returns how many it created. A launching thread that finds no
 * event creates only a batch (ZL_EV_BATCH); zestall's goroutine creates
 * the rest ahead of need (zl_release_events). */
static uint32_t grow_events_unmarked(zl_ctxpool_t *p, uint32_t want);
uint32_t grow_events(zl_ctxpool_t *p, uint32_t want) {
    bool was = tl_own_calls;
    tl_own_calls = true;
    uint32_t n = grow_events_unmarked(p, want);
    tl_own_calls = was;
    return n;
}

static uint32_t grow_events_unmarked(zl_ctxpool_t *p, uint32_t want) {
    if (want == 0) return 0;
    if (want > ZL_POOL_EVENTS) want = ZL_POOL_EVENTS;
    pthread_mutex_lock(&p->lock);
    uint32_t i = p->fill_at;
    while (i < p->npools && p->reserved[i] == ZL_POOL_EVENTS) i++;
    p->fill_at = i;
    bool ok = !p->failed;
    if (ok && i == p->npools) {
        /* Every pool is full: a new one (one driver call, under the lock). */
        ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                                   ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                                   ZL_POOL_EVENTS};
        /* The free list holds every event of the context's pools at once
         * when all are back: sized by the events the pools can hold, not
         * by those free now (a list sized by nfree dropped returned events
         * once the pools had grown while events were out: they leaked, and
         * the pools ran dry with POOL_EXHAUSTED under a sustained launch
         * rate). */
        uint32_t total = (p->npools + 1) * ZL_POOL_EVENTS;
        if (p->npools == ZL_MAX_POOLS) {
            ok = false;
        } else if (p->cap < total) {
            uint32_t cap = p->cap ? p->cap * 2 : ZL_POOL_EVENTS;
            while (cap < total) cap *= 2;
            ze_event_handle_t *f = realloc(p->free, cap * sizeof *f);
            if (f == NULL) ok = false;
            else {
                p->free = f;
                p->cap = cap;
            }
        }
        ze_event_pool_handle_t pool;
        if (ok && zeEventPoolCreate(p->ctx, &pd, 0, NULL, &pool) != ZE_RESULT_SUCCESS) {
            p->failed = true;
            ok = false;
        }
        if (ok) {
            p->reserved[i] = 0;
            p->pools[p->npools++] = pool;
        }
    }
    uint32_t start = 0, k = 0;
    ze_event_pool_handle_t pool = NULL;
    if (ok) {
        start = p->reserved[i];
        k = ZL_POOL_EVENTS - start < want ? ZL_POOL_EVENTS - start : want;
        p->reserved[i] = (uint16_t)(start + k);
        pool = p->pools[i];
    }
    pthread_mutex_unlock(&p->lock);
    if (!ok) return 0;
    /* On the heap: an application thread's stack may be small. */
    ze_event_handle_t *evs = malloc(k * sizeof *evs);
    uint32_t n = 0;
    for (uint32_t j = 0; evs != NULL && j < k; j++) {
        ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, start + j, ZE_EVENT_SCOPE_FLAG_HOST,
                              ZE_EVENT_SCOPE_FLAG_HOST};
        if (zeEventCreate(pool, &ed, &evs[n]) == ZE_RESULT_SUCCESS) n++;
    }
    pthread_mutex_lock(&p->lock);
    bool keep = !p->failed || p->npools > 0; /* not destroyed meanwhile */
    if (keep)
        for (uint32_t j = 0; j < n && p->nfree < p->cap; j++) p->free[p->nfree++] = evs[j];
    pthread_mutex_unlock(&p->lock);
    if (!keep)
        for (uint32_t j = 0; j < n; j++) zeEventDestroy(evs[j]);
    free(evs);
    return keep ? n : 0;
}

/* Takes one event from the context's shared free list (growing the
 * pools if it is empty), or NULL with *reason set. */
ze_event_handle_t event_get_shared(zl_ctxpool_t *p, uint8_t *reason) {
    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (p->nfree > 0) {
            ze_event_handle_t ev = p->free[--p->nfree];
            pthread_mutex_unlock(&p->lock);
            return ev;
        }
        bool more = can_grow_locked(p);
        pthread_mutex_unlock(&p->lock);
        uint32_t got = more ? grow_events(p, ZL_EV_BATCH) : 0;
        atomic_fetch_add_explicit(&events_created_launch, got, memory_order_relaxed);
        if (got == 0) {
            pthread_mutex_lock(&p->lock);
            bool failed = p->failed;
            pthread_mutex_unlock(&p->lock);
            *reason = failed ? ZL_REASON_EVENT_ERROR : ZL_REASON_POOL_EXHAUSTED;
            return NULL;
        }
    }
}

void event_put_shared(zl_ctxpool_t *p, ze_event_handle_t ev) {
    if (p == NULL || ev == NULL) return;
    pthread_mutex_lock(&p->lock);
    if (p->nfree < p->cap) p->free[p->nfree++] = ev;
    pthread_mutex_unlock(&p->lock);
}

/* Keep the shared free list at least this full, plus a quarter of the
 * events created, at most ZL_POOL_AHEAD_MAX: the harvester grows the pools
 * (zl_release_events) before the application's threads find them empty,
 * so a launch does not pay for a new pool while the harvester keeps up
 * (the margin grows with the events in flight, up to ZL_POOL_AHEAD_MAX).
 * The margin is events created and idle for the rest of the run (each one
 * a driver object, about 1 KB of heap: test/sim/README.md, "An event's
 * host memory"; 336 bytes in the simulator then): a quarter of 36000
 * created with 4 threads recording lists of 4096 launches was 9000, 3 MB;
 * past the cap, a launching thread that finds the list empty creates a
 * batch itself (event_refill), fewer events in all (BENCHMARKS.md, "Issue
 * 14, session 12"). */
#define ZL_POOL_AHEAD_MAX ZL_POOL_EVENTS

/* Events read and reset by Go go back to their contexts' free lists
 * (one lock per run of one context's events), and a context's pools are
 * grown to ZL_POOL_LOW_WATER and a quarter of its events (at most
 * ZL_POOL_AHEAD_MAX) ahead of need. */
void pools_take_back(const zl_event_ref_t *refs, uint32_t n) {
    for (uint32_t i = 0; i < n;) {
        zl_ctxpool_t *p = ctxpool_of((ze_context_handle_t)(uintptr_t)refs[i].context, false);
        uint32_t j = i;
        if (p == NULL) {
            while (j < n && refs[j].context == refs[i].context) j++;
            i = j;
            continue;
        }
        pthread_mutex_lock(&p->lock);
        for (; j < n && refs[j].context == refs[i].context; j++)
            if (refs[j].event != 0 && p->nfree < p->cap) p->free[p->nfree++] = (ze_event_handle_t)(uintptr_t)refs[j].event;
        uint32_t created = created_locked(p);
        uint32_t ahead = created / 4 < ZL_POOL_AHEAD_MAX ? created / 4 : ZL_POOL_AHEAD_MAX;
        uint32_t target = ZL_POOL_LOW_WATER + ahead;
        uint32_t want = p->nfree < target && can_grow_locked(p) ? target - p->nfree : 0;
        pthread_mutex_unlock(&p->lock);
        /* Here, on zestall's goroutine (which also destroys the context's
         * pools, so never concurrently), not on a launching thread. */
        while (want > 0) {
            uint32_t got = grow_events(p, want);
            atomic_fetch_add_explicit(&events_created_ahead, got, memory_order_relaxed);
            if (got == 0) break;
            want = got >= want ? 0 : want - got;
        }
        i = j;
    }
}

/* Context teardown: everything pending for it is harvested first (Go),
 * then zestall's pools in it are destroyed, before the application's
 * zeContextDestroy runs. */
void zl_context_destroy(uint64_t context) {
    copiers_context_destroyed(context);
    zl_ctxpool_t *p = ctxpool_of((ze_context_handle_t)(uintptr_t)context, false);
    if (p == NULL) return;
    zmap_del(&ctxs, (uintptr_t)context);
    atomic_fetch_add_explicit(&ctxs_gen, 1, memory_order_release);
    pthread_mutex_lock(&p->lock);
    snapshots_context_destroyed_locked(p);
    event_caches_reclaim_locked(p);
    for (uint32_t i = 0; i < p->nfree; i++) zeEventDestroy(p->free[i]);
    for (uint32_t i = 0; i < p->npools; i++) zeEventPoolDestroy(p->pools[i]);
    p->nfree = p->npools = p->fill_at = 0;
    p->failed = true; /* late users get no event rather than a dead one */
    pthread_mutex_unlock(&p->lock);
    /* p itself is kept: an application thread may still hold it. */
}

/* ---- events created ahead of need, on zestall's goroutine --------------
 *
 * A launching thread that finds its context's free list empty creates a
 * batch of events itself (event_refill): at ≈ 1–3 µs per zeEventCreate
 * that is the launching thread's largest cost after the driver's own
 * append when the harvester falls behind at the start of a burst
 * (BENCHMARKS.md, issue 14, session 12). So the launch path only asks,
 * and zestall's goroutine creates: a context's creation (and its first
 * command list, if zestall was not active yet when it was created) asks
 * for a quarter of what one thread's ring holds at its most, plus the
 * low-water margin (a pool for contexts after the first, see
 * pools_first_request), and a launch whose refill
 * leaves the free list below ZL_POOL_LOW_WATER asks for a quarter more
 * than exists (the margin pools_take_back keeps). The goroutine sees the request at its next drain pass
 * (zl_pools_ahead, from cgo/timestamps.go), woken if it sleeps, and
 * creates the events inside one traced call (a batch, as for resets:
 * cgo/event_reads.c), so the tracing layer's per-call cost stays off
 * them. Nothing waits for it: a launch that still finds no event creates
 * a batch itself, as before (docs/level-zero-loader.md §8.6 "Events
 * created ahead of need"). */

/* What a new context asks for ahead: a quarter of a thread's ring at its
 * most, plus the low-water margin, for the process's first context
 * (4608 events with the default ZESTALL_RING_SLOTS), a pool for each
 * later one. An event is about 1 KB
 * of the process's memory on Intel's driver (test/sim/README.md, "An
 * event's host memory"): a whole ring's worth (16896 events) was 17 MiB
 * for every process that creates a context, however few kernels it
 * launches. A launch rate that needs more grows the pools on demand (the
 * low-water request, a quarter more than exist); events in flight are
 * bounded by all rings' slots however many contexts share them, and a
 * later context grows on demand too (docs/level-zero-loader.md §8.6
 * "Events created ahead of need"). */
uint32_t pools_first_request(void) {
    static atomic_bool given;
    if (!atomic_exchange(&given, true)) return ring_one_thread_most() / 4 + ZL_POOL_LOW_WATER;
    return ZL_POOL_EVENTS;
}

bool pools_ahead_request_locked(zl_ctxpool_t *p, uint32_t target) {
    uint32_t most = ZL_MAX_POOLS * ZL_POOL_EVENTS;
    if (target > most) target = most;
    if (target <= p->ahead || p->failed) return false;
    p->ahead = target;
    atomic_store_explicit(&ahead_wanted, true, memory_order_release);
    return true;
}

/* At most this long per drain pass: the harvester's pass (and the
 * launches that wait for it to drain) must not stop for the whole
 * request, thousands of events at 1–3 µs each; the rest is left for the
 * next pass. A pass that drained nothing (before the first launches,
 * typically: the context was just created) has longer, but stops at the
 * first batch after which some ring holds a backlog (ring_backlog): a
 * burst that starts meanwhile must not wait for the whole request. With
 * the 50 ms alone, a burst right after the context's creation waited
 * 13-22 ms in all for ring room at 2·10^5 launches (BENCHMARKS.md, "Issue
 * 14, session 12", the merged result). */
#define ZL_AHEAD_PASS_NS 1000000ull
#define ZL_AHEAD_IDLE_NS 50000000ull
static uint64_t ahead_budget_ns = ZL_AHEAD_PASS_NS; /* the goroutine's, under the harvester's lock */

void pools_grow_ahead(zl_ctxpool_t *p) {
    uint64_t t0 = zl_now_ns();
    for (;;) {
        pthread_mutex_lock(&p->lock);
        uint32_t created = created_locked(p);
        uint32_t want = p->ahead > created && can_grow_locked(p) ? p->ahead - created : 0;
        pthread_mutex_unlock(&p->lock);
        if (want == 0) return;
        if (zl_now_ns() - t0 > ahead_budget_ns) {
            atomic_store_explicit(&ahead_wanted, true, memory_order_release);
            return;
        }
        /* A quarter pool at a time: each batch is on the free list as
         * soon as it is created. */
        uint32_t got = grow_events(p, want < ZL_POOL_EVENTS / 4 ? want : ZL_POOL_EVENTS / 4);
        atomic_fetch_add_explicit(&events_created_ahead, got, memory_order_relaxed);
        if (got == 0) return;
        if (ring_backlog()) {
            atomic_store_explicit(&ahead_wanted, true, memory_order_release);
            return;
        }
    }
}

/* One trigger event per context, taken off its free list while the
 * driver resets it (it is reset already: the reset changes nothing, and
 * no launch may take it meanwhile). */
static void grow_ahead_batch(zl_ctxpool_t *p) {
    ze_event_handle_t trigger = NULL;
    for (int i = 0; i < 2 && trigger == NULL; i++) {
        pthread_mutex_lock(&p->lock);
        trigger = p->nfree > 0 && !p->failed ? p->free[--p->nfree] : NULL;
        bool more = can_grow_locked(p);
        pthread_mutex_unlock(&p->lock);
        /* A context without events yet (asked for at its creation): its
         * first one, traced, to be the trigger of the rest. */
        if (trigger == NULL && i == 0 && more) {
            uint32_t got = grow_events(p, 1);
            atomic_fetch_add_explicit(&events_created_ahead, got, memory_order_relaxed);
        }
    }
    if (trigger == NULL) return;
    static const zl_event_ref_t none = {0, 0};
    zl_batch_t b = {.refs = &none, .reset_done = true, .n = 0, .grow = p};
    tl_batch = &b;
    zeEventHostReset(trigger);
    tl_batch = NULL;
    if (!b.done) pools_grow_ahead(p);
    event_put_shared(p, trigger);
}

bool zl_own_call(bool on) {
    bool was = tl_own_calls;
    tl_own_calls = on;
    return was;
}

static void zl_pools_ahead_unguarded(int idle) {
    if (!atomic_load_explicit(&ahead_wanted, memory_order_acquire)) return;
    ahead_budget_ns = idle ? ZL_AHEAD_IDLE_NS : ZL_AHEAD_PASS_NS;
    atomic_store_explicit(&ahead_wanted, false, memory_order_relaxed);
    for (zl_ctxpool_t *p = atomic_load(&ctxpools_all); p != NULL; p = p->all_next) {
        pthread_mutex_lock(&p->lock);
        bool want = !p->failed && p->ahead > created_locked(p) && can_grow_locked(p);
        pthread_mutex_unlock(&p->lock);
        if (want) grow_ahead_batch(p);
    }
}
ZESTALL_GUARDED_VOID(zl_pools_ahead, (int idle), (idle))
