/*
 * event_cache.c — a thread's cache of zestall's events for its own
 * launches, kept in its ring (zl_ring_t.ev_cache): the refill from the
 * context's shared free list, the flush back to it, and the reclaim of a
 * destroyed context's cached events.
 *
 * A launch takes one of zestall's events from its thread's cache: a load,
 * a compare and a store, no lock and no atomic read-modify-write. The
 * cache is refilled ZL_EV_BATCH events at a time from the context's
 * shared free list (one lock per batch), where the harvester returns the
 * events it has read. The cache holds one context's events; a launch into
 * another context hands them back first. At most ZL_EV_CACHE events per
 * thread sit idle in a cache: a context's pools may report POOL_EXHAUSTED
 * while other threads still cache a few (bounded by threads × 64).
 *
 * The take and give-back of one event per launch (event_get, event_put)
 * are inline in launch_internal.h, called by the launch callbacks
 * (launch.c); the functions here are their slow paths, called also by
 * launch_rings.c (a thread's exit) and event_pools.c (context teardown).
 */
#include "launch_internal.h"

/* Hands r's cached events back to their pool (owner thread). */
void event_cache_flush(zl_ring_t *r) {
    zl_ctxpool_t *q = atomic_load_explicit(&r->ev_pool, memory_order_relaxed);
    if (q == NULL) return;
    pthread_mutex_lock(&q->lock);
    /* zl_context_destroy may have taken them meanwhile. */
    if (atomic_load_explicit(&r->ev_pool, memory_order_relaxed) == q) {
        uint32_t n = atomic_load_explicit(&r->ev_n, memory_order_relaxed);
        for (uint32_t i = 0; i < n && q->nfree < q->cap; i++) q->free[q->nfree++] = r->ev_cache[i];
        atomic_store_explicit(&r->ev_n, 0, memory_order_relaxed);
        atomic_store_explicit(&r->ev_pool, NULL, memory_order_relaxed);
    }
    pthread_mutex_unlock(&q->lock);
}

/* Slow path of event_get: r's cache is empty or of another context. */
ze_event_handle_t event_refill(zl_ring_t *r, zl_ctxpool_t *p, uint8_t *reason) {
    if (atomic_load_explicit(&r->ev_pool, memory_order_relaxed) != p) event_cache_flush(r);
    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (p->nfree > 0) {
            uint32_t k = p->nfree < ZL_EV_BATCH ? p->nfree : ZL_EV_BATCH;
            p->nfree -= k;
            memcpy(r->ev_cache, p->free + p->nfree, k * sizeof *r->ev_cache);
            atomic_store_explicit(&r->ev_pool, p, memory_order_relaxed);
            atomic_store_explicit(&r->ev_n, k - 1, memory_order_relaxed);
            ze_event_handle_t ev = r->ev_cache[k - 1];
            /* Running low: zestall's goroutine is asked for more (a
             * quarter again what exists, a pool at least), not this thread (event_pools.c, "events
             * created ahead of need"); once per raise of the target. */
            bool wake = false;
            if (p->nfree < ZL_POOL_LOW_WATER) {
                uint32_t created = created_locked(p);
                wake = pools_ahead_request_locked(p, created + (created / 4 > ZL_POOL_EVENTS ? created / 4 : ZL_POOL_EVENTS));
            }
            pthread_mutex_unlock(&p->lock);
            if (wake) ring_wake_harvester();
            return ev;
        }
        bool more = can_grow_locked(p);
        pthread_mutex_unlock(&p->lock);
        /* The harvester did not create events in time (or this is the
         * context's first launch): a batch here rather than lose the
         * launch's times. */
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

/* Under p->lock, the context being destroyed: the events threads cache
 * for it go back to its free list (to be destroyed with it). No thread
 * launches into a context while it is destroyed (the application's
 * obligation), so no owner pops from such a cache meanwhile. */
void event_caches_reclaim_locked(zl_ctxpool_t *p) {
    for (zl_ring_t *r = atomic_load(&rings); r != NULL; r = r->next) {
        if (atomic_load_explicit(&r->ev_pool, memory_order_relaxed) != p) continue;
        uint32_t n = atomic_load_explicit(&r->ev_n, memory_order_relaxed);
        for (uint32_t i = 0; i < n && p->nfree < p->cap; i++) p->free[p->nfree++] = r->ev_cache[i];
        atomic_store_explicit(&r->ev_n, 0, memory_order_relaxed);
        atomic_store_explicit(&r->ev_pool, NULL, memory_order_relaxed);
    }
}
