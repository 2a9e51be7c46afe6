/*
 * zc_device.c — driver and device checks: repeated zeInit, device
 * hierarchy, properties consumers assert on, global timestamps, kernel
 * timestamps of events, and the order of a command's signal against host
 * resets, destroys and a concurrent observer (the simulator applies a
 * command's signal lazily, test/sim/README.md "Cost").
 */
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zc.h"

static void test_repeated_init(void) {
    CHECK_RES(zeInit(0), ZE_RESULT_SUCCESS, "repeated zeInit(0)");
    CHECK_RES(zeInit(ZE_INIT_FLAG_GPU_ONLY), ZE_RESULT_SUCCESS, "repeated zeInit(GPU_ONLY)");
    CHECK_RES(zeInit(0), ZE_RESULT_SUCCESS, "repeated zeInit(0) again");
    uint32_t n = 1;
    ze_driver_handle_t d = NULL;
    CHECK_RES(zeDriverGet(&n, &d), ZE_RESULT_SUCCESS, "zeDriverGet after repeated zeInit");
    CHECK_TRUE(d == zc.driver, "same driver handle after repeated zeInit");
    ze_device_handle_t devs[16];
    n = 16;
    CHECK_RES(zeDeviceGet(zc.driver, &n, devs), ZE_RESULT_SUCCESS, "zeDeviceGet after repeated zeInit");
    CHECK_U64(n, zc.num_devices, "same device count after repeated zeInit");
    CHECK_TRUE(n > 0 && devs[0] == zc.devices[0], "same device handle after repeated zeInit");
}

static void test_hierarchy(void) {
    uint32_t tiles = zc_exp.model == ZC_PVC ? 2 : 1;
    for (uint32_t i = 0; i < zc.num_devices; i++) {
        ze_device_handle_t subs[8];
        uint32_t ns = zc_subdevices(zc.devices[i], subs, 8);
        if (zc_exp.composite) {
            if (zc_exp.model != ZC_PVC_XL) CHECK_U64(ns, tiles > 1 ? tiles : 0, "COMPOSITE: sub-devices of the root");
            for (uint32_t s = 0; s < ns; s++) {
                ze_device_properties_t p;
                CHECK_TRUE(zc_device_props(subs[s], &p, false), "sub-device properties");
                CHECK_TRUE(p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, "sub-device has FLAG_SUBDEVICE");
                CHECK_U64(p.subdeviceId, s, "sub-device id");
            }
        } else {
            CHECK_U64(ns, 0, "FLAT: a root device has no sub-devices");
        }
    }
    if (zc_exp.model == ZC_PVC_XL) return; /* tile count of the XL model is the driver's choice */
    if (zc_exp.composite) CHECK_U64(zc.num_devices, 1, "COMPOSITE: one root device per card");
    else CHECK_U64(zc.num_devices, tiles, "FLAT: one root device per tile");
}

static void test_properties(void) {
    for (uint32_t i = 0; i < zc.num_devices; i++) {
        ze_device_properties_t p0, p2;
        if (!zc_device_props(zc.devices[i], &p0, false) || !zc_device_props(zc.devices[i], &p2, true)) {
            CHECK(false, "zeDeviceGetProperties", "failed");
            continue;
        }
        CHECK_U64(p0.type, ZE_DEVICE_TYPE_GPU, "device type GPU");
        CHECK_U64(p0.vendorId, 0x8086, "vendor id Intel");
        CHECK(p0.name[0] != 0 && strstr(p0.name, "Intel") != NULL, "device name", "got \"%s\"", p0.name);
        CHECK(p0.timerResolution != 0, "timerResolution (ns/cycle, 1.0 stype) non-zero", "got %llu",
              (unsigned long long)p0.timerResolution);
        CHECK(p2.timerResolution != 0, "timerResolution (cycles/s, 1.2 stype) non-zero", "got %llu",
              (unsigned long long)p2.timerResolution);
        if (p2.timerResolution) {
            double ns = 1e9 / (double)p2.timerResolution;
            CHECK((double)p0.timerResolution >= ns - 1.0 && (double)p0.timerResolution <= ns + 1.0,
                  "timerResolution 1.0 stype = 1e9 / 1.2 stype", "1.2: %llu Hz, 1.0: %llu ns",
                  (unsigned long long)p2.timerResolution, (unsigned long long)p0.timerResolution);
        }
        CHECK(p0.timestampValidBits > 0 && p0.timestampValidBits <= 64, "timestampValidBits in 1..64", "got %u",
              p0.timestampValidBits);
        CHECK(p0.kernelTimestampValidBits > 0 && p0.kernelTimestampValidBits <= 64,
              "kernelTimestampValidBits in 1..64", "got %u", p0.kernelTimestampValidBits);
        if (zc_exp.model == ZC_PVC || zc_exp.model == ZC_PVC_XL) {
            CHECK_U64(p0.timestampValidBits, 36, "PVC timestampValidBits");
            CHECK_U64(p0.kernelTimestampValidBits, 32, "PVC kernelTimestampValidBits");
        }
        if (zc_exp.model == ZC_PVC) CHECK_U64(p0.deviceId, 0x0BD5, "PVC (default) device id");
        if (zc_exp.model == ZC_PVC_XL) CHECK_U64(p0.deviceId, 0x0BD0, "PVC-XL device id");
        CHECK(p0.numSlices * p0.numSubslicesPerSlice > 0, "Xe-cores (slices x subslices) non-zero", "%u x %u",
              p0.numSlices, p0.numSubslicesPerSlice);
        CHECK_U64(p0.deviceId, p2.deviceId, "both stypes give the same device id");
    }
}

static uint64_t masked_diff(uint64_t a, uint64_t b, uint32_t bits) {
    uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    return (b - a) & mask;
}

static void test_global_timestamps(void) {
    ze_device_handle_t d = zc.devices[0];
    ze_device_properties_t p2, p0;
    if (!zc_device_props(d, &p2, true) || !zc_device_props(d, &p0, false) || p2.timerResolution == 0) return;
    uint64_t h0, d0, h1, d1;
    uint64_t before = zc_host_ns();
    if (!REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &h0, &d0), "zeDeviceGetGlobalTimestamps")) return;
    uint64_t after = zc_host_ns();
    CHECK(h0 >= before && h0 <= after, "global timestamps: host value is CLOCK_MONOTONIC_RAW",
          "host %llu outside [%llu, %llu]", (unsigned long long)h0, (unsigned long long)before,
          (unsigned long long)after);
    CHECK(p0.timestampValidBits >= 64 || d0 < (1ull << p0.timestampValidBits),
          "global timestamps: device value within timestampValidBits", "got %#llx", (unsigned long long)d0);
    zc_sleep_ms(200);
    if (!REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &h1, &d1), "zeDeviceGetGlobalTimestamps")) return;
    CHECK(h1 > h0, "global timestamps: host monotonic", "%llu then %llu", (unsigned long long)h0,
          (unsigned long long)h1);
    uint64_t dt = masked_diff(d0, d1, p0.timestampValidBits);
    CHECK(dt > 0, "global timestamps: device monotonic", "%#llx then %#llx", (unsigned long long)d0,
          (unsigned long long)d1);
    double dev_ns = (double)dt * 1e9 / (double)p2.timerResolution;
    double host_ns = (double)(h1 - h0);
    CHECK(dev_ns > host_ns * 0.98 && dev_ns < host_ns * 1.02,
          "global timestamps: device ticks / timerResolution match host time over a sleep",
          "host %.0f ns, device %.0f ns (%llu ticks at %llu Hz)", host_ns, dev_ns, (unsigned long long)dt,
          (unsigned long long)p2.timerResolution);
}

