/*
 * zc_ext.c — "What Intel's clients use": extension functions and
 * properties that Intel's own tools and black-box tests rely on, written
 * from the Level-Zero specification (the core functions of later spec
 * versions that Debian's 1.8.12 loader does not know are reached through
 * zeDriverGetExtensionFunctionAddress, as Intel's driver offers them).
 */
#include <stdlib.h>
#include <string.h>

#include <level_zero/loader/ze_loader.h>

#include "zc.h"

typedef ze_result_t (*zc_queue_u32_fn)(ze_command_queue_handle_t, uint32_t *);

static bool intercept(void) {
    const char *ic = getenv("ZE_ENABLE_LOADER_INTERCEPT");
    return ic && strcmp(ic, "1") == 0;
}

/* Extension functions take the driver's handles (docs/level-zero-loader.md §6 "Intercept mode and
 * `zelLoaderTranslateHandle`"). */
static ze_command_queue_handle_t driver_queue(ze_command_queue_handle_t q) {
    void *out = NULL;
    if (zelLoaderTranslateHandle(ZEL_HANDLE_COMMAND_QUEUE, q, &out) != ZE_RESULT_SUCCESS || out == NULL) return q;
    return (ze_command_queue_handle_t)out;
}

/* zeCommandQueueGetOrdinal / zeCommandQueueGetIndex (spec 1.9): the
 * ordinal and index the queue was created with. */
