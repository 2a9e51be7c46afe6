/* stall.c — see stall.h. */
#include "stall.h"
#include "layer.h"
#include "launch.h"

#include <stdlib.h>
#include <string.h>

#include <level_zero/zes_api.h>
#include <level_zero/zet_api.h>
#include <unistd.h>

#ifndef ZET_METRIC_TYPE_IP
#define ZET_METRIC_TYPE_IP ZET_METRIC_TYPE_IP_EXP
#endif
/* abi.h carries the value for Go; the installed header is its authority. */
_Static_assert(ZESTALL_METRIC_TYPE_IP == (int)ZET_METRIC_TYPE_IP, "abi.h ZESTALL_METRIC_TYPE_IP != zet_api.h");

/* Finds the group by name and sampling type, with a metric of type IP, as
 * the tools Intel documents do; reads its metrics in driver order. */
static zet_metric_group_handle_t find_group(zs_stream_t *s, ze_device_handle_t dev) {
    uint32_t n = 0;
    ze_result_t r = zetMetricGroupGet((zet_device_handle_t)dev, &n, NULL);
    if (r != ZE_RESULT_SUCCESS || n == 0) {
        s->status = ZS_OFF_NO_METRICS;
        s->result = (uint32_t)r;
        return NULL;
    }
    zet_metric_group_handle_t *groups = calloc(n, sizeof *groups);
    if (groups == NULL) return NULL;
    zet_metric_group_handle_t found = NULL;
    if (zetMetricGroupGet((zet_device_handle_t)dev, &n, groups) == ZE_RESULT_SUCCESS) {
        for (uint32_t i = 0; i < n && found == NULL; i++) {
            zet_metric_group_properties_t gp = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES};
            if (zetMetricGroupGetProperties(groups[i], &gp) != ZE_RESULT_SUCCESS) continue;
            if (strcmp(gp.name, "EuStallSampling") != 0 ||
                !(gp.samplingType & ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED))
                continue;
            uint32_t nm = 0;
            if (zetMetricGet(groups[i], &nm, NULL) != ZE_RESULT_SUCCESS || nm == 0 || nm > ZS_MAX_METRICS) continue;
            zet_metric_handle_t metrics[ZS_MAX_METRICS];
            if (zetMetricGet(groups[i], &nm, metrics) != ZE_RESULT_SUCCESS) continue;
            int ip = -1;
            for (uint32_t m = 0; m < nm; m++) {
                zet_metric_properties_t mp = {.stype = ZET_STRUCTURE_TYPE_METRIC_PROPERTIES};
                if (zetMetricGetProperties(metrics[m], &mp) != ZE_RESULT_SUCCESS) break;
                zs_metric_t *o = &s->metrics[m];
                memcpy(o->name, mp.name, sizeof o->name);
                o->name[sizeof o->name - 1] = 0;
                memcpy(o->description, mp.description, sizeof o->description);
                o->description[sizeof o->description - 1] = 0;
                memcpy(o->units, mp.resultUnits, sizeof o->units);
                o->units[sizeof o->units - 1] = 0;
                o->type = (uint32_t)mp.metricType;
                if (mp.metricType == ZET_METRIC_TYPE_IP && ip < 0) ip = (int)m;
            }
            if (ip < 0) continue;
            s->num_metrics = nm;
            s->ip_index = (uint32_t)ip;
            found = groups[i];
        }
    }
    free(groups);
    if (found == NULL && s->status == ZS_OK) s->status = ZS_OFF_NO_GROUP;
    return found;
}