static void test_kernel_timestamps(void) {
    ze_device_handle_t d = zc.devices[0];
    ze_device_properties_t p0;
    if (!zc_device_props(d, &p0, false)) return;
    zc_work_t w;
    if (!zc_work_open(&w, d, zc.stream_bin, zc.stream_size)) { zc_work_close(&w); return; }
    uint32_t kbits = p0.kernelTimestampValidBits;
    uint64_t kmask = kbits >= 64 ? ~0ull : (1ull << kbits) - 1;
    for (int rep = 0; rep < 3; rep++) {
        uint64_t h0, d0, h1, d1;
        ze_kernel_timestamp_result_t ts;
        REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &h0, &d0), "zeDeviceGetGlobalTimestamps");
        bool ok = zc_work_launch(&w, (uint32_t)rep % w.nk, 64, &ts);
        REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &h1, &d1), "zeDeviceGetGlobalTimestamps");
        if (!ok) break;
        uint64_t s = ts.global.kernelStart, e = ts.global.kernelEnd;
        CHECK(s <= kmask && e <= kmask, "kernel timestamps within kernelTimestampValidBits", "start %#llx end %#llx bits %u",
              (unsigned long long)s, (unsigned long long)e, kbits);
        uint64_t win = (d1 - d0) & kmask;
        uint64_t so = (s - d0) & kmask, eo = (e - d0) & kmask;
        CHECK(so <= win && eo <= win && so <= eo, "kernel timestamps inside the host window of the launch",
              "window [%#llx, %#llx] (masked %u bits), kernel [%#llx, %#llx]", (unsigned long long)(d0 & kmask),
              (unsigned long long)(d1 & kmask), kbits, (unsigned long long)s, (unsigned long long)e);
        CHECK(e != s, "kernel duration non-zero", "start == end == %#llx", (unsigned long long)s);
        CHECK(((ts.context.kernelEnd - ts.context.kernelStart) & kmask) == ((e - s) & kmask),
              "context and global kernel durations agree", "context %#llx..%#llx global %#llx..%#llx",
              (unsigned long long)ts.context.kernelStart, (unsigned long long)ts.context.kernelEnd,
              (unsigned long long)s, (unsigned long long)e);
    }
    /* status semantics of a host-visible event */
    ze_kernel_timestamp_result_t nts;
    CHECK_RES(zeEventQueryKernelTimestamp(w.ev, &nts), ZE_RESULT_NOT_READY,
              "zeEventQueryKernelTimestamp on an unsignalled event -> NOT_READY");
    CHECK_RES(zeEventQueryStatus(w.ev), ZE_RESULT_NOT_READY, "event NOT_READY after host reset");
    CHECK_RES(zeEventHostSignal(w.ev), ZE_RESULT_SUCCESS, "zeEventHostSignal");
    CHECK_RES(zeEventQueryStatus(w.ev), ZE_RESULT_SUCCESS, "event SUCCESS after host signal");
    CHECK_RES(zeEventHostReset(w.ev), ZE_RESULT_SUCCESS, "zeEventHostReset");
    CHECK_RES(zeEventHostSynchronize(w.ev, 0), ZE_RESULT_NOT_READY, "zeEventHostSynchronize(timeout 0) NOT_READY");
    /* ZESIM_EVENT_READ_NS: every query spends at least that much of the
     * querying thread's CPU (a read of device memory across the bus). */
    const char *rd = getenv("ZESIM_EVENT_READ_NS");
    if (rd != NULL && *rd != '\0') {
        uint64_t want = strtoull(rd, NULL, 10);
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        for (int i = 0; i < 100; i++) (void)zeEventQueryStatus(w.ev);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        uint64_t per = ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec) / 100;
        CHECK(per >= want, "ZESIM_EVENT_READ_NS: a status query spends the read's CPU time", "%llu ns per query, want >= %llu",
              (unsigned long long)per, (unsigned long long)want);
    }
    zc_work_close(&w);
}

/* A profiler's pattern: one thread launches kernels, each signalling an
 * event of a small set; another thread reads each event's timestamps as
 * soon as it is signalled and host-resets it for reuse. */
#define PS_EVENTS 16
#define PS_LAUNCHES 3000
typedef struct ps_shared {
    zc_work_t *w;
    ze_event_handle_t ev[PS_EVENTS];
    atomic_int busy[PS_EVENTS];  /* 1: launched, not yet read and reset */
    atomic_int done;             /* the launcher has finished */
    atomic_long read, bad;
} ps_shared_t;

static void *ps_observer(void *arg) {
    ps_shared_t *ps = arg;
    uint64_t kmask = 0xffffffffull, deadline = zc_host_ns() + 60ull * 1000000000ull;
    for (;;) {
        int busy = 0;
        for (int i = 0; i < PS_EVENTS; i++) {
            if (!atomic_load(&ps->busy[i])) continue;
            busy = 1;
            ze_kernel_timestamp_result_t ts;
            ze_result_t r = zeEventQueryKernelTimestamp(ps->ev[i], &ts);
            if (r == ZE_RESULT_NOT_READY) continue;
            /* no kernel here lasts a second (38.4 M ticks on PVC) */
            if (r != ZE_RESULT_SUCCESS || ((ts.global.kernelEnd - ts.global.kernelStart) & kmask) > 38400000ull)
                atomic_fetch_add(&ps->bad, 1);
            zeEventHostReset(ps->ev[i]);
            atomic_fetch_add(&ps->read, 1);
            atomic_store(&ps->busy[i], 0);
        }
        /* done is set after the last launch's busy flag: nothing is left */
        if (!busy && atomic_load(&ps->done)) {
            int any = 0;
            for (int i = 0; i < PS_EVENTS; i++) any |= atomic_load(&ps->busy[i]);
            if (!any) return NULL;
        }
        if (zc_host_ns() > deadline) return NULL; /* the check below fails */
    }
}

/* A regular list's executed commands post their signals without an event
 * reference of their own (test/sim/README.md "A regular list's signals"):
 * the command's reference keeps the event, and the release of the last
 * reference applies the posts first. Nobody reads in between, so the
 * posts are still pending when the list, the event and the queue go (the
 * address sanitizer checks that no post outlives its event); an event the
 * application keeps reads the execution's signal after its list is gone.
 * Uses the pool's indices PS_EVENTS + 1 and + 2. */
static void test_regular_signal_lifetime(ze_device_handle_t d, zc_work_t *w, ze_event_pool_handle_t pool) {
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_group_count_t g = {1, 1, 1};
    for (int keep = 0; keep < 2; keep++) {
        ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, PS_EVENTS + 1 + (uint32_t)keep,
                              ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
        ze_event_handle_t ev = NULL;
        ze_command_queue_handle_t q = NULL;
        ze_command_list_handle_t l = NULL;
        if (!REQUIRE_OK(zeEventCreate(pool, &ed, &ev), "regular signal: zeEventCreate")) return;
        if (!REQUIRE_OK(zeCommandQueueCreate(zc.context, d, &qd, &q), "regular signal: zeCommandQueueCreate") ||
            !REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l), "regular signal: zeCommandListCreate")) {
            if (q) zeCommandQueueDestroy(q);
            zeEventDestroy(ev);
            return;
        }
        bool ok = zeCommandListAppendLaunchKernel(l, w->k[0], &g, ev, 0, NULL) == ZE_RESULT_SUCCESS &&
                  zeCommandListAppendLaunchKernel(l, w->k[0], &g, ev, 0, NULL) == ZE_RESULT_SUCCESS &&
                  zeCommandListClose(l) == ZE_RESULT_SUCCESS &&
                  zeCommandQueueExecuteCommandLists(q, 1, &l, NULL) == ZE_RESULT_SUCCESS &&
                  zeCommandQueueExecuteCommandLists(q, 1, &l, NULL) == ZE_RESULT_SUCCESS &&
                  zeCommandQueueSynchronize(q, UINT64_MAX) == ZE_RESULT_SUCCESS;
        CHECK(ok, "a regular list signalling one event twice, executed twice, nobody reading", "%s", "a call failed");
        /* The list goes first (an execution still holds its commands), then
         * the application's handle (keep = 0), then the queue and with it
         * the last execution: the commands' references are the last. */
        CHECK_RES(zeCommandListDestroy(l), ZE_RESULT_SUCCESS, "zeCommandListDestroy before its signals are read");
        if (!keep) CHECK_RES(zeEventDestroy(ev), ZE_RESULT_SUCCESS, "zeEventDestroy before its signals are read");
        CHECK_RES(zeCommandQueueDestroy(q), ZE_RESULT_SUCCESS, "zeCommandQueueDestroy before the signals are read");
        if (keep) {
            ze_kernel_timestamp_result_t r;
            CHECK_RES(zeEventQueryKernelTimestamp(ev, &r), ZE_RESULT_SUCCESS,
                      "a regular list's signal reads after the list and the queue are gone");
            zeEventDestroy(ev);
        }
    }
}