static void test_queue_queries(void) {
    zc_queue_u32_fn get_ordinal = NULL, get_index = NULL;
    CHECK_RES(zeDriverGetExtensionFunctionAddress(zc.driver, "zeCommandQueueGetOrdinal", (void **)&get_ordinal),
              ZE_RESULT_SUCCESS, "extension zeCommandQueueGetOrdinal");
    CHECK_RES(zeDriverGetExtensionFunctionAddress(zc.driver, "zeCommandQueueGetIndex", (void **)&get_index),
              ZE_RESULT_SUCCESS, "extension zeCommandQueueGetIndex");
    if (get_ordinal == NULL || get_index == NULL) return;
    uint32_t ngroups = 0;
    REQUIRE_OK(zeDeviceGetCommandQueueGroupProperties(zc.devices[0], &ngroups, NULL), "queue group count");
    ze_command_queue_group_properties_t props[8];
    if (ngroups > 8) ngroups = 8;
    for (uint32_t g = 0; g < ngroups; g++) {
        memset(&props[g], 0, sizeof props[g]);
        props[g].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    }
    REQUIRE_OK(zeDeviceGetCommandQueueGroupProperties(zc.devices[0], &ngroups, props), "queue group properties");
    unsigned mismatches = 0, created = 0;
    for (uint32_t g = 0; g < ngroups; g++) {
        for (uint32_t i = 0; i < props[g].numQueues; i++) {
            ze_command_queue_desc_t d = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, g, i, 0,
                                         ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
            ze_command_queue_handle_t q = NULL;
            if (zeCommandQueueCreate(zc.context, zc.devices[0], &d, &q) != ZE_RESULT_SUCCESS) continue;
            created++;
            uint32_t o = 99, x = 99;
            if (get_ordinal(driver_queue(q), &o) != ZE_RESULT_SUCCESS || o != g) mismatches++;
            if (get_index(driver_queue(q), &x) != ZE_RESULT_SUCCESS || x != i) mismatches++;
            if (g == 0 && i == 0) {
                CHECK_RES(get_ordinal(driver_queue(q), NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                          "zeCommandQueueGetOrdinal(NULL output)");
                CHECK_RES(get_index(driver_queue(q), NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                          "zeCommandQueueGetIndex(NULL output)");
            }
            zeCommandQueueDestroy(q);
        }
    }
    CHECK(created > 0 && mismatches == 0, "zeCommandQueueGetOrdinal/GetIndex = the queue's ordinal and index",
          "%u queues, %u mismatches", created, mismatches);
    uint32_t o = 0;
    if (!intercept())
        CHECK_RES(get_ordinal(NULL, &o), ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "zeCommandQueueGetOrdinal(NULL)");
}

/* ZE_extension_event_query_kernel_timestamps (spec 1.6; the 1.4 headers
 * lack it, values from the specification). */
#define ZC_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP (1u << 3)
#define ZC_STYPE_KTS_EXT_PROPERTIES 0x10011u
#define ZC_STYPE_KTS_RESULTS_EXT_PROPERTIES 0x10012u
typedef struct { uint32_t stype; void *pNext; uint32_t flags; } zc_kts_props_t;
typedef struct { uint64_t kernelStart, kernelEnd; } zc_sync_data_t;
typedef struct { zc_sync_data_t global, context; } zc_sync_result_t;
typedef struct {
    uint32_t stype;
    void *pNext;
    ze_kernel_timestamp_result_t *pKernelTimestampsBuffer;
    zc_sync_result_t *pSynchronizedTimestampsBuffer;
} zc_kts_results_t;
typedef ze_result_t (*zc_kts_fn)(ze_event_handle_t, ze_device_handle_t, uint32_t *, zc_kts_results_t *);

static void *driver_handle(zel_handle_type_t type, void *h) {
    void *out = NULL;
    if (zelLoaderTranslateHandle(type, h, &out) != ZE_RESULT_SUCCESS || out == NULL) return h;
    return out;
}

/* Mapped kernel timestamps: the pool flag, the device property and
 * zeEventQueryKernelTimestampsExt, whose synchronized results are the
 * kernel's start and end in the host's time domain (the clock of
 * zeDeviceGetGlobalTimestamps' host value). */
static void test_mapped_timestamps(void) {
    ze_device_handle_t d = zc.devices[0];
    /* listed and announced */
    uint32_t n = 0;
    REQUIRE_OK(zeDriverGetExtensionProperties(zc.driver, &n, NULL), "extension count");
    ze_driver_extension_properties_t ext[32];
    if (n > 32) n = 32;
    REQUIRE_OK(zeDriverGetExtensionProperties(zc.driver, &n, ext), "extension properties");
    bool listed = false;
    for (uint32_t i = 0; i < n; i++) listed |= strcmp(ext[i].name, "ZE_extension_event_query_kernel_timestamps") == 0;
    CHECK_TRUE(listed, "ZE_extension_event_query_kernel_timestamps listed");
    zc_kts_props_t kp = {ZC_STYPE_KTS_EXT_PROPERTIES, NULL, 0};
    ze_device_properties_t dp;
    memset(&dp, 0, sizeof dp);
    dp.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    dp.pNext = &kp;
    REQUIRE_OK(zeDeviceGetProperties(d, &dp), "zeDeviceGetProperties");
    CHECK_U64(kp.flags, 3, "ze_event_query_kernel_timestamps_ext_properties_t.flags = KERNEL | SYNCHRONIZED");
    zc_kts_fn query = NULL;
    CHECK_RES(zeDriverGetExtensionFunctionAddress(zc.driver, "zeEventQueryKernelTimestampsExt", (void **)&query),
              ZE_RESULT_SUCCESS, "extension zeEventQueryKernelTimestampsExt");
    if (query == NULL) return;

    zc_work_t w;
    if (!zc_work_open(&w, d, zc.stream_bin, zc.stream_size)) { zc_work_close(&w); return; }
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZC_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP, 1};
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t ev = NULL;
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    if (!REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &d, &pool), "zeEventPoolCreate(KERNEL_MAPPED_TIMESTAMP)") ||
        !REQUIRE_OK(zeEventCreate(pool, &ed, &ev), "zeEventCreate")) {
        if (pool) zeEventPoolDestroy(pool);
        zc_work_close(&w);
        return;
    }
    ze_event_handle_t dev_ev = driver_handle(ZEL_HANDLE_EVENT, ev);
    ze_device_handle_t dev_d = driver_handle(ZEL_HANDLE_DEVICE, d);
    uint32_t cnt = 0;
    CHECK_RES(query(dev_ev, dev_d, &cnt, NULL), ZE_RESULT_SUCCESS, "zeEventQueryKernelTimestampsExt count");
    CHECK(cnt >= 1, "zeEventQueryKernelTimestampsExt count >= 1", "count %u", cnt);
    ze_kernel_timestamp_result_t kts[8];
    zc_sync_result_t sts[8];
    zc_kts_results_t res = {ZC_STYPE_KTS_RESULTS_EXT_PROPERTIES, NULL, kts, sts};
    if (cnt > 8) cnt = 8;
    CHECK_RES(query(dev_ev, dev_d, &cnt, &res), ZE_RESULT_NOT_READY,
              "zeEventQueryKernelTimestampsExt on an unsignalled event -> NOT_READY");

    uint64_t h0 = 0, d0 = 0, h1 = 0, d1 = 0;
    ze_group_count_t g = {64, 1, 1};
    REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &h0, &d0), "zeDeviceGetGlobalTimestamps");
    bool ok = REQUIRE_OK(zeCommandListAppendLaunchKernel(w.imm, w.k[0], &g, ev, 0, NULL), "launch") &&
              REQUIRE_OK(zeEventHostSynchronize(ev, UINT64_MAX), "zeEventHostSynchronize");
    REQUIRE_OK(zeDeviceGetGlobalTimestamps(d, &h1, &d1), "zeDeviceGetGlobalTimestamps");
    if (ok) {
        ze_kernel_timestamp_result_t one;
        CHECK_RES(zeEventQueryKernelTimestamp(ev, &one), ZE_RESULT_SUCCESS,
                  "zeEventQueryKernelTimestamp on a KERNEL_MAPPED_TIMESTAMP event");
        memset(sts, 0, sizeof sts);
        CHECK_RES(query(dev_ev, dev_d, &cnt, &res), ZE_RESULT_SUCCESS, "zeEventQueryKernelTimestampsExt");
        ze_device_properties_t p0;
        zc_device_props(d, &p0, true); /* timerResolution in cycles/s */
        uint64_t hz = p0.timerResolution ? p0.timerResolution : 1;
        uint64_t kmask = p0.kernelTimestampValidBits >= 64 ? ~0ull : (1ull << p0.kernelTimestampValidBits) - 1;
        CHECK(kts[0].global.kernelStart == one.global.kernelStart && kts[0].global.kernelEnd == one.global.kernelEnd,
              "zeEventQueryKernelTimestampsExt kernel results = zeEventQueryKernelTimestamp", "ext %#llx..%#llx, %#llx..%#llx",
              (unsigned long long)kts[0].global.kernelStart, (unsigned long long)kts[0].global.kernelEnd,
              (unsigned long long)one.global.kernelStart, (unsigned long long)one.global.kernelEnd);
        uint64_t s = sts[0].global.kernelStart, e = sts[0].global.kernelEnd;
        CHECK(s >= h0 && s <= e && e <= h1, "synchronized timestamps: host ns inside the launch's host window",
              "window [%llu, %llu], kernel [%llu, %llu]", (unsigned long long)h0, (unsigned long long)h1,
              (unsigned long long)s, (unsigned long long)e);
        /* the same duration as the ticks, within one tick */
        uint64_t ticks = (kts[0].global.kernelEnd - kts[0].global.kernelStart) & kmask;
        double dur_ticks_ns = (double)ticks * 1e9 / (double)hz, dur_ns = (double)(e - s);
        double tick_ns = 1e9 / (double)hz;
        CHECK(dur_ns > dur_ticks_ns - 1.01 * tick_ns && dur_ns < dur_ticks_ns + 1.01 * tick_ns,
              "synchronized duration = kernel-timestamp duration (within a tick)", "%.0f ns vs %.0f ns", dur_ns,
              dur_ticks_ns);
        CHECK(sts[0].context.kernelStart == s && sts[0].context.kernelEnd == e, "synchronized context = global",
              "context %llu..%llu", (unsigned long long)sts[0].context.kernelStart,
              (unsigned long long)sts[0].context.kernelEnd);
    }
    zeEventDestroy(ev);
    zeEventPoolDestroy(pool);
    zc_work_close(&w);
}

