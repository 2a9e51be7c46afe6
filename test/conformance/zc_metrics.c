/*
 * zc_metrics.c — the EuStallSampling metric group (eu-stall-sampling.md
 * docs/eu-stall-sampling.md §1 "Key facts"–docs/eu-stall-sampling.md §7 "Calculation", docs/eu-stall-sampling.md §10 "Tracer-based metrics (experimental API)", checklist docs/eu-stall-sampling.md §13 "Checklist for a simulated driver"): enumeration, properties, pNext extensions,
 * activation, streamer, ReadData, raw records decoded here with the docs/eu-stall-sampling.md §3 "The raw record"
 * bit layout, IP <-> kernel mapping, calculation compared with this file's
 * own aggregation, COMPOSITE headers, unsupported calls, tracer API.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zc.h"

static const char *const pvc_names[10] = {"IP", "Active", "ControlStall", "PipeStall", "SendStall",
                                          "DistStall", "SbidStall", "SyncStall", "InstrFetchStall", "OtherStall"};
static const char *const pvc_desc[10] = {"IP address", "Active cycles", "Stall on control", "Stall on pipe",
                                         "Stall on send", "Stall on distance", "Stall on scoreboard",
                                         "Stall on sync", "Stall on instruction fetch", "Stall on other condition"};
static const char *const xe2_names[11] = {"IP", "Active", "PSDepStall", "ControlStall", "PipeStall", "SendStall",
                                          "DistStall", "SbidStall", "SyncStall", "InstrFetchStall", "OtherStall"};
static const char *const xe2_desc[11] = {"IP address", "Active cycles", "Stall on Pixel Shader Order Dependency",
                                         "Stall on control", "Stall on pipe", "Stall on send", "Stall on distance",
                                         "Stall on scoreboard", "Stall on sync", "Stall on instruction fetch",
                                         "Stall on other condition"};

/* ---- records ----------------------------------------------------- */
static uint32_t bits_at(const uint8_t *r, unsigned lo, unsigned n) {
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned b = lo + i;
        v |= (uint32_t)((r[b >> 3] >> (b & 7)) & 1u) << i;
    }
    return v;
}

void zc_decode(const uint8_t *r, zc_rec_t *out) {
    memset(out, 0, sizeof *out);
    uint64_t lo = 0;
    memcpy(&lo, r, 8);
    out->ip = lo & 0x1fffffffu;
    unsigned n = zc_exp.pvc_layout ? 9 : 10;
    for (unsigned k = 0; k < n; k++) out->raw[k] = bits_at(r, 29 + 8 * k, 8);
    out->subslice = (uint16_t)(r[48] | (r[49] << 8));
    out->flags = (uint16_t)(r[50] | (r[51] << 8));
}

void zc_metric_order(const zc_rec_t *r, uint64_t *v) {
    v[0] = r->ip;
    if (zc_exp.pvc_layout) {
        v[1] = r->raw[0];
        for (int k = 2; k <= 8; k++) v[k] = r->raw[k];
        v[9] = r->raw[1];
    } else {
        v[1] = r->raw[9];
        v[2] = r->raw[0];
        for (int k = 2; k <= 8; k++) v[k + 1] = r->raw[k];
        v[10] = r->raw[1];
    }
}

/* one report per unique IP, ascending, summed (docs/eu-stall-sampling.md §7.4 "Aggregation and value order") */
typedef struct agg { uint64_t v[11]; } agg_t;
static int cmp_agg(const void *a, const void *b) {
    uint64_t x = ((const agg_t *)a)->v[0], y = ((const agg_t *)b)->v[0];
    return x < y ? -1 : x > y;
}
static size_t aggregate(const uint8_t *data, size_t nrec, agg_t **out) {
    agg_t *a = calloc(nrec ? nrec : 1, sizeof *a);
    for (size_t i = 0; i < nrec; i++) {
        zc_rec_t r;
        zc_decode(data + i * ZC_RECORD, &r);
        zc_metric_order(&r, a[i].v);
    }
    qsort(a, nrec, sizeof *a, cmp_agg);
    size_t u = 0;
    for (size_t i = 0; i < nrec; i++) {
        if (u > 0 && a[u - 1].v[0] == a[i].v[0]) {
            for (int m = 1; m < 11; m++) a[u - 1].v[m] += a[i].v[m];
        } else {
            a[u++] = a[i];
        }
    }
    *out = a;
    return u;
}

/* ---- helpers ------------------------------------------------------ */
static zet_metric_group_handle_t find_group(ze_device_handle_t d, uint32_t *index, uint32_t *count, uint32_t *matches,
                                            bool *ip_domain_elsewhere) {
    uint32_t n = 0;
    *matches = 0;
    *index = UINT32_MAX;
    if (ip_domain_elsewhere) *ip_domain_elsewhere = false;
    if (zetMetricGroupGet((zet_device_handle_t)d, &n, NULL) != ZE_RESULT_SUCCESS) { *count = 0; return NULL; }
    *count = n;
    if (n == 0) return NULL;
    zet_metric_group_handle_t *g = calloc(n, sizeof *g), found = NULL;
    if (zetMetricGroupGet((zet_device_handle_t)d, &n, g) == ZE_RESULT_SUCCESS) {
        for (uint32_t i = 0; i < n; i++) {
            zet_metric_group_properties_t p = {ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES, NULL, "", "", 0, 0, 0};
            if (zetMetricGroupGetProperties(g[i], &p) != ZE_RESULT_SUCCESS) continue;
            if (strcmp(p.name, "EuStallSampling") == 0) {
                (*matches)++;
                if (!found) { found = g[i]; *index = i; }
            } else if (p.domain == 100 && ip_domain_elsewhere) {
                *ip_domain_elsewhere = true;
            }
        }
    }
    free(g);
    return found;
}

static uint32_t xecores(ze_device_handle_t d) {
    ze_device_properties_t p;
    if (!zc_device_props(d, &p, false)) return 0;
    return p.numSlices * p.numSubslicesPerSlice;
}

static uint64_t ts_hz(ze_device_handle_t d) {
    ze_device_properties_t p;
    if (!zc_device_props(d, &p, true)) return 0;
    return p.timerResolution;
}

static bool activate(ze_device_handle_t d, zet_metric_group_handle_t g) {
    return REQUIRE_OK(zetContextActivateMetricGroups((zet_context_handle_t)zc.context, (zet_device_handle_t)d, 1, &g),
                      "zetContextActivateMetricGroups");
}
static void deactivate(ze_device_handle_t d) {
    REQUIRE_OK(zetContextActivateMetricGroups((zet_context_handle_t)zc.context, (zet_device_handle_t)d, 0, NULL),
               "zetContextActivateMetricGroups(0)");
}

static ze_result_t open_streamer(ze_device_handle_t d, zet_metric_group_handle_t g, zet_metric_streamer_desc_t *desc,
                                 ze_event_handle_t ev, zet_metric_streamer_handle_t *s) {
    *s = NULL;
    return zetMetricStreamerOpen((zet_context_handle_t)zc.context, (zet_device_handle_t)d, g, desc, ev, s);
}

static void close_streamer(zet_metric_streamer_handle_t s) {
    if (s) REQUIRE_OK(zetMetricStreamerClose(s), "zetMetricStreamerClose");
}

typedef struct event_pair { ze_event_pool_handle_t pool; ze_event_handle_t ev; } event_pair_t;
static bool make_event(ze_device_handle_t d, event_pair_t *e) {
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    if (!REQUIRE_OK(zeEventPoolCreate(zc.context, &pd, 1, &d, &e->pool), "zeEventPoolCreate")) return false;
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    return REQUIRE_OK(zeEventCreate(e->pool, &ed, &e->ev), "zeEventCreate");
}
static void free_event(event_pair_t *e) {
    if (e->ev) zeEventDestroy(e->ev);
    if (e->pool) zeEventPoolDestroy(e->pool);
}

#define READ_CHUNK (4u << 20)
/* Reads until an empty read. Counts WARNING_DROPPED_DATA answers. */
static uint8_t *read_all(zet_metric_streamer_handle_t s, size_t *total, unsigned *warnings, const char *what) {
    uint8_t *all = NULL;
    size_t n = 0;
    uint8_t *buf = malloc(READ_CHUNK);
    *warnings = 0;
    for (int it = 0; it < 4096 && buf; it++) {
        size_t sz = READ_CHUNK;
        ze_result_t r = zetMetricStreamerReadData(s, UINT32_MAX, &sz, buf);
        if (r == ZE_RESULT_WARNING_DROPPED_DATA) {
            (*warnings)++;
            CHECK_U64(sz, 0, "WARNING_DROPPED_DATA read returns size 0");
            continue;
        }
        if (r != ZE_RESULT_SUCCESS) {
            CHECK(false, "zetMetricStreamerReadData", "%s: returned 0x%08x", what, (unsigned)r);
            break;
        }
        if (sz == 0) break;
        uint8_t *na = realloc(all, n + sz);
        if (!na) break;
        all = na;
        memcpy(all + n, buf, sz);
        n += sz;
        if (sz < READ_CHUNK - 4096) {
            /* a short read: the next one is normally empty; keep going anyway */
        }
    }
    free(buf);
    *total = n;
    return all;
}

