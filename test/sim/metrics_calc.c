/*
 * metrics_calc.c — calculation of metric values from raw EU stall data
 * (§7): one report per unique IP, per sub-device sets for COMPOSITE
 * roots.
 */
#include "metrics.h"

/* ------------------------------------------------------------------ */
/* Calculation (§7)                                                    */
/* ------------------------------------------------------------------ */
typedef struct ip_item {
    uint32_t ip;
    uint32_t rec;
} ip_item_t;
static int ip_cmp(const void *a, const void *b) {
    const ip_item_t *x = a, *y = b;
    if (x->ip != y->ip) return x->ip < y->ip ? -1 : 1;
    return x->rec < y->rec ? -1 : (x->rec > y->rec);
}

static int u32_cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : (x > y);
}

/* Unique masked IPs of n records, or -1 when out of memory. */
static int64_t unique_ips(const uint8_t *data, size_t n) {
    if (n == 0) return 0;
    uint32_t *ips = malloc(n * sizeof(uint32_t));
    if (ips == NULL) return -1;
    for (size_t i = 0; i < n; i++) ips[i] = (uint32_t)(le64(data + i * REC_SIZE) & IP_MASK);
    qsort(ips, n, sizeof(uint32_t), u32_cmp);
    int64_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || ips[i] != ips[i - 1]) u++;
    free(ips);
    return u;
}

/* Sub-device / FLAT calculation of plain records (Intel's
 * calculateMetricForSubdevice). count_only: *pCount = uniqueIPs x metrics. */