void zs_open(zs_stream_t *s, ze_driver_handle_t driver, ze_device_handle_t dev, uint32_t period_ns) {
    s->device = dev;
    s->status = ZS_OK;
    zet_metric_group_handle_t group = find_group(s, dev);
    if (group == NULL) return;
    s->group = group;

    /* zestall's own context: the application may destroy its contexts at
     * any time; the streamer lives for the whole process. */
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    /* Marked as zestall's (zl_own_call): the launch path must not create
     * timestamp events ahead for this context (cgo/event_pools.c). */
    bool was = zl_own_call(true);
    ze_result_t r = zeContextCreate(driver, &cd, &ctx);
    zl_own_call(was);
    if (r != ZE_RESULT_SUCCESS) goto fail;
    s->context = ctx;
    r = zetContextActivateMetricGroups((zet_context_handle_t)ctx, (zet_device_handle_t)dev, 1, &group);
    if (r != ZE_RESULT_SUCCESS) goto fail;

    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool;
    if (zeEventPoolCreate(ctx, &pd, 1, &dev, &pool) == ZE_RESULT_SUCCESS) {
        s->event_pool = pool;
        ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
        ze_event_handle_t ev;
        if (zeEventCreate(pool, &ed, &ev) == ZE_RESULT_SUCCESS) s->event = ev;
    }

    /* notifyEveryNReports: start high and divide by 4 when the driver
     * refuses, as unitrace does for drivers that reject large values. */
    zet_metric_streamer_handle_t st = NULL;
    for (uint32_t notify = 32768;; notify = notify > 1 ? notify / 4 : 0) {
        if (notify == 0) break;
        zet_metric_streamer_desc_t sd = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, notify, period_ns};
        r = zetMetricStreamerOpen((zet_context_handle_t)ctx, (zet_device_handle_t)dev, group, &sd,
                                  (ze_event_handle_t)s->event, &st);
        if (r == ZE_RESULT_SUCCESS) {
            s->notify_reports = sd.notifyEveryNReports;
            s->period_ns = sd.samplingPeriod;
            break;
        }
        if (r != ZE_RESULT_ERROR_UNKNOWN && r != ZE_RESULT_ERROR_INVALID_ARGUMENT) break;
    }
    if (st == NULL) goto fail;
    s->streamer = st;

    uint32_t sub = 0;
    s->sub_devices = (zeDeviceGetSubDevices(dev, &sub, NULL) == ZE_RESULT_SUCCESS && sub > 0) ? sub : 1;
    return;
fail:
    s->status = ZS_OFF_OPEN_FAILED;
    s->result = (uint32_t)r;
    zs_close(s);
    s->status = ZS_OFF_OPEN_FAILED;
}

static ze_result_t zs_read_unguarded(zs_stream_t *s, uint8_t *buf, size_t *size) {
    if (s->streamer == NULL) return ZE_RESULT_ERROR_UNINITIALIZED;
    return zetMetricStreamerReadData((zet_metric_streamer_handle_t)s->streamer, UINT32_MAX, size, buf);
}
ZESTALL_GUARDED(ze_result_t, zs_read, (zs_stream_t *s, uint8_t *buf, size_t *size), (s, buf, size))

static int zs_notified_unguarded(zs_stream_t *s) {
    return s->event != NULL && zeEventQueryStatus((ze_event_handle_t)s->event) == ZE_RESULT_SUCCESS;
}
ZESTALL_GUARDED(int, zs_notified, (zs_stream_t *s), (s))

static ze_result_t zs_calculate_count_unguarded(zs_stream_t *s, const uint8_t *raw, size_t size, uint32_t *sets, uint32_t *total) {
    *sets = 0;
    *total = 0;
    return zetMetricGroupCalculateMultipleMetricValuesExp((zet_metric_group_handle_t)s->group,
                                                           ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size,
                                                           raw, sets, total, NULL, NULL);
}
ZESTALL_GUARDED(ze_result_t, zs_calculate_count, (zs_stream_t *s, const uint8_t *raw, size_t size, uint32_t *sets, uint32_t *total), (s, raw, size, sets, total))

