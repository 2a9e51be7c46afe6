/*
 * metrics.h — internal interface of the metrics files of the simulated
 * device (metrics_*.c): EU stall sampling as Intel's driver offers it (the
 * "EuStallSampling" metric group, "IP sampling"), two placeholder OA
 * groups, and the "sample" lines of the ground truth. Nothing outside
 * metrics_*.c includes it; what other areas use is in sim.h.
 *
 * Spec: docs/eu-stall-sampling.md (section numbers "§n" below refer to
 * it). User documentation: README.md, section "EU stall sampling".
 *
 * Files, one concern each:
 *   metrics_group.c   metric definitions, groups, metrics, per-device
 *                     state, activation, enabling
 *   metrics_record.c  raw 64-byte records and per-Xe-core buffers
 *   metrics_sample.c  sample generation from the published kernel runs
 *   metrics_stream.c  streamers: open, read, notification, close
 *   metrics_calc.c    calculation of metric values
 *   metrics_tracer.c  experimental tracer/decoder, extension functions
 *
 * Locking: one mutex (g_mx) protects every piece of metrics state. While
 * holding it we call sim_exec_progress() and take run_lock, so exec_*.c
 * must never call into metrics while holding run_lock. We never call
 * sim_event_attach_streamer() with g_mx held (exec_event.c may call
 * sim_metrics_notify_state() with an event's streamer_lock held).
 */
#ifndef ZESIM_METRICS_H
#define ZESIM_METRICS_H

#include "sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Experimental types missing from Debian's 1.8.12 headers (§0, §10)   */
/* ------------------------------------------------------------------ */
typedef struct sim_ts_resolution_exp {
    zet_structure_type_t stype;
    const void *pNext;
    uint64_t timerResolution;
    uint64_t timestampValidBits;
} sim_ts_resolution_exp_t;
typedef struct sim_group_type_exp {
    zet_structure_type_t stype;
    void *pNext;
    uint32_t type;
} sim_group_type_exp_t;
typedef struct sim_source_id_exp {
    zet_structure_type_t stype;
    void *pNext;
    uint32_t sourceId;
} sim_source_id_exp_t;
typedef struct sim_calc_props_exp {
    zet_structure_type_t stype;
    void *pNext;
    bool isTimeFilterSupported;
} sim_calc_props_exp_t;
typedef struct sim_calculable_exp {
    zet_structure_type_t stype;
    void *pNext;
    bool isCalculable;
} sim_calculable_exp_t;
typedef struct sim_hw_buffer_size_exp {
    zet_structure_type_t stype;
    const void *pNext;
    size_t sizeInBytes;
} sim_hw_buffer_size_exp_t;
typedef struct sim_tracer_desc_exp {
    zet_structure_type_t stype;
    const void *pNext;
    uint32_t notifyEveryNBytes;
} sim_tracer_desc_exp_t;
typedef struct sim_metric_entry_exp {
    zet_value_t value;
    uint64_t timeStamp;
    uint32_t metricIndex;
    ze_bool_t onSubdevice;
    uint32_t subdeviceId;
} sim_metric_entry_exp_t;
typedef void *sim_tracer_handle_t;
typedef void *sim_decoder_handle_t;

/* ------------------------------------------------------------------ */
/* Constants                                                           */
/* ------------------------------------------------------------------ */
#define REC_SIZE 64u                 /* §3.1 */
#define XECORE_BUF_RECORDS 8192u     /* 512 KiB per Xe-core / 64 (§4.4) */
#define IP_MASK 0x1fffffffu          /* PVC, Xe2 (§3.2) */
#define IP_DOMAIN 100u               /* §2.1 */
#define HDR_MAGIC 0xFEEDBCBAu        /* §6.2 */
#define HDR_SIZE 16u
#define I915_FLAG_DROP 0x0100u       /* §3.3 */
#define SOURCE_OA 1u
#define SOURCE_IP 2u
#define MAX_PNEXT_CHAIN 64           /* bound for pNext walks of caller memory */
#define MAX_COUNTERS 10


typedef enum grp_kind { GK_OA_COMPUTE = 0, GK_OA_MEMORY = 1, GK_EUSS = 2, GK_COUNT } grp_kind_t;

typedef struct metric_def {
    const char *name, *desc, *component;
    uint32_t tier;
    zet_metric_type_t type;
    zet_value_type_t rtype;
    const char *units;
} metric_def_t;

#define EUSS_PVC_METRICS 10           /* §2.3 */
#define EUSS_XE2_METRICS 11           /* §2.4 */
#define OA_METRICS 5
/* Metric definitions (metrics_group.c). */
SIM_HIDDEN extern const metric_def_t euss_pvc[EUSS_PVC_METRICS], euss_xe2[EUSS_XE2_METRICS];
SIM_HIDDEN extern const uint8_t pvc_metric_raw[EUSS_PVC_METRICS], xe2_metric_raw[EUSS_XE2_METRICS];
SIM_HIDDEN extern const metric_def_t oa_compute[OA_METRICS], oa_memory[OA_METRICS];