/* Intel's metric scopes (ZET_intel_metric_scopes), written from Intel's
 * public header: one scope per tile, "COMPUTE_TILE_<n>", on products
 * without device-level aggregation (PVC, Xe2). */
typedef struct {
    uint32_t stype;
    void *pNext;
    uint16_t iD;
    char name[64];
    char description[128];
} zc_scope_props_t;
typedef ze_result_t (*zc_scopes_get_fn)(zet_context_handle_t, zet_device_handle_t, uint32_t *, void **);
typedef ze_result_t (*zc_scope_props_fn)(void *, zc_scope_props_t *);
typedef ze_result_t (*zc_metric_scopes_fn)(zet_metric_handle_t, uint32_t *, void **);

static void test_metric_scopes(void) {
    zc_scopes_get_fn get = NULL;
    zc_scope_props_fn props = NULL;
    zc_metric_scopes_fn supported = NULL;
    CHECK_RES(zeDriverGetExtensionFunctionAddress(zc.driver, "zetIntelMetricScopesGetExp", (void **)&get),
              ZE_RESULT_SUCCESS, "extension zetIntelMetricScopesGetExp");
    CHECK_RES(zeDriverGetExtensionFunctionAddress(zc.driver, "zetIntelMetricScopeGetPropertiesExp", (void **)&props),
              ZE_RESULT_SUCCESS, "extension zetIntelMetricScopeGetPropertiesExp");
    CHECK_RES(zeDriverGetExtensionFunctionAddress(zc.driver, "zetIntelMetricSupportedScopesGetExp", (void **)&supported),
              ZE_RESULT_SUCCESS, "extension zetIntelMetricSupportedScopesGetExp");
    if (!get || !props || !supported) return;
    ze_device_handle_t d = zc.devices[0];
    zet_context_handle_t ctx = driver_handle(ZEL_HANDLE_CONTEXT, zc.context);
    zet_device_handle_t dd = driver_handle(ZEL_HANDLE_DEVICE, d);
    /* metrics may have been enabled at run time (zetIntelDeviceEnableMetricsExp
     * in the metrics tests): what counts is whether groups are listed now */
    uint32_t ngroups = 0;
    zetMetricGroupGet(d, &ngroups, NULL);
    uint32_t n = 5;
    if (ngroups == 0) {
        CHECK_RES(get(ctx, dd, &n, NULL), ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE,
                  "zetIntelMetricScopesGetExp without metrics enabled -> DEPENDENCY_UNAVAILABLE");
        CHECK_U64(n, 0, "zetIntelMetricScopesGetExp without metrics: count 0");
        return;
    }
    ze_device_handle_t subs[8];
    uint32_t nsub = zc_exp.composite ? zc_subdevices(d, subs, 8) : 0;
    uint32_t want = nsub ? nsub : 1;
    n = 0;
    CHECK_RES(get(ctx, dd, &n, NULL), ZE_RESULT_SUCCESS, "zetIntelMetricScopesGetExp count");
    CHECK_U64(n, want, "one metric scope per tile of the device");
    void *sc[8] = {0};
    if (n > 8) n = 8;
    CHECK_RES(get(ctx, dd, &n, sc), ZE_RESULT_SUCCESS, "zetIntelMetricScopesGetExp");
    for (uint32_t i = 0; i < n; i++) {
        zc_scope_props_t p;
        memset(&p, 0xAB, sizeof p);
        p.stype = 0x00010006u;
        p.pNext = NULL;
        CHECK_RES(props(sc[i], &p), ZE_RESULT_SUCCESS, "zetIntelMetricScopeGetPropertiesExp");
        char name[64], desc[128];
        /* FLAT: the device is tile zc index; COMPOSITE: sub-device i */
        unsigned tile = nsub ? i : 0;
        snprintf(name, sizeof name, "COMPUTE_TILE_%u", tile);
        snprintf(desc, sizeof desc, "Metrics results for tile %u", tile);
        CHECK_U64(p.iD, i, "metric scope iD = its index");
        CHECK_STR(p.name, name, "metric scope name COMPUTE_TILE_<tile>");
        CHECK_STR(p.description, desc, "metric scope description");
    }
    /* a second FLAT device is the second tile */
    if (!zc_exp.composite && zc.num_devices > 1) {
        void *s1 = NULL;
        uint32_t one = 1;
        zc_scope_props_t p;
        memset(&p, 0, sizeof p);
        if (get(ctx, driver_handle(ZEL_HANDLE_DEVICE, zc.devices[1]), &one, &s1) == ZE_RESULT_SUCCESS && s1 &&
            props(s1, &p) == ZE_RESULT_SUCCESS)
            CHECK_STR(p.name, "COMPUTE_TILE_1", "FLAT device 1 is tile 1");
    }
    /* every metric of the device's groups supports the device's scopes;
     * metric handles cannot be translated in intercept mode */
    if (intercept()) return;
    uint32_t ng = 0;
    zet_metric_group_handle_t groups[8];
    zetMetricGroupGet(d, &ng, NULL);
    if (ng > 8) ng = 8;
    zetMetricGroupGet(d, &ng, groups);
    unsigned bad = 0, seen = 0;
    for (uint32_t g = 0; g < ng; g++) {
        zet_metric_group_properties_t gp = {ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES, NULL, "", "", 0, 0, 0};
        zetMetricGroupGetProperties(groups[g], &gp);
        if (strcmp(gp.name, "EuStallSampling") != 0 || nsub) continue; /* a COMPOSITE root hands out tile 0's metrics */
        uint32_t nm = 0;
        zet_metric_handle_t ms[16];
        zetMetricGet(groups[g], &nm, NULL);
        if (nm > 16) nm = 16;
        zetMetricGet(groups[g], &nm, ms);
        for (uint32_t m = 0; m < nm; m++) {
            uint32_t c = 0;
            void *ss[8] = {0};
            if (supported(ms[m], &c, NULL) != ZE_RESULT_SUCCESS || c != n) { bad++; continue; }
            if (supported(ms[m], &c, ss) != ZE_RESULT_SUCCESS) { bad++; continue; }
            for (uint32_t i = 0; i < c; i++) bad += ss[i] != sc[i];
            seen++;
        }
    }
    if (zc_exp.has_group && !nsub)
        CHECK(seen > 0 && bad == 0, "zetIntelMetricSupportedScopesGetExp = the device's scopes", "%u metrics, %u bad", seen,
              bad);
}