/* A recorded command holds no reference to its events (as Intel's list
 * holds none): its command buffer counts itself on their pools, and an
 * event destroyed while a recorded list may name it is kept until no
 * such buffer is left (test/sim/README.md "A regular list's signals:
 * what Intel's driver does, what changed (session 13)"). The spec forbids
 * destroying an event, or its pool, that commands still use; the
 * simulator keeps it safe, which the address sanitizer checks here (use
 * after free, leaks at exit). */
static void test_recorded_event_lifetime(ze_device_handle_t d, zc_work_t *w) {
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 8};
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_group_count_t g = {1, 1, 1};
    ze_event_pool_handle_t pool = NULL, pool2 = NULL;
    ze_command_queue_handle_t q = NULL;
    ze_command_list_handle_t l = NULL, l2 = NULL;
    ze_event_handle_t a = NULL, b = NULL, c = NULL, e = NULL;
    if (!REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &d, &pool), "recorded events: zeEventPoolCreate")) return;
    ed.index = 0;
    bool ok = REQUIRE_OK(zeEventCreate(pool, &ed, &a), "recorded events: zeEventCreate");
    ed.index = 1;
    ok = ok && REQUIRE_OK(zeEventCreate(pool, &ed, &b), "recorded events: zeEventCreate");
    ed.index = 2;
    ok = ok && REQUIRE_OK(zeEventCreate(pool, &ed, &e), "recorded events: zeEventCreate");
    ok = ok && REQUIRE_OK(zeCommandQueueCreate(zc.context, d, &qd, &q), "recorded events: zeCommandQueueCreate");
    ok = ok && REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l), "recorded events: zeCommandListCreate");
    ok = ok && REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l2), "recorded events: zeCommandListCreate");
    if (!ok) goto out;

    /* 1. Destroyed while a recorded list names it, not executed yet: the
     * list still runs (its commands signal and wait for the kept event),
     * then is reset and destroyed while its last execution holds the
     * commands; the queue goes last. */
    {
        ok = zeCommandListAppendLaunchKernel(l, w->k[0], &g, a, 0, NULL) == ZE_RESULT_SUCCESS &&
             zeCommandListAppendBarrier(l, b, 1, &a) == ZE_RESULT_SUCCESS &&
             zeCommandListClose(l) == ZE_RESULT_SUCCESS;
        CHECK(ok, "recorded events: a list signalling one event and waiting for it", "%s", "a call failed");
        CHECK_RES(zeEventDestroy(a), ZE_RESULT_SUCCESS, "zeEventDestroy of an event a recorded list names");
        a = NULL;
        CHECK_RES(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL), ZE_RESULT_SUCCESS,
                  "executing a list that names a destroyed event");
        CHECK_RES(zeEventHostSynchronize(b, UINT64_MAX), ZE_RESULT_SUCCESS,
                  "a list waiting for an event destroyed after the append completes");
        CHECK_RES(zeCommandListReset(l), ZE_RESULT_SUCCESS, "zeCommandListReset while its execution holds the commands");
        CHECK_RES(zeCommandListDestroy(l), ZE_RESULT_SUCCESS, "zeCommandListDestroy after the reset");
        l = NULL;
        CHECK_RES(zeEventQueryStatus(b), ZE_RESULT_SUCCESS, "the list's other event still reads");
        CHECK_RES(zeCommandQueueDestroy(q), ZE_RESULT_SUCCESS, "zeCommandQueueDestroy: the last execution goes");
        q = NULL;
        CHECK_RES(zeEventHostReset(b), ZE_RESULT_SUCCESS, "the list's other event resets");
    }
    /* 2. Destroyed while recorded, never executed; the list reset, then
     * recorded again with another event of the pool and destroyed. */
    {
        ed.index = 3;
        ok = REQUIRE_OK(zeEventCreate(pool, &ed, &c), "recorded events: zeEventCreate") &&
             zeCommandListAppendLaunchKernel(l2, w->k[0], &g, c, 0, NULL) == ZE_RESULT_SUCCESS &&
             zeCommandListAppendBarrier(l2, NULL, 1, &c) == ZE_RESULT_SUCCESS;
        CHECK(ok, "recorded events: a list naming an event", "%s", "a call failed");
        CHECK_RES(zeEventDestroy(c), ZE_RESULT_SUCCESS, "zeEventDestroy of an event a list being recorded names");
        c = NULL;
        CHECK_RES(zeCommandListReset(l2), ZE_RESULT_SUCCESS, "zeCommandListReset of a list naming a destroyed event");
        CHECK_RES(zeCommandListAppendBarrier(l2, b, 0, NULL), ZE_RESULT_SUCCESS, "the list recorded again");
    }
    /* 3. Destroyed after its list executed, its signals posted and not
     * applied yet (nobody read the event): the event is freed when the
     * last execution's commands go, and its posts are applied first;
     * then a query of another event applies every post left (none may
     * name the freed event). */
    if (REQUIRE_OK(zeCommandQueueCreate(zc.context, d, &qd, &q), "recorded events: zeCommandQueueCreate") &&
        REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l), "recorded events: zeCommandListCreate")) {
        ed.index = 3;
        ok = REQUIRE_OK(zeEventCreate(pool, &ed, &c), "recorded events: zeEventCreate") &&
             zeCommandListAppendLaunchKernel(l, w->k[0], &g, c, 0, NULL) == ZE_RESULT_SUCCESS &&
             zeCommandListAppendLaunchKernel(l, w->k[0], &g, c, 0, NULL) == ZE_RESULT_SUCCESS &&
             zeCommandListClose(l) == ZE_RESULT_SUCCESS &&
             zeCommandQueueExecuteCommandLists(q, 1, &l, NULL) == ZE_RESULT_SUCCESS &&
             zeCommandQueueExecuteCommandLists(q, 1, &l, NULL) == ZE_RESULT_SUCCESS &&
             zeCommandQueueSynchronize(q, UINT64_MAX) == ZE_RESULT_SUCCESS;
        CHECK(ok, "recorded events: a list signalling one event, executed twice, nobody reading", "%s",
              "a call failed");
        CHECK_RES(zeEventDestroy(c), ZE_RESULT_SUCCESS, "zeEventDestroy with its posted signals pending");
        c = NULL;
        CHECK_RES(zeCommandListReset(l), ZE_RESULT_SUCCESS, "zeCommandListReset after the event's destroy");
        CHECK_RES(zeCommandQueueDestroy(q), ZE_RESULT_SUCCESS, "zeCommandQueueDestroy: the kept event is freed");
        q = NULL;
        CHECK_RES(zeCommandListAppendLaunchKernel(w->imm, w->k[0], &g, e, 0, NULL), ZE_RESULT_SUCCESS,
                  "a launch signalling another event");
        CHECK_RES(zeEventHostSynchronize(e, UINT64_MAX), ZE_RESULT_SUCCESS, "another event's signal applies");
        zeEventHostReset(e);
    }
    /* 4. The pool destroyed last: its events destroyed, then the pool,
     * while recorded lists still name them (one executed and not waited
     * for, one never executed); the lists go after. Leaks would show at
     * exit. */
    if (REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &d, &pool2), "recorded events: zeEventPoolCreate") &&
        REQUIRE_OK(zeCommandQueueCreate(zc.context, d, &qd, &q), "recorded events: zeCommandQueueCreate")) {
        ze_event_handle_t f = NULL, h = NULL;
        ze_command_list_handle_t l3 = NULL;
        ed.index = 0;
        ok = REQUIRE_OK(zeEventCreate(pool2, &ed, &f), "recorded events: zeEventCreate");
        ed.index = 1;
        ok = ok && REQUIRE_OK(zeEventCreate(pool2, &ed, &h), "recorded events: zeEventCreate");
        ok = ok && REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l3), "recorded events: zeCommandListCreate");
        ok = ok && zeCommandListReset(l) == ZE_RESULT_SUCCESS &&
             zeCommandListAppendLaunchKernel(l, w->k[0], &g, f, 0, NULL) == ZE_RESULT_SUCCESS &&
             zeCommandListAppendBarrier(l, h, 1, &f) == ZE_RESULT_SUCCESS && zeCommandListClose(l) == ZE_RESULT_SUCCESS &&
             zeCommandListAppendLaunchKernel(l3, w->k[0], &g, h, 1, &f) == ZE_RESULT_SUCCESS &&
             zeCommandQueueExecuteCommandLists(q, 1, &l, NULL) == ZE_RESULT_SUCCESS;
        CHECK(ok, "recorded events: lists naming a second pool's events", "%s", "a call failed");
        if (f) CHECK_RES(zeEventDestroy(f), ZE_RESULT_SUCCESS, "zeEventDestroy while lists name it (second pool)");
        if (h) CHECK_RES(zeEventDestroy(h), ZE_RESULT_SUCCESS, "zeEventDestroy while lists name it (second pool)");
        CHECK_RES(zeEventPoolDestroy(pool2), ZE_RESULT_SUCCESS, "zeEventPoolDestroy while lists name its events");
        pool2 = NULL;
        CHECK_RES(zeCommandQueueSynchronize(q, UINT64_MAX), ZE_RESULT_SUCCESS,
                  "a list naming a destroyed pool's events completes");
        if (l3) CHECK_RES(zeCommandListDestroy(l3), ZE_RESULT_SUCCESS, "zeCommandListDestroy after its events' pool");
        CHECK_RES(zeCommandListDestroy(l), ZE_RESULT_SUCCESS, "zeCommandListDestroy after its events' pool");
        l = NULL;
        CHECK_RES(zeCommandQueueDestroy(q), ZE_RESULT_SUCCESS, "zeCommandQueueDestroy after its events' pool");
        q = NULL;
    }
    /* 5. Events created and destroyed one after the other, each named by
     * a list recorded meanwhile, two lists taking turns, so that some
     * recorded list always names the pool: an event is freed once the
     * lists that existed at its destroy are reset, not when no list names
     * the pool any more (never, here). 4000 events of about 1 KB each
     * (mallinfo2's count; zero under the address sanitizer, whose leak
     * check covers it at exit). */
    if (REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l), "recorded events: zeCommandListCreate")) {
        ze_command_list_handle_t two[2] = {l, l2};
        struct mallinfo2 m0 = mallinfo2();
        bool all = true;
        for (int i = 0; i < 4000 && all; i++) {
            ze_event_handle_t x = NULL;
            ed.index = 4;
            all = zeEventCreate(pool, &ed, &x) == ZE_RESULT_SUCCESS &&
                  zeCommandListReset(two[i % 2]) == ZE_RESULT_SUCCESS &&
                  zeCommandListAppendBarrier(two[i % 2], x, 0, NULL) == ZE_RESULT_SUCCESS &&
                  zeCommandListAppendBarrier(two[i % 2], NULL, 1, &x) == ZE_RESULT_SUCCESS;
            if (x) all = zeEventDestroy(x) == ZE_RESULT_SUCCESS && all;
        }
        struct mallinfo2 m1 = mallinfo2();
        CHECK(all, "recorded events: 4000 events destroyed while two lists taking turns name them", "%s",
              "a call failed");
        CHECK(m1.uordblks < m0.uordblks + (1u << 20),
              "an event destroyed while recorded lists name its pool is freed once those lists are reset",
              "heap grew %zu bytes over 4000 events", m1.uordblks - m0.uordblks);
    }