/* ---- enumeration and properties ---------------------------------- */
static void test_enumeration(ze_device_handle_t d, const char *what) {
    uint32_t idx, count, matches;
    bool ipdom = false;
    zet_metric_group_handle_t g = find_group(d, &idx, &count, &matches, &ipdom);
    if (zc_exp.has_group) {
        CHECK(matches == 1, "exactly one EuStallSampling group", "%s: %u groups named EuStallSampling", what, matches);
        CHECK(g && idx == count - 1, "EuStallSampling comes after all OA groups (last)", "%s: index %u of %u", what, idx,
              count);
        CHECK(!ipdom, "no other group in domain 100", "%s", what);
    } else {
        CHECK(matches == 0 && !ipdom, "no EuStallSampling group on this configuration",
              "%s: %u groups named EuStallSampling (model %s, metrics %s, permission %s)", what, matches,
              zc_exp.model_name, zc_exp.metrics_env ? "on" : "off", zc_exp.permitted ? "ok" : "denied");
    }
}

static void test_group_properties(ze_device_handle_t d, zet_metric_group_handle_t g) {
    zet_metric_group_properties_t p = {ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES, NULL, "", "", 0, 0, 0};
    if (!REQUIRE_OK(zetMetricGroupGetProperties(g, &p), "zetMetricGroupGetProperties")) return;
    CHECK_STR(p.name, "EuStallSampling", "group name");
    CHECK_STR(p.description, "EU stall sampling", "group description");
    CHECK_U64(p.samplingType, ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED, "group samplingType TIME_BASED only");
    CHECK_U64(p.domain, 100, "group domain");
    CHECK_U64(p.metricCount, zc_exp.metric_count, "group metricCount");

    uint32_t n = 0;
    REQUIRE_OK(zetMetricGet(g, &n, NULL), "zetMetricGet count");
    CHECK_U64(n, zc_exp.metric_count, "zetMetricGet count");
    if (n == 0 || n > 16) return;
    zet_metric_handle_t m[16];
    if (!REQUIRE_OK(zetMetricGet(g, &n, m), "zetMetricGet")) return;
    const char *const *names = zc_exp.pvc_layout ? pvc_names : xe2_names;
    const char *const *desc = zc_exp.pvc_layout ? pvc_desc : xe2_desc;
    for (uint32_t i = 0; i < n && i < zc_exp.metric_count; i++) {
        zet_metric_properties_t mp;
        memset(&mp, 0, sizeof mp);
        mp.stype = ZET_STRUCTURE_TYPE_METRIC_PROPERTIES;
        if (!REQUIRE_OK(zetMetricGetProperties(m[i], &mp), "zetMetricGetProperties")) continue;
        CHECK_STR(mp.name, names[i], "metric name (in order)");
        CHECK_STR(mp.description, desc[i], "metric description");
        CHECK_STR(mp.component, "XVE", "metric component");
        CHECK_U64(mp.tierNumber, 4, "metric tier");
        CHECK_U64(mp.metricType, i == 0 ? ZC_METRIC_TYPE_IP : (unsigned)ZET_METRIC_TYPE_EVENT, "metric type");
        CHECK_U64(mp.resultType, ZET_VALUE_TYPE_UINT64, "metric result type");
        CHECK_STR(mp.resultUnits, i == 0 ? "Address" : "Events", "metric units");
        zc_calculable_t c = {ZC_STYPE_CALCULABLE, NULL, false};
        mp.pNext = &c;
        REQUIRE_OK(zetMetricGetProperties(m[i], &mp), "zetMetricGetProperties with calculable ext");
        CHECK_TRUE(c.isCalculable, "metric calculable extension: isCalculable = true");
    }

    /* pNext extensions (docs/eu-stall-sampling.md §2.2 "Extended group properties through pNext") */
    ze_device_properties_t dp;
    zc_device_props(d, &dp, false);
    uint64_t hz = ts_hz(d);
    zc_source_id_t sid = {ZC_STYPE_SOURCE_ID, NULL, 0};
    zc_ts_res_t tr = {ZC_STYPE_GLOBAL_TS_RES, &sid, 0, 0};
    zc_group_type_t gt = {ZC_STYPE_GROUP_TYPE, &tr, 0};
    zc_calc_props_t cp = {ZC_STYPE_CALC_PROPS, &gt, true};
    p.pNext = &cp;
    CHECK_RES(zetMetricGroupGetProperties(g, &p), ZE_RESULT_SUCCESS, "group properties with all known extensions");
    CHECK_U64(sid.sourceId, 2, "source id extension: IP sampling = 2");
    CHECK_U64(tr.timerResolution, hz, "timestamp extension: timerResolution = device timer Hz");
    CHECK(tr.timerResolution != 0 && tr.timestampValidBits != 0, "timestamp extension non-zero (unitrace asserts)",
          "res %llu bits %llu", (unsigned long long)tr.timerResolution, (unsigned long long)tr.timestampValidBits);
    CHECK_U64(tr.timestampValidBits, dp.timestampValidBits, "timestamp extension: validBits = device timestampValidBits");
    if (zc_exp.pvc_layout) CHECK_U64(tr.timestampValidBits, 36, "timestamp extension: PVC validBits 36");
    CHECK_U64(gt.type, ZC_GROUP_TYPE_OTHER, "group type extension: OTHER");
    CHECK_TRUE(!cp.isTimeFilterSupported, "calculation extension: isTimeFilterSupported = false");

    struct { uint32_t stype; void *pNext; uint64_t pad[4]; } unknown = {0x7ff0abcdu, NULL, {0}};
    p.pNext = &unknown;
    CHECK_RES(zetMetricGroupGetProperties(g, &p), ZE_RESULT_ERROR_INVALID_ARGUMENT,
              "group properties quirk: chain of unknown structures only -> INVALID_ARGUMENT");
    zc_source_id_t sid2 = {ZC_STYPE_SOURCE_ID, NULL, 0};
    unknown.pNext = &sid2;
    CHECK_RES(zetMetricGroupGetProperties(g, &p), ZE_RESULT_SUCCESS, "group properties: unknown + known -> SUCCESS");
    CHECK_U64(sid2.sourceId, 2, "source id after an unknown structure");
    p.pNext = NULL;
    CHECK_RES(zetMetricGroupGetProperties(g, &p), ZE_RESULT_SUCCESS, "group properties without chain");
}

/* ---- streamer rules (docs/eu-stall-sampling.md §5 "zetMetricStreamerOpen") ------------------------------------------- */
static void test_streamer_rules(ze_device_handle_t d, zet_metric_group_handle_t g) {
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 100, 100000};
    zet_metric_streamer_handle_t s = NULL, s2 = NULL;
    deactivate(d);
    CHECK_RES(open_streamer(d, g, &desc, NULL, &s), ZE_RESULT_NOT_READY, "streamer open without activation -> NOT_READY");
    if (s) close_streamer(s);
    if (!activate(d, g)) return;
    if (!REQUIRE_OK(open_streamer(d, g, &desc, NULL, &s), "zetMetricStreamerOpen")) return;
    desc.notifyEveryNReports = 100;
    desc.samplingPeriod = 100000;
    CHECK_RES(open_streamer(d, g, &desc, NULL, &s2), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
              "second streamer on the device -> HANDLE_OBJECT_IN_USE");
    if (s2) close_streamer(s2);
    close_streamer(s);
    CHECK_RES(open_streamer(d, g, &desc, NULL, &s), ZE_RESULT_SUCCESS, "reopen after close");
    close_streamer(s);
    desc.notifyEveryNReports = 0;
    CHECK_RES(open_streamer(d, g, &desc, NULL, &s), ZE_RESULT_ERROR_UNKNOWN, "notifyEveryNReports = 0 -> ERROR_UNKNOWN");
    if (s) close_streamer(s);
    /* one streamer per device: another root device is independent (FLAT) */
    if (!zc_exp.composite && zc.num_devices > 1 && d == zc.devices[0]) {
        uint32_t i1, c1, m1;
        zet_metric_group_handle_t g1 = find_group(zc.devices[1], &i1, &c1, &m1, NULL);
        if (g1 && activate(zc.devices[1], g1)) {
            desc.notifyEveryNReports = 100;
            CHECK_RES(open_streamer(d, g, &desc, NULL, &s), ZE_RESULT_SUCCESS, "streamer on device 0");
            CHECK_RES(open_streamer(zc.devices[1], g1, &desc, NULL, &s2), ZE_RESULT_SUCCESS,
                      "simultaneous streamer on device 1");
            if (s2) close_streamer(s2);
            if (s) close_streamer(s);
            deactivate(zc.devices[1]);
        }
    }
}

static uint64_t expected_period(uint64_t req, uint64_t hz) {
    uint64_t P = 1000000000ull / hz;
    if (P == 0) P = 1;
    uint64_t clocks = req / P;
    if (!zc_exp.xe_kmd) {
        uint64_t unit = clocks / 251;
        if (unit < 1) unit = 1;
        if (unit > 7) unit = 7;
        return unit * 251 * P;
    }
    uint64_t best = 251;
    uint64_t bestd = UINT64_MAX;
    for (uint64_t m = 1; m <= 7; m++) {
        uint64_t rate = 251 * m, dd = rate > clocks ? rate - clocks : clocks - rate;
        if (dd <= bestd) { bestd = dd; best = rate; } /* tie -> the higher entry */
    }
    return best * P;
}