/* Intel's register-file-size property (zex_kernel_register_file_size_exp_t,
 * stype 0x00030012, in the pNext chain of zeKernelGetProperties): the
 * kernel's GRF count, which IGC records as grf_count in .ze_info. */
typedef struct { uint32_t stype; const void *pNext; uint32_t registerFileSize; } zc_grf_t;

static void test_register_file_size(void) {
    /* the GRF count the compiler recorded: every kernel of our zebins has
     * the same one */
    zc_elf_t e;
    uint32_t want = 0;
    bool uniform = true;
    if (zc_elf_open(&e, zc.stream_bin, zc.stream_size)) {
        const zc_section_t *zi = zc_elf_section(&e, ".ze_info");
        if (zi && zi->offset + zi->size <= zc.stream_size) {
            const char *t = (const char *)zc.stream_bin + zi->offset, *end = t + zi->size;
            for (const char *q = t; q < end; q++) {
                if ((size_t)(end - q) > 10 && memcmp(q, "grf_count:", 10) == 0) {
                    uint32_t v = (uint32_t)strtoul(q + 10, NULL, 10);
                    if (want && v != want) uniform = false;
                    want = v;
                }
            }
        }
        zc_elf_close(&e);
    }
    if (want == 0 || !uniform) {
        CHECK(false, "stream zebin records one grf_count in .ze_info", "grf_count %u, uniform %d", want, uniform);
        return;
    }
    zc_work_t w;
    if (!zc_work_open(&w, zc.devices[0], zc.stream_bin, zc.stream_size)) { zc_work_close(&w); return; }
    unsigned bad = 0;
    for (uint32_t i = 0; i < w.nk; i++) {
        zc_grf_t grf = {0x00030012u, NULL, 0};
        ze_kernel_properties_t kp;
        memset(&kp, 0, sizeof kp);
        kp.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
        kp.pNext = &grf;
        if (zeKernelGetProperties(w.k[i], &kp) != ZE_RESULT_SUCCESS || grf.registerFileSize != want) bad++;
    }
    CHECK(w.nk > 0 && bad == 0, "zeKernelGetProperties register file size = .ze_info grf_count", "%u kernels, %u bad (want %u)",
          w.nk, bad, want);
    zc_work_close(&w);
}

void zc_test_extensions(void) {
    test_register_file_size();
    test_queue_queries();
    test_mapped_timestamps();
    test_metric_scopes();
}