/* ------------------------------------------------------------------ */
/* State                                                               */
/* ------------------------------------------------------------------ */
struct sim_metric_group;

typedef struct sim_metric {
    sim_obj_t obj;
    struct sim_metric_group *group; /* owning group (for a COMPOSITE root's EUSS: sub-device 0's) */
    uint32_t index;
    const metric_def_t *def;
} sim_metric_t;

typedef struct sim_metric_group {
    sim_obj_t obj;
    sim_device_t *dev;
    grp_kind_t kind;
    const char *name, *desc;
    uint32_t domain;
    uint32_t num_metrics;
    sim_metric_t *metrics; /* owned, except for a COMPOSITE root's EUSS group */
} sim_metric_group_t;

/* One record buffered in the "hardware": kept decoded (24 bytes) and
 * encoded on read; t_ns is what the tracer reports. */
typedef struct ss_rec {
    uint64_t t_ns;
    uint32_t ip;
    uint8_t raw[MAX_COUNTERS];
} ss_rec_t;

typedef struct ss_buf {
    ss_rec_t *r;
    uint32_t alloc, head, count;
    bool eio_pending; /* a drop the next read reports (§4.2 -EIO) */
    bool drop_mark;   /* dropped since last read: i915 flags the next records read (§3.3) */
    uint64_t dropped;
} ss_buf_t;

typedef struct activation {
    sim_context_t *ctx;
    sim_metric_group_t *groups[GK_COUNT]; /* by kind: at most one per domain */
} activation_t;

struct sim_streamer;

typedef struct sim_metric_dev {
    sim_device_t *dev;
    bool enabled;                       /* ZET_ENABLE_METRICS or zetIntelDeviceEnableMetricsExp */
    sim_metric_group_t groups[GK_COUNT];
    activation_t *acts;
    uint32_t num_acts, cap_acts;
    struct sim_streamer *claim;         /* streamer/tracer using this (sub)device's stream */
    uint32_t sub_claims;                /* root: sub-devices claimed by their own streamers */
    ss_buf_t *bufs;                     /* leaf (tile) devices: one per Xe-core */
    uint32_t nbufs;
    bool eio_reported;                  /* the pending drops were reported by a read */
} sim_metric_dev_t;

typedef struct sim_streamer {
    sim_obj_t obj; /* SIM_K_STREAMER or SIM_K_METRIC_TRACER */
    sim_device_t *dev;
    sim_metric_group_t *group;
    sim_event_t *event;
    bool is_tracer;
    bool active;        /* sampling: streamer always, tracer while enabled */
    uint32_t notify_n;  /* streamer: records; tracer: bytes */
    uint64_t period_ns;
    uint64_t t0_ns;     /* alignment of the sampling periods */
    uint64_t gen_upto;  /* samples at times < gen_upto have been generated */
    bool closing;       /* samples generated now are never delivered */
    uint32_t ntiles;
    sim_device_t *tiles[8]; /* leaf devices whose Xe-cores this stream covers, index order */
    struct sim_streamer *next; /* open list or free list */
} sim_streamer_t;

typedef struct sim_decoder {
    sim_obj_t obj;
    sim_device_t *dev;
    sim_metric_group_t *group;
    struct sim_decoder *next_free;
} sim_decoder_t;

SIM_HIDDEN extern pthread_mutex_t g_mx;      /* every piece of metrics state */
SIM_HIDDEN extern pthread_mutex_t g_init_mx; /* creation of per-device state */
/* Streamer and decoder memory is recycled, never freed: a racing
 * sim_metrics_notify_state() on a just-closed streamer then reads a dead
 * magic instead of freed memory. */
SIM_HIDDEN extern sim_streamer_t *g_open, *g_free_streamers;
SIM_HIDDEN extern sim_decoder_t *g_free_decoders;

/* ------------------------------------------------------------------ */
/* Platform helpers                                                    */
/* ------------------------------------------------------------------ */
static inline bool is_xe2(void) { return sim_cfg.platform == SIM_PLATFORM_XE2; }
static inline bool is_i915(void) { return sim_cfg.kmd == SIM_KMD_I915_PRELIM; }
static inline uint32_t num_raw(void) { return is_xe2() ? 10u : 9u; }
static inline const metric_def_t *euss_defs(uint32_t *n) {
    *n = is_xe2() ? (uint32_t)(sizeof(euss_xe2) / sizeof(euss_xe2[0])) : (uint32_t)(sizeof(euss_pvc) / sizeof(euss_pvc[0]));
    return is_xe2() ? euss_xe2 : euss_pvc;
}
static inline const uint8_t *metric_raw_map(void) { return is_xe2() ? xe2_metric_raw : pvc_metric_raw; }
static inline uint32_t euss_metric_count(void) { return is_xe2() ? 11u : 10u; }