static void test_writeback(ze_device_handle_t d, zet_metric_group_handle_t g, uint32_t nsub) {
    uint64_t hz = ts_hz(d);
    uint32_t dss = xecores(d);
    if (nsub > 0) {
        ze_device_handle_t subs[8];
        zc_subdevices(d, subs, 8);
        dss = xecores(subs[0]);
    }
    if (!hz || !dss || !activate(d, g)) return;
    static const uint32_t periods[] = {1, 1000, 6000, 7000, 9000, 10000, 20000, 26000, 33000, 45000, 50000, 100000,
                                       1000000, UINT32_MAX};
    for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++) {
        zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, periods[i]};
        zet_metric_streamer_handle_t s;
        if (!REQUIRE_OK(open_streamer(d, g, &desc, NULL, &s), "zetMetricStreamerOpen (period)")) continue;
        uint64_t exp = expected_period(periods[i], hz);
        CHECK(desc.samplingPeriod == exp, "samplingPeriod write-back (docs/eu-stall-sampling.md §5.3 \"samplingPeriod (nanoseconds)\" formula)",
              "request %u ns, f %llu Hz, kmd %s: expected %llu got %u", periods[i], (unsigned long long)hz,
              zc_exp.xe_kmd ? "xe" : "i915", (unsigned long long)exp, desc.samplingPeriod);
        close_streamer(s);
    }
    uint64_t max = 8192ull * dss;
    const uint32_t reqs[] = {1, 100, 8192, 32768, (uint32_t)max, (uint32_t)max + 1, UINT32_MAX};
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, reqs[i], 100000};
        zet_metric_streamer_handle_t s;
        if (!REQUIRE_OK(open_streamer(d, g, &desc, NULL, &s), "zetMetricStreamerOpen (notify)")) continue;
        uint64_t exp = reqs[i] < max ? reqs[i] : max;
        CHECK(desc.notifyEveryNReports == exp, "notifyEveryNReports clamp (docs/eu-stall-sampling.md §5.2 \"notifyEveryNReports (a count of 64-byte reports)\")",
              "request %u, %u Xe-cores: expected %llu got %u", reqs[i], dss, (unsigned long long)exp,
              desc.notifyEveryNReports);
        close_streamer(s);
    }
    /* HW buffer size extension (docs/eu-stall-sampling.md §5.4 "Hardware buffer size extension") */
    zc_hw_buffer_t hb = {ZC_STYPE_HW_BUFFER_SIZE, NULL, 0};
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, &hb, 64, 100000};
    zet_metric_streamer_handle_t s;
    if (REQUIRE_OK(open_streamer(d, g, &desc, NULL, &s), "zetMetricStreamerOpen (hw buffer ext)")) {
        uint64_t exp = max * 64 * (nsub ? nsub : 1);
        CHECK_U64(hb.sizeInBytes, exp, "HW buffer size extension = getRequiredBufferSize(UINT32_MAX) x sub-devices");
        /* size query (docs/eu-stall-sampling.md §6.1 "FLAT device or sub-device", docs/eu-stall-sampling.md §6.2 "Root device with sub-devices (COMPOSITE)") */
        size_t sz = 0;
        CHECK_RES(zetMetricStreamerReadData(s, UINT32_MAX, &sz, NULL), ZE_RESULT_SUCCESS, "ReadData size query");
        CHECK_U64(sz, nsub ? 64 * max * nsub + 16ull * nsub : 64 * max, "ReadData size query = maximum");
        sz = 0;
        CHECK_RES(zetMetricStreamerReadData(s, 10, &sz, NULL), ZE_RESULT_SUCCESS, "ReadData size query (10 reports)");
        CHECK_U64(sz, nsub ? 640 + 16ull * nsub : 640, "ReadData size query for maxReportCount 10");
        close_streamer(s);
    }
    deactivate(d);
}

/* ---- data run ------------------------------------------------------ */
typedef struct datarun {
    uint8_t *data;
    size_t size;
    zc_work_t w[2];
    uint32_t long_groups; /* groups of the long kernel for ~5 ms */
    int long_idx;
} datarun_t;

/* groups of the long kernel such that one launch runs >= target_ns */
static uint32_t calibrate(zc_work_t *w, int ki, uint64_t hz, uint64_t target_ns) {
    uint32_t g = 16;
    for (int it = 0; it < 24; it++) {
        ze_kernel_timestamp_result_t ts;
        if (!zc_work_launch(w, (uint32_t)ki, g, &ts)) return g;
        uint64_t ticks = (ts.global.kernelEnd - ts.global.kernelStart) & 0xffffffffu;
        uint64_t ns = ticks * 1000000000ull / (hz ? hz : 1);
        if (ns >= target_ns || g >= (1u << 24)) return g;
        if (ns == 0) g *= 16;
        else {
            uint64_t ng = (uint64_t)g * target_ns / ns + 1;
            g = ng > (1u << 24) ? (1u << 24) : (uint32_t)ng;
        }
    }
    return g;
}

static void check_records(ze_device_handle_t d, const uint8_t *data, size_t n, datarun_t *dr, bool after_drop) {
    uint32_t dss = xecores(d);
    size_t bad_ip = 0, bad_bits = 0, bad_tail = 0, bad_kmd = 0, bad_map = 0, bad_boundary = 0, dropflag = 0;
    char first[256] = "";
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = data + i * ZC_RECORD;
        zc_rec_t rec;
        zc_decode(r, &rec);
        if (rec.ip == 0) bad_ip++;
        bool ok_bits = true;
        if (zc_exp.pvc_layout) ok_bits = bits_at(r, 101, 27) == 0;
        else ok_bits = bits_at(r, 112, 1) == 1 && bits_at(r, 113, 15) == 0;
        if (!ok_bits) bad_bits++;
        bool tail = true;
        for (int b = 16; b < 48; b++) tail = tail && r[b] == 0;
        for (int b = 52; b < 64; b++) tail = tail && r[b] == 0;
        if (!tail) bad_tail++;
        if (zc_exp.pvc_layout && !zc_exp.xe_kmd) {
            if (rec.subslice >= dss || (rec.flags & ~0x100u) != 0) bad_kmd++;
            if (rec.flags & 0x100) dropflag++;
        } else if (r[48] | r[49] | r[50] | r[51]) {
            bad_kmd++;
        }
        /* IP -> kernel (docs/eu-stall-sampling.md §8.2 "Canonical rule and worked example") */
        uint32_t ipbyte = (uint32_t)((rec.ip << 3) & 0xffffffffu);
        bool mapped = false;
        for (int m = 0; m < 2 && !mapped; m++) {
            for (uint32_t k = 0; k < dr->w[m].nk; k++) {
                uint32_t base = (uint32_t)(dr->w[m].base[k] & 0xffffffffu);
                if (ipbyte < base || ipbyte - base >= dr->w[m].isa_size[k]) continue;
                mapped = true;
                uint32_t off = ipbyte - base;
                uint32_t *offs;
                uint32_t ni = zc_inst_offsets(dr->w[m].isa[k], dr->w[m].code_size[k], &offs);
                if (!zc_is_inst_boundary(offs, ni, off)) {
                    if (bad_boundary++ == 0 && !first[0])
                        snprintf(first, sizeof first, "ip %#llx: offset %#x in %s is not an instruction (code %llu bytes)",
                                 (unsigned long long)rec.ip, off, dr->w[m].names[k],
                                 (unsigned long long)dr->w[m].code_size[k]);
                }
                free(offs);
                break;
            }
        }
        if (!mapped && bad_map++ == 0 && !first[0])
            snprintf(first, sizeof first, "ip %#llx (byte %#x) matches no kernel", (unsigned long long)rec.ip, ipbyte);
    }
    CHECK(bad_ip == 0, "records: IP non-zero", "%zu of %zu", bad_ip, n);
    CHECK(bad_bits == 0, zc_exp.pvc_layout ? "records: PVC bits 101-127 zero" : "records: Xe2 end_flag = 1, bits 113-127 zero",
          "%zu of %zu records wrong", bad_bits, n);
    CHECK(bad_tail == 0, "records: bytes 16-47 and 52-63 zero", "%zu of %zu", bad_tail, n);
    CHECK(bad_kmd == 0,
          zc_exp.pvc_layout && !zc_exp.xe_kmd ? "records: i915 subslice < Xe-cores, flags only bit 8" : "records: xe bytes 48-51 zero",
          "%zu of %zu", bad_kmd, n);
    if (zc_exp.pvc_layout && !zc_exp.xe_kmd) {
        if (after_drop) CHECK(dropflag > 0, "records: i915 PVC drop flag (bit 8) set after an overflow", "%zu of %zu", dropflag, n);
        else CHECK(dropflag == 0, "records: no drop flag without overflow", "%zu of %zu", dropflag, n);
    }
    CHECK(bad_map == 0, "records: every IP lies in a launched kernel (ip<<3 - base32)", "%zu of %zu; %s", bad_map, n, first);
    CHECK(bad_boundary == 0, "records: every IP on an instruction boundary within the code", "%zu of %zu; %s",
          bad_boundary, n, first);
}