static ze_result_t calc_plain(zet_metric_group_calculation_type_t type, size_t size, const uint8_t *data,
                              uint32_t *pCount, zet_typed_value_t *vals, bool count_only) {
    uint32_t mc = euss_metric_count();
    if (size > 0 && data == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (count_only) {
        if (size % REC_SIZE != 0) {
            *pCount = 0;
            return ZE_RESULT_ERROR_INVALID_SIZE;
        }
        int64_t u = unique_ips(data, size / REC_SIZE);
        if (u < 0) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        uint64_t c = (uint64_t)u * mc;
        *pCount = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
        return ZE_RESULT_SUCCESS;
    }
    if (type != ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (vals == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (size % REC_SIZE != 0) {
        *pCount = 0;
        return ZE_RESULT_ERROR_INVALID_SIZE;
    }
    size_t n = size / REC_SIZE;
    uint32_t nraw = num_raw();
    const uint8_t *map = metric_raw_map();
    bool pvc = !is_xe2(), dropped = false;
    ip_item_t *it = n ? malloc(n * sizeof(ip_item_t)) : NULL;
    if (n && it == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    uint8_t raw[MAX_COUNTERS];
    for (size_t i = 0; i < n; i++) {
        uint32_t ip;
        dropped |= rec_decode(data + i * REC_SIZE, &ip, raw, nraw, pvc);
        it[i].ip = ip;
        it[i].rec = (uint32_t)i;
    }
    if (n) qsort(it, n, sizeof(*it), ip_cmp);
    /* Ascending IP; each report = metricCount values, sums of 8-bit fields. */
    uint64_t want = *pCount, w = 0;
    size_t i = 0;
    while (i < n && w < want) {
        uint64_t sum[MAX_COUNTERS] = {0};
        uint32_t ip = it[i].ip;
        for (; i < n && it[i].ip == ip; i++) {
            uint32_t dummy;
            rec_decode(data + (size_t)it[i].rec * REC_SIZE, &dummy, raw, nraw, false);
            for (uint32_t k = 0; k < nraw; k++) sum[k] += raw[k];
        }
        for (uint32_t m = 0; m < mc && w < want; m++, w++) {
            vals[w].type = ZET_VALUE_TYPE_UINT64;
            vals[w].value.ui64 = m == 0 ? ip : sum[map[m]];
        }
    }
    free(it);
    *pCount = (uint32_t)w;
    return (dropped && pvc) ? ZE_RESULT_WARNING_DROPPED_DATA : ZE_RESULT_SUCCESS;
}

static bool has_header(size_t size, const uint8_t *data) {
    return size >= HDR_SIZE && data != NULL && le32(data) == HDR_MAGIC;
}

static bool is_root_group(const sim_metric_group_t *g) { return g->kind == GK_EUSS && !is_leaf(g->dev); }

/* Walks the header chunks of root data; for chunks of set `set` calls fn.
 * Errors: a chunk without header -> INVALID_ARGUMENT (Intel: "Cannot
 * validate root device captured data"), a header announcing more bytes
 * than present -> INVALID_SIZE (bounds check Intel's driver lacks). */
typedef ze_result_t (*chunk_fn)(const uint8_t *recs, size_t size, void *env);
static ze_result_t walk_chunks(size_t size, const uint8_t *data, uint32_t set, chunk_fn fn, void *env,
                               const uint32_t *stop_when_zero) {
    size_t off = 0;
    bool dropped = false;
    while (off < size && (stop_when_zero == NULL || *stop_when_zero > 0)) {
        if (!has_header(size - off, data + off)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        uint32_t rds = le32(data + off + 4), idx = le32(data + off + 8);
        if ((uint64_t)rds > size - off - HDR_SIZE) return ZE_RESULT_ERROR_INVALID_SIZE;
        const uint8_t *recs = data + off + HDR_SIZE;
        off += HDR_SIZE + rds;
        if (idx != set) continue;
        ze_result_t r = fn(recs, rds, env);
        if (r == ZE_RESULT_WARNING_DROPPED_DATA) dropped = true;
        else if (r != ZE_RESULT_SUCCESS) return r;
    }
    return dropped ? ZE_RESULT_WARNING_DROPPED_DATA : ZE_RESULT_SUCCESS;
}

typedef struct chunk_env {
    zet_metric_group_calculation_type_t type;
    uint32_t count;      /* count mode: accumulated; data mode: values still wanted */
    zet_typed_value_t *vals;
    uint32_t written;
} chunk_env_t;

static ze_result_t chunk_count(const uint8_t *recs, size_t size, void *e) {
    chunk_env_t *env = e;
    uint32_t c = 0;
    ze_result_t r = calc_plain(env->type, size, recs, &c, NULL, true);
    if (r == ZE_RESULT_SUCCESS) env->count += c;
    return r;
}
/* Each chunk is calculated on its own (Intel's code): an IP present in two
 * chunks of one set appears twice in that set. */
static ze_result_t chunk_values(const uint8_t *recs, size_t size, void *e) {
    chunk_env_t *env = e;
    uint32_t c = env->count;
    ze_result_t r = calc_plain(env->type, size, recs, &c, env->vals + env->written, false);
    if (r == ZE_RESULT_SUCCESS || r == ZE_RESULT_WARNING_DROPPED_DATA) {
        env->written += c;
        env->count -= c;
    }
    return r;
}

static ze_result_t ZE_APICALL sim_zetMetricGroupCalculateMultipleMetricValuesExp(
    zet_metric_group_handle_t hMetricGroup, zet_metric_group_calculation_type_t type, size_t rawDataSize,
    const uint8_t *pRawData, uint32_t *pSetCount, uint32_t *pTotalMetricValueCount, uint32_t *pMetricCounts,
    zet_typed_value_t *pMetricValues) {
    sim_metric_group_t *g = grp_of(hMetricGroup);
    if (g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pSetCount == NULL || pTotalMetricValueCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (rawDataSize > 0 && pRawData == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (g->kind != GK_EUSS) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    bool count_only = *pTotalMetricValueCount == 0 || *pSetCount == 0;
    if (!count_only && (pMetricCounts == NULL || pMetricValues == NULL)) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;

    if (!is_root_group(g)) {
        if (count_only) {
            *pTotalMetricValueCount = 0;
            *pSetCount = 0;
        }
        if (has_header(rawDataSize, pRawData)) return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* root data, §7.2 */
        ze_result_t r = calc_plain(type, rawDataSize, pRawData, pTotalMetricValueCount, pMetricValues, count_only);
        if (r == ZE_RESULT_SUCCESS || r == ZE_RESULT_WARNING_DROPPED_DATA) {
            *pSetCount = 1;
            if (!count_only) pMetricCounts[0] = *pTotalMetricValueCount;
        } else if (!count_only) {
            pMetricCounts[0] = 0;
        }
        return r;
    }

    uint32_t nsub = g->dev->num_subdevices;
    if (count_only) {
        *pSetCount = 0;
        *pTotalMetricValueCount = 0;
        for (uint32_t set = 0; set < nsub; set++) {
            chunk_env_t env = {type, 0, NULL, 0};
            ze_result_t r = walk_chunks(rawDataSize, pRawData, set, chunk_count, &env, NULL);
            if (r != ZE_RESULT_SUCCESS) return r;
            *pTotalMetricValueCount += env.count;
        }
        *pSetCount = nsub;
        return ZE_RESULT_SUCCESS;
    }
    /* Intel zeroes *pSetCount bytes (not elements) of pMetricCounts. */
    memset(pMetricCounts, 0, *pSetCount);
    uint32_t max_sets = nsub < *pSetCount ? nsub : *pSetCount;
    uint32_t left = *pTotalMetricValueCount;
    bool dropped = false;
    zet_typed_value_t *vals = pMetricValues;
    for (uint32_t set = 0; set < max_sets; set++) {
        chunk_env_t env = {type, left, vals, 0};
        ze_result_t r = walk_chunks(rawDataSize, pRawData, set, chunk_values, &env, &env.count);
        if (r == ZE_RESULT_WARNING_DROPPED_DATA) dropped = true;
        else if (r != ZE_RESULT_SUCCESS) {
            memset(pMetricCounts, 0, *pSetCount);
            return r;
        }
        pMetricCounts[set] = env.written;
        vals += env.written;
        left -= env.written;
    }
    *pTotalMetricValueCount -= left;
    return dropped ? ZE_RESULT_WARNING_DROPPED_DATA : ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL sim_zetMetricGroupCalculateMetricValues(zet_metric_group_handle_t hMetricGroup,
                                                                      zet_metric_group_calculation_type_t type,
                                                                      size_t rawDataSize, const uint8_t *pRawData,
                                                                      uint32_t *pMetricValueCount,
                                                                      zet_typed_value_t *pMetricValues) {
    sim_metric_group_t *g = grp_of(hMetricGroup);
    if (g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pMetricValueCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (rawDataSize > 0 && pRawData == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (g->kind != GK_EUSS) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    /* §7.7: never for a root group; not for root-captured data. */
    if (is_root_group(g) || has_header(rawDataSize, pRawData)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    bool count_only = *pMetricValueCount == 0;
    return calc_plain(type, rawDataSize, pRawData, pMetricValueCount, pMetricValues, count_only);
}

/* ------------------------------------------------------------------ */
/* DDI getters                                                         */
/* ------------------------------------------------------------------ */
SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricGroupExpProcAddrTable(ze_api_version_t version,
                                                                    zet_metric_group_exp_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCalculateMultipleMetricValuesExp = sim_zetMetricGroupCalculateMultipleMetricValuesExp;
    return ZE_RESULT_SUCCESS;
}
