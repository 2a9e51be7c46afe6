/*
 * zc_gt.c — the driver's ground truth (ZESIM_GROUND_TRUTH) against what the
 * API reports. A child process (forked before the parent's zeInit) runs a
 * small sampled workload with ground truth on and writes what it observed
 * through the API; after it exits (so the ground-truth file is complete)
 * the parent compares:
 *   - launch timestamps from zeEventQueryKernelTimestamp = the ground
 *     truth's start/end ticks masked to 32 bits, launch by launch;
 *   - the records read through the streamer = the non-dropped ground-truth
 *     samples, as a multiset of (ip, counters).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "zc.h"

/* ---- child ---------------------------------------------------------- */
static zet_metric_group_handle_t child_group(ze_device_handle_t d) {
    uint32_t n = 0;
    if (zetMetricGroupGet((zet_device_handle_t)d, &n, NULL) != ZE_RESULT_SUCCESS || n == 0 || n > 64) return NULL;
    zet_metric_group_handle_t g[64], found = NULL;
    if (zetMetricGroupGet((zet_device_handle_t)d, &n, g) != ZE_RESULT_SUCCESS) return NULL;
    for (uint32_t i = 0; i < n && !found; i++) {
        zet_metric_group_properties_t p = {ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES, NULL, "", "", 0, 0, 0};
        if (zetMetricGroupGetProperties(g[i], &p) == ZE_RESULT_SUCCESS && strcmp(p.name, "EuStallSampling") == 0)
            found = g[i];
    }
    return found;
}

int zc_gt_child(const char *gt_path, const char *obs_path) {
    setenv("ZESIM_GROUND_TRUTH", gt_path, 1);
    unlink(gt_path);
    FILE *o = fopen(obs_path, "w");
    if (!o) return 3;
    if (zeInit(0) != ZE_RESULT_SUCCESS) return 4;
    uint32_t n = 1;
    if (zeDriverGet(&n, &zc.driver) != ZE_RESULT_SUCCESS) return 5;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    if (zeContextCreate(zc.driver, &cd, &zc.context) != ZE_RESULT_SUCCESS) return 6;
    n = 1;
    ze_device_handle_t d;
    if (zeDeviceGet(zc.driver, &n, &d) != ZE_RESULT_SUCCESS) return 7;
    zeDriverGetExtensionFunctionAddress(zc.driver, "zexKernelGetBaseAddress", (void **)&zc.get_base);
    zeDriverGetExtensionFunctionAddress(zc.driver, "zeIntelKernelGetBinaryExp", (void **)&zc.get_binary);
    /* root data carries headers only when the root has sub-devices */
    uint32_t nsub = 0;
    zeDeviceGetSubDevices(d, &nsub, NULL);
    bool headered = nsub > 0;
    zet_metric_group_handle_t g = zc_exp.has_group ? child_group(d) : NULL;
    zet_metric_streamer_handle_t s = NULL;
    if (g) {
        REQUIRE_OK(zetContextActivateMetricGroups((zet_context_handle_t)zc.context, (zet_device_handle_t)d, 1, &g),
                   "gt: activate");
        zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1, 10000};
        REQUIRE_OK(zetMetricStreamerOpen((zet_context_handle_t)zc.context, (zet_device_handle_t)d, g, &desc, NULL, &s),
                   "gt: streamer open");
    }
    /* the stream kernels (short) and the long kernel (a few ms) */
    zc_work_t w, wl;
    bool ok = zc_work_open(&w, d, zc.stream_bin, zc.stream_size);
    bool okl = zc_work_open(&wl, d, zc.compute_bin, zc.compute_size);
    int li = okl ? zc_work_find(&wl, zc.long_kernel) : -1;
    for (int rep = 0; rep < 3; rep++) {
        for (uint32_t k = 0; ok && k < w.nk; k++) {
            ze_kernel_timestamp_result_t ts;
            if (zc_work_launch(&w, k, 512, &ts))
                fprintf(o, "launch %s %llu %llu\n", w.names[k], (unsigned long long)ts.global.kernelStart,
                        (unsigned long long)ts.global.kernelEnd);
        }
        ze_kernel_timestamp_result_t ts;
        if (li >= 0 && zc_work_launch(&wl, (uint32_t)li, 64, &ts))
            fprintf(o, "launch %s %llu %llu\n", wl.names[li], (unsigned long long)ts.global.kernelStart,
                    (unsigned long long)ts.global.kernelEnd);
    }
    if (s) {
        uint8_t *buf = malloc(4u << 20);
        for (int it = 0; it < 1024 && buf; it++) {
            size_t sz = 4u << 20;
            ze_result_t r = zetMetricStreamerReadData(s, UINT32_MAX, &sz, buf);
            if (r == ZE_RESULT_WARNING_DROPPED_DATA) { fprintf(o, "dropped\n"); continue; }
            if (!REQUIRE_OK(r, "gt: ReadData")) break;
            size_t payload = 0;
            for (size_t off = 0; off + 64 <= sz || (headered && off + 16 <= sz);) {
                size_t len = sz - off, start = off;
                if (headered) {
                    uint32_t h[4];
                    memcpy(h, buf + off, 16);
                    if (h[0] != ZC_HEADER_MAGIC || h[1] > sz - off - 16) break;
                    start = off + 16;
                    len = h[1];
                    off += 16 + h[1];
                } else {
                    off = sz;
                }
                for (size_t r2 = 0; r2 + 64 <= len; r2 += 64) {
                    fprintf(o, "rec ");
                    for (int b = 0; b < 64; b++) fprintf(o, "%02x", buf[start + r2 + b]);
                    fprintf(o, "\n");
                }
                payload += len;
            }
            if (payload == 0) break;
        }
        free(buf);
        zetMetricStreamerClose(s);
        zetContextActivateMetricGroups((zet_context_handle_t)zc.context, (zet_device_handle_t)d, 0, NULL);
    }
    zc_work_close(&w);
    zc_work_close(&wl);
    zeContextDestroy(zc.context);
    fprintf(o, "checks %u %u\n", zc_passed, zc_failed);
    fclose(o);
    return 0;
}