static void check_calc(zet_metric_group_handle_t g, const uint8_t *data, size_t size) {
    uint32_t mc = zc_exp.metric_count;
    size_t nrec = size / ZC_RECORD;
    agg_t *agg;
    size_t u = aggregate(data, nrec, &agg);
    uint32_t sets = 0, total = 0;
    CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size,
                                                             data, &sets, &total, NULL, NULL),
              ZE_RESULT_SUCCESS, "calc Exp count mode");
    CHECK_U64(sets, 1, "calc Exp count: one set (FLAT / sub-device)");
    CHECK_U64(total, u * mc, "calc Exp count = unique IPs x metricCount");
    uint32_t want = (uint32_t)(u * mc);
    zet_typed_value_t *v = calloc(want + 1, sizeof *v);
    uint32_t counts[4] = {0};
    sets = 1;
    total = want;
    ze_result_t r = zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES,
                                                                   size, data, &sets, &total, counts, v);
    CHECK(r == ZE_RESULT_SUCCESS || (r == ZE_RESULT_WARNING_DROPPED_DATA && zc_exp.pvc_layout), "calc Exp data mode",
          "returned 0x%08x", (unsigned)r);
    CHECK_U64(counts[0], want, "calc Exp data: pMetricCounts[0]");
    CHECK_U64(total, want, "calc Exp data: total");
    size_t mism = 0, badtype = 0, order = 0;
    char first[200] = "";
    for (uint32_t i = 0; i < want && i < total; i++) {
        if (v[i].type != ZET_VALUE_TYPE_UINT64) badtype++;
        uint64_t e = agg[i / mc].v[i % mc];
        if (v[i].value.ui64 != e && mism++ == 0)
            snprintf(first, sizeof first, "report %u metric %u: expected %llu got %llu", i / mc, i % mc,
                     (unsigned long long)e, (unsigned long long)v[i].value.ui64);
        if (i % mc == 0 && i >= mc && v[i].value.ui64 <= v[i - mc].value.ui64) order++;
    }
    CHECK(badtype == 0, "calc values are UINT64", "%zu wrong", badtype);
    CHECK(order == 0, "calc reports in ascending IP order", "%zu out of order", order);
    CHECK(mism == 0, "calc values = own aggregation of the raw records (per-platform order)", "%zu mismatches; %s", mism, first);

    /* fewer values requested than available */
    if (u >= 2) {
        uint32_t s1 = 1, t1 = mc, c1 = 0;
        zet_typed_value_t one[11];
        zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, data,
                                                       &s1, &t1, &c1, one);
        CHECK(c1 == mc && t1 == mc && one[0].value.ui64 == agg[0].v[0], "calc Exp data with room for one report",
              "count %u total %u first ip %llu (want %llu)", c1, t1, (unsigned long long)one[0].value.ui64,
              (unsigned long long)agg[0].v[0]);
    }

    /* non-Exp (docs/eu-stall-sampling.md §7.7 "Non-Exp zetMetricGroupCalculateMetricValues") */
    uint32_t cnt = 0;
    CHECK_RES(zetMetricGroupCalculateMetricValues(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, data, &cnt, NULL),
              ZE_RESULT_SUCCESS, "calc non-Exp count");
    CHECK_U64(cnt, want, "calc non-Exp count");
    zet_typed_value_t *v2 = calloc(want + 1, sizeof *v2);
    cnt = want;
    r = zetMetricGroupCalculateMetricValues(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, data, &cnt, v2);
    CHECK(r == ZE_RESULT_SUCCESS || (r == ZE_RESULT_WARNING_DROPPED_DATA && zc_exp.pvc_layout), "calc non-Exp data",
          "returned 0x%08x", (unsigned)r);
    bool same = cnt == want;
    for (uint32_t i = 0; same && i < want; i++) same = v2[i].value.ui64 == v[i].value.ui64;
    CHECK(same, "calc non-Exp data = Exp set 0", "count %u want %u", cnt, want);

    /* MAX_METRIC_VALUES: count path passes, data call rejected (docs/eu-stall-sampling.md §7.6 "ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES") */
    sets = 0;
    total = 0;
    CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES, size,
                                                             data, &sets, &total, NULL, NULL),
              ZE_RESULT_SUCCESS, "calc MAX_METRIC_VALUES count mode succeeds");
    sets = 1;
    total = want;
    CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES, size,
                                                             data, &sets, &total, counts, v),
              ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "calc MAX_METRIC_VALUES data call rejected");

    /* sizes not a multiple of 64 */
    uint8_t *odd = calloc(size + 64, 1);
    memcpy(odd, data, size);
    sets = 0;
    total = 0;
    CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size + 1,
                                                             odd, &sets, &total, NULL, NULL),
              ZE_RESULT_ERROR_INVALID_SIZE, "calc Exp size not a multiple of 64 -> INVALID_SIZE");
    cnt = 0;
    CHECK_RES(zetMetricGroupCalculateMetricValues(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size + 32, odd, &cnt,
                                                  NULL),
              ZE_RESULT_ERROR_INVALID_SIZE, "calc non-Exp size not a multiple of 64 -> INVALID_SIZE");
    free(odd);
    free(v);
    free(v2);
    free(agg);
}

/* the worked examples of docs/eu-stall-sampling.md §3.5 "Worked examples" and synthetic buffers */
static void test_calc_synthetic(zet_metric_group_handle_t g, bool root, uint32_t nsub) {
    static const uint8_t pvc_rec[16] = {0x56, 0x34, 0x12, 0xa0, 0x20, 0x40, 0x60, 0x80,
                                        0xc0, 0xe0, 0x00, 0x21, 0x01, 0x00, 0x00, 0x00};
    static const uint8_t xe2_rec[16] = {0x56, 0x34, 0x12, 0x40, 0x21, 0x40, 0x60, 0x80,
                                        0xc0, 0xe0, 0x00, 0x21, 0xa1, 0x00, 0x01, 0x00};
    static const uint64_t pvc_vals[10] = {0x123456, 5, 2, 3, 4, 6, 7, 8, 9, 1};
    static const uint64_t xe2_vals[11] = {0x123456, 5, 10, 2, 3, 4, 6, 7, 8, 9, 1};
    uint32_t mc = zc_exp.metric_count;
    const uint64_t *ev = zc_exp.pvc_layout ? pvc_vals : xe2_vals;
    uint8_t buf[16 + 3 * 64 + 16];
    memset(buf, 0, sizeof buf);
    /* records: worked example, same again, a smaller IP with one counter */
    uint8_t *recs = root ? buf + 16 : buf;
    memcpy(recs, zc_exp.pvc_layout ? pvc_rec : xe2_rec, 16);
    if (zc_exp.pvc_layout && !zc_exp.xe_kmd) recs[48] = 3;
    memcpy(recs + 64, recs, 64);
    recs[128] = 0x10; /* ip 0x10, all counters 0 */
    size_t rsz = 3 * 64;
    if (root) {
        uint32_t h0[4] = {ZC_HEADER_MAGIC, (uint32_t)rsz, 0, 0}, h1[4] = {ZC_HEADER_MAGIC, 0, 1, 0};
        memcpy(buf, h0, 16);
        memcpy(buf + 16 + rsz, h1, 16);
    }
    size_t size = root ? rsz + 32 : rsz;
    uint32_t sets = 0, total = 0;
    CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, buf,
                                                             &sets, &total, NULL, NULL),
              ZE_RESULT_SUCCESS, "synthetic calc count");
    CHECK_U64(sets, root ? nsub : 1, "synthetic calc: set count");
    CHECK_U64(total, 2 * mc, "synthetic calc: 2 unique IPs");
    zet_typed_value_t v[32];
    uint32_t counts[8] = {0};
    sets = root ? nsub : 1;
    total = 2 * mc;
    CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, buf,
                                                             &sets, &total, counts, v),
              ZE_RESULT_SUCCESS, "synthetic calc data");
    CHECK_U64(counts[0], 2 * mc, "synthetic calc: set 0 count");
    if (root && nsub > 1) CHECK_U64(counts[1], 0, "synthetic calc: set 1 (no records) count 0");
    bool ok = v[0].value.ui64 == 0x10;
    for (uint32_t m = 1; m < mc; m++) ok = ok && v[m].value.ui64 == 0;
    for (uint32_t m = 0; m < mc; m++) ok = ok && v[mc + m].value.ui64 == (m == 0 ? ev[0] : 2 * ev[m]);
    char got[256];
    int o = 0;
    for (uint32_t m = 0; m < mc && o < 200; m++) o += snprintf(got + o, sizeof got - (size_t)o, " %llu", (unsigned long long)v[mc + m].value.ui64);
    CHECK(ok, "synthetic calc: docs/eu-stall-sampling.md §3.5 \"Worked examples\" worked example decoded, summed, ascending IP", "report 1:%s", got);

    /* drop flag at byte 50 (docs/eu-stall-sampling.md §3.3 "i915-prelim additions and the drop flag"): a warning on PVC only, values still produced */
    recs[50] = 0x00;
    recs[51] = 0x01;
    sets = root ? nsub : 1;
    total = 2 * mc;
    memset(counts, 0, sizeof counts);
    ze_result_t r = zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size,
                                                                   buf, &sets, &total, counts, v);
    CHECK_RES(r, zc_exp.pvc_layout ? ZE_RESULT_WARNING_DROPPED_DATA : ZE_RESULT_SUCCESS,
              zc_exp.pvc_layout ? "drop flag: WARNING_DROPPED_DATA on PVC" : "drop flag ignored on Xe2");
    CHECK_U64(counts[0], 2 * mc, "drop flag: values still produced");
    recs[51] = 0;

    if (!root) {
        /* root-captured data given to a FLAT/sub-device group */
        uint8_t hb[16 + 64];
        uint32_t h[4] = {ZC_HEADER_MAGIC, 64, 0, 0};
        memcpy(hb, h, 16);
        memcpy(hb + 16, recs, 64);
        /* size 80 is not a multiple of 64: use two records after the header */
        uint8_t hb2[16 + 128 + 48];
        memset(hb2, 0, sizeof hb2);
        uint32_t h2[4] = {ZC_HEADER_MAGIC, 128, 0, 0};
        memcpy(hb2, h2, 16);
        memcpy(hb2 + 16, recs, 128);
        sets = 0;
        total = 0;
        CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES,
                                                                 sizeof hb2, hb2, &sets, &total, NULL, NULL),
                  ZE_RESULT_ERROR_INVALID_ARGUMENT, "headered (root) data on a FLAT/sub-device group -> INVALID_ARGUMENT");
        (void)hb;
        sets = 0;
        total = 0;
        CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, 0, buf,
                                                                 &sets, &total, NULL, NULL),
                  ZE_RESULT_SUCCESS, "calc count with rawDataSize 0");
        CHECK(sets == 1 && total == 0, "calc count with rawDataSize 0: 1 set, 0 values", "sets %u total %u", sets, total);
    } else {
        uint32_t cnt = 0;
        CHECK_RES(zetMetricGroupCalculateMetricValues(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, buf, &cnt, NULL),
                  ZE_RESULT_ERROR_INVALID_ARGUMENT, "non-Exp calc on a root group -> INVALID_ARGUMENT");
        sets = 0;
        total = 0;
        CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, rsz,
                                                                 recs, &sets, &total, NULL, NULL),
                  ZE_RESULT_ERROR_INVALID_ARGUMENT, "root group: data without header -> INVALID_ARGUMENT");
    }
}