out:
    if (l) zeCommandListDestroy(l);
    if (l2) zeCommandListDestroy(l2);
    if (q) zeCommandQueueDestroy(q);
    if (a) zeEventDestroy(a);
    if (b) zeEventDestroy(b);
    if (c) zeEventDestroy(c);
    if (e) zeEventDestroy(e);
    if (pool2) zeEventPoolDestroy(pool2);
    zeEventPoolDestroy(pool);
}

/* One read of the re-signal checks: whether the queue is done, taken
 * before the read so that a read after completion is of the last
 * execution; the event's timestamps into *r; the device clock right after
 * into *dc. Returns 0 when the clock read failed (stop), -1 when the event
 * was not ready (counted in *notready), 1 otherwise; every read counts in
 * *reads. */
static int resignal_read(ze_device_handle_t d, ze_command_queue_handle_t q, ze_event_handle_t ev, bool *done,
                         ze_kernel_timestamp_result_t *r, uint64_t *dc, long *reads, long *notready) {
    *done = zeCommandQueueSynchronize(q, 0) == ZE_RESULT_SUCCESS;
    ze_result_t res = zeEventQueryKernelTimestamp(ev, r);
    uint64_t hc;
    if (!REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &hc, dc), "re-signal: zeDeviceGetGlobalTimestamps")) return 0;
    (*reads)++;
    if (res != ZE_RESULT_SUCCESS) {
        (*notready)++;
        return -1;
    }
    return 1;
}

/* A regular list executed twice without resetting the event its kernel
 * signals, queried while the second execution is in flight. On Intel's
 * hardware the kernel's post-sync write lands at its end: until then the
 * event stays signalled with the first execution's timestamps, then it
 * has the second's; a query never shows a kernel's end later than the
 * device clock read after it (test/sim/README.md "Re-signalled events").
 * The kernel runs 64 x 2^25 work-items: about 21 ms at the default cost
 * (ZESIM_KERNEL_COST, ZESIM_TIME_SCALE=1). Uses the pool's index
 * PS_EVENTS + 3. */
