/*
 * launch_rings.c — the per-thread rings that carry launch-path slots
 * (zl_slot_t) from the application's threads to Go: a ring is attached on
 * a thread's first launch (adopted from an exited thread, or mapped), and
 * drained by the harvester (collector/timing through cgo/timestamps.go:
 * zl_drain, zl_dropped, zl_launches_dropped). The push itself is
 * push() in launch_internal.h, inlined into the callbacks.
 */
#include "launch_internal.h"

#include <sys/mman.h>

ZL_TLS zl_ring_t *tl_ring;
_Atomic(zl_ring_t *) rings;
atomic_uint_fast64_t ring_dropped, launches_dropped;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;

/* Rings outlive their threads (a thread's slots may still be pending when
 * it exits), so they are never unmapped; instead, a thread that exits
 * hands its cached events back and leaves its ring to the next thread
 * that launches for the first time. An application that creates a new
 * thread per task then uses as many rings as it has launching threads at
 * once, not one per thread it ever made. The ring's one producer changes
 * from the dead thread to its adopter: the orphan flag's release/acquire
 * pair orders the dead thread's last push before the adopter's first. */
static pthread_key_t ring_key;
static atomic_bool ring_key_ok;
static pthread_once_t ring_key_once = PTHREAD_ONCE_INIT;

/* Thread-exit destructor of ring_key (never for the thread that calls
 * exit, whose ring nobody could adopt anyway). libzestall.so is never
 * unloaded (NODELETE), so the destructor stays mapped. */
static void ring_exit(void *p) {
    zl_ring_t *r = p;
    event_cache_flush(r);
    atomic_store_explicit(&r->orphan, 1, memory_order_release);
}

static void ring_key_init(void) {
    if (pthread_key_create(&ring_key, ring_exit) == 0) atomic_store(&ring_key_ok, true);
}

/* A ring whose thread exited, now this thread's; NULL if none. */
static zl_ring_t *ring_adopt(void) {
    for (zl_ring_t *r = atomic_load(&rings); r != NULL; r = r->next) {
        uint32_t want = 1;
        if (atomic_load_explicit(&r->orphan, memory_order_relaxed) == 1 &&
            atomic_compare_exchange_strong_explicit(&r->orphan, &want, 0, memory_order_acquire,
                                                    memory_order_relaxed))
            return r;
    }
    return NULL;
}

/* my_ring's slow path: this thread's first launch. */
zl_ring_t *ring_attach(void) {
    pthread_once(&ring_key_once, ring_key_init);
    zl_ring_t *r = ring_adopt();
    if (r == NULL) {
        /* Mapped, not allocated: zero pages the kernel provides as the
         * ring is first written, page aligned (zl_ring_t's cache-line layout
         * needs it), and no 4 MiB memset on the thread's first launch. */
        void *m = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL;
        r = m;
        /* Lock-free push onto the list of rings (never removed). */
        zl_ring_t *old = atomic_load(&rings);
        do {
            r->next = old;
        } while (!atomic_compare_exchange_weak(&rings, &old, r));
    }
    /* Without the key (pthread_key_create failed) the ring stays this
     * thread's for the run, as before. */
    if (atomic_load(&ring_key_ok)) pthread_setspecific(ring_key, r);
    tl_ring = r;
    return r;
}

/* Whether this thread has launched kernels under zestall (it owns a
 * ring): an application thread, never one of zestall's own (layer.c parks
 * such threads while the process exits). */
int zl_thread_launched(void) { return tl_ring != NULL; }

uint32_t zl_drain(zl_slot_t *dst, uint32_t cap, uint64_t *oldest_left) {
    uint32_t n = 0;
    uint64_t oldest = UINT64_MAX;
    pthread_mutex_lock(&drain_lock);
    for (zl_ring_t *r = atomic_load(&rings); r != NULL; r = r->next) {
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
        while (t < h && n < cap) dst[n++] = r->slots[t++ % ZL_RING];
        atomic_store_explicit(&r->tail, t, memory_order_release);
        /* A ring's slots are in its thread's order: the first one left
         * is its oldest (host_ns taken before the append). */
        if (t < h && r->slots[t % ZL_RING].host_ns < oldest) oldest = r->slots[t % ZL_RING].host_ns;
    }
    pthread_mutex_unlock(&drain_lock);
    *oldest_left = oldest;
    return n;
}

uint64_t zl_dropped(void) { return atomic_load(&ring_dropped); }
uint64_t zl_launches_dropped(void) { return atomic_load(&launches_dropped); }