/* reads, notification event, records, calc on real data */
static void test_data(ze_device_handle_t d, zet_metric_group_handle_t g, datarun_t *dr) {
    memset(dr, 0, sizeof *dr);
    dr->long_idx = -1;
    if (!zc_work_open(&dr->w[0], d, zc.stream_bin, zc.stream_size) ||
        !zc_work_open(&dr->w[1], d, zc.compute_bin, zc.compute_size))
        return;
    dr->long_idx = zc_work_find(&dr->w[1], zc.long_kernel);
    if (dr->long_idx < 0) dr->long_idx = (int)dr->w[1].nk - 1;
    uint64_t hz = ts_hz(d);
    dr->long_groups = calibrate(&dr->w[1], dr->long_idx, hz, 5000000);
    uint32_t dss = xecores(d);
    if (!activate(d, g)) return;
    event_pair_t e = {0}, e2 = {0};
    if (!make_event(d, &e) || !make_event(d, &e2)) return;
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1, 20000};
    zet_metric_streamer_handle_t s;
    if (!REQUIRE_OK(open_streamer(d, g, &desc, e.ev, &s), "zetMetricStreamerOpen (data)")) return;
    CHECK_RES(zeEventQueryStatus(e.ev), ZE_RESULT_NOT_READY, "notification event: not signalled before any data");
    uint8_t small[256];
    size_t sz = sizeof small;
    CHECK_RES(zetMetricStreamerReadData(s, UINT32_MAX, &sz, small), ZE_RESULT_SUCCESS, "ReadData with no data");
    CHECK_U64(sz, 0, "ReadData with no data: size 0");
    sz = 0;
    CHECK_RES(zetMetricStreamerReadData(s, UINT32_MAX, &sz, NULL), ZE_RESULT_SUCCESS, "ReadData size query");
    CHECK_U64(sz, 64ull * 8192 * dss, "ReadData size query = 8192 x Xe-cores x 64");

    for (uint32_t k = 0; k < dr->w[0].nk; k++) zc_work_launch(&dr->w[0], k, 256, NULL);
    for (uint32_t k = 0; k < dr->w[1].nk; k++) zc_work_launch(&dr->w[1], k, (int)k == dr->long_idx ? dr->long_groups : 256, NULL);
    CHECK_RES(zeEventQueryStatus(e.ev), ZE_RESULT_SUCCESS, "notification event: signalled with >= notifyEveryNReports records");
    sz = 0;
    CHECK_RES(zetMetricStreamerReadData(s, UINT32_MAX, &sz, NULL), ZE_RESULT_SUCCESS, "ReadData size query with data");
    CHECK_U64(sz, 64ull * 8192 * dss, "ReadData size query is the maximum, not what is available");

    uint8_t *all = malloc(256);
    size_t n = 0;
    sz = 100; /* not a multiple of 64 */
    CHECK_RES(zetMetricStreamerReadData(s, UINT32_MAX, &sz, small), ZE_RESULT_SUCCESS, "ReadData 100-byte buffer");
    CHECK_U64(sz, 64, "ReadData returns whole 64-byte records only");
    memcpy(all, small, sz <= 64 ? sz : 64);
    n = sz <= 64 ? sz : 0;
    uint8_t *big = malloc(1 << 20);
    sz = 1 << 20;
    CHECK_RES(zetMetricStreamerReadData(s, 2, &sz, big), ZE_RESULT_SUCCESS, "ReadData maxReportCount 2");
    CHECK_U64(sz, 128, "ReadData maxReportCount clamps the size");
    if (sz <= 128) {
        all = realloc(all, n + sz);
        memcpy(all + n, big, sz);
        n += sz;
    }
    free(big);
    size_t rest_n;
    unsigned warnings;
    uint8_t *rest = read_all(s, &rest_n, &warnings, "data");
    CHECK_U64(warnings, 0, "no WARNING_DROPPED_DATA without overflow");
    all = realloc(all, n + rest_n + 1);
    if (rest_n) memcpy(all + n, rest, rest_n);
    n += rest_n;
    free(rest);
    CHECK_RES(zeEventQueryStatus(e.ev), ZE_RESULT_NOT_READY, "notification event: reverts to not signalled when drained");
    CHECK(n >= 64 && n % 64 == 0, "sampled data: at least one record", "%zu bytes", n);
    close_streamer(s);

    /* a high notification threshold is not reached by a short launch */
    desc.notifyEveryNReports = 8192 * dss;
    desc.samplingPeriod = 100000;
    if (REQUIRE_OK(open_streamer(d, g, &desc, e2.ev, &s), "zetMetricStreamerOpen (high threshold)")) {
        zc_work_launch(&dr->w[0], 0, 64, NULL);
        CHECK_RES(zeEventQueryStatus(e2.ev), ZE_RESULT_NOT_READY, "notification event: below notifyEveryNReports");
        close_streamer(s);
    }
    free_event(&e);
    free_event(&e2);
    dr->data = all;
    dr->size = n;
    if (n) {
        check_records(d, all, n / 64, dr, false);
        check_calc(g, all, n);
    }
    deactivate(d);
}

static void test_overflow(ze_device_handle_t d, zet_metric_group_handle_t g, datarun_t *dr) {
    if (dr->long_idx < 0 || !activate(d, g)) return;
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1, 1};
    zet_metric_streamer_handle_t s;
    if (!REQUIRE_OK(open_streamer(d, g, &desc, NULL, &s), "zetMetricStreamerOpen (overflow)")) return;
    uint64_t hz = ts_hz(d);
    /* ~1.5 s of kernel time at the shortest period, no reads meanwhile */
    uint64_t groups = (uint64_t)dr->long_groups * 300;
    if (groups > (1u << 24)) groups = 1u << 24;
    uint64_t dev_ns = 0, t0 = zc_host_ns();
    while (dev_ns < 1500000000ull && zc_host_ns() - t0 < 8000000000ull) {
        ze_kernel_timestamp_result_t ts;
        if (!zc_work_launch(&dr->w[1], (uint32_t)dr->long_idx, (uint32_t)groups, &ts)) break;
        dev_ns += ((ts.global.kernelEnd - ts.global.kernelStart) & 0xffffffffu) * 1000000000ull / (hz ? hz : 1);
    }
    zc_sleep_ms(50);
    uint8_t *buf = malloc(READ_CHUNK);
    size_t sz = READ_CHUNK;
    ze_result_t r = zetMetricStreamerReadData(s, UINT32_MAX, &sz, buf);
    CHECK(r == ZE_RESULT_WARNING_DROPPED_DATA && sz == 0, "overflow: first read WARNING_DROPPED_DATA with size 0",
          "after %.2f s of kernel time at period %u ns: result 0x%08x size %zu", dev_ns / 1e9, desc.samplingPeriod,
          (unsigned)r, sz);
    size_t n = 0;
    unsigned warnings = 0;
    uint8_t *rest = NULL;
    if (r == ZE_RESULT_WARNING_DROPPED_DATA) {
        sz = READ_CHUNK;
        r = zetMetricStreamerReadData(s, UINT32_MAX, &sz, buf);
        CHECK(r == ZE_RESULT_SUCCESS && sz > 0, "overflow: the next read returns data", "result 0x%08x size %zu",
              (unsigned)r, sz);
        rest = read_all(s, &n, &warnings, "overflow drain");
        CHECK_U64(warnings, 0, "overflow: WARNING_DROPPED_DATA exactly once");
        uint8_t *all = malloc(sz + n + 1);
        memcpy(all, buf, sz);
        if (n) memcpy(all + sz, rest, n);
        size_t total = sz + n;
        uint64_t cap = 8192ull * xecores(d);
        CHECK(total / 64 <= cap, "overflow: no more records than the buffers hold", "%zu records, capacity %llu",
              total / 64, (unsigned long long)cap);
        if (total) {
            check_records(d, all, total / 64, dr, true);
            uint32_t sets = 1, tot = 0;
            ze_result_t cr = zetMetricGroupCalculateMultipleMetricValuesExp(
                g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, total, all, &sets, &tot, NULL, NULL);
            CHECK_RES(cr, ZE_RESULT_SUCCESS, "overflow data: calc count");
            uint32_t *counts = calloc(2, sizeof *counts);
            zet_typed_value_t *v = calloc(tot + 1, sizeof *v);
            sets = 1;
            cr = zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, total,
                                                                all, &sets, &tot, counts, v);
            bool drop_expected = zc_exp.pvc_layout && !zc_exp.xe_kmd;
            CHECK_RES(cr, drop_expected ? ZE_RESULT_WARNING_DROPPED_DATA : ZE_RESULT_SUCCESS,
                      drop_expected ? "overflow data: calc WARNING_DROPPED_DATA (i915 PVC drop flag)"
                                    : "overflow data: calc SUCCESS (no drop flag on this KMD/platform)");
            free(counts);
            free(v);
        }
        free(all);
    } else {
        rest = read_all(s, &n, &warnings, "overflow drain");
        CHECK(false, "overflow: details", "drained %zu records (capacity %llu), %u warnings", n / 64,
              (unsigned long long)(8192ull * xecores(d)), warnings);
    }
    free(rest);
    free(buf);
    close_streamer(s);
    deactivate(d);
}