static void test_regular_resignal(ze_device_handle_t d, zc_work_t *w, ze_event_pool_handle_t pool) {
    ze_device_properties_t p0;
    if (!zc_device_props(d, &p0, false)) return;
    uint32_t kbits = p0.kernelTimestampValidBits;
    uint64_t kmask = kbits >= 64 ? ~0ull : (1ull << kbits) - 1;
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, PS_EVENTS + 3, ZE_EVENT_SCOPE_FLAG_HOST,
                          ZE_EVENT_SCOPE_FLAG_HOST};
    ze_group_count_t g = {1u << 25, 1, 1};
    ze_event_handle_t ev = NULL;
    ze_command_queue_handle_t q = NULL;
    ze_command_list_handle_t l = NULL;
    if (!REQUIRE_OK(zeEventCreate(pool, &ed, &ev), "re-signal: zeEventCreate")) return;
    if (!REQUIRE_OK(zeCommandQueueCreate(zc.context, d, &qd, &q), "re-signal: zeCommandQueueCreate") ||
        !REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l), "re-signal: zeCommandListCreate") ||
        !REQUIRE_OK(zeCommandListAppendLaunchKernel(l, w->k[0], &g, ev, 0, NULL), "re-signal: append") ||
        !REQUIRE_OK(zeCommandListClose(l), "re-signal: zeCommandListClose") ||
        !REQUIRE_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL), "re-signal: first execution") ||
        !REQUIRE_OK(zeCommandQueueSynchronize(q, UINT64_MAX), "re-signal: zeCommandQueueSynchronize")) {
        if (l) zeCommandListDestroy(l);
        if (q) zeCommandQueueDestroy(q);
        zeEventDestroy(ev);
        return;
    }
    ze_kernel_timestamp_result_t first, r;
    bool ok = REQUIRE_OK(zeEventQueryKernelTimestamp(ev, &first), "re-signal: the first execution's timestamps");
    uint64_t ticks = (first.global.kernelEnd - first.global.kernelStart) & kmask;
    double ms = p0.timerResolution ? (double)ticks * (double)p0.timerResolution / 1e6 : 0;
    CHECK(ms >= 5, "re-signal: the kernel takes time", "%.3f ms", ms);
    /* The second execution, the event not reset: read it until the queue is done. */
    ok = ok && REQUIRE_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL), "re-signal: second execution");
    long reads = 0, firsts = 0, early = 0, back = 0, notready = 0;
    bool seen_second = false;
    ze_kernel_timestamp_result_t second = first;
    uint64_t deadline = zc_host_ns() + 30ull * 1000000000ull;
    for (bool done = false; ok && !done && zc_host_ns() < deadline;) {
        uint64_t dc;
        int got = resignal_read(d, q, ev, &done, &r, &dc, &reads, &notready); /* done: it must be the second's */
        if (got == 0) break;
        if (got < 0) continue;
        /* the end at or before the device clock read after the query */
        if (((dc - r.global.kernelEnd) & kmask) > kmask / 2) early++;
        bool is_first = r.global.kernelStart == first.global.kernelStart && r.global.kernelEnd == first.global.kernelEnd;
        if (is_first) {
            firsts++;
            if (seen_second || done) back++;
        } else {
            seen_second = true;
            second = r;
        }
        if (!done) sched_yield();
    }
    CHECK(ok && reads > 0 && notready == 0, "re-signal: the event stays signalled during the second execution",
          "%ld reads, %ld not ready", reads, notready);
    CHECK(early == 0, "re-signal: no query shows a kernel end later than the device clock",
          "%ld of %ld reads ahead of the device clock", early, reads);
    CHECK(firsts > 0, "re-signal: the first execution's timestamps until the second's end",
          "%ld reads, none with the first execution's timestamps", reads);
    CHECK(seen_second && back == 0, "re-signal: the second execution's timestamps from its end on",
          "second seen: %d, first execution's read after the second's or after completion: %ld", seen_second, back);
    CHECK(((second.global.kernelStart - first.global.kernelEnd) & kmask) <= kmask / 2,
          "re-signal: the second execution starts after the first's end", "first end %#llx, second start %#llx",
          (unsigned long long)first.global.kernelEnd, (unsigned long long)second.global.kernelStart);
    /* More executions back to back than the event keeps pending writes
     * (4): the timestamps read may lag (an execution's may be skipped),
     * but never run ahead of the device clock nor go back, and the last
     * execution's are read once the queue is done. */
    enum { BACK_TO_BACK = 8 };
    for (int i = 0; ok && i < BACK_TO_BACK; i++)
        ok = REQUIRE_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL), "re-signal: back-to-back execution");
    reads = early = back = notready = 0;
    uint64_t prev_end = second.global.kernelEnd, last_start = 0;
    long changes = 0;
    deadline = zc_host_ns() + 30ull * 1000000000ull;
    for (bool done = false; ok && !done && zc_host_ns() < deadline;) {
        uint64_t dc;
        int got = resignal_read(d, q, ev, &done, &r, &dc, &reads, &notready);
        if (got == 0) break;
        if (got < 0) continue;
        if (((dc - r.global.kernelEnd) & kmask) > kmask / 2) early++;
        if (((r.global.kernelEnd - prev_end) & kmask) > kmask / 2) back++;
        if (r.global.kernelEnd != prev_end) changes++;
        prev_end = r.global.kernelEnd;
        last_start = r.global.kernelStart;
        if (!done) sched_yield();
    }
    uint64_t hc, dc;
    bool idle = ok && REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &hc, &dc), "re-signal: zeDeviceGetGlobalTimestamps");
    CHECK(ok && reads > 0 && notready == 0 && early == 0 && back == 0,
          "re-signal: 8 executions back to back: signalled, never ahead of the device clock, never back",
          "%ld reads: %ld not ready, %ld ahead of the device clock, %ld going back", reads, notready, early, back);
    /* The last read, after the queue was done, is the last execution's:
     * the executions run one after the other, each for `ticks`, so the
     * eighth starts at least 7 kernels after the second execution's end,
     * and no earlier one does unless the host paused for a kernel's length
     * between two submissions. Device times only: a check against the
     * device clock read after the loop failed on a loaded machine, where
     * the polling thread can be preempted for longer than a kernel between
     * its last read and that clock read (and can miss every intermediate
     * write, so one change is all a loaded run is sure to see). */
    CHECK(idle && changes >= 1 && ((last_start - second.global.kernelEnd) & kmask) >= 7 * ticks - ticks / 16 &&
              ((last_start - second.global.kernelEnd) & kmask) <= kmask / 2,
          "re-signal: 8 executions back to back: the last one's timestamps once done",
          "%ld changes seen; last start %#llx, second execution's end %#llx, kernel %llu ticks", changes,
          (unsigned long long)last_start, (unsigned long long)second.global.kernelEnd, (unsigned long long)ticks);
    (void)dc;
    zeCommandListDestroy(l);
    zeCommandQueueDestroy(q);
    zeEventDestroy(ev);
}

static void test_signal_order(void) {
    ze_device_handle_t d = zc.devices[0];
    zc_work_t w;
    if (!zc_work_open(&w, d, zc.stream_bin, zc.stream_size)) { zc_work_close(&w); return; }
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, PS_EVENTS + 4};
    ze_event_pool_handle_t pool = NULL;
    if (!REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &d, &pool), "zeEventPoolCreate")) { zc_work_close(&w); return; }
    ps_shared_t *ps = calloc(1, sizeof(*ps));
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    for (uint32_t i = 0; i < PS_EVENTS; i++) {
        ed.index = i;
        REQUIRE_OK(zeEventCreate(pool, &ed, &ps->ev[i]), "zeEventCreate");
    }
    ze_group_count_t g = {1, 1, 1};
    /* a host reset right after the append, with nothing read in between:
     * the command's signal comes first, the reset wins */
    CHECK_RES(zeCommandListAppendLaunchKernel(w.imm, w.k[0], &g, ps->ev[0], 0, NULL), ZE_RESULT_SUCCESS,
              "launch signalling an event");
    CHECK_RES(zeEventHostReset(ps->ev[0]), ZE_RESULT_SUCCESS, "zeEventHostReset right after the append");
    zc_sleep_ms(5);
    CHECK_RES(zeEventQueryStatus(ps->ev[0]), ZE_RESULT_NOT_READY,
              "an event reset after the append that signals it stays reset");
    /* a host signal after the append: signalled; its timestamps are the host's */
    CHECK_RES(zeCommandListAppendLaunchKernel(w.imm, w.k[0], &g, ps->ev[1], 0, NULL), ZE_RESULT_SUCCESS,
              "launch signalling an event");
    CHECK_RES(zeEventHostSignal(ps->ev[1]), ZE_RESULT_SUCCESS, "zeEventHostSignal right after the append");
    CHECK_RES(zeEventQueryStatus(ps->ev[1]), ZE_RESULT_SUCCESS, "signalled by the host after the append");
    zeEventHostReset(ps->ev[1]);
    /* more signals than an engine's ring of posted signals holds at first
     * (4096) and at most (65536), nobody reading: the ring grows, then the
     * submitting thread applies them (test/sim/README.md "Cost"); either
     * way the last one is what a query reads */
    bool all = true;
    uint64_t before_host = 0, before_dev = 0;
    for (int i = 0; i < 70000 && all; i++) {
        if (i == 70000 - 1) zeDeviceGetGlobalTimestamps(d, &before_host, &before_dev);
        all = zeCommandListAppendLaunchKernel(w.imm, w.k[0], &g, ps->ev[2], 0, NULL) == ZE_RESULT_SUCCESS;
    }
    CHECK(all, "70000 launches signalling one event, nobody reading", "an append failed");
    CHECK_RES(zeEventHostSynchronize(ps->ev[2], UINT64_MAX), ZE_RESULT_SUCCESS, "the event of 70000 launches signalled");
    /* The event is signalled from the first launch's end on; the last
     * launch's timestamps are there only once it has ended (the device
     * writes them then, test/sim/README.md "Re-signalled events"): wait
     * for a barrier behind it. */
    CHECK_RES(zeCommandListAppendBarrier(w.imm, ps->ev[3], 0, NULL), ZE_RESULT_SUCCESS, "a barrier after the 70000 launches");
    CHECK_RES(zeEventHostSynchronize(ps->ev[3], UINT64_MAX), ZE_RESULT_SUCCESS, "the barrier after the 70000 launches");
    zeEventHostReset(ps->ev[3]);
    ze_kernel_timestamp_result_t last;
    CHECK_RES(zeEventQueryKernelTimestamp(ps->ev[2], &last), ZE_RESULT_SUCCESS, "its timestamps readable");
    {
        uint64_t kmask = 0xffffffffull, since = (last.global.kernelStart - (before_dev & kmask)) & kmask;
        CHECK(since < kmask / 2, "70000 launches signalling one event: a query reads the last launch's timestamps",
              "start %#llx, device clock before the last append %#llx", (unsigned long long)last.global.kernelStart,
              (unsigned long long)(before_dev & kmask));
    }
    zeEventHostReset(ps->ev[2]);
    test_regular_signal_lifetime(d, &w, pool);
    test_regular_resignal(d, &w, pool);
    test_recorded_event_lifetime(d, &w);
    /* destroyed right after the append, never read (the signal must not
     * outlive the event: the address sanitizer checks) */
    ze_event_handle_t gone = NULL;
    ed.index = PS_EVENTS;
    if (REQUIRE_OK(zeEventCreate(pool, &ed, &gone), "zeEventCreate")) {
        CHECK_RES(zeCommandListAppendLaunchKernel(w.imm, w.k[0], &g, gone, 0, NULL), ZE_RESULT_SUCCESS,
                  "launch signalling an event destroyed right after");
        CHECK_RES(zeEventDestroy(gone), ZE_RESULT_SUCCESS, "zeEventDestroy right after the append");
    }
    /* the launcher and the observer */
    ps->w = &w;
    pthread_t obs;
    bool started = pthread_create(&obs, NULL, ps_observer, ps) == 0;
    CHECK(started, "observer thread", "pthread_create failed");
    long launched = 0;
    uint64_t deadline = zc_host_ns() + 60ull * 1000000000ull;
    for (int i = 0; started && i < PS_LAUNCHES; i++) {
        int k = i % PS_EVENTS;
        while (atomic_load(&ps->busy[k]) && zc_host_ns() < deadline) sched_yield();
        if (atomic_load(&ps->busy[k])) break;
        if (zeCommandListAppendLaunchKernel(w.imm, w.k[0], &g, ps->ev[k], 0, NULL) != ZE_RESULT_SUCCESS) break;
        atomic_store(&ps->busy[k], 1);
        launched++;
    }
    atomic_store(&ps->done, 1);
    if (started) pthread_join(obs, NULL);
    CHECK(launched == PS_LAUNCHES && atomic_load(&ps->read) == PS_LAUNCHES, "a concurrent observer reads every signal",
          "%ld launched, %ld read", launched, (long)atomic_load(&ps->read));
    CHECK(atomic_load(&ps->bad) == 0, "a concurrent observer reads valid kernel timestamps", "%ld bad",
          (long)atomic_load(&ps->bad));
    for (uint32_t i = 0; i < PS_EVENTS; i++) zeEventDestroy(ps->ev[i]);
    free(ps);
    zeEventPoolDestroy(pool);
    zc_work_close(&w);
}

