/*
 * launch_maps.c — the launch path's object maps: which kernels, command
 * lists, application event pools and events, and contexts zestall knows,
 * with what it must know of each on every launch (lock-free zmap tables,
 * cgo/zmap.h), and the ids it gives kernels and command lists.
 *
 * Written by the create/destroy callbacks (launch.c, regular_lists.c,
 * layer.c through zl_kernel_created); read per launch by the prologue and
 * epilogue (launch.c) through the one-entry caches of launch_internal.h.
 */
#include "launch_internal.h"

#include "ids.h"

zmap_t kernels, lists, pools, events, ctxs, listev;
atomic_uint lists_gen;
/* Kernels and command lists created so far: their ids are 1..2^32-1,
 * each given once in the run (ids.h). */
static atomic_uint_fast64_t kernels_created, lists_created;
/* Command lists created after the 2^32-1st: no id, not tracked. */
static atomic_uint_fast64_t lists_no_id;
static pthread_once_t maps_once = PTHREAD_ONCE_INIT;

/* The maps start at zmap's smallest table and grow as objects are made
 * (zmap_put, at object creation, never on the launch path). Sized for a
 * large application up front they took 82 KiB of calloc'ed heap, which
 * calloc clears: 14 of the page faults a trivial Level-Zero program pays
 * at zestall's activation (BENCHMARKS.md, "Issue 14, session 9"). */
static void maps_init(void) {
    zmap_init(&kernels, 0);
    zmap_init(&lists, 0);
    zmap_init(&pools, 0);
    zmap_init(&events, 0);
    zmap_init(&ctxs, 0);
    zmap_init(&listev, 0);
}

void maps_init_once(void) { pthread_once(&maps_once, maps_init); }

uint32_t list_id_take(void) {
    uint32_t id = zl_id_take(&lists_created);
    if (id == 0) atomic_fetch_add_explicit(&lists_no_id, 1, memory_order_relaxed);
    return id;
}

uint64_t zl_lists_without_id(void) { return atomic_load(&lists_no_id); }

uint32_t zl_kernel_created(ze_kernel_handle_t k) {
    maps_init_once();
    /* Past 2^32-1 kernels, 0: no id (Go counts the kernel as created
     * without one and does not record it), never an id given before. */
    uint32_t id = zl_id_take(&kernels_created);
    uint64_t v[ZMAP_WORDS] = {id, pack_size(1, 1, 1), 0};
    zmap_put(&kernels, (uintptr_t)k, v);
    return id;
}

void zl_kernel_destroyed(ze_kernel_handle_t k) { zmap_del(&kernels, (uintptr_t)k); }