static ze_result_t zs_calculate_unguarded(zs_stream_t *s, const uint8_t *raw, size_t size, uint32_t *sets, uint32_t *set_counts,
                         uint32_t max_sets, uint64_t *values, uint32_t *total) {
    uint32_t n = *total;
    if (*sets > max_sets) *sets = max_sets;
    zet_typed_value_t *tv = calloc(n ? n : 1, sizeof *tv);
    if (tv == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t r = zetMetricGroupCalculateMultipleMetricValuesExp(
        (zet_metric_group_handle_t)s->group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, raw, sets,
        total, set_counts, tv);
    if (r == ZE_RESULT_SUCCESS || r == ZE_RESULT_WARNING_DROPPED_DATA) {
        if (*total > n) *total = n;
        for (uint32_t i = 0; i < *total; i++) values[i] = tv[i].value.ui64;
    }
    free(tv);
    return r;
}
ZESTALL_GUARDED(ze_result_t, zs_calculate, (zs_stream_t *s, const uint8_t *raw, size_t size, uint32_t *sets, uint32_t *set_counts, uint32_t max_sets, uint64_t *values, uint32_t *total), (s, raw, size, sets, set_counts, max_sets, values, total))

void zs_close(zs_stream_t *s) {
    if (s->streamer) zetMetricStreamerClose((zet_metric_streamer_handle_t)s->streamer);
    if (s->context && s->group)
        zetContextActivateMetricGroups((zet_context_handle_t)s->context, (zet_device_handle_t)s->device, 0, NULL);
    if (s->event) zeEventDestroy((ze_event_handle_t)s->event);
    if (s->event_pool) zeEventPoolDestroy((ze_event_pool_handle_t)s->event_pool);
    if (s->context) zeContextDestroy((ze_context_handle_t)s->context);
    s->streamer = s->event = s->event_pool = s->context = NULL;
}

void zs_open_device(zs_stream_t *s, uint64_t device, uint32_t period_ns) {
    uint32_t n = 1;
    ze_driver_handle_t drv = NULL;
    if (zeDriverGet(&n, &drv) != ZE_RESULT_SUCCESS || drv == NULL) {
        s->status = ZS_OFF_OPEN_FAILED;
        s->result = (uint32_t)ZE_RESULT_ERROR_UNINITIALIZED;
        return;
    }
    zs_open(s, drv, (ze_device_handle_t)(uintptr_t)device, period_ns);
}

ze_result_t zs_other_processes(zs_stream_t *s, uint32_t *pids, uint32_t cap, uint32_t *n) {
    *n = 0;
    if (s == NULL || s->device == NULL) return ZE_RESULT_ERROR_UNINITIALIZED;
    zes_device_handle_t dev = (zes_device_handle_t)s->device;
    uint32_t count = 0;
    ze_result_t r = zesDeviceProcessesGetState(dev, &count, NULL);
    if (r != ZE_RESULT_SUCCESS) return r;
    if (count == 0) return ZE_RESULT_SUCCESS;
    if (count > 1024) count = 1024;
    zes_process_state_t *ps = calloc(count, sizeof *ps);
    if (ps == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < count; i++) ps[i].stype = ZES_STRUCTURE_TYPE_PROCESS_STATE;
    r = zesDeviceProcessesGetState(dev, &count, ps);
    uint32_t me = (uint32_t)getpid();
    for (uint32_t i = 0; r == ZE_RESULT_SUCCESS && i < count && *n < cap; i++) {
        if (ps[i].processId == me) continue;
        if (!(ps[i].engines & (ZES_ENGINE_TYPE_FLAG_COMPUTE | ZES_ENGINE_TYPE_FLAG_RENDER))) continue;
        /* insertion: ascending, no duplicates */
        uint32_t p = ps[i].processId, j = *n;
        while (j > 0 && pids[j - 1] > p) j--;
        if (j > 0 && pids[j - 1] == p) continue;
        memmove(pids + j + 1, pids + j, (*n - j) * sizeof *pids);
        pids[j] = p;
        (*n)++;
    }
    free(ps);
    return r;
}