/* An asynchronous queue of ordinal 0 at index and a regular list of
 * ordinal 0 on device d, or false (reported as what's failures). */
static bool queue_and_list(ze_device_handle_t d, uint32_t index, ze_command_queue_handle_t *q,
                           ze_command_list_handle_t *l, const char *what) {
    char m[96];
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, index, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    snprintf(m, sizeof m, "%s: zeCommandQueueCreate", what);
    if (!REQUIRE_OK(zeCommandQueueCreate(zc.context, d, &qd, q), m)) return false;
    snprintf(m, sizeof m, "%s: zeCommandListCreate", what);
    return REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, l), m);
}

/* zeCommandListAppendQueryKernelTimestamps: the layout of the results
 * (ze_kernel_timestamp_result_t at byte offsets pOffsets[i] from dstptr,
 * or consecutive), equal to what zeEventQueryKernelTimestamp returns; its
 * signal event; and an event not signalled at the query's time (signalled
 * later on another engine) is not written. */
static void test_query_kernel_timestamps(void) {
    ze_device_handle_t d = zc.devices[0];
    zc_work_t w;
    if (!zc_work_open(&w, d, zc.compute_bin, zc.compute_size) || !w.ok) {
        zc_work_close(&w);
        return;
    }
    int li = zc_work_find(&w, zc.long_kernel);
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 5};
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t ev[5] = {NULL}; /* 0, 1: kernels; 2: never signalled; 3, 4: query markers */
    ze_command_queue_handle_t q = NULL;
    ze_command_list_handle_t l = NULL, l2 = NULL, imm = NULL;
    uint8_t *dst = NULL;
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    if (li < 0 || !REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &d, &pool), "query ts: zeEventPoolCreate"))
        goto out;
    for (uint32_t i = 0; i < 5; i++) {
        ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, i, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
        if (!REQUIRE_OK(zeEventCreate(pool, &ed, &ev[i]), "query ts: zeEventCreate")) goto out;
    }
    if (!REQUIRE_OK(zeMemAllocHost(zc.context, &hd, 512, 64, (void **)&dst), "query ts: zeMemAllocHost")) goto out;
    memset(dst, 0xAB, 512);
    if (!queue_and_list(d, 0, &q, &l, "query ts")) goto out;
    ze_group_count_t g = {4, 1, 1};
    size_t offs[3] = {96, 0, 160};
    ze_event_handle_t qev[3] = {ev[0], ev[1], ev[2]};
    REQUIRE_OK(zeCommandListAppendLaunchKernel(l, w.k[0], &g, ev[0], 0, NULL), "query ts: launch");
    REQUIRE_OK(zeCommandListAppendLaunchKernel(l, w.k[0], &g, ev[1], 0, NULL), "query ts: launch");
    REQUIRE_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL), "query ts: barrier");
    REQUIRE_OK(zeCommandListAppendQueryKernelTimestamps(l, 3, qev, dst, offs, ev[3], 0, NULL), "query ts: append");
    /* consecutive layout */
    REQUIRE_OK(zeCommandListAppendQueryKernelTimestamps(l, 2, qev, dst + 256, NULL, NULL, 0, NULL),
               "query ts: append without offsets");
    REQUIRE_OK(zeCommandListClose(l), "query ts: close");
    if (!REQUIRE_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL), "query ts: execute") ||
        !REQUIRE_OK(zeCommandQueueSynchronize(q, UINT64_MAX), "query ts: synchronize"))
        goto out;
    CHECK_RES(zeEventQueryStatus(ev[3]), ZE_RESULT_SUCCESS, "QueryKernelTimestamps signals its event");
    ze_kernel_timestamp_result_t t0, t1;
    if (REQUIRE_OK(zeEventQueryKernelTimestamp(ev[0], &t0), "query ts: zeEventQueryKernelTimestamp") &&
        REQUIRE_OK(zeEventQueryKernelTimestamp(ev[1], &t1), "query ts: zeEventQueryKernelTimestamp")) {
        CHECK(memcmp(dst + 96, &t0, sizeof t0) == 0 && memcmp(dst, &t1, sizeof t1) == 0,
              "QueryKernelTimestamps writes ze_kernel_timestamp_result_t at dstptr + pOffsets[i]",
              "event 0 at +96: %#llx..%#llx, query %#llx..%#llx", (unsigned long long)((uint64_t *)(dst + 96))[0],
              (unsigned long long)((uint64_t *)(dst + 96))[1], (unsigned long long)t0.global.kernelStart,
              (unsigned long long)t0.global.kernelEnd);
        CHECK(memcmp(dst + 256, &t0, sizeof t0) == 0 && memcmp(dst + 256 + sizeof t0, &t1, sizeof t1) == 0,
              "QueryKernelTimestamps without offsets: consecutive results in event order", "%s", "mismatch");
        CHECK(t1.global.kernelStart != t0.global.kernelStart, "two launches, two different results", "%s",
              "same start");
    }
    bool untouched = true;
    for (int i = 32; i < 96; i++) untouched &= dst[i] == 0xAB;
    for (int i = 160; i < 192; i++) untouched &= dst[i] == 0xAB;
    CHECK(untouched, "QueryKernelTimestamps leaves other bytes and never-signalled events' slots alone", "%s",
          "written");

    /* A signal in the future of another engine is not visible to a query
     * that runs now. */
    ze_command_queue_desc_t iqd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 1, 0,
                                   ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    if (zeCommandListCreateImmediate(zc.context, d, &iqd, &imm) != ZE_RESULT_SUCCESS) {
        printf("SKIP  QueryKernelTimestamps and a later signal: no second compute engine\n");
        goto out;
    }
    zeEventHostReset(ev[0]);
    memset(dst, 0xAB, 512);
    ze_group_count_t lg = {64, 1, 1}; /* 4096 items of the long kernel: milliseconds */
    REQUIRE_OK(zeCommandListAppendLaunchKernel(imm, w.k[li], &lg, ev[0], 0, NULL), "query ts: long launch");
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    if (!REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l2), "query ts: zeCommandListCreate")) goto out;
    REQUIRE_OK(zeCommandListAppendQueryKernelTimestamps(l2, 1, qev, dst, NULL, ev[4], 0, NULL), "query ts: append");
    REQUIRE_OK(zeCommandListClose(l2), "query ts: close");
    REQUIRE_OK(zeCommandQueueExecuteCommandLists(q, 1, &l2, NULL), "query ts: execute");
    REQUIRE_OK(zeEventHostSynchronize(ev[4], UINT64_MAX), "query ts: wait for the query");
    bool pending = zeEventQueryStatus(ev[0]) == ZE_RESULT_NOT_READY;
    untouched = true;
    for (int i = 0; i < 32; i++) untouched &= dst[i] == 0xAB;
    if (pending)
        CHECK(untouched, "QueryKernelTimestamps does not see a signal that happens after it (another engine)", "%s",
              "the later kernel's times were written");
    else
        printf("SKIP  QueryKernelTimestamps and a later signal: the long kernel completed first\n");
    zeEventHostSynchronize(ev[0], UINT64_MAX);