/* ---- parent ----------------------------------------------------------- */
/* Position of the value of "key" in a JSON object line, or NULL
 * (tolerates spaces around the colon; skips string values equal to key). */
static const char *json_value(const char *line, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    for (const char *p = strstr(line, pat); p; p = strstr(p + 1, pat)) {
        const char *q = p + strlen(pat);
        while (*q == ' ') q++;
        if (*q != ':') continue;
        q++;
        while (*q == ' ') q++;
        return q;
    }
    return NULL;
}

bool zc_json_u64(const char *line, const char *key, uint64_t *out) {
    const char *p = json_value(line, key);
    if (!p) return false;
    if (strncmp(p, "true", 4) == 0) { *out = 1; return true; }
    if (strncmp(p, "false", 5) == 0) { *out = 0; return true; }
    if (*p == '"') p++; /* numbers written as strings (e.g. hex addresses) */
    char *end;
    *out = strtoull(p, &end, 0);
    return end != p;
}

static int json_arr(const char *line, const char *key, uint64_t *vals, int cap) {
    const char *p = json_value(line, key);
    if (!p || *p != '[') return -1;
    p++;
    int n = 0;
    while (*p == ' ') p++;
    while (*p && *p != ']') {
        char *end;
        uint64_t v = strtoull(p, &end, 0);
        if (end == p) return -1;
        if (n < cap) vals[n] = v;
        n++;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    return n;
}

static bool is_type(const char *line, const char *type) {
    const char *p = json_value(line, "type");
    size_t n = strlen(type);
    return p && *p == '"' && strncmp(p + 1, type, n) == 0 && p[1 + n] == '"';
}

typedef struct key { uint64_t v[12]; } key_t_;
static int cmp_key(const void *a, const void *b) {
    const key_t_ *x = a, *y = b;
    for (int i = 0; i < 12; i++)
        if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
    return 0;
}

typedef struct launch { uint64_t id, start, end; } launch_t;
static int cmp_launch(const void *a, const void *b) {
    uint64_t x = ((const launch_t *)a)->id, y = ((const launch_t *)b)->id;
    return x < y ? -1 : x > y;
}

void zc_gt_check(const char *gt_path, const char *obs_path, int st) {
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "ground truth: child workload ran", "status %#x", st);
    size_t gsz = 0, osz = 0;
    char *gt = (char *)zc_read_file(gt_path, &gsz), *obs = (char *)zc_read_file(obs_path, &osz);
    CHECK(gt != NULL && gsz > 0, "ground truth: ZESIM_GROUND_TRUTH file written", "%s", gt_path);
    if (!gt || !obs) { free(gt); free(obs); return; }
    /* observations */
    launch_t mine[256];
    size_t nmine = 0, nrec = 0, cap = 1024;
    uint8_t *recs = malloc(cap * 64);
    unsigned cp = 0, cf = 0;
    for (char *line = strtok(obs, "\n"); line; line = strtok(NULL, "\n")) {
        char name[128];
        unsigned long long a, b;
        if (sscanf(line, "launch %127s %llu %llu", name, &a, &b) == 3 && nmine < 256) {
            mine[nmine] = (launch_t){nmine + 1, a, b};
            nmine++;
        } else if (strncmp(line, "rec ", 4) == 0 && strlen(line) >= 4 + 128) {
            if (nrec == cap) recs = realloc(recs, (cap *= 2) * 64);
            for (int i = 0; i < 64; i++) {
                unsigned x;
                sscanf(line + 4 + 2 * i, "%2x", &x);
                recs[nrec * 64 + (size_t)i] = (uint8_t)x;
            }
            nrec++;
        } else if (sscanf(line, "checks %u %u", &cp, &cf) == 2) {
            zc_passed += cp;
            zc_failed += cf;
        }
    }
    /* ground truth */
    launch_t *gl = malloc(sizeof *gl * 4096);
    size_t ngl = 0, ngs = 0, gcap = 1024;
    key_t_ *gs = malloc(gcap * sizeof *gs);
    size_t lines = 0, bad = 0;
    for (char *line = strtok(gt, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        if (is_type(line, "config")) {
            /* The device counter runs from a boot time (1 h .. 8 days,
             * drawn from ZESIM_SEED) unless ZESIM_TIMESTAMP_OFFSET says
             * otherwise. */
            uint64_t off = 0, hz = 0;
            const char *env = getenv("ZESIM_TIMESTAMP_OFFSET");
            if (zc_json_u64(line, "timestamp_offset_ticks", &off) && zc_json_u64(line, "timestamp_hz", &hz) && hz > 0) {
                if (env && *env)
                    CHECK_U64(off, strtoull(env, NULL, 0), "ground truth: timestamp_offset_ticks = ZESIM_TIMESTAMP_OFFSET");
                else
                    CHECK(off >= 3600 * hz && off < 8ull * 24 * 3600 * hz && off % hz == 0,
                          "device timestamps start at a boot time of 1 h .. 8 days by default", "offset %llu ticks at %llu Hz",
                          (unsigned long long)off, (unsigned long long)hz);
            } else {
                bad++;
            }
        } else if (is_type(line, "launch")) {
            launch_t l = {0, 0, 0};
            if (!zc_json_u64(line, "launch", &l.id) || !zc_json_u64(line, "start_ticks", &l.start) ||
                !zc_json_u64(line, "end_ticks", &l.end)) { bad++; continue; }
            if (ngl < 4096) gl[ngl++] = l;
        } else if (is_type(line, "sample")) {
            uint64_t dropped = 0, ip;
            key_t_ k;
            memset(&k, 0, sizeof k);
            zc_json_u64(line, "dropped", &dropped);
            int nc = json_arr(line, "counters", &k.v[1], 11);
            if (!zc_json_u64(line, "ip", &ip) || nc < 0) { bad++; continue; }
            if (dropped) continue;
            k.v[0] = ip;
            if (ngs == gcap) gs = realloc(gs, (gcap *= 2) * sizeof *gs);
            gs[ngs++] = k;
        }
    }
    CHECK(bad == 0, "ground truth: launch/sample lines have the documented fields", "%zu of %zu lines unparseable", bad, lines);
    qsort(gl, ngl, sizeof *gl, cmp_launch);
    /* a launch on a root with sub-devices has one line per sub-device:
     * the event spans all of them (earliest start, latest end) */
    size_t merged = 0;
    for (size_t i = 0; i < ngl; i++) {
        if (merged > 0 && gl[merged - 1].id == gl[i].id) {
            launch_t *m = &gl[merged - 1];
            if (gl[i].start < m->start) m->start = gl[i].start;
            if (gl[i].end > m->end) m->end = gl[i].end;
        } else {
            gl[merged++] = gl[i];
        }
    }
    ngl = merged;
    CHECK_U64(ngl, nmine, "ground truth: one launch (id) per launch");
    size_t tsbad = 0;
    char first[200] = "";
    for (size_t i = 0; i < ngl && i < nmine; i++) {
        if ((gl[i].start & 0xffffffffu) != mine[i].start || (gl[i].end & 0xffffffffu) != mine[i].end) {
            if (tsbad++ == 0)
                snprintf(first, sizeof first, "launch %llu: truth %#llx..%#llx, event %#llx..%#llx",
                         (unsigned long long)gl[i].id, (unsigned long long)gl[i].start, (unsigned long long)gl[i].end,
                         (unsigned long long)mine[i].start, (unsigned long long)mine[i].end);
        }
    }
    CHECK(tsbad == 0, "ground truth: kernel timestamps = truth start/end ticks masked to 32 bits", "%zu differ; %s", tsbad, first);

    if (zc_exp.has_group) {
        CHECK(nrec > 0, "ground truth: streamer delivered records", "0 records");
        CHECK_U64(ngs, nrec, "ground truth: non-dropped samples = records read");
        /* interpretations: ip as the raw field or as a byte address; counters
         * in raw (k) order or in metric order */
        const char *match = NULL;
        key_t_ *mk = calloc(nrec + 1, sizeof *mk), *gk = calloc(ngs + 1, sizeof *gk);
        static const char *const desc[4] = {"ip field, raw counter order", "ip field, metric order",
                                            "byte address, raw counter order", "byte address, metric order"};
        for (int interp = 0; interp < 4 && !match && ngs == nrec; interp++) {
            for (size_t i = 0; i < nrec; i++) {
                zc_rec_t r;
                zc_decode(recs + i * 64, &r);
                memset(&mk[i], 0, sizeof mk[i]);
                mk[i].v[0] = r.ip;
                if (interp & 1) {
                    uint64_t mv[11];
                    zc_metric_order(&r, mv);
                    for (uint32_t m = 1; m < zc_exp.metric_count; m++) mk[i].v[m] = mv[m];
                } else {
                    for (int c = 0; c < (zc_exp.pvc_layout ? 9 : 10); c++) mk[i].v[1 + c] = r.raw[c];
                }
            }
            for (size_t i = 0; i < ngs; i++) {
                gk[i] = gs[i];
                if (interp & 2) gk[i].v[0] = (gs[i].v[0] >> 3) & 0x1fffffffu;
            }
            qsort(mk, nrec, sizeof *mk, cmp_key);
            qsort(gk, ngs, sizeof *gk, cmp_key);
            if (memcmp(mk, gk, nrec * sizeof *mk) == 0) match = desc[interp];
        }
        CHECK(match != NULL, "ground truth: records read = non-dropped truth samples (multiset of ip, counters)",
              "%zu records, %zu truth samples; no interpretation matches", nrec, ngs);
        if (match && getenv("ZC_VERBOSE")) printf("     ground truth sample format: %s\n", match);
        free(mk);
        free(gk);
    }
    free(gl);
    free(gs);
    free(recs);
    free(gt);
    free(obs);
}
