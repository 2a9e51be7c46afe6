/*
 * stall.h — EU stall sampling through the Level-Zero metrics API: find the
 * "EuStallSampling" group of a device, activate it in zestall's own
 * context, open one streamer for the life of the process, read and
 * calculate. Declarations only.
 *
 * zet* calls never pass through the loader's tracing layer
 * (docs/level-zero-loader.md §3.4 "zet and zes routing"), so nothing here is
 * traced.
 */
#ifndef ZESTALL_CGO_STALL_H
#define ZESTALL_CGO_STALL_H

#include <stddef.h>
#include <stdint.h>
#include <level_zero/ze_api.h>

#include "abi.h" /* ZS_*: status */

#define ZS_MAX_METRICS 32


typedef struct zs_metric {
    char name[256];
    char description[256];
    char units[256];
    uint32_t type;
} zs_metric_t;

typedef struct zs_stream {
    void *device;                /* root device */
    int status;                  /* ZS_* */
    uint32_t result;             /* the failing Level-Zero result, if any */
    uint32_t num_metrics;        /* including the IP metric */
    zs_metric_t metrics[ZS_MAX_METRICS];
    uint32_t ip_index;           /* index of the IP metric */
    uint32_t period_ns;          /* the period the driver chose */
    uint32_t notify_reports;     /* notifyEveryNReports in use */
    uint32_t sub_devices;        /* sets the calculation delivers */
    /* private */
    void *context, *group, *streamer, *event_pool, *event;
} zs_stream_t;

/* Sets up sampling on a root device. Fills s; s->status says whether a
 * streamer is open. */
void zs_open(zs_stream_t *s, ze_driver_handle_t driver, ze_device_handle_t device, uint32_t period_ns);
/* zs_open with the driver that owns device (the first driver). */
void zs_open_device(zs_stream_t *s, uint64_t device, uint32_t period_ns);
/* Reads raw data: *size in (buffer capacity), out (bytes). Returns the
 * Level-Zero result (ZE_RESULT_WARNING_DROPPED_DATA: data were lost). */
ze_result_t zs_read(zs_stream_t *s, uint8_t *buf, size_t *size);
/* Notification event state: 1 when at least notifyEveryNReports are
 * buffered. */
int zs_notified(zs_stream_t *s);
/* Calculates metric values: count mode, then data into values (uint64
 * per value; report-major, metric order), counts per set. Returns the
 * result; *sets and *total are set. */
ze_result_t zs_calculate(zs_stream_t *s, const uint8_t *raw, size_t size, uint32_t *sets, uint32_t *set_counts,
                         uint32_t max_sets, uint64_t *values, uint32_t *total);
/* Value count the calculation of raw would produce (count mode). */
ze_result_t zs_calculate_count(zs_stream_t *s, const uint8_t *raw, size_t size, uint32_t *sets, uint32_t *total);
void zs_close(zs_stream_t *s);
/* Other processes using s's device that have run work on its compute or
 * render engines (Sysman zesDeviceProcessesGetState with the core device
 * handle, as Intel's driver accepts with ZES_ENABLE_SYSMAN=1): up to cap
 * pids, ascending, count in *n. Returns the Level-Zero result. zes* calls
 * are not traced either. */
ze_result_t zs_other_processes(zs_stream_t *s, uint32_t *pids, uint32_t cap, uint32_t *n);

#endif