/* §2.5: PVC XT / XT-VG device ids, Xe2 and later. */
static inline bool euss_supported(void) {
    if (sim_cfg.platform == SIM_PLATFORM_XE2) return true;
    if (sim_cfg.platform != SIM_PLATFORM_PVC) return false;
    uint32_t id = sim_cfg.device_id;
    return (id >= 0x0BD5 && id <= 0x0BDB) || id == 0x0B69 || id == 0x0B6E || id == 0x0BD4;
}

static inline uint64_t gpu_period_ns(void) {
    uint64_t hz = sim_cfg.timestamp_hz ? sim_cfg.timestamp_hz : 1;
    uint64_t p = 1000000000ull / hz;
    return p ? p : 1; /* guards a >1 GHz clock; Intel's driver would divide by zero */
}

static inline bool is_leaf(const sim_device_t *d) { return d->num_subdevices == 0; }

/* ------------------------------------------------------------------ */
/* Functions shared by the metrics_*.c files                           */
/* ------------------------------------------------------------------ */
/* metrics_calc.c */
SIM_HIDDEN ze_result_t ZE_APICALL sim_zetMetricGroupCalculateMetricValues(zet_metric_group_handle_t hMetricGroup, zet_metric_group_calculation_type_t type, size_t rawDataSize, const uint8_t *pRawData, uint32_t *pMetricValueCount, zet_typed_value_t *pMetricValues);

/* metrics_group.c */
SIM_HIDDEN bool is_activated(sim_metric_dev_t *md, sim_context_t *ctx, sim_metric_group_t *g);
SIM_HIDDEN sim_context_t *ctx_of(zet_context_handle_t h);
SIM_HIDDEN sim_device_t *dev_of(zet_device_handle_t h);
SIM_HIDDEN sim_metric_dev_t *mdev_of(sim_device_t *dev);
SIM_HIDDEN sim_metric_group_t *grp_of(zet_metric_group_handle_t h);
SIM_HIDDEN ze_result_t ZE_APICALL sim_zetIntelDeviceDisableMetricsExp(zet_device_handle_t hDevice);
SIM_HIDDEN ze_result_t ZE_APICALL sim_zetIntelDeviceEnableMetricsExp(zet_device_handle_t hDevice);
SIM_HIDDEN ze_result_t ZE_APICALL sim_zetMetricGet(zet_metric_group_handle_t hMetricGroup, uint32_t *pCount, zet_metric_handle_t *phMetrics);

/* metrics_record.c */
SIM_HIDDEN bool buf_push(ss_buf_t *b, const ss_rec_t *r);
SIM_HIDDEN bool rec_decode(const uint8_t *rec, uint32_t *ip, uint8_t *raw, uint32_t nraw, bool pvc_drop_check);
SIM_HIDDEN const ss_rec_t *buf_front(const ss_buf_t *b);
SIM_HIDDEN uint32_t le32(const uint8_t *p);
SIM_HIDDEN uint64_t le64(const uint8_t *p);
SIM_HIDDEN uint64_t tile_records(sim_device_t *tile);
SIM_HIDDEN void buf_pop(ss_buf_t *b);
SIM_HIDDEN void buf_reset(ss_buf_t *b);
SIM_HIDDEN void put32(uint8_t *p, uint32_t v);
SIM_HIDDEN void put64(uint8_t *p, uint64_t v);
SIM_HIDDEN void rec_encode(uint8_t out[REC_SIZE], uint32_t ip, const uint8_t *raw, uint32_t nraw, bool xe2, bool i915, uint16_t subslice, uint16_t flags);

/* metrics_sample.c */
SIM_HIDDEN void gen_and_prune(sim_streamer_t *s);
SIM_HIDDEN void gen_streamer(sim_streamer_t *s, uint64_t now);
SIM_HIDDEN void prune_family(sim_device_t *root, uint64_t now);

/* metrics_stream.c */
SIM_HIDDEN bool stream_busy(sim_device_t *dev);
SIM_HIDDEN sim_streamer_t *streamer_alloc(void);
SIM_HIDDEN uint64_t tile_max_reports(const sim_device_t *tile);
SIM_HIDDEN void collect_tiles(sim_streamer_t *s, sim_device_t *dev);
SIM_HIDDEN void set_sampling_flags(sim_device_t *root);
SIM_HIDDEN void stream_claim(sim_streamer_t *s);
SIM_HIDDEN ze_result_t ZE_APICALL unsup_any(void);
SIM_HIDDEN ze_result_t close_stream(sim_streamer_t *s);

#endif
