/*
 * Unit tests of cgo/event_pools.c, zestall's timestamp events per context:
 * how many events the pools create ahead of need when events come back
 * from Go (pools_take_back: the free list is grown to ZL_POOL_LOW_WATER
 * plus a quarter of the events created, at most ZL_POOL_AHEAD_MAX), that
 * no event is created or lost on the way (every event created is either
 * free or in flight), and that a launching thread finding the free list
 * empty still gets an event (event_get_shared creates a batch).
 *
 *   unit_event_pools
 *
 * Built from event_pools.c and zmap.c alone, with the driver's calls and
 * the three functions it calls from the rest of the launch path stubbed
 * below (no driver, no Go). The last line of output is "N passed, N
 * failed".
 */
#include "../../cgo/launch_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

zmap_t ctxs; /* launch_maps.c's, alone here */

/* event_pools.c's policy, as it is meant to be: the free list grown to
 * half a pool plus a quarter of the events created, that quarter at most
 * a pool's worth. */
#define LOW_WATER (ZL_POOL_EVENTS / 2)
#define AHEAD_MAX ZL_POOL_EVENTS

/* The driver, stubbed: events are distinct non-NULL handles, counted. */
static uint64_t events_created, events_destroyed, pools_created;
ze_result_t zeEventPoolCreate(ze_context_handle_t ctx, const ze_event_pool_desc_t *desc, uint32_t n,
                              ze_device_handle_t *devs, ze_event_pool_handle_t *pool) {
    (void)ctx, (void)desc, (void)n, (void)devs;
    *pool = (ze_event_pool_handle_t)(uintptr_t)(0x1000 + ++pools_created);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t pool) {
    (void)pool;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventCreate(ze_event_pool_handle_t pool, const ze_event_desc_t *desc, ze_event_handle_t *ev) {
    (void)pool, (void)desc;
    *ev = (ze_event_handle_t)(uintptr_t)(0x100000 + ++events_created);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventDestroy(ze_event_handle_t ev) {
    (void)ev;
    events_destroyed++;
    return ZE_RESULT_SUCCESS;
}

/* Stubs of what event_pools.c calls elsewhere in the launch path. */
void snapshots_context_destroyed_locked(zl_ctxpool_t *p) { (void)p; }
void event_caches_reclaim_locked(zl_ctxpool_t *p) { (void)p; }
void copiers_context_destroyed(uint64_t ctx) { (void)ctx; }
/* The events created ahead of need on zestall's goroutine (zl_pools_ahead)
 * need these; these tests make no request of that kind but the first
 * context's (pools_first_request), whose events are created only by
 * zl_pools_ahead, which they do not call. */
uint32_t ring_one_thread_most(void) { return 16384; }
bool ring_backlog(void) { return false; }
uint64_t zl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
void zestall_driver_enter(void) {}
void zestall_driver_leave(void) {}
ZL_TLS zl_batch_t *tl_batch;
ze_result_t zeEventHostReset(ze_event_handle_t ev) {
    (void)ev;
    return ZE_RESULT_SUCCESS;
}

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* One context: its first pool made as launch.c makes it (a context's
 * first command list), then `take` events in flight at once (the launching
 * threads), then `back` of them read and given back by Go. */
static void scenario(const char *name, uintptr_t ctx, uint32_t take, uint32_t back) {
    uint64_t created0 = events_created;
    zl_ctxpool_t *p = ctxpool_of((ze_context_handle_t)ctx, true);
    check(p != NULL, "%s: no pool for the context", name);
    if (p == NULL) return;
    grow_events(p, ZL_POOL_EVENTS);
    ze_event_handle_t *out = calloc(take ? take : 1, sizeof *out);
    uint32_t got = 0;
    for (uint32_t i = 0; i < take; i++) {
        uint8_t reason = 0;
        out[i] = event_get_shared(p, &reason);
        got += out[i] != NULL;
    }
    check(got == take, "%s: %u of %u launches got an event", name, got, take);
    uint32_t created_before = (uint32_t)(events_created - created0);
    zl_event_ref_t *refs = calloc(back ? back : 1, sizeof *refs);
    for (uint32_t i = 0; i < back; i++)
        refs[i] = (zl_event_ref_t){.context = (uint64_t)ctx, .event = (uint64_t)(uintptr_t)out[i]};
    pools_take_back(refs, back);
    uint32_t created = (uint32_t)(events_created - created0), inflight = take - back;
    /* Every event created is free or in flight. */
    check(p->nfree + inflight == created, "%s: %u free + %u in flight, %u created", name, p->nfree, inflight,
          created);
    /* The free list holds the low-water mark and the margin ahead of need
     * computed on the events created before the take-back; never more
     * than that unless the events given back alone are more. */
    uint32_t target = LOW_WATER + min_u32(created_before / 4, AHEAD_MAX);
    uint32_t free_before = created_before - take + back;
    uint32_t want_free = free_before > target ? free_before : target;
    check(p->nfree == want_free, "%s: %u events free after the take-back, want %u (created %u before it)", name,
          p->nfree, want_free, created_before);
    check(p->nfree <= free_before + LOW_WATER + AHEAD_MAX,
          "%s: %u events free, more than the %u given back and %u ahead of need", name, p->nfree, free_before,
          LOW_WATER + AHEAD_MAX);
    /* The context's teardown destroys the free events (those in flight
     * are the application's to lose with it). */
    uint64_t destroyed0 = events_destroyed;
    uint32_t nfree = p->nfree;
    zl_context_destroy((uint64_t)ctx);
    check(events_destroyed - destroyed0 == nfree, "%s: %lu events destroyed with the context, want the %u free",
          name, (unsigned long)(events_destroyed - destroyed0), nfree);
    free(out);
    free(refs);
}

int main(void) {
    zmap_init(&ctxs, 64);
    const struct {
        const char *name;
        uint32_t take, back;
    } cases[] = {
        {"all back, within the first pool", 1000, 1000},
        {"300 in flight: to the low-water mark and a quarter", 300, 1},
        {"4000 in flight: a quarter ahead", 4000, 1},
        {"8192 in flight: the cap", 8192, 1},
        {"36000 in flight: the cap (was 9000 ahead)", 36000, 1},
        {"36000 in flight, half back", 36000, 18000},
        {"36000 in flight, all back: nothing created", 36000, 36000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        scenario(cases[i].name, 0x10 + i, cases[i].take, cases[i].back);
    return check_summary();
}