out:
    if (imm) zeCommandListDestroy(imm);
    if (l2) zeCommandListDestroy(l2);
    if (l) zeCommandListDestroy(l);
    if (q) zeCommandQueueDestroy(q);
    if (dst) zeMemFree(zc.context, dst);
    for (int i = 0; i < 5; i++)
        if (ev[i]) zeEventDestroy(ev[i]);
    if (pool) zeEventPoolDestroy(pool);
    zc_work_close(&w);
}

/* zeCommandListAppendQueryKernelTimestamps as a profiler uses it
 * (docs/level-zero-loader.md §8.8): kernels signal events on one queue;
 * a regular list of the profiler's own, executed on a second queue,
 * copies the events' kernel timestamps into host memory, waiting for the
 * same events, and signals a marker the profiler synchronizes on. Each
 * result equals what zeEventQueryKernelTimestamp returns. The copy is the
 * device's work: with ZESIM_EVENT_READ_NS (event memory read across the
 * bus by host queries) the submitting thread does not spend that read per
 * event. Then the list is reset and re-recorded 100 times, each time with
 * other events. */
#define BQ_EVENTS 1000u
#define BQ_BATCH 10u
#define BQ_ROUNDS 100u

static uint64_t bq_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Results at dst for evs[0..n) equal the host queries; returns mismatches. */
static uint32_t bq_compare(ze_event_handle_t *evs, uint32_t n, const ze_kernel_timestamp_result_t *dst,
                           uint32_t *first_bad) {
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        ze_kernel_timestamp_result_t h;
        if (zeEventQueryKernelTimestamp(evs[i], &h) != ZE_RESULT_SUCCESS || memcmp(&h, &dst[i], sizeof h) != 0) {
            if (bad++ == 0) *first_bad = i;
        }
    }
    return bad;
}

static void test_query_kernel_timestamps_bulk(void) {
    ze_device_handle_t d = zc.devices[0];
    zc_work_t w;
    if (!zc_work_open(&w, d, zc.compute_bin, zc.compute_size) || !w.ok) {
        zc_work_close(&w);
        return;
    }
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, BQ_EVENTS + 1};
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t *ev = calloc(BQ_EVENTS + 1, sizeof(*ev)), marker = NULL;
    ze_command_queue_handle_t q = NULL;
    ze_command_list_handle_t l = NULL;
    ze_kernel_timestamp_result_t *dst = NULL, *prev = calloc(BQ_BATCH, sizeof(*prev));
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    if (ev == NULL || prev == NULL ||
        !REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &d, &pool), "bulk query ts: zeEventPoolCreate"))
        goto out;
    for (uint32_t i = 0; i <= BQ_EVENTS; i++) {
        ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, i, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
        if (!REQUIRE_OK(zeEventCreate(pool, &ed, &ev[i]), "bulk query ts: zeEventCreate")) goto out;
    }
    marker = ev[BQ_EVENTS];
    if (!REQUIRE_OK(zeMemAllocHost(zc.context, &hd, BQ_EVENTS * sizeof(*dst), 64, (void **)&dst),
                    "bulk query ts: zeMemAllocHost"))
        goto out;
    /* The second queue: another engine of the compute group if it has
     * one (the launches use index 0), else a second queue on the same. */
    uint32_t ng = 0, index = 0;
    zeDeviceGetCommandQueueGroupProperties(d, &ng, NULL);
    if (ng > 0) {
        ze_command_queue_group_properties_t gp[16];
        if (ng > 16) ng = 16;
        memset(gp, 0, sizeof gp);
        for (uint32_t i = 0; i < ng; i++) gp[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
        if (zeDeviceGetCommandQueueGroupProperties(d, &ng, gp) == ZE_RESULT_SUCCESS && gp[0].numQueues > 1) index = 1;
    }
    if (!queue_and_list(d, index, &q, &l, "bulk query ts")) goto out;

    /* Every event signalled by a kernel of the application's queue. */
    ze_group_count_t g = {1, 1, 1};
    for (uint32_t i = 0; i < BQ_EVENTS; i++)
        if (!REQUIRE_OK(zeCommandListAppendLaunchKernel(w.imm, w.k[0], &g, ev[i], 0, NULL), "bulk query ts: launch"))
            goto out;
    memset(dst, 0xAB, BQ_EVENTS * sizeof(*dst));
    if (!REQUIRE_OK(zeCommandListAppendQueryKernelTimestamps(l, BQ_EVENTS, ev, dst, NULL, marker, BQ_EVENTS, ev),
                    "bulk query ts: append") ||
        !REQUIRE_OK(zeCommandListClose(l), "bulk query ts: close"))
        goto out;
    uint64_t c0 = bq_thread_cpu_ns();
    ze_result_t xr = zeCommandQueueExecuteCommandLists(q, 1, &l, NULL);
    uint64_t cpu = bq_thread_cpu_ns() - c0;
    if (!REQUIRE_OK(xr, "bulk query ts: execute") ||
        !REQUIRE_OK(zeEventHostSynchronize(marker, UINT64_MAX), "bulk query ts: wait for the marker"))
        goto out;
    uint32_t first = 0, bad = bq_compare(ev, BQ_EVENTS, dst, &first);
    CHECK(bad == 0,
          "QueryKernelTimestamps on a second queue, waiting for its events: each result = zeEventQueryKernelTimestamp",
          "%u of %u differ, first: event %u", bad, BQ_EVENTS, first);
    const char *rd = getenv("ZESIM_EVENT_READ_NS");
    uint64_t read_ns = rd != NULL && *rd != '\0' ? strtoull(rd, NULL, 10) : 0;
    if (read_ns > 0) {
        /* Charged per event, the copy would spend BQ_EVENTS * read_ns
         * (2 ms at 2000 ns) of the submitting thread's CPU on top of the
         * rest; uncharged the whole call takes about 60 us (0.7 ms in the
         * sanitizers' -O0 build). */
        uint64_t charged = (uint64_t)BQ_EVENTS * read_ns;
        CHECK(cpu < charged / 4 * 3,
              "QueryKernelTimestamps: the device's copy spends no ZESIM_EVENT_READ_NS on the submitting thread",
              "zeCommandQueueExecuteCommandLists took %llu ns of thread CPU for %u events (per-event reads: %llu ns)",
              (unsigned long long)cpu, BQ_EVENTS, (unsigned long long)charged);
    }

    /* Reset and re-recorded with other events, 100 times. */
    uint32_t rounds_bad = 0, rounds_same = 0, round_first = 0;
    for (uint32_t k = 0; k < BQ_ROUNDS; k++) {
        ze_event_handle_t *b = &ev[(k * BQ_BATCH) % BQ_EVENTS];
        for (uint32_t i = 0; i < BQ_BATCH; i++) zeEventHostReset(b[i]);
        zeEventHostReset(marker);
        for (uint32_t i = 0; i < BQ_BATCH; i++)
            if (!REQUIRE_OK(zeCommandListAppendLaunchKernel(w.imm, w.k[0], &g, b[i], 0, NULL), "bulk query ts: launch"))
                goto out;
        memset(dst, 0xAB, BQ_BATCH * sizeof(*dst));
        if (!REQUIRE_OK(zeCommandListReset(l), "bulk query ts: reset") ||
            !REQUIRE_OK(zeCommandListAppendQueryKernelTimestamps(l, BQ_BATCH, b, dst, NULL, marker, BQ_BATCH, b),
                        "bulk query ts: append after reset") ||
            !REQUIRE_OK(zeCommandListClose(l), "bulk query ts: close") ||
            !REQUIRE_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL), "bulk query ts: execute") ||
            !REQUIRE_OK(zeEventHostSynchronize(marker, UINT64_MAX), "bulk query ts: wait for the marker"))
            goto out;
        if (bq_compare(b, BQ_BATCH, dst, &first) != 0 && rounds_bad++ == 0) round_first = k;
        if (k > 0 && memcmp(prev, dst, BQ_BATCH * sizeof(*dst)) == 0) rounds_same++;
        memcpy(prev, dst, BQ_BATCH * sizeof(*dst));
    }
    CHECK(rounds_bad == 0,
          "QueryKernelTimestamps on a list reset and re-recorded with other events: results = host queries",
          "%u of %u rounds differ, first: round %u", rounds_bad, BQ_ROUNDS, round_first);
    CHECK(rounds_same == 0, "QueryKernelTimestamps after a reset copies the new events' times",
          "%u rounds repeat the previous", rounds_same);
    CHECK_RES(zeCommandQueueSynchronize(q, UINT64_MAX), ZE_RESULT_SUCCESS, "bulk query ts: queue synchronize");
