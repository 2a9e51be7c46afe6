/*
 * event_reads.c — zestall's own per-event driver calls, made for Go's
 * harvester (collector/timing through cgo/timestamps.go): kernel
 * timestamp reads of zestall's events (zl_kernel_timestamps), their host
 * resets before reuse (zl_release_events), both in one pass over the
 * events of immediate lists (zl_kernel_timestamps_reset, then
 * zl_return_events), and global timestamp pairs (zl_global_timestamps).
 *
 * Each batch is made from inside one traced call: the goroutine makes the
 * call on the batch's first event, and zestall's own prologue for that
 * API (pro_event_reset, pro_event_timestamp in launch.c, through
 * batch_take) makes the batch's calls, which the tracing layer then
 * forwards straight to the driver without its per-call allocations
 * (docs/level-zero-loader.md §5.5 "Re-entrancy guard", §8.2 "Allocations
 * per call"). The pools grown ahead of need when reset events go back
 * (pools_take_back) are grown inside the reset batch's callback too:
 * traced one by one from the goroutine, zeEventCreate cost about 4 µs per
 * event and held the harvester's first passes for about 0.1 s.
 */
#include "launch_internal.h"

#include "layer.h"

ZL_TLS zl_batch_t *tl_batch;

void reset_events(const zl_event_ref_t *refs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (refs[i].event != 0) zeEventHostReset((ze_event_handle_t)(uintptr_t)refs[i].event);
}

zl_batch_t *batch_take(bool resets) {
    zl_batch_t *b = tl_batch;
    if (b == NULL || b->done || (b->refs != NULL) != resets) return NULL;
    tl_batch = NULL;
    return b;
}

/* Resets n of zestall's events (context, event pairs) and returns them to
 * their pools: one driver-guard section for the batch and one pool lock per
 * run of events of the same context, so the application threads taking
 * events (event_get) meet the harvester on that lock once per batch rather
 * than once per launch. */
static void release_events(const zl_event_ref_t *refs, uint32_t n, bool reset_done) {
    uint32_t first = 0;
    while (first < n && refs[first].event == 0) first++;
    if (first < n) {
        zl_batch_t b = {.refs = refs, .reset_done = reset_done, .n = n, .first = first};
        tl_batch = &b;
        /* The trigger; pro_event_reset makes the batch (the event is
         * reset once more by this call itself, which changes nothing) and
         * takes every other event back to its pool. The trigger goes back
         * only now: taken back before its own reset ran, it could be
         * appended by an application thread and then reset under it. */
        zeEventHostReset((ze_event_handle_t)(uintptr_t)refs[first].event);
        tl_batch = NULL;
        if (b.done) {
            pools_take_back(refs + first, 1);
            return;
        }
        if (!reset_done) reset_events(refs, n);
    }
    pools_take_back(refs, n);
}
static void zl_release_events_unguarded(const zl_event_ref_t *refs, uint32_t n) { release_events(refs, n, false); }
ZESTALL_GUARDED_VOID(zl_release_events, (const zl_event_ref_t *refs, uint32_t n), (refs, n))

/* Returns n of zestall's events that zl_kernel_timestamps_reset reset
 * already to their pools: zl_release_events without the resets (the
 * trigger's reset, of an event reset already, changes nothing), so each
 * event's memory is touched once per launch, by its read. */
static void zl_return_events_unguarded(const zl_event_ref_t *refs, uint32_t n) { release_events(refs, n, true); }
ZESTALL_GUARDED_VOID(zl_return_events, (const zl_event_ref_t *refs, uint32_t n), (refs, n))

/* Reads the kernel timestamps of n events into out (one driver-guard
 * section and one call from Go for the batch). On Intel's driver a read
 * of a host-visible timestamp event is a read of host memory, and a host
 * reset a store to it. With reset_final, an event whose reading is final
 * (signalled, or the read failed) is reset right after its read, while
 * its memory is still in the cache: for events that carry one launch's
 * times (immediate lists), whose reading is then all the harvester needs
 * of them. A separate release pass touched each event a second time, a
 * cache miss each at full rate (the harvester reads a batch of thousands
 * of events). */
void read_timestamps(const uint64_t *events, uint32_t n, zl_event_reading_t *out, bool reset_final) {
    for (uint32_t i = 0; i < n; i++) {
        ze_event_handle_t ev = (ze_event_handle_t)(uintptr_t)events[i];
        ze_kernel_timestamp_result_t ts;
        /* NOT_READY until the event signalled (spec), so one call suffices. */
        ze_result_t r = zeEventQueryKernelTimestamp(ev, &ts);
        zl_event_reading_t *o = &out[i];
        if (r == ZE_RESULT_NOT_READY) {
            *o = (zl_event_reading_t){0};
            continue;
        }
        if (reset_final) zeEventHostReset(ev);
        if (r != ZE_RESULT_SUCCESS) {
            *o = (zl_event_reading_t){.failed = (uint32_t)r};
            continue;
        }
        *o = reading_of(&ts);
    }
}
/* In one traced call (see zl_batch_t): pro_event_timestamp reads them.
 * The trigger's own query by the driver, after the prologue, is of an
 * event read (and maybe reset) already: its result is not used. */
static void kernel_timestamps(const uint64_t *events, uint32_t n, zl_event_reading_t *out, bool reset_final) {
    if (n == 0) return;
    zl_batch_t b = {.events = events, .out = out, .reset_final = reset_final, .n = n};
    tl_batch = &b;
    ze_kernel_timestamp_result_t ts;
    zeEventQueryKernelTimestamp((ze_event_handle_t)(uintptr_t)events[0], &ts);
    tl_batch = NULL;
    if (!b.done) read_timestamps(events, n, out, reset_final);
}
static void zl_kernel_timestamps_unguarded(const uint64_t *events, uint32_t n, zl_event_reading_t *out) {
    kernel_timestamps(events, n, out, false);
}
ZESTALL_GUARDED_VOID(zl_kernel_timestamps, (const uint64_t *events, uint32_t n, zl_event_reading_t *out), (events, n, out))
static void zl_kernel_timestamps_reset_unguarded(const uint64_t *events, uint32_t n, zl_event_reading_t *out) {
    kernel_timestamps(events, n, out, true);
}
ZESTALL_GUARDED_VOID(zl_kernel_timestamps_reset, (const uint64_t *events, uint32_t n, zl_event_reading_t *out),
                     (events, n, out))

void run_in_batch(uint64_t ev, void (*run)(void *arg), void *arg) {
    zl_batch_t b = {.run = run, .arg = arg};
    tl_batch = &b;
    ze_kernel_timestamp_result_t ts;
    zeEventQueryKernelTimestamp((ze_event_handle_t)(uintptr_t)ev, &ts);
    tl_batch = NULL;
    if (!b.done) {
        bool was = zl_own_call(true);
        run(arg);
        zl_own_call(was);
    }
}

static ze_result_t zl_global_timestamps_unguarded(uint64_t device, uint64_t *host, uint64_t *ticks) {
    return zeDeviceGetGlobalTimestamps((ze_device_handle_t)(uintptr_t)device, host, ticks);
}
ZESTALL_GUARDED(ze_result_t, zl_global_timestamps, (uint64_t device, uint64_t *host, uint64_t *ticks), (device, host, ticks))