/* Launching threads and a reading thread at once (what a profiler does):
 * every API must be thread-safe and the records stay consistent. */
typedef struct conc_arg {
    datarun_t *dr;
    ze_device_handle_t dev;
    atomic_uint errors;
} conc_arg_t;

static void *conc_launcher(void *p) {
    conc_arg_t *a = p;
    zc_work_t *w = &a->dr->w[0];
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t l = NULL;
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t ev = NULL;
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    if (zeCommandListCreateImmediate(zc.context, a->dev, &qd, &l) != ZE_RESULT_SUCCESS ||
        zeEventPoolCreate(zc.context, &pd, 1, &a->dev, &pool) != ZE_RESULT_SUCCESS ||
        zeEventCreate(pool, &ed, &ev) != ZE_RESULT_SUCCESS) {
        atomic_fetch_add(&a->errors, 1);
        return NULL;
    }
    ze_group_count_t g = {256, 1, 1};
    for (int i = 0; i < 50; i++) {
        bool last = i == 49;
        if (zeCommandListAppendLaunchKernel(l, w->k[(uint32_t)i % w->nk], &g, last ? ev : NULL, 0, NULL) !=
            ZE_RESULT_SUCCESS)
            atomic_fetch_add(&a->errors, 1);
    }
    if (zeEventHostSynchronize(ev, UINT64_MAX) != ZE_RESULT_SUCCESS) atomic_fetch_add(&a->errors, 1);
    zeEventDestroy(ev);
    zeEventPoolDestroy(pool);
    zeCommandListDestroy(l);
    return NULL;
}

static void test_concurrent(ze_device_handle_t d, zet_metric_group_handle_t g, datarun_t *dr) {
    if (!dr->w[0].ok || !activate(d, g)) return;
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 16, 10000};
    zet_metric_streamer_handle_t s;
    if (!REQUIRE_OK(open_streamer(d, g, &desc, NULL, &s), "zetMetricStreamerOpen (concurrent)")) return;
    conc_arg_t arg = {dr, d, 0};
    pthread_t t[4];
    int started = 0;
    for (int i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, conc_launcher, &arg) == 0) started++;
    uint8_t *buf = malloc(READ_CHUNK), *all = NULL;
    size_t n = 0;
    unsigned bad_reads = 0, reads = 0;
    for (int i = 0; i < started; i++) {
        /* read while the launchers run */
        for (int k = 0; k < 20 && buf; k++) {
            size_t sz = READ_CHUNK;
            ze_result_t r = zetMetricStreamerReadData(s, UINT32_MAX, &sz, buf);
            reads++;
            if (r != ZE_RESULT_SUCCESS || sz % 64) { bad_reads++; continue; }
            all = realloc(all, n + sz + 1);
            memcpy(all + n, buf, sz);
            n += sz;
        }
        pthread_join(t[i], NULL);
    }
    size_t rn;
    unsigned warnings;
    uint8_t *rest = read_all(s, &rn, &warnings, "concurrent drain");
    all = realloc(all, n + rn + 1);
    if (rn) memcpy(all + n, rest, rn);
    n += rn;
    free(rest);
    free(buf);
    CHECK_U64(atomic_load(&arg.errors), 0, "concurrent: launches from 4 threads while reading succeed");
    CHECK(bad_reads == 0, "concurrent: reads during launches succeed with whole records", "%u of %u failed", bad_reads, reads);
    CHECK(n > 0, "concurrent: records sampled", "none");
    if (n) check_records(d, all, n / 64, dr, false);
    free(all);
    close_streamer(s);
    deactivate(d);
}

static void test_unsupported(ze_device_handle_t d, zet_metric_group_handle_t g) {
    if (!activate(d, g)) return;
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, 100000};
    zet_metric_streamer_handle_t s;
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_command_list_handle_t l = NULL;
    REQUIRE_OK(zeCommandListCreate(zc.context, d, &ld, &l), "zeCommandListCreate");
    if (REQUIRE_OK(open_streamer(d, g, &desc, NULL, &s), "zetMetricStreamerOpen (markers)")) {
        CHECK_RES(zetCommandListAppendMetricStreamerMarker((zet_command_list_handle_t)l, s, 1),
                  ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zetCommandListAppendMetricStreamerMarker unsupported");
        close_streamer(s);
    }
    CHECK_RES(zetCommandListAppendMetricMemoryBarrier((zet_command_list_handle_t)l), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
              "zetCommandListAppendMetricMemoryBarrier unsupported");
    zet_metric_query_pool_desc_t qd = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 4};
    zet_metric_query_pool_handle_t qp = NULL;
    CHECK_RES(zetMetricQueryPoolCreate((zet_context_handle_t)zc.context, (zet_device_handle_t)d, g, &qd, &qp),
              ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zetMetricQueryPoolCreate unsupported for EuStallSampling");
    if (l) zeCommandListDestroy(l);
    deactivate(d);

    /* tracer API: reachable through the extension lookup, unsupported by default */
    static const char *const fns[] = {"zetMetricTracerCreateExp", "zetMetricTracerDestroyExp", "zetMetricTracerEnableExp",
                                      "zetMetricTracerDisableExp", "zetMetricTracerReadDataExp", "zetMetricDecoderCreateExp",
                                      "zetMetricDecoderDestroyExp", "zetMetricDecoderGetDecodableMetricsExp",
                                      "zetMetricTracerDecodeExp"};
    bool tracer_enabled = getenv("ZESIM_METRIC_TRACER") && strcmp(getenv("ZESIM_METRIC_TRACER"), "1") == 0;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        void *p = NULL;
        ze_result_t r = zeDriverGetExtensionFunctionAddress(zc.driver, fns[i], &p);
        CHECK(r == ZE_RESULT_SUCCESS && p != NULL, "tracer function reachable via zeDriverGetExtensionFunctionAddress",
              "%s: 0x%08x", fns[i], (unsigned)r);
        if (i == 0 && p && !tracer_enabled) {
            typedef struct { uint32_t stype; const void *pNext; uint32_t notifyEveryNBytes; } tdesc_t;
            typedef ze_result_t (*create_t)(zet_context_handle_t, zet_device_handle_t, uint32_t, zet_metric_group_handle_t *,
                                            tdesc_t *, ze_event_handle_t, void **);
            tdesc_t td = {0x00010008u, NULL, 4096};
            void *tr = NULL;
            activate(d, g);
            CHECK_RES(((create_t)p)((zet_context_handle_t)zc.context, (zet_device_handle_t)d, 1, &g, &td, NULL, &tr),
                      ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zetMetricTracerCreateExp unsupported by default");
            deactivate(d);
        }
    }
    void *p = NULL;
    CHECK_RES(zeDriverGetExtensionFunctionAddress(zc.driver, "zeNoSuchFunctionExp", &p), ZE_RESULT_ERROR_INVALID_ARGUMENT,
              "unknown extension name -> INVALID_ARGUMENT");
}