out:
    if (l) zeCommandListDestroy(l);
    if (q) zeCommandQueueDestroy(q);
    if (dst) zeMemFree(zc.context, dst);
    if (ev)
        for (uint32_t i = 0; i <= BQ_EVENTS; i++)
            if (ev[i]) zeEventDestroy(ev[i]);
    if (pool) zeEventPoolDestroy(pool);
    free(ev);
    free(prev);
    zc_work_close(&w);
}

static void test_bad_handles(void) {
    ze_device_properties_t p;
    memset(&p, 0, sizeof p);
    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    CHECK_RES(zeDeviceGetProperties(zc.devices[0], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER,
              "zeDeviceGetProperties(NULL) INVALID_NULL_POINTER");
    uint32_t n = 0;
    CHECK_RES(zeDeviceGetSubDevices(zc.devices[0], NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER,
              "zeDeviceGetSubDevices(NULL count)");
    (void)n;
}

/* An event's status and timestamps as a host observer sees them while
 * its kernel runs and after: never signalled before the kernel's end
 * (the driver decides "signalled by now" without reading the host clock
 * when it can, test/sim/README.md "Cost"), signalled from then on, and a
 * device-side reset that has not happened yet leaves it signalled. */
static void test_event_not_before_end(void) {
    ze_device_handle_t d = zc.devices[0];
    ze_device_properties_t p0;
    if (!zc_device_props(d, &p0, false)) return;
    zc_work_t w;
    if (!zc_work_open(&w, d, zc.compute_bin, zc.compute_size) || !w.ok) {
        zc_work_close(&w);
        return;
    }
    int li = zc_work_find(&w, zc.long_kernel);
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 2};
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t ev = NULL, done = NULL;
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_desc_t ed1 = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 1, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    if (li < 0 || !REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &d, &pool), "not before end: zeEventPoolCreate") ||
        !REQUIRE_OK(zeEventCreate(pool, &ed, &ev), "not before end: zeEventCreate") ||
        !REQUIRE_OK(zeEventCreate(pool, &ed1, &done), "not before end: zeEventCreate"))
        goto out;
    uint32_t tbits = p0.timestampValidBits, kbits = p0.kernelTimestampValidBits;
    uint64_t kmask = kbits >= 64 ? ~0ull : (1ull << kbits) - 1;
    ze_group_count_t g = {128, 1, 1}; /* 8192 items of the long kernel: about 16 ms */
    for (int rep = 0; rep < 3; rep++) {
        if (!REQUIRE_OK(zeCommandListAppendLaunchKernel(w.imm, w.k[li], &g, ev, 0, NULL), "not before end: launch"))
            break;
        long not_ready = 0, early = 0;
        uint64_t h0, d0, h1, d1 = 0, last_nr_ticks = 0, deadline = zc_host_ns() + 10ull * 1000000000ull;
        ze_result_t r;
        for (;;) {
            REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &h0, &d0), "zeDeviceGetGlobalTimestamps");
            r = zeEventQueryStatus(ev);
            ze_kernel_timestamp_result_t ts;
            ze_result_t rt = zeEventQueryKernelTimestamp(ev, &ts);
            REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &h1, &d1), "zeDeviceGetGlobalTimestamps");
            if (r == ZE_RESULT_SUCCESS && rt == ZE_RESULT_SUCCESS) break;
            /* NOT_READY from status may meet SUCCESS from the timestamp query just after it, never the reverse */
            if (r == ZE_RESULT_SUCCESS) early++;
            else not_ready++, last_nr_ticks = d0;
            if (zc_host_ns() > deadline) break;
        }
        CHECK(r == ZE_RESULT_SUCCESS, "not before end: the event signals", "status %#x", (unsigned)r);
        CHECK(early == 0, "not before end: no timestamp query NOT_READY after a status SUCCESS", "%ld", early);
        ze_kernel_timestamp_result_t ts;
        if (!REQUIRE_OK(zeEventQueryKernelTimestamp(ev, &ts), "not before end: zeEventQueryKernelTimestamp")) break;
        /* The first SUCCESS came at or after the kernel's end (ticks read
         * just after it): this is what a floor above the host clock breaks.
         * Whether a NOT_READY was seen at all depends on scheduling (the
         * first query may come after the 16 ms), so it is not required. */
        uint32_t bits = kbits < tbits ? kbits : tbits;
        uint64_t after_end = masked_diff(ts.global.kernelEnd & kmask, d1 & kmask, bits);
        CHECK(after_end < (kmask >> 1), "not before end: first signalled at or after the kernel's end",
              "end %#llx, ticks after the query %#llx", (unsigned long long)ts.global.kernelEnd,
              (unsigned long long)d1);
        /* the last NOT_READY began before the kernel's end: its ticks,
         * read before the query, are at most the end's. Equal ticks are
         * right: a timer tick can outlast a query (26 ns at PVC's
         * 38.4 MHz, 52 ns at Xe2's 19.2 MHz), so the end may fall later
         * in the tick the query began in (seen in 1 of 8 Xe2 runs). */
        if (not_ready > 0) {
            uint64_t before_end = masked_diff(last_nr_ticks & kmask, ts.global.kernelEnd & kmask, bits);
            CHECK(before_end < (kmask >> 1), "not before end: NOT_READY only before the kernel's end",
                  "end %#llx, ticks before the last NOT_READY %#llx", (unsigned long long)ts.global.kernelEnd,
                  (unsigned long long)last_nr_ticks);
        }
        CHECK_RES(zeEventHostSynchronize(ev, 0), ZE_RESULT_SUCCESS,
                  "not before end: zeEventHostSynchronize(0) after it");
        CHECK_RES(zeEventHostReset(ev), ZE_RESULT_SUCCESS, "not before end: zeEventHostReset");
        CHECK_RES(zeEventQueryStatus(ev), ZE_RESULT_NOT_READY, "not before end: NOT_READY after the host reset");
    }
    /* a device-side reset that has not run yet: still signalled until it runs */
    CHECK_RES(zeEventHostSignal(ev), ZE_RESULT_SUCCESS, "not before end: zeEventHostSignal");
    /* 65536 items, about 130 ms: the query below comes before the reset runs even on a loaded machine */
    ze_group_count_t g_long = {1024, 1, 1};
    CHECK_RES(zeCommandListAppendLaunchKernel(w.imm, w.k[li], &g_long, NULL, 0, NULL), ZE_RESULT_SUCCESS,
              "not before end: a long launch before the reset");
    CHECK_RES(zeCommandListAppendEventReset(w.imm, ev), ZE_RESULT_SUCCESS,
              "not before end: zeCommandListAppendEventReset");
    CHECK_RES(zeEventQueryStatus(ev), ZE_RESULT_SUCCESS, "not before end: signalled until the device-side reset runs");
    CHECK_RES(zeCommandListAppendBarrier(w.imm, done, 0, NULL), ZE_RESULT_SUCCESS,
              "not before end: barrier after the reset");
    CHECK_RES(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS, "not before end: the barrier signals");
    CHECK_RES(zeEventQueryStatus(ev), ZE_RESULT_NOT_READY, "not before end: NOT_READY once the device-side reset ran");
out:
    if (done) zeEventDestroy(done);
    if (ev) zeEventDestroy(ev);
    if (pool) zeEventPoolDestroy(pool);
    zc_work_close(&w);
}

void zc_test_device(void) {
    test_repeated_init();
    test_hierarchy();
    test_properties();
    test_global_timestamps();
    test_kernel_timestamps();
    test_query_kernel_timestamps();
    test_query_kernel_timestamps_bulk();
    test_signal_order();
    test_event_not_before_end();
    test_bad_handles();
}