/* ---- COMPOSITE root (docs/eu-stall-sampling.md §6.2 "Root device with sub-devices (COMPOSITE)", docs/eu-stall-sampling.md §7.3 "Root group (COMPOSITE)") ------------------------------------- */
static void test_composite(ze_device_handle_t root, zet_metric_group_handle_t g) {
    ze_device_handle_t subs[8];
    uint32_t nsub = zc_subdevices(root, subs, 8);
    if (nsub < 2) return;
    test_calc_synthetic(g, true, nsub);
    zc_work_t w;
    if (!zc_work_open(&w, root, zc.compute_bin, zc.compute_size)) { zc_work_close(&w); return; }
    int li = zc_work_find(&w, zc.long_kernel);
    if (li < 0) li = (int)w.nk - 1;
    uint32_t groups = calibrate(&w, li, ts_hz(root), 5000000);
    if (!activate(root, g)) { zc_work_close(&w); return; }
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1, 20000};
    zet_metric_streamer_handle_t s;
    event_pair_t ev = {0};
    make_event(root, &ev);
    if (REQUIRE_OK(open_streamer(root, g, &desc, ev.ev, &s), "zetMetricStreamerOpen (root)")) {
        if (ev.ev) CHECK_RES(zeEventQueryStatus(ev.ev), ZE_RESULT_NOT_READY, "root notification event: no data yet");
        uint8_t hb[256];
        size_t sz = sizeof hb;
        CHECK_RES(zetMetricStreamerReadData(s, UINT32_MAX, &sz, hb), ZE_RESULT_SUCCESS, "root ReadData without data");
        CHECK_U64(sz, 16ull * nsub, "root ReadData without data: one empty header per sub-device");
        for (uint32_t i = 0; i < nsub && (i + 1) * 16 <= sz; i++) {
            uint32_t h[4];
            memcpy(h, hb + 16 * i, 16);
            CHECK(h[0] == ZC_HEADER_MAGIC && h[1] == 0 && h[2] == i && h[3] == 0, "root empty header",
                  "header %u: %#x %u %u %u", i, h[0], h[1], h[2], h[3]);
        }
        zc_work_launch(&w, (uint32_t)li, groups, NULL);
        zc_work_launch(&w, (uint32_t)li, groups, NULL);
        if (ev.ev) CHECK_RES(zeEventQueryStatus(ev.ev), ZE_RESULT_SUCCESS, "root notification event: signalled with data");
        /* a buffer too small for every sub-device: 32 bytes are reserved
         * for headers, sub-device 0 gets one record, then < 64 bytes are
         * left and sub-device 1 gets no header at all (docs/eu-stall-sampling.md §6.2 "Root device with sub-devices (COMPOSITE)") */
        uint8_t part[100];
        sz = sizeof part;
        CHECK_RES(zetMetricStreamerReadData(s, UINT32_MAX, &sz, part), ZE_RESULT_SUCCESS, "root ReadData 100-byte buffer");
        uint32_t ph[4] = {0};
        if (sz >= 16) memcpy(ph, part, 16);
        CHECK(sz == 80 && ph[0] == ZC_HEADER_MAGIC && ph[1] == 64 && ph[2] == 0,
              "root ReadData small buffer: one header + one record, no header for later sub-devices",
              "size %zu, header {%#x, %u, %u}", sz, ph[0], ph[1], ph[2]);
        size_t n;
        unsigned warnings;
        /* read_all: each read is a sequence of headered chunks */
        uint8_t *buf = malloc(READ_CHUNK), *all = NULL;
        size_t total = 0;
        bool hdr_ok = true;
        char first[200] = "";
        for (int it = 0; it < 256; it++) {
            sz = READ_CHUNK;
            ze_result_t r = zetMetricStreamerReadData(s, UINT32_MAX, &sz, buf);
            if (r != ZE_RESULT_SUCCESS) { CHECK_RES(r, ZE_RESULT_SUCCESS, "root ReadData"); break; }
            size_t off = 0, payload = 0;
            uint32_t expect_idx = 0;
            while (off + 16 <= sz) {
                uint32_t h[4];
                memcpy(h, buf + off, 16);
                if (h[0] != ZC_HEADER_MAGIC || h[2] != expect_idx || h[3] != 0 || h[1] % 64 || h[1] > sz - off - 16) {
                    if (hdr_ok) snprintf(first, sizeof first, "at %zu: magic %#x size %u set %u (want %u) reserved %u", off,
                                         h[0], h[1], h[2], expect_idx, h[3]);
                    hdr_ok = false;
                    break;
                }
                expect_idx++;
                payload += h[1];
                off += 16 + h[1];
            }
            if (off != sz && hdr_ok) { hdr_ok = false; snprintf(first, sizeof first, "chunks end at %zu of %zu", off, sz); }
            all = realloc(all, total + sz);
            memcpy(all + total, buf, sz);
            total += sz;
            if (payload == 0) break;
        }
        CHECK(hdr_ok, "root data: 16-byte headers {0xFEEDBCBA, rawDataSize, setIndex in order, 0}", "%s", first);
        (void)n;
        (void)warnings;
        if (hdr_ok && total) {
            /* own per-set aggregation */
            uint32_t mc = zc_exp.metric_count;
            uint8_t *per[8] = {0};
            size_t pn[8] = {0};
            for (size_t off = 0; off + 16 <= total;) {
                uint32_t h[4];
                memcpy(h, all + off, 16);
                if (h[2] < 8) {
                    per[h[2]] = realloc(per[h[2]], pn[h[2]] + h[1] + 1);
                    memcpy(per[h[2]] + pn[h[2]], all + off + 16, h[1]);
                    pn[h[2]] += h[1];
                }
                off += 16 + h[1];
            }
            uint32_t want_total = 0, want_counts[8] = {0};
            agg_t *aggs[8] = {0};
            size_t us[8] = {0};
            for (uint32_t i = 0; i < nsub; i++) {
                us[i] = aggregate(per[i], pn[i] / 64, &aggs[i]);
                want_counts[i] = (uint32_t)(us[i] * mc);
                want_total += want_counts[i];
            }
            CHECK(pn[0] > 0 || pn[1] > 0, "root data: records from the sub-devices", "sub 0: %zu, sub 1: %zu bytes", pn[0], pn[1]);
            uint32_t sets = 0, tot = 0;
            CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, total,
                                                                     all, &sets, &tot, NULL, NULL),
                      ZE_RESULT_SUCCESS, "root calc count");
            CHECK_U64(sets, nsub, "root calc count: one set per sub-device");
            CHECK_U64(tot, want_total, "root calc count: sum of unique IPs x metricCount per set");
            zet_typed_value_t *v = calloc(tot + 1, sizeof *v);
            uint32_t counts[8] = {0};
            sets = nsub;
            ze_result_t r = zetMetricGroupCalculateMultipleMetricValuesExp(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES,
                                                                           total, all, &sets, &tot, counts, v);
            CHECK(r == ZE_RESULT_SUCCESS || r == ZE_RESULT_WARNING_DROPPED_DATA, "root calc data", "0x%08x", (unsigned)r);
            /* re-aggregate per set (data mode may split a set per chunk, docs/eu-stall-sampling.md §7.3 "Root group (COMPOSITE)") */
            size_t off = 0;
            bool match = true;
            for (uint32_t i = 0; i < nsub; i++) {
                agg_t *got = calloc(counts[i] / mc + 1, sizeof *got);
                size_t gn = 0;
                for (uint32_t r2 = 0; r2 < counts[i] / mc && off + (r2 + 1) * mc <= tot; r2++) {
                    size_t j;
                    for (j = 0; j < gn && got[j].v[0] != v[off + r2 * mc].value.ui64; j++) {
                    }
                    if (j == gn) { gn++; got[j].v[0] = v[off + r2 * mc].value.ui64; }
                    for (uint32_t m = 1; m < mc; m++) got[j].v[m] += v[off + r2 * mc + m].value.ui64;
                }
                qsort(got, gn, sizeof *got, cmp_agg);
                if (gn != us[i]) match = false;
                for (size_t j = 0; match && j < gn; j++)
                    for (uint32_t m = 0; m < mc; m++) match = match && got[j].v[m] == aggs[i][j].v[m];
                off += counts[i];
                free(got);
            }
            CHECK(match, "root calc data: per-set values = own aggregation of each sub-device's records", "counts %u/%u",
                  counts[0], counts[1]);
            free(v);
            for (uint32_t i = 0; i < nsub; i++) { free(per[i]); free(aggs[i]); }
            /* root data given to a sub-device group */
            uint32_t si, sc, sm;
            zet_metric_group_handle_t sg = find_group(subs[0], &si, &sc, &sm, NULL);
            if (sg) {
                sets = 0;
                tot = 0;
                CHECK_RES(zetMetricGroupCalculateMultipleMetricValuesExp(sg, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES,
                                                                         total, all, &sets, &tot, NULL, NULL),
                          ZE_RESULT_ERROR_INVALID_ARGUMENT, "root-captured data on a sub-device group -> INVALID_ARGUMENT");
            }
            uint32_t cnt = 0;
            CHECK_RES(zetMetricGroupCalculateMetricValues(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, total, all, &cnt, NULL),
                      ZE_RESULT_ERROR_INVALID_ARGUMENT, "non-Exp calc on root data -> INVALID_ARGUMENT");
        }
        free(all);
        free(buf);
        close_streamer(s);
    }
    free_event(&ev);
    /* a root streamer occupies the sub-devices */
    deactivate(root);
    zc_work_close(&w);
}

static void test_enable_extension(void) {
    bool capable = zc_exp.model == ZC_PVC || zc_exp.model == ZC_XE2;
    if (zc_exp.metrics_env || !capable || !zc_exp.permitted) return;
    typedef ze_result_t (*enable_t)(zet_device_handle_t);
    enable_t fn = NULL;
    ze_result_t r = zeDriverGetExtensionFunctionAddress(zc.driver, "zetIntelDeviceEnableMetricsExp", (void **)&fn);
    CHECK(r == ZE_RESULT_SUCCESS && fn, "zetIntelDeviceEnableMetricsExp reachable", "0x%08x", (unsigned)r);
    if (!fn) return;
    CHECK_RES(fn((zet_device_handle_t)zc.devices[0]), ZE_RESULT_SUCCESS, "zetIntelDeviceEnableMetricsExp");
    uint32_t idx, count, matches;
    find_group(zc.devices[0], &idx, &count, &matches, NULL);
    CHECK_U64(matches, 1, "EuStallSampling present after zetIntelDeviceEnableMetricsExp");
}

/* ---- driver-internal kernels ----------------------------------------- */
/* With ZESIM_BUILTIN_KERNELS=1, copies and fills on a compute engine run as
 * the driver's built-in kernels on the EUs (as on Intel's driver): the
 * stream holds samples at IPs outside every application kernel; copies on
 * a copy engine (BCS) produce none. */
static void zc_ip_range(uint64_t base, size_t size, uint32_t *lo, uint32_t *hi) {
    *lo = (uint32_t)((base >> 3) & 0x1fffffffu);
    *hi = (uint32_t)(((base + size) >> 3) & 0x1fffffffu);
}

static size_t count_foreign(const uint8_t *data, size_t n, const zc_work_t *w) {
    size_t foreign = 0;
    for (size_t r = 0; r < n; r++) {
        zc_rec_t rec;
        zc_decode(data + r * 64, &rec);
        bool mine = false;
        for (uint32_t k = 0; k < w->nk && !mine; k++) {
            uint32_t lo, hi;
            zc_ip_range(w->base[k], w->isa_size[k], &lo, &hi);
            mine = rec.ip >= lo && rec.ip < hi;
        }
        foreign += !mine;
    }
    return foreign;
}

static void copy_and_fill(ze_command_list_handle_t l, void *dst, void *src, size_t size) {
    uint32_t pattern = 0x5a5a5a5a;
    REQUIRE_OK(zeCommandListAppendMemoryCopy(l, dst, src, size, NULL, 0, NULL), "zeCommandListAppendMemoryCopy");
    REQUIRE_OK(zeCommandListAppendMemoryFill(l, dst, &pattern, sizeof pattern, size, NULL, 0, NULL),
               "zeCommandListAppendMemoryFill");
    REQUIRE_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL), "zeCommandListAppendBarrier");
}

static void test_builtin_kernels(ze_device_handle_t d, zet_metric_group_handle_t g) {
    const char *v = getenv("ZESIM_BUILTIN_KERNELS");
    if (!v || strcmp(v, "1") != 0) return;
    zc_work_t w;
    if (!zc_work_open(&w, d, zc.stream_bin, zc.stream_size)) { zc_work_close(&w); return; }
    size_t size = 64u << 20; /* 64 MiB: ~0.7 ms of modelled copy time */
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *a = NULL, *b = NULL;
    REQUIRE_OK(zeMemAllocDevice(zc.context, &dd, size, 64, d, &a), "zeMemAllocDevice");
    REQUIRE_OK(zeMemAllocDevice(zc.context, &dd, size, 64, d, &b), "zeMemAllocDevice");
    if (!a || !b || !activate(d, g)) goto out;
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1, 10000};
    zet_metric_streamer_handle_t s;
    if (!REQUIRE_OK(open_streamer(d, g, &desc, NULL, &s), "zetMetricStreamerOpen (built-in kernels)")) goto deact;
    /* compute engine: the work list of zc_work */
    copy_and_fill(w.imm, a, b, size);
    zc_sleep_ms(5);
    size_t total = 0;
    unsigned warn = 0;
    uint8_t *data = read_all(s, &total, &warn, "built-in kernels (compute)");
    size_t nrec = total / 64, foreign = count_foreign(data, nrec, &w);
    CHECK(nrec > 0 && foreign == nrec, "compute-engine copies/fills: samples, all outside application kernels",
          "%zu records, %zu outside application kernels", nrec, foreign);
    free(data);
    /* copy engine (a copy-only queue group), if the model has one */
    uint32_t ng = 0;
    zeDeviceGetCommandQueueGroupProperties(d, &ng, NULL);
    ze_command_queue_group_properties_t gp[8];
    if (ng > 8) ng = 8;
    for (uint32_t i = 0; i < ng; i++) {
        memset(&gp[i], 0, sizeof gp[i]);
        gp[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    }
    zeDeviceGetCommandQueueGroupProperties(d, &ng, gp);
    for (uint32_t i = 0; i < ng; i++) {
        if (gp[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) continue;
        ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, i, 0, 0,
                                      ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
        ze_command_list_handle_t bcs = NULL;
        if (!REQUIRE_OK(zeCommandListCreateImmediate(zc.context, d, &qd, &bcs), "copy-engine immediate list")) break;
        REQUIRE_OK(zeCommandListAppendMemoryCopy(bcs, a, b, size, NULL, 0, NULL), "copy-engine copy");
        zc_sleep_ms(2);
        data = read_all(s, &total, &warn, "built-in kernels (copy engine)");
        CHECK_U64(total / 64, 0, "copy-engine (BCS) copies produce no EU stall samples");
        free(data);
        zeCommandListDestroy(bcs);
        break;
    }
    close_streamer(s);
deact:
    deactivate(d);
out:
    if (a) zeMemFree(zc.context, a);
    if (b) zeMemFree(zc.context, b);
    zc_work_close(&w);
}

/* ---- one stream per tile across processes (ZESIM_MACHINE) ----------- */
int zc_hold_stream(void) {
    uint32_t idx, count, matches;
    zet_metric_group_handle_t g = find_group(zc.devices[0], &idx, &count, &matches, NULL);
    if (!g || !activate(zc.devices[0], g)) return 2;
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, 50000};
    zet_metric_streamer_handle_t s;
    if (open_streamer(zc.devices[0], g, &desc, NULL, &s) != ZE_RESULT_SUCCESS) return 3;
    printf("held\n");
    fflush(stdout);
    for (;;) pause();
}

int zc_try_stream(void) {
    uint32_t idx, count, matches;
    zet_metric_group_handle_t g = find_group(zc.devices[0], &idx, &count, &matches, NULL);
    if (!g || !activate(zc.devices[0], g)) return 2;
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, 50000};
    zet_metric_streamer_handle_t s = NULL;
    ze_result_t r = open_streamer(zc.devices[0], g, &desc, NULL, &s);
    printf("open 0x%08x\n", (unsigned)r);
    if (r == ZE_RESULT_SUCCESS) close_streamer(s);
    deactivate(zc.devices[0]);
    return 0;
}

/* Two processes of one machine (same ZESIM_MACHINE): the second open of a
 * tile's stream is refused as the kernel driver refuses it
 * (ZE_RESULT_ERROR_UNKNOWN, docs/eu-stall-sampling.md §5.1 "Preconditions
 * and results"); killing the holder frees the tile. */
static void test_machine_streams(ze_device_handle_t d, zet_metric_group_handle_t g) {
    /* the holder opens root device 0: a FLAT tile, or on a COMPOSITE root all
     * tiles, so d (device 0 or its sub-device 0) conflicts either way */
    char machine[128];
    const char *tmp = getenv("TMPDIR");
    snprintf(machine, sizeof machine, "%s/zc-machine-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    const char *old = getenv("ZESIM_MACHINE");
    setenv("ZESIM_MACHINE", machine, 1); /* read at every open */
    int pfd[2];
    if (pipe(pfd) != 0) return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        execl("/proc/self/exe", "zesim-conformance", "hold-stream", (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    char line[64] = "";
    FILE *f = fdopen(pfd[0], "r");
    bool held = false;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "held", 4) == 0) { held = true; break; }
    }
    CHECK(held, "another process holds device 0's stream", "child said \"%s\"", line);
    if (held && activate(d, g)) {
        zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, 50000};
        zet_metric_streamer_handle_t s = NULL;
        CHECK_RES(open_streamer(d, g, &desc, NULL, &s), ZE_RESULT_ERROR_UNKNOWN,
                  "second process's open of a tile's stream -> UNKNOWN (the kernel driver refuses it)");
        if (s) close_streamer(s);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        pid = -1;
        s = NULL;
        CHECK_RES(open_streamer(d, g, &desc, NULL, &s), ZE_RESULT_SUCCESS, "open after the holder was killed");
        close_streamer(s);
        deactivate(d);
    }
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    if (f) fclose(f);
    if (old) setenv("ZESIM_MACHINE", old, 1);
    else unsetenv("ZESIM_MACHINE");
    /* lock files, and the holder's shared run state (machine.c) */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", machine);
    if (system(cmd) != 0) printf("note: could not remove %s\n", machine);
}

void zc_test_metrics(void) {
    for (uint32_t i = 0; i < zc.num_devices; i++) {
        char what[64];
        snprintf(what, sizeof what, "root device %u", i);
        test_enumeration(zc.devices[i], what);
        ze_device_handle_t subs[8];
        uint32_t ns = zc_subdevices(zc.devices[i], subs, 8);
        for (uint32_t s = 0; s < ns; s++) {
            snprintf(what, sizeof what, "device %u sub-device %u", i, s);
            test_enumeration(subs[s], what);
        }
    }
    if (!zc_exp.has_group) {
        test_enable_extension();
        return;
    }
    uint32_t idx, count, matches;
    ze_device_handle_t root = zc.devices[0];
    zet_metric_group_handle_t rg = find_group(root, &idx, &count, &matches, NULL);
    if (!rg) return;
    test_group_properties(root, rg);
    ze_device_handle_t subs[8];
    uint32_t nsub = zc_subdevices(root, subs, 8);
    /* streamer tests run on a device without sub-devices (FLAT root or
     * sub-device 0); COMPOSITE root specifics separately */
    ze_device_handle_t d = nsub ? subs[0] : root;
    zet_metric_group_handle_t g = nsub ? find_group(d, &idx, &count, &matches, NULL) : rg;
    if (!g) return;
    if (nsub) test_group_properties(d, g);
    test_calc_synthetic(g, false, 0);
    test_streamer_rules(d, g);
    test_writeback(d, g, 0);
    if (nsub) test_writeback(root, rg, nsub);
    test_unsupported(d, g);
    test_builtin_kernels(d, g);
    test_machine_streams(d, g);
    datarun_t dr;
    test_data(d, g, &dr);
    test_concurrent(d, g, &dr);
    test_overflow(d, g, &dr);
    free(dr.data);
    zc_work_close(&dr.w[0]);
    zc_work_close(&dr.w[1]);
    if (nsub) test_composite(root, rg);
}
