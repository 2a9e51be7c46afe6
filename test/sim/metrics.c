/*
 * metrics.c — metric groups and metrics of the simulated device: the
 * "EuStallSampling" (IP sampling) group exactly as Intel's driver exposes
 * it, two placeholder OA groups, activation, streamers, the 64-byte raw
 * records, calculation, sample generation from the kernel runs that exec.c
 * records, the metric tracer (experimental) API and the "sample" lines of
 * the ground truth.
 *
 * Spec: ../../../shared/reference/eu-stall-sampling.md (section numbers
 * "§n" below refer to it). User documentation: README.md, section
 * "EU stall sampling".
 *
 * Locking: one mutex (g_mx) protects every piece of metrics state. While
 * holding it we call sim_exec_progress() and take run_lock, so exec.c must
 * never call into metrics.c while holding exec_lock or run_lock. We never
 * call sim_event_attach_streamer() with g_mx held (exec.c may call
 * sim_metrics_notify_state() with its event lock held).
 */
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

static const uint32_t kmd_rates[7] = {251, 502, 753, 1004, 1255, 1506, 1757}; /* §4.2 */

typedef enum grp_kind { GK_OA_COMPUTE = 0, GK_OA_MEMORY = 1, GK_EUSS = 2, GK_COUNT } grp_kind_t;

typedef struct metric_def {
    const char *name, *desc, *component;
    uint32_t tier;
    zet_metric_type_t type;
    zet_value_type_t rtype;
    const char *units;
} metric_def_t;

/* §2.3, §2.4: order = zetMetricGet order = order of calculated values. */
#define EV(n, d) {n, d, "XVE", 4, ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64, "Events"}
static const metric_def_t euss_pvc[] = {
    {"IP", "IP address", "XVE", 4, ZET_METRIC_TYPE_IP, ZET_VALUE_TYPE_UINT64, "Address"},
    EV("Active", "Active cycles"),
    EV("ControlStall", "Stall on control"),
    EV("PipeStall", "Stall on pipe"),
    EV("SendStall", "Stall on send"),
    EV("DistStall", "Stall on distance"),
    EV("SbidStall", "Stall on scoreboard"),
    EV("SyncStall", "Stall on sync"),
    EV("InstrFetchStall", "Stall on instruction fetch"),
    EV("OtherStall", "Stall on other condition"),
};
static const metric_def_t euss_xe2[] = {
    {"IP", "IP address", "XVE", 4, ZET_METRIC_TYPE_IP, ZET_VALUE_TYPE_UINT64, "Address"},
    EV("Active", "Active cycles"),
    EV("PSDepStall", "Stall on Pixel Shader Order Dependency"),
    EV("ControlStall", "Stall on control"),
    EV("PipeStall", "Stall on pipe"),
    EV("SendStall", "Stall on send"),
    EV("DistStall", "Stall on distance"),
    EV("SbidStall", "Stall on scoreboard"),
    EV("SyncStall", "Stall on sync"),
    EV("InstrFetchStall", "Stall on instruction fetch"),
    EV("OtherStall", "Stall on other condition"),
};
#undef EV
/* Raw counter k feeding metric m (m >= 1), §3.4. */
static const uint8_t pvc_metric_raw[10] = {0, 0, 2, 3, 4, 5, 6, 7, 8, 1};
static const uint8_t xe2_metric_raw[11] = {0, 9, 0, 2, 3, 4, 5, 6, 7, 8, 1};

/* Placeholder OA groups: Intel's driver lists its OA (MDAPI) groups before
 * EuStallSampling (§2.5). Ours exist so that tools must search by name;
 * they can be activated but not sampled. */
static const metric_def_t oa_compute[] = {
    {"GpuTime", "Time elapsed on the GPU during the measurement.", "GPU", 1, ZET_METRIC_TYPE_DURATION,
     ZET_VALUE_TYPE_UINT64, "ns"},
    {"GpuCoreClocks", "The total number of GPU core clocks elapsed during the measurement.", "GPU", 1,
     ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64, "cycles"},
    {"AvgGpuCoreFrequencyMHz", "Average GPU Core Frequency in the measurement.", "GPU", 1, ZET_METRIC_TYPE_EVENT,
     ZET_VALUE_TYPE_UINT64, "MHz"},
    {"XveActive", "Percentage of time in which XVEs were actively processing.", "XVE", 1,
     ZET_METRIC_TYPE_DURATION, ZET_VALUE_TYPE_FLOAT32, "percent"},
    {"XveStall", "Percentage of time in which XVEs were stalled.", "XVE", 1, ZET_METRIC_TYPE_DURATION,
     ZET_VALUE_TYPE_FLOAT32, "percent"},
};
static const metric_def_t oa_memory[] = {
    {"GpuTime", "Time elapsed on the GPU during the measurement.", "GPU", 1, ZET_METRIC_TYPE_DURATION,
     ZET_VALUE_TYPE_UINT64, "ns"},
    {"GpuCoreClocks", "The total number of GPU core clocks elapsed during the measurement.", "GPU", 1,
     ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64, "cycles"},
    {"GpuMemoryReadBytes", "Bytes read from GPU memory.", "GTI", 1, ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64,
     "bytes"},
    {"GpuMemoryWriteBytes", "Bytes written to GPU memory.", "GTI", 1, ZET_METRIC_TYPE_EVENT,
     ZET_VALUE_TYPE_UINT64, "bytes"},
    {"L3Misses", "Number of L3 cache misses.", "L3", 1, ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64,
     "messages"},
};

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

static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_init_mx = PTHREAD_MUTEX_INITIALIZER;
/* Streamer and decoder memory is recycled, never freed: a racing
 * sim_metrics_notify_state() on a just-closed streamer then reads a dead
 * magic instead of freed memory. */
static sim_streamer_t *g_open, *g_free_streamers;
static sim_decoder_t *g_free_decoders;

/* ------------------------------------------------------------------ */
/* Platform helpers                                                    */
/* ------------------------------------------------------------------ */
static bool is_xe2(void) { return sim_cfg.platform == SIM_PLATFORM_XE2; }
static bool is_i915(void) { return sim_cfg.kmd == SIM_KMD_I915_PRELIM; }
static uint32_t num_raw(void) { return is_xe2() ? 10u : 9u; }
static const metric_def_t *euss_defs(uint32_t *n) {
    *n = is_xe2() ? (uint32_t)(sizeof(euss_xe2) / sizeof(euss_xe2[0])) : (uint32_t)(sizeof(euss_pvc) / sizeof(euss_pvc[0]));
    return is_xe2() ? euss_xe2 : euss_pvc;
}
static const uint8_t *metric_raw_map(void) { return is_xe2() ? xe2_metric_raw : pvc_metric_raw; }
static uint32_t euss_metric_count(void) { return is_xe2() ? 11u : 10u; }

/* §2.5: PVC XT / XT-VG device ids, Xe2 and later. */
static bool euss_supported(void) {
    if (sim_cfg.platform == SIM_PLATFORM_XE2) return true;
    if (sim_cfg.platform != SIM_PLATFORM_PVC) return false;
    uint32_t id = sim_cfg.device_id;
    return (id >= 0x0BD5 && id <= 0x0BDB) || id == 0x0B69 || id == 0x0B6E || id == 0x0BD4;
}

static uint64_t gpu_period_ns(void) {
    uint64_t hz = sim_cfg.timestamp_hz ? sim_cfg.timestamp_hz : 1;
    uint64_t p = 1000000000ull / hz;
    return p ? p : 1; /* guards a >1 GHz clock; Intel's driver would divide by zero */
}

static bool is_leaf(const sim_device_t *d) { return d->num_subdevices == 0; }

/* ------------------------------------------------------------------ */
/* Raw records (§3)                                                    */
/* ------------------------------------------------------------------ */
/* Encodes one record bit-exactly: PVC and Xe2 layouts share ip (29 bits)
 * and 8-bit counters from bit 29; Xe2 sets end_flag (bit 112). i915-prelim
 * appends {u16 subslice, u16 flags} at byte 48. */
static void rec_encode(uint8_t out[REC_SIZE], uint32_t ip, const uint8_t *raw, uint32_t nraw, bool xe2, bool i915,
                       uint16_t subslice, uint16_t flags) {
    memset(out, 0, REC_SIZE);
    unsigned __int128 v = (unsigned __int128)(ip & IP_MASK);
    for (uint32_t k = 0; k < nraw; k++) v |= (unsigned __int128)raw[k] << (29 + 8 * k);
    if (xe2) v |= (unsigned __int128)1 << 112;
    for (int i = 0; i < 16; i++) out[i] = (uint8_t)(v >> (8 * i));
    if (i915) {
        out[48] = (uint8_t)subslice;
        out[49] = (uint8_t)(subslice >> 8);
        out[50] = (uint8_t)flags;
        out[51] = (uint8_t)(flags >> 8);
    }
}

static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Decodes like Intel's driver (§3.4): counter k is the u16 at byte 3 + k,
 * shifted right by 5. Returns the drop flag (PVC only looks at it). */
static bool rec_decode(const uint8_t *rec, uint32_t *ip, uint8_t *raw, uint32_t nraw, bool pvc_drop_check) {
    *ip = (uint32_t)(le64(rec) & IP_MASK);
    for (uint32_t k = 0; k < nraw; k++) {
        uint16_t w = (uint16_t)(rec[3 + k] | rec[4 + k] << 8);
        raw[k] = (uint8_t)((w >> 5) & 0xff);
    }
    return pvc_drop_check && ((rec[50] | rec[51] << 8) & I915_FLAG_DROP) != 0;
}

/* ------------------------------------------------------------------ */
/* Per-device state                                                    */
/* ------------------------------------------------------------------ */
static void group_init(sim_metric_group_t *g, sim_device_t *dev, grp_kind_t kind, sim_metric_group_t *sub0_euss) {
    const metric_def_t *defs;
    uint32_t n;
    sim_obj_init(&g->obj, SIM_K_METRIC_GROUP);
    g->dev = dev;
    g->kind = kind;
    switch (kind) {
    case GK_OA_COMPUTE:
        g->name = "ComputeBasic";
        g->desc = "Compute Basic (placeholder OA group)";
        g->domain = 0;
        defs = oa_compute;
        n = (uint32_t)(sizeof(oa_compute) / sizeof(oa_compute[0]));
        break;
    case GK_OA_MEMORY:
        g->name = "MemoryProfile";
        g->desc = "Memory Profile (placeholder OA group)";
        g->domain = 1;
        defs = oa_memory;
        n = (uint32_t)(sizeof(oa_memory) / sizeof(oa_memory[0]));
        break;
    default:
        g->name = "EuStallSampling";
        g->desc = "EU stall sampling";
        g->domain = IP_DOMAIN;
        defs = euss_defs(&n);
        break;
    }
    g->num_metrics = n;
    if (sub0_euss != NULL) {
        /* Intel's multi-device group answers zetMetricGet with sub-device
         * 0's metric handles. */
        g->metrics = sub0_euss->metrics;
        return;
    }
    g->metrics = calloc(n, sizeof(sim_metric_t));
    if (g->metrics == NULL) {
        g->num_metrics = 0;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        sim_obj_init(&g->metrics[i].obj, SIM_K_METRIC);
        g->metrics[i].group = g;
        g->metrics[i].index = i;
        g->metrics[i].def = &defs[i];
    }
}

static sim_metric_dev_t *mdev_create(sim_device_t *dev) {
    sim_metric_dev_t *md = calloc(1, sizeof(*md));
    if (md == NULL) return NULL;
    md->dev = dev;
    md->enabled = sim_cfg.metrics_enabled;
    sim_metric_group_t *sub0 = NULL;
    if (dev->num_subdevices > 0 && dev->subdevices[0] != NULL && dev->subdevices[0]->metrics != NULL)
        sub0 = &dev->subdevices[0]->metrics->groups[GK_EUSS];
    for (int k = 0; k < GK_COUNT; k++) group_init(&md->groups[k], dev, (grp_kind_t)k, k == GK_EUSS ? sub0 : NULL);
    if (is_leaf(dev) && dev->xecores > 0) {
        md->bufs = calloc(dev->xecores, sizeof(ss_buf_t));
        md->nbufs = md->bufs ? dev->xecores : 0;
    }
    return md;
}

/* Creates the state of dev (sub-devices first, so that a root can share
 * sub-device 0's metric handles). */
static void mdev_ensure(sim_device_t *dev) {
    if (dev == NULL) return;
    pthread_mutex_lock(&g_init_mx);
    for (uint32_t i = 0; i < dev->num_subdevices; i++)
        if (dev->subdevices[i] != NULL && dev->subdevices[i]->metrics == NULL)
            dev->subdevices[i]->metrics = mdev_create(dev->subdevices[i]);
    if (dev->metrics == NULL) dev->metrics = mdev_create(dev);
    pthread_mutex_unlock(&g_init_mx);
}

static sim_metric_dev_t *mdev_of(sim_device_t *dev) {
    pthread_mutex_lock(&g_init_mx);
    sim_metric_dev_t *md = dev->metrics;
    pthread_mutex_unlock(&g_init_mx);
    if (md != NULL) return md;
    mdev_ensure(sim_root(dev));
    pthread_mutex_lock(&g_init_mx);
    md = dev->metrics;
    pthread_mutex_unlock(&g_init_mx);
    return md;
}

void sim_metrics_init(void) {
    if (sim_driver == NULL) return;
    for (uint32_t i = 0; i < sim_driver->num_devices; i++) mdev_ensure(sim_driver->devices[i]);
}

static sim_device_t *dev_of(zet_device_handle_t h) { return SIM_OBJ(sim_device_t, h, SIM_K_DEVICE); }
static sim_context_t *ctx_of(zet_context_handle_t h) { return SIM_OBJ(sim_context_t, h, SIM_K_CONTEXT); }
static sim_metric_group_t *grp_of(zet_metric_group_handle_t h) {
    return SIM_OBJ(sim_metric_group_t, h, SIM_K_METRIC_GROUP);
}

/* Which groups zetMetricGroupGet lists for dev, in order (OA first, §2.5). */
static uint32_t listed_groups(sim_device_t *dev, sim_metric_group_t **out) {
    sim_metric_dev_t *md = mdev_of(dev);
    if (md == NULL) return 0;
    pthread_mutex_lock(&g_mx);
    bool enabled = md->enabled;
    pthread_mutex_unlock(&g_mx);
    if (!enabled) return 0;
    uint32_t n = 0;
    out[n++] = &md->groups[GK_OA_COMPUTE];
    out[n++] = &md->groups[GK_OA_MEMORY];
    /* Intel's driver test-opens the EU stall stream when it first lists the
     * group; without permission the group is simply absent (§2.5). */
    if (euss_supported() && sim_cfg.metrics_permitted && md->groups[GK_EUSS].num_metrics > 0)
        out[n++] = &md->groups[GK_EUSS];
    return n;
}

/* ------------------------------------------------------------------ */
/* Sampling profile of a kernel                                        */
/* ------------------------------------------------------------------ */
typedef struct euss_profile {
    uint32_t n;        /* sampled instructions */
    uint32_t *idx;     /* instruction index (into isa->inst_*) */
    uint64_t *cum;     /* cumulative weights */
    uint64_t total;
} euss_profile_t;

static _Thread_local sim_isa_t *tl_profile_isa;

static void profile_destroy(void *pv) {
    euss_profile_t *p = pv;
    if (p == NULL) return;
    free(p->idx);
    free(p->cum);
    free(p);
}

static uint64_t rng_next(uint64_t *s) {
    *s = sim_mix64(*s);
    return *s;
}
static uint32_t rng_range(uint64_t *s, uint32_t lo, uint32_t hi) { /* inclusive */
    return lo + (uint32_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

static bool op_is_send(uint8_t op) { return op == 0x31 || op == 0x32 || op == 0x33 || op == 0x34; }
static bool op_is_branch(uint8_t op) { return op >= 0x20 && op <= 0x2f; }

/* Built once per sim_isa_t (pthread_once has no argument: the isa comes
 * through a thread-local). 2-4 hot instructions (sends and instructions of
 * backward-branch loops preferred) get ~90% of the weight. */
static void profile_build(void) {
    sim_isa_t *isa = tl_profile_isa;
    euss_profile_t *p = calloc(1, sizeof(*p));
    if (p == NULL || isa == NULL) {
        free(p);
        return;
    }
    isa->profile_free = profile_destroy;
    uint32_t n = 0;
    for (uint32_t i = 0; i < isa->num_insts; i++)
        if (isa->inst_offset != NULL && isa->inst_offset[i] < isa->code_size) n++;
    if (n == 0) {
        isa->profile = p; /* empty: samples fall on offset 0 */
        return;
    }
    p->idx = calloc(n, sizeof(uint32_t));
    p->cum = calloc(n, sizeof(uint64_t));
    uint8_t *loop = calloc(n, 1);
    uint64_t *w = calloc(n, sizeof(uint64_t));
    if (p->idx == NULL || p->cum == NULL || loop == NULL || w == NULL) {
        free(p->idx);
        free(p->cum);
        free(loop);
        free(w);
        p->idx = NULL;
        p->cum = NULL;
        isa->profile = p;
        return;
    }
    uint32_t j = 0;
    for (uint32_t i = 0; i < isa->num_insts; i++)
        if (isa->inst_offset[i] < isa->code_size) p->idx[j++] = i;
    p->n = n;
    /* Backward branches: a 16-byte branch holds its jump target relative to
     * itself in dword 3 (checked with IGA on PVC code: jmpi at 0x190 with
     * -56 -> 0x158). Everything between target and branch is a loop. */
    for (uint32_t a = 0; a < n; a++) {
        uint32_t i = p->idx[a];
        uint32_t off = isa->inst_offset[i];
        uint8_t op = isa->inst_opcode ? isa->inst_opcode[i] : 0;
        uint8_t sz = isa->inst_size ? isa->inst_size[i] : 16;
        if (!op_is_branch(op) || sz != 16 || isa->bytes == NULL || (size_t)off + 16 > isa->size) continue;
        int32_t jip = (int32_t)le32(isa->bytes + off + 12);
        if (jip >= 0 || (uint32_t)(-(int64_t)jip) > off) continue;
        uint32_t target = off - (uint32_t)(-(int64_t)jip);
        for (uint32_t b = 0; b < n; b++) {
            uint32_t o = isa->inst_offset[p->idx[b]];
            if (o >= target && o <= off) loop[b] = 1;
        }
    }
    uint64_t rs = sim_mix64(sim_hash_str(isa->kernel_name) ^ sim_mix64(isa->code_size) ^ sim_cfg.seed);
    /* Score the candidates; the EOT send (last instruction) only if alone. */
    uint32_t hot_n = 2 + (uint32_t)(rng_next(&rs) % 3);
    if (hot_n > n) hot_n = n;
    uint64_t *score = calloc(n, sizeof(uint64_t));
    if (score != NULL) {
        for (uint32_t a = 0; a < n; a++) {
            uint8_t op = isa->inst_opcode ? isa->inst_opcode[p->idx[a]] : 0;
            uint64_t s = 1;
            if (loop[a]) s += 4;
            if (op_is_send(op)) s += 3;
            if (op == 0x5b || op == 0x38 || op == 0x41) s += 1; /* mad, math, mul */
            if (a == n - 1 && n > 1) s = 0;
            score[a] = (s << 32) | (rng_next(&rs) & 0xffffffffu);
        }
        for (uint32_t h = 0; h < hot_n; h++) {
            uint32_t best = 0;
            for (uint32_t a = 1; a < n; a++)
                if (score[a] > score[best]) best = a;
            if (score[best] == 0) break;
            score[best] = 0;
            w[best] = (uint64_t)n * rng_range(&rs, 2, 6);
        }
        free(score);
    }
    uint64_t cum = 0;
    for (uint32_t a = 0; a < n; a++) {
        cum += w[a] + 1;
        p->cum[a] = cum;
    }
    p->total = cum;
    free(loop);
    free(w);
    isa->profile = p;
}

static const euss_profile_t *profile_of(sim_isa_t *isa) {
    tl_profile_isa = isa;
    pthread_once(&isa->profile_once, profile_build);
    tl_profile_isa = NULL;
    return (const euss_profile_t *)isa->profile;
}

/* Picks an instruction; returns the instruction index or UINT32_MAX. */
static uint32_t profile_pick(const euss_profile_t *p, uint64_t *rs) {
    if (p == NULL || p->n == 0 || p->cum == NULL) return UINT32_MAX;
    uint64_t u = rng_next(rs) % p->total;
    uint32_t lo = 0, hi = p->n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->cum[mid] > u) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Plausible 8-bit counters for an instruction (§3.6): Active plus stall
 * reasons typical of its kind. Raw order per platform (§3.4). */
static void make_counters(uint8_t op, uint32_t pos, uint64_t *rs, uint8_t *raw) {
    uint32_t active = rng_range(rs, 1, 24), other = 0, control = 0, pipe = 0, send = 0, dist = 0, sbid = 0,
             sync = 0, ifetch = 0, tdr = 0;
    if (op_is_send(op)) {
        sbid = rng_range(rs, 16, 200);
        if (rng_next(rs) % 2) send = rng_range(rs, 4, 80);
    } else if (op_is_branch(op)) {
        control = rng_range(rs, 8, 96);
    } else if (op == 0x01) { /* sync */
        sync = rng_range(rs, 16, 160);
    } else if (op == 0x38) { /* math */
        dist = rng_range(rs, 8, 90);
        pipe = rng_range(rs, 8, 120);
    } else {
        active = rng_range(rs, 8, 64);
        pipe = rng_range(rs, 0, 60);
        if (rng_next(rs) % 2) dist = rng_range(rs, 4, 48);
    }
    if (pos < 2) ifetch = rng_range(rs, 8, 120);
    if (rng_next(rs) % 10 == 0) other = rng_range(rs, 1, 12);
    if (is_xe2()) {
        uint8_t r[10] = {(uint8_t)tdr, (uint8_t)other, (uint8_t)control, (uint8_t)pipe, (uint8_t)send,
                         (uint8_t)dist, (uint8_t)sbid, (uint8_t)sync, (uint8_t)ifetch, (uint8_t)active};
        memcpy(raw, r, 10);
    } else {
        uint8_t r[9] = {(uint8_t)active, (uint8_t)other, (uint8_t)control, (uint8_t)pipe, (uint8_t)send,
                        (uint8_t)dist, (uint8_t)sbid, (uint8_t)sync, (uint8_t)ifetch};
        memcpy(raw, r, 9);
        raw[9] = 0;
    }
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */
static void buf_reset(ss_buf_t *b) {
    b->head = b->count = 0;
    b->eio_pending = b->drop_mark = false;
    b->dropped = 0;
}

/* Appends a record; false if the 8192-record buffer is full (dropped). */
static bool buf_push(ss_buf_t *b, const ss_rec_t *r) {
    if (b->count >= XECORE_BUF_RECORDS) {
        b->dropped++;
        b->eio_pending = true;
        b->drop_mark = true;
        return false;
    }
    if (b->count == b->alloc) {
        /* Grow the ring (doubling, unrolled so that head becomes 0). */
        uint32_t na = b->alloc ? b->alloc * 2 : 64;
        if (na > XECORE_BUF_RECORDS) na = XECORE_BUF_RECORDS;
        ss_rec_t *nr = malloc((size_t)na * sizeof(ss_rec_t));
        if (nr == NULL) {
            b->dropped++;
            b->eio_pending = b->drop_mark = true;
            return false;
        }
        for (uint32_t i = 0; i < b->count; i++) nr[i] = b->r[(b->head + i) % b->alloc];
        free(b->r);
        b->r = nr;
        b->alloc = na;
        b->head = 0;
    }
    b->r[(b->head + b->count) % b->alloc] = *r;
    b->count++;
    return true;
}

static const ss_rec_t *buf_front(const ss_buf_t *b) { return &b->r[b->head]; }
static void buf_pop(ss_buf_t *b) {
    b->head = (b->head + 1) % b->alloc;
    b->count--;
}

static uint64_t tile_records(sim_device_t *tile) {
    sim_metric_dev_t *md = tile->metrics;
    uint64_t n = 0;
    if (md == NULL) return 0;
    for (uint32_t i = 0; i < md->nbufs; i++) n += md->bufs[i].count;
    return n;
}

/* ------------------------------------------------------------------ */
/* Sample generation                                                   */
/* ------------------------------------------------------------------ */
typedef struct run_snap {
    sim_isa_t *isa; /* reference held */
    sim_device_t *device;
    uint64_t launch_id, start, end, seed;
    uint32_t first_xecore, num_xecores;
    uint64_t k_lo, k_hi, k_first; /* sample indices [k_lo, k_hi); k_first: the run's first */
} run_snap_t;

static int snap_cmp(const void *a, const void *b) {
    const run_snap_t *x = a, *y = b;
    if (x->k_lo != y->k_lo) return x->k_lo < y->k_lo ? -1 : 1;
    return x->launch_id < y->launch_id ? -1 : (x->launch_id > y->launch_id);
}

/* Ground-truth lines are batched to keep sim_gt_printf calls few. */
typedef struct gt_batch {
    char buf[1 << 16];
    size_t len;
} gt_batch_t;
static void gt_flush_batch(gt_batch_t *g) {
    if (g->len > 0) sim_gt_printf("%.*s", (int)(g->len - 1), g->buf); /* drop the last '\n': gt adds one */
    g->len = 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* The buffer record x of run r goes to, or NULL if outside the stream. */
static ss_buf_t *target_buf(const sim_streamer_t *s, const run_snap_t *r, uint32_t x) {
    sim_device_t *rd = r->device;
    if (rd->xecores == 0) return NULL;
    uint32_t g = rd->first_xecore + (r->first_xecore + x) % rd->xecores;
    for (uint32_t i = 0; i < s->ntiles; i++) {
        sim_device_t *t = s->tiles[i];
        if (g >= t->first_xecore && g < t->first_xecore + t->xecores && t->metrics != NULL &&
            g - t->first_xecore < t->metrics->nbufs)
            return &t->metrics->bufs[g - t->first_xecore];
    }
    return NULL;
}

static void emit_sample(sim_streamer_t *s, const run_snap_t *r, uint64_t k, uint32_t x, uint64_t t, gt_batch_t *gt) {
    sim_device_t *rd = r->device;
    if (rd->xecores == 0) return;
    uint32_t g = rd->first_xecore + (r->first_xecore + x) % rd->xecores;
    sim_device_t *tile = NULL;
    for (uint32_t i = 0; i < s->ntiles; i++)
        if (g >= s->tiles[i]->first_xecore && g < s->tiles[i]->first_xecore + s->tiles[i]->xecores) tile = s->tiles[i];
    ss_buf_t *b = target_buf(s, r, x);
    if (tile == NULL || b == NULL) return;
    uint32_t local = g - tile->first_xecore;
    if (b->count >= XECORE_BUF_RECORDS && !sim_gt_enabled()) {
        /* Full and nobody records the ground truth: the content of a
         * dropped record does not matter. */
        b->dropped++;
        b->eio_pending = b->drop_mark = true;
        return;
    }
    /* Content depends on the run's seed, the sample's index within the run
     * and the run-relative Xe-core only: deterministic for a seed. */
    uint64_t rs = sim_mix64(r->seed ^ sim_mix64((k - r->k_first) * 0x100000001b3ull + x));
    const euss_profile_t *p = profile_of(r->isa);
    int nrec = (rng_next(&rs) % 4 == 0) ? 2 : 1;
    uint32_t prev = UINT32_MAX;
    for (int e = 0; e < nrec; e++) {
        uint32_t a = profile_pick(p, &rs);
        if (e == 1) {
            for (int tries = 0; tries < 4 && a == prev && p != NULL && p->n > 1; tries++) a = profile_pick(p, &rs);
            if (a == prev) break;
        }
        prev = a;
        uint32_t inst = (a == UINT32_MAX) ? UINT32_MAX : p->idx[a];
        uint32_t off = inst == UINT32_MAX ? 0 : r->isa->inst_offset[inst];
        uint8_t op = (inst == UINT32_MAX || r->isa->inst_opcode == NULL) ? 0 : r->isa->inst_opcode[inst];
        ss_rec_t rec;
        memset(&rec, 0, sizeof(rec));
        rec.t_ns = t;
        rec.ip = (uint32_t)(((r->isa->gpu_va + off) >> 3) & IP_MASK);
        make_counters(op, a == UINT32_MAX ? 0 : a, &rs, rec.raw);
        bool ok = buf_push(b, &rec);
        if (sim_gt_enabled()) {
            if (sizeof(gt->buf) - gt->len < 512) gt_flush_batch(gt);
            int sub = tile->parent ? (int)tile->index : -1;
            char cnt[64];
            size_t cl = 0;
            for (uint32_t k2 = 0; k2 < num_raw(); k2++)
                cl += (size_t)snprintf(cnt + cl, sizeof(cnt) - cl, "%s%u", k2 ? "," : "", rec.raw[k2]);
            int w = snprintf(gt->buf + gt->len, sizeof(gt->buf) - gt->len,
                             "{\"type\":\"sample\",\"launch\":%llu,\"kernel\":%llu,\"device\":%u,\"subdevice\":%d,"
                             "\"xecore\":%u,\"ip\":%u,\"offset\":%u,\"counters\":[%s],\"t_ns\":%llu,\"dropped\":%s%s}\n",
                             (unsigned long long)r->launch_id, (unsigned long long)r->isa->kernel_id,
                             sim_root(tile)->index, sub, local, rec.ip, off, cnt, (unsigned long long)t,
                             ok ? "false" : "true", s->closing ? ",\"undelivered\":true" : "");
            if (w > 0 && (size_t)w < sizeof(gt->buf) - gt->len) gt->len += (size_t)w;
        }
    }
}

/* True when every buffer run r writes to is full: buffers only fill up
 * during one generation pass, so without ground truth the rest of the
 * run's samples would all be dropped and need not be produced one by one
 * (keeps a read after a long unread stretch cheap). */
static bool run_targets_full(const sim_streamer_t *s, const run_snap_t *r) {
    for (uint32_t x = 0; x < r->num_xecores; x++) {
        ss_buf_t *b = target_buf(s, r, x);
        if (b != NULL && b->count < XECORE_BUF_RECORDS) return false;
    }
    return true;
}

static bool run_covers(const sim_streamer_t *s, const sim_run_t *r) {
    sim_device_t *rd = r->device;
    if (rd == NULL || rd->xecores == 0 || r->num_xecores == 0 || r->isa == NULL) return false;
    uint32_t lo = s->tiles[0]->first_xecore;
    uint32_t hi = s->tiles[s->ntiles - 1]->first_xecore + s->tiles[s->ntiles - 1]->xecores;
    /* The device's cores overlap the stream's range. */
    return rd->first_xecore < hi && rd->first_xecore + rd->xecores > lo;
}

/* Generates s's samples up to now (g_mx held). Hardware samples exist only
 * while the stream is open: every period boundary t0 + k*period inside a
 * run gives each of its Xe-cores one record (25%: two). */
static void gen_streamer(sim_streamer_t *s, uint64_t now) {
    if (!s->active || now <= s->gen_upto) return;
    uint64_t from = s->gen_upto;
    sim_device_t *root = sim_root(s->dev);
    sim_exec_progress(root, now);

    run_snap_t *v = NULL;
    size_t nv = 0, cap = 0;
    uint64_t p = s->period_ns, t0 = s->t0_ns;
    uint32_t nfam = 1 + root->num_subdevices;
    for (uint32_t f = 0; f < nfam; f++) {
        sim_device_t *fd = f == 0 ? root : root->subdevices[f - 1];
        if (fd == NULL) continue;
        pthread_mutex_lock(&fd->run_lock);
        sim_runs_collect_locked(fd);
        for (sim_run_t *r = fd->runs_head; r != NULL; r = r->next) {
            if (r->end_ns <= from || r->start_ns >= now || !run_covers(s, r)) continue;
            uint64_t a = r->start_ns > from ? r->start_ns : from;
            uint64_t e = r->end_ns < now ? r->end_ns : now;
            /* t = t0 + k p, k >= 1, a <= t < e */
            uint64_t k_lo = a > t0 ? ceil_div(a - t0, p) : 1;
            uint64_t k_hi = e > t0 ? ceil_div(e - t0, p) : 1;
            if (k_lo < 1) k_lo = 1;
            if (k_hi <= k_lo) continue;
            if (nv == cap) {
                size_t nc = cap ? cap * 2 : 16;
                run_snap_t *nvv = realloc(v, nc * sizeof(*v));
                if (nvv == NULL) break;
                v = nvv;
                cap = nc;
            }
            run_snap_t *sn = &v[nv++];
            sn->isa = sim_isa_ref(r->isa);
            sn->device = r->device;
            sn->launch_id = r->launch_id;
            sn->start = r->start_ns;
            sn->end = r->end_ns;
            sn->seed = r->seed;
            sn->first_xecore = r->first_xecore;
            sn->num_xecores = r->num_xecores;
            sn->k_lo = k_lo;
            sn->k_hi = k_hi;
            sn->k_first = r->start_ns > t0 ? ceil_div(r->start_ns - t0, p) : 1;
            if (sn->k_first < 1) sn->k_first = 1;
        }
        pthread_mutex_unlock(&fd->run_lock);
    }
    s->gen_upto = now;
    if (nv == 0) {
        free(v);
        return;
    }
    qsort(v, nv, sizeof(*v), snap_cmp);

    /* Sweep the period boundaries in time order so that every Xe-core
     * buffer receives its records in time order, skipping idle stretches. */
    gt_batch_t *gt = sim_gt_enabled() ? malloc(sizeof(gt_batch_t)) : NULL;
    if (gt != NULL) gt->len = 0;
    size_t *act = malloc(nv * sizeof(size_t));
    if (act != NULL) {
        size_t nact = 0, next = 0;
        uint64_t k = v[0].k_lo;
        for (;;) {
            while (next < nv && v[next].k_lo <= k) act[nact++] = next++;
            size_t w = 0;
            for (size_t i = 0; i < nact; i++)
                if (v[act[i]].k_hi > k) act[w++] = act[i];
            nact = w;
            if (nact == 0) {
                if (next >= nv) break;
                k = v[next].k_lo;
                continue;
            }
            uint64_t t = t0 + k * p;
            for (size_t i = 0; i < nact; i++) {
                run_snap_t *r = &v[act[i]];
                if (gt == NULL && (k & 255) == 0 && run_targets_full(s, r)) {
                    r->k_hi = k; /* removed from the active set next step */
                    continue;
                }
                for (uint32_t x = 0; x < r->num_xecores; x++) emit_sample(s, r, k, x, t, gt);
            }
            k++;
        }
        free(act);
    }
    if (gt != NULL) {
        gt_flush_batch(gt);
        free(gt);
        /* Samples reach the file at every read/query/close, so a process
         * that ends with _exit() still leaves them complete. */
        sim_gt_flush();
    }
    for (size_t i = 0; i < nv; i++) sim_isa_unref(v[i].isa);
    free(v);
}

/* Frees runs no open stream of the family still needs (g_mx held). */
static void prune_family(sim_device_t *root, uint64_t now) {
    uint64_t keep = now;
    for (sim_streamer_t *o = g_open; o != NULL; o = o->next)
        if (sim_root(o->dev) == root && o->active && o->gen_upto < keep) keep = o->gen_upto;
    sim_runs_prune(root, keep);
    for (uint32_t i = 0; i < root->num_subdevices; i++)
        if (root->subdevices[i] != NULL) sim_runs_prune(root->subdevices[i], keep);
}

/* How far a read can see at host time now. The KMD copies only the records
 * its last write-pointer poll found (§4.2: xe polls every 5 ms; i915-prelim
 * every POLL_PERIOD, 10 ms from Intel's driver): with ZESIM_EUSS_POLL_NS
 * the polls fall every period from the stream's start, and a record is
 * visible from the first poll after it was taken. 0: at once. */
static uint64_t visible_upto(const sim_streamer_t *s, uint64_t now) {
    uint64_t p = sim_cfg.euss_poll_ns;
    if (p == 0 || s->is_tracer || now <= s->t0_ns) return now;
    return s->t0_ns + (now - s->t0_ns) / p * p;
}

static void gen_and_prune(sim_streamer_t *s) {
    uint64_t now = sim_now_ns();
    gen_streamer(s, visible_upto(s, now));
    prune_family(sim_root(s->dev), now);
}

/* ------------------------------------------------------------------ */
/* Metric groups and metrics                                           */
/* ------------------------------------------------------------------ */
static ze_result_t ZE_APICALL sim_zetMetricGroupGet(zet_device_handle_t hDevice, uint32_t *pCount,
                                                    zet_metric_group_handle_t *phMetricGroups) {
    sim_device_t *dev = dev_of(hDevice);
    if (dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_metric_group_t *g[GK_COUNT];
    uint32_t n = listed_groups(dev, g);
    if (*pCount == 0) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (phMetricGroups == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount > n) *pCount = n;
    for (uint32_t i = 0; i < *pCount; i++) phMetricGroups[i] = (zet_metric_group_handle_t)g[i];
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricGroupGetProperties(zet_metric_group_handle_t hMetricGroup,
                                                              zet_metric_group_properties_t *pProperties) {
    sim_metric_group_t *g = grp_of(hMetricGroup);
    if (g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pProperties == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    void *pNext = pProperties->pNext;
    pProperties->stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES;
    memset(pProperties->name, 0, sizeof(pProperties->name));
    memset(pProperties->description, 0, sizeof(pProperties->description));
    snprintf(pProperties->name, sizeof(pProperties->name), "%s", g->name);
    snprintf(pProperties->description, sizeof(pProperties->description), "%s", g->desc);
    if (g->kind == GK_EUSS) {
        pProperties->samplingType = ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED;
        if (sim_cfg.metric_tracer) pProperties->samplingType |= SIM_METRIC_GROUP_SAMPLING_TYPE_FLAG_EXP_TRACER_BASED;
    } else {
        pProperties->samplingType =
            ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED | ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED;
    }
    pProperties->domain = g->domain;
    pProperties->metricCount = g->num_metrics;
    pProperties->pNext = pNext;
    if (pNext == NULL) return ZE_RESULT_SUCCESS;
    /* §2.2: with a chain, the answer is INVALID_ARGUMENT unless at least
     * one known structure is found. */
    ze_result_t r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    int guard = 0;
    for (sim_base_desc_t *e = pNext; e != NULL && guard < MAX_PNEXT_CHAIN; e = (sim_base_desc_t *)e->pNext, guard++) {
        switch (e->stype) {
        case SIM_STYPE_METRIC_SOURCE_ID_EXP:
            ((sim_source_id_exp_t *)e)->sourceId = g->kind == GK_EUSS ? SOURCE_IP : SOURCE_OA;
            r = ZE_RESULT_SUCCESS;
            break;
        case SIM_STYPE_METRIC_GLOBAL_TIMESTAMPS_RESOLUTION_EXP:
            ((sim_ts_resolution_exp_t *)e)->timerResolution = sim_cfg.timestamp_hz;
            ((sim_ts_resolution_exp_t *)e)->timestampValidBits = sim_cfg.timestamp_valid_bits;
            r = ZE_RESULT_SUCCESS;
            break;
        case SIM_STYPE_METRIC_GROUP_TYPE_EXP:
            ((sim_group_type_exp_t *)e)->type = SIM_METRIC_GROUP_TYPE_EXP_FLAG_OTHER;
            r = ZE_RESULT_SUCCESS;
            break;
        case SIM_STYPE_INTEL_METRIC_GROUP_CALCULATION_EXP_PROPERTIES:
            ((sim_calc_props_exp_t *)e)->isTimeFilterSupported = false;
            r = ZE_RESULT_SUCCESS;
            break;
        default:
            break;
        }
    }
    return r;
}

static ze_result_t ZE_APICALL sim_zetMetricGet(zet_metric_group_handle_t hMetricGroup, uint32_t *pCount,
                                               zet_metric_handle_t *phMetrics) {
    sim_metric_group_t *g = grp_of(hMetricGroup);
    if (g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0) {
        *pCount = g->num_metrics;
        return ZE_RESULT_SUCCESS;
    }
    if (phMetrics == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount > g->num_metrics) *pCount = g->num_metrics;
    for (uint32_t i = 0; i < *pCount; i++) phMetrics[i] = (zet_metric_handle_t)&g->metrics[i];
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricGetProperties(zet_metric_handle_t hMetric,
                                                         zet_metric_properties_t *pProperties) {
    sim_metric_t *m = SIM_OBJ(sim_metric_t, hMetric, SIM_K_METRIC);
    if (m == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pProperties == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    void *pNext = pProperties->pNext;
    memset(pProperties, 0, sizeof(*pProperties));
    pProperties->stype = ZET_STRUCTURE_TYPE_METRIC_PROPERTIES;
    /* Intel's driver copies its stored properties over the caller's,
     * pNext (NULL) included; it still fills the chain it was given. */
    pProperties->pNext = (m->group->kind == GK_EUSS) ? NULL : pNext;
    snprintf(pProperties->name, sizeof(pProperties->name), "%s", m->def->name);
    snprintf(pProperties->description, sizeof(pProperties->description), "%s", m->def->desc);
    snprintf(pProperties->component, sizeof(pProperties->component), "%s", m->def->component);
    pProperties->tierNumber = m->def->tier;
    pProperties->metricType = m->def->type;
    pProperties->resultType = m->def->rtype;
    snprintf(pProperties->resultUnits, sizeof(pProperties->resultUnits), "%s", m->def->units);
    int guard = 0;
    for (sim_base_desc_t *e = pNext; e != NULL && guard < MAX_PNEXT_CHAIN; e = (sim_base_desc_t *)e->pNext, guard++)
        if (e->stype == SIM_STYPE_INTEL_METRIC_CALCULABLE_PROPERTIES_EXP)
            ((sim_calculable_exp_t *)e)->isCalculable = m->group->kind == GK_EUSS;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Activation (per context and device, per domain)                     */
/* ------------------------------------------------------------------ */
/* g_mx held. */
static activation_t *act_find(sim_metric_dev_t *md, sim_context_t *ctx, bool create) {
    for (uint32_t i = 0; i < md->num_acts; i++)
        if (md->acts[i].ctx == ctx) return &md->acts[i];
    if (!create) return NULL;
    if (md->num_acts == md->cap_acts) {
        uint32_t nc = md->cap_acts ? md->cap_acts * 2 : 4;
        activation_t *na = realloc(md->acts, nc * sizeof(*na));
        if (na == NULL) return NULL;
        md->acts = na;
        md->cap_acts = nc;
    }
    activation_t *a = &md->acts[md->num_acts++];
    memset(a, 0, sizeof(*a));
    a->ctx = ctx;
    return a;
}

static bool is_activated(sim_metric_dev_t *md, sim_context_t *ctx, sim_metric_group_t *g) {
    activation_t *a = act_find(md, ctx, false);
    return a != NULL && a->groups[g->kind] == g;
}

/* Spec: "Immediately reconfigures the device to activate only those metric
 * groups provided"; all groups must have different domains ->
 * INVALID_ARGUMENT (the spec's code; Intel's driver instead keeps the last
 * group of a domain). The same handle twice is accepted, like Intel's. */
static ze_result_t ZE_APICALL sim_zetContextActivateMetricGroups(zet_context_handle_t hContext,
                                                                 zet_device_handle_t hDevice, uint32_t count,
                                                                 zet_metric_group_handle_t *phMetricGroups) {
    sim_context_t *ctx = ctx_of(hContext);
    sim_device_t *dev = dev_of(hDevice);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (count > 0 && phMetricGroups == NULL) return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_metric_dev_t *md = mdev_of(dev);
    if (md == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_metric_group_t *want[GK_COUNT] = {NULL};
    for (uint32_t i = 0; i < count; i++) {
        sim_metric_group_t *g = grp_of(phMetricGroups[i]);
        if (g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        /* Intel: "Mix of root device and sub-device metric group handle is
         * not allowed"; a group of another device is equally wrong. */
        if (g->dev != dev) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        if (want[g->kind] != NULL && want[g->kind] != g) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        want[g->kind] = g;
    }
    pthread_mutex_lock(&g_mx);
    activation_t *a = act_find(md, ctx, count > 0);
    if (a != NULL) memcpy(a->groups, want, sizeof(want));
    else if (count > 0) {
        pthread_mutex_unlock(&g_mx);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Streamers                                                           */
/* ------------------------------------------------------------------ */
static uint64_t round_period(uint64_t req_ns) {
    uint64_t P = gpu_period_ns();
    uint64_t clocks = req_ns / P;
    if (is_i915()) {
        uint64_t unit = clocks / 251;
        if (unit < 1) unit = 1;
        if (unit > 7) unit = 7;
        return unit * 251 * P;
    }
    /* xe: nearest supported rate, ties to the higher one (§5.3). */
    uint64_t best = kmd_rates[0];
    if (clocks >= kmd_rates[6]) best = kmd_rates[6];
    else if (clocks > kmd_rates[0]) {
        for (int i = 0; i < 6; i++) {
            if (clocks >= kmd_rates[i] && clocks <= kmd_rates[i + 1]) {
                uint64_t dl = clocks - kmd_rates[i], dh = kmd_rates[i + 1] - clocks;
                best = dh <= dl ? kmd_rates[i + 1] : kmd_rates[i];
                break;
            }
        }
    }
    return best * P;
}

/* Reports one (sub)device's stream can hold: 8192 per Xe-core (§4.4, §5.2). */
static uint64_t tile_max_reports(const sim_device_t *tile) { return (uint64_t)XECORE_BUF_RECORDS * tile->xecores; }

/* getRequiredBufferSize(n) of a leaf device. */
static size_t required_size(const sim_device_t *tile, uint64_t n) {
    uint64_t m = tile_max_reports(tile);
    return (size_t)((n < m ? n : m) * REC_SIZE);
}

static void collect_tiles(sim_streamer_t *s, sim_device_t *dev) {
    s->ntiles = 0;
    if (is_leaf(dev)) s->tiles[s->ntiles++] = dev;
    else
        for (uint32_t i = 0; i < dev->num_subdevices && s->ntiles < 8; i++) s->tiles[s->ntiles++] = dev->subdevices[i];
}

/* g_mx held. IN_USE if dev's stream, or (root) any sub-device's, is busy. */
static bool stream_busy(sim_device_t *dev) {
    sim_metric_dev_t *md = dev->metrics;
    if (md == NULL) return true;
    if (md->claim != NULL || md->sub_claims > 0) return true;
    for (uint32_t i = 0; i < dev->num_subdevices; i++)
        if (dev->subdevices[i]->metrics == NULL || dev->subdevices[i]->metrics->claim != NULL) return true;
    return false;
}

/* exec.c keeps runs only while a stream of the family samples (g_mx held). */
static void set_sampling_flags(sim_device_t *root) {
    bool any = false;
    for (sim_streamer_t *o = g_open; o != NULL; o = o->next)
        if (sim_root(o->dev) == root && o->active) any = true;
    atomic_store(&root->sampling_active, any);
    for (uint32_t i = 0; i < root->num_subdevices; i++) atomic_store(&root->subdevices[i]->sampling_active, any);
}

/* g_mx held: claims dev's stream (and a root's sub-devices'), resets the
 * hardware buffers and links s into the open list. */
static void stream_claim(sim_streamer_t *s) {
    sim_device_t *dev = s->dev;
    dev->metrics->claim = s;
    for (uint32_t i = 0; i < dev->num_subdevices; i++) dev->subdevices[i]->metrics->claim = s;
    if (dev->parent != NULL) dev->parent->metrics->sub_claims++;
    for (uint32_t t = 0; t < s->ntiles; t++) {
        sim_metric_dev_t *md = s->tiles[t]->metrics;
        for (uint32_t i = 0; i < md->nbufs; i++) buf_reset(&md->bufs[i]);
        md->eio_reported = false;
    }
    s->next = g_open;
    g_open = s;
    set_sampling_flags(sim_root(dev));
}

static void stream_release(sim_streamer_t *s) {
    sim_device_t *dev = s->dev;
    dev->metrics->claim = NULL;
    for (uint32_t i = 0; i < dev->num_subdevices; i++) dev->subdevices[i]->metrics->claim = NULL;
    if (dev->parent != NULL && dev->parent->metrics->sub_claims > 0) dev->parent->metrics->sub_claims--;
    for (uint32_t t = 0; t < s->ntiles; t++) {
        sim_metric_dev_t *md = s->tiles[t]->metrics;
        for (uint32_t i = 0; i < md->nbufs; i++) buf_reset(&md->bufs[i]);
    }
    for (sim_streamer_t **pp = &g_open; *pp != NULL; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    set_sampling_flags(sim_root(dev));
}

static sim_streamer_t *streamer_alloc(void) {
    sim_streamer_t *s = g_free_streamers;
    if (s != NULL) g_free_streamers = s->next;
    else s = malloc(sizeof(*s));
    if (s != NULL) memset(s, 0, sizeof(*s));
    return s;
}
static void streamer_free(sim_streamer_t *s) {
    sim_obj_kill(&s->obj);
    s->next = g_free_streamers;
    g_free_streamers = s;
}

static ze_result_t ZE_APICALL sim_zetMetricStreamerOpen(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                                        zet_metric_group_handle_t hMetricGroup,
                                                        zet_metric_streamer_desc_t *desc,
                                                        ze_event_handle_t hNotificationEvent,
                                                        zet_metric_streamer_handle_t *phMetricStreamer) {
    sim_context_t *ctx = ctx_of(hContext);
    sim_device_t *dev = dev_of(hDevice);
    sim_metric_group_t *g = grp_of(hMetricGroup);
    if (ctx == NULL || dev == NULL || g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phMetricStreamer == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_event_t *ev = NULL;
    if (hNotificationEvent != NULL && (ev = sim_event_from_handle(hNotificationEvent)) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (g->dev != dev) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (g->kind != GK_EUSS) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; /* placeholder OA groups */
    sim_metric_dev_t *md = mdev_of(dev);
    if (md == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;

    pthread_mutex_lock(&g_mx);
    ze_result_t r = ZE_RESULT_SUCCESS;
    sim_streamer_t *s = NULL;
    if (!is_activated(md, ctx, g)) r = ZE_RESULT_NOT_READY;                     /* §5.1 order */
    else if (stream_busy(dev)) r = ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    else if (desc->notifyEveryNReports == 0) r = ZE_RESULT_ERROR_UNKNOWN;       /* KMD refuses 0 */
    else if ((s = streamer_alloc()) == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (r != ZE_RESULT_SUCCESS) {
        pthread_mutex_unlock(&g_mx);
        return r;
    }
    collect_tiles(s, dev);
    /* A root opens one stream per sub-device with the same descriptor, so
     * the write-back is the sub-device's clamp. */
    uint64_t maxn = tile_max_reports(s->tiles[0]);
    if (desc->notifyEveryNReports > maxn) desc->notifyEveryNReports = (uint32_t)maxn;
    desc->samplingPeriod = (uint32_t)round_period(desc->samplingPeriod);
    int guard = 0;
    for (sim_base_desc_t *e = (sim_base_desc_t *)desc->pNext; e != NULL && guard < MAX_PNEXT_CHAIN;
         e = (sim_base_desc_t *)e->pNext, guard++)
        if (e->stype == SIM_STYPE_INTEL_METRIC_HW_BUFFER_SIZE_EXP_DESC)
            ((sim_hw_buffer_size_exp_t *)e)->sizeInBytes = required_size(s->tiles[0], UINT32_MAX) * s->ntiles;

    sim_obj_init(&s->obj, SIM_K_STREAMER);
    s->dev = dev;
    s->group = g;
    s->event = ev;
    s->active = true;
    s->notify_n = desc->notifyEveryNReports;
    s->period_ns = desc->samplingPeriod;
    s->t0_ns = s->gen_upto = sim_now_ns();
    stream_claim(s);
    pthread_mutex_unlock(&g_mx);
    if (ev != NULL) sim_event_attach_streamer(ev, s);
    *phMetricStreamer = (zet_metric_streamer_handle_t)s;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t close_stream(sim_streamer_t *s) {
    /* Detach first, without g_mx: exec.c may query the event concurrently. */
    pthread_mutex_lock(&g_mx);
    sim_event_t *ev = s->obj.magic == SIM_MAGIC ? s->event : NULL;
    s->event = NULL;
    pthread_mutex_unlock(&g_mx);
    if (ev != NULL) sim_event_attach_streamer(ev, NULL);
    pthread_mutex_lock(&g_mx);
    if (s->obj.magic != SIM_MAGIC) {
        pthread_mutex_unlock(&g_mx);
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    /* Generate up to now so that the ground truth lists every sample the
     * hardware took while the stream was open; the buffers then vanish. */
    uint64_t now = sim_now_ns();
    s->closing = true;
    gen_streamer(s, now);
    s->closing = false;
    s->active = false;
    stream_release(s);
    prune_family(sim_root(s->dev), now);
    streamer_free(s);
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricStreamerClose(zet_metric_streamer_handle_t hMetricStreamer) {
    sim_streamer_t *s = SIM_OBJ(sim_streamer_t, hMetricStreamer, SIM_K_STREAMER);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return close_stream(s);
}

/* One KMD read() of a leaf device's stream (§4.2, §4.3): whole records,
 * Xe-core buffers in order; -EIO once after drops; empty -> 0 bytes. */
static ze_result_t tile_read(sim_device_t *tile, uint8_t *out, size_t *size) {
    sim_metric_dev_t *md = tile->metrics;
    uint64_t n = *size / REC_SIZE;
    if (n == 0) {
        *size = 0;
        return ZE_RESULT_ERROR_UNKNOWN; /* read() of less than one record: -EINVAL */
    }
    /* Like the xe KMD: drops are reported (-EIO) once, before any data;
     * the next read copies data even if the buffers keep dropping, and a
     * buffer's drop state clears when it is read from. */
    bool pending = false;
    for (uint32_t i = 0; i < md->nbufs; i++) pending = pending || md->bufs[i].eio_pending;
    if (pending && !md->eio_reported) {
        md->eio_reported = true;
        *size = 0;
        return ZE_RESULT_WARNING_DROPPED_DATA;
    }
    uint64_t done = 0;
    bool xe2 = is_xe2(), i915 = is_i915();
    for (uint32_t i = 0; i < md->nbufs && done < n; i++) {
        ss_buf_t *b = &md->bufs[i];
        if (b->count == 0) continue;
        /* i915-prelim flags the records it delivers from a buffer that
         * dropped rows since it was last read (§3.3). */
        uint16_t flags = b->drop_mark ? I915_FLAG_DROP : 0;
        b->drop_mark = b->eio_pending = false;
        while (b->count > 0 && done < n) {
            const ss_rec_t *r = buf_front(b);
            rec_encode(out + done * REC_SIZE, r->ip, r->raw, num_raw(), xe2, i915, (uint16_t)i, flags);
            buf_pop(b);
            done++;
        }
    }
    pending = false;
    for (uint32_t i = 0; i < md->nbufs; i++) pending = pending || md->bufs[i].eio_pending;
    if (!pending) md->eio_reported = false;
    *size = (size_t)(done * REC_SIZE);
    return ZE_RESULT_SUCCESS;
}

/* FLAT device or sub-device (§6.1). */
static ze_result_t leaf_read(sim_device_t *tile, uint32_t maxReportCount, size_t *pRawDataSize, uint8_t *pRawData) {
    if (*pRawDataSize == 0) {
        *pRawDataSize = required_size(tile, maxReportCount);
        return ZE_RESULT_SUCCESS;
    }
    if (pRawData == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (maxReportCount != UINT32_MAX) {
        size_t m = required_size(tile, maxReportCount);
        if (m < *pRawDataSize) *pRawDataSize = m;
    }
    return tile_read(tile, pRawData, pRawDataSize);
}

/* COMPOSITE root (§6.2): a 16-byte header before each sub-device's data,
 * sub-devices in index order, stop when less than a record fits. */
static ze_result_t root_read(sim_streamer_t *s, uint32_t maxReportCount, size_t *pRawDataSize, uint8_t *pRawData) {
    uint32_t nsub = s->ntiles;
    size_t hdrs = (size_t)HDR_SIZE * nsub;
    uint64_t maxsup = tile_max_reports(s->tiles[0]) * nsub;
    uint64_t maxrep = maxReportCount < maxsup ? maxReportCount : maxsup;
    if (*pRawDataSize == 0) {
        *pRawDataSize = (size_t)(REC_SIZE * maxrep) + hdrs;
        return ZE_RESULT_SUCCESS;
    }
    if (pRawData == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t calc = *pRawDataSize > hdrs ? *pRawDataSize - hdrs : 0;
    if (calc > REC_SIZE * maxrep) calc = (size_t)(REC_SIZE * maxrep);
    if (calc < REC_SIZE) {
        /* Intel's driver would write a header past a too-small buffer; a
         * sub-device read of less than one record fails (-EINVAL). */
        *pRawDataSize = 0;
        return ZE_RESULT_ERROR_UNKNOWN;
    }
    uint8_t *cur = pRawData;
    size_t remain = calc;
    uint64_t maxleft = calc / REC_SIZE;
    for (uint32_t i = 0; i < nsub; i++) {
        uint8_t *hdr = cur;
        cur += HDR_SIZE;
        size_t got = remain;
        ze_result_t r = leaf_read(s->tiles[i], (uint32_t)maxleft, &got, cur);
        if (r != ZE_RESULT_SUCCESS) {
            /* Records already taken from earlier sub-devices are lost, as
             * with Intel's driver. */
            *pRawDataSize = 0;
            return r;
        }
        memset(hdr, 0, HDR_SIZE);
        put32(hdr, HDR_MAGIC);
        put32(hdr + 4, (uint32_t)got);
        put32(hdr + 8, i);
        remain -= got;
        cur += got;
        if (remain < REC_SIZE) break;
        maxleft -= got / REC_SIZE;
    }
    *pRawDataSize = (size_t)(cur - pRawData);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricStreamerReadData(zet_metric_streamer_handle_t hMetricStreamer,
                                                            uint32_t maxReportCount, size_t *pRawDataSize,
                                                            uint8_t *pRawData) {
    sim_streamer_t *s = SIM_OBJ(sim_streamer_t, hMetricStreamer, SIM_K_STREAMER);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pRawDataSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&g_mx);
    if (s->obj.magic != SIM_MAGIC) {
        pthread_mutex_unlock(&g_mx);
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (*pRawDataSize != 0) gen_and_prune(s); /* a size query reads nothing */
    ze_result_t r = is_leaf(s->dev) ? leaf_read(s->dev, maxReportCount, pRawDataSize, pRawData)
                                    : root_read(s, maxReportCount, pRawDataSize, pRawData);
    pthread_mutex_unlock(&g_mx);
    return r;
}

bool sim_metrics_notify_state(struct sim_streamer *s) {
    if (s == NULL) return false;
    pthread_mutex_lock(&g_mx);
    bool on = false;
    if (s->obj.magic == SIM_MAGIC && s->active) gen_and_prune(s);
    if (s->obj.magic == SIM_MAGIC) {
        if (s->is_tracer) {
            uint64_t n = 0;
            for (uint32_t t = 0; t < s->ntiles; t++) n += tile_records(s->tiles[t]);
            on = n * REC_SIZE >= s->notify_n;
        } else {
            /* Per KMD stream; a root is signalled if any sub-device is. */
            for (uint32_t t = 0; t < s->ntiles && !on; t++) on = tile_records(s->tiles[t]) >= s->notify_n;
        }
    }
    pthread_mutex_unlock(&g_mx);
    return on;
}

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

static ze_result_t ZE_APICALL sim_zetMetricGroupCalculateMetricValues(zet_metric_group_handle_t hMetricGroup,
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
/* Unsupported (§5.6)                                                  */
/* ------------------------------------------------------------------ */
static ze_result_t ZE_APICALL unsup_marker(zet_command_list_handle_t a, zet_metric_streamer_handle_t b, uint32_t c) {
    (void)a, (void)b, (void)c;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_begin(zet_command_list_handle_t a, zet_metric_query_handle_t b) {
    (void)a, (void)b;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_end(zet_command_list_handle_t a, zet_metric_query_handle_t b,
                                              ze_event_handle_t c, uint32_t d, ze_event_handle_t *e) {
    (void)a, (void)b, (void)c, (void)d, (void)e;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_barrier(zet_command_list_handle_t a) {
    (void)a;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_pool_create(zet_context_handle_t a, zet_device_handle_t b,
                                                zet_metric_group_handle_t c, const zet_metric_query_pool_desc_t *d,
                                                zet_metric_query_pool_handle_t *e) {
    (void)a, (void)b, (void)c, (void)d, (void)e;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_pool_destroy(zet_metric_query_pool_handle_t a) {
    (void)a;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_create(zet_metric_query_pool_handle_t a, uint32_t b,
                                                 zet_metric_query_handle_t *c) {
    (void)a, (void)b, (void)c;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_destroy(zet_metric_query_handle_t a) {
    (void)a;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
static ze_result_t ZE_APICALL unsup_query_getdata(zet_metric_query_handle_t a, size_t *b, uint8_t *c) {
    (void)a, (void)b, (void)c;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
/* Extension-only entry points of newer specs (programmables, markers,
 * groups from metrics): any signature, never reached with arguments. */
static ze_result_t ZE_APICALL unsup_any(void) { return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; }

/* ------------------------------------------------------------------ */
/* Enabling (Intel extension)                                          */
/* ------------------------------------------------------------------ */
static ze_result_t ZE_APICALL sim_zetIntelDeviceEnableMetricsExp(zet_device_handle_t hDevice) {
    sim_device_t *dev = dev_of(hDevice);
    if (dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (mdev_of(dev) == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&g_mx);
    dev->metrics->enabled = true;
    for (uint32_t i = 0; i < dev->num_subdevices; i++)
        if (dev->subdevices[i]->metrics) dev->subdevices[i]->metrics->enabled = true;
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

static bool dev_in_use(sim_metric_dev_t *md) {
    if (md == NULL) return false;
    if (md->claim != NULL || md->sub_claims > 0) return true;
    for (uint32_t i = 0; i < md->num_acts; i++)
        for (int k = 0; k < GK_COUNT; k++)
            if (md->acts[i].groups[k] != NULL) return true;
    return false;
}

static ze_result_t ZE_APICALL sim_zetIntelDeviceDisableMetricsExp(zet_device_handle_t hDevice) {
    sim_device_t *dev = dev_of(hDevice);
    if (dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (mdev_of(dev) == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&g_mx);
    bool busy = dev_in_use(dev->metrics);
    for (uint32_t i = 0; i < dev->num_subdevices; i++) busy = busy || dev_in_use(dev->subdevices[i]->metrics);
    if (!busy) {
        dev->metrics->enabled = false;
        for (uint32_t i = 0; i < dev->num_subdevices; i++)
            if (dev->subdevices[i]->metrics) dev->subdevices[i]->metrics->enabled = false;
    }
    pthread_mutex_unlock(&g_mx);
    return busy ? ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE : ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Metric tracer (§10, experimental, extension functions only)         */
/* ------------------------------------------------------------------ */
/* Raw tracer data (our own format; Intel's driver has no implementation):
 * a sequence of 64-byte EU stall records exactly as the streamer returns
 * them, except that bytes 16-23 hold the sample's device timestamp (u64
 * ticks), bytes 24-27 a u32 that is 1 when the record comes from a
 * sub-device of a COMPOSITE root, and bytes 28-31 that sub-device's index. */
#define TR_TS_OFF 16
#define TR_ONSUB_OFF 24
#define TR_SUBID_OFF 28
#define TRACER_RATE_MULT 4 /* KMD default sampling rate multiplier (§4.2) */

static sim_streamer_t *tracer_of(sim_tracer_handle_t h) { return SIM_OBJ(sim_streamer_t, h, SIM_K_METRIC_TRACER); }

static ze_result_t ZE_APICALL sim_zetMetricTracerCreateExp(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                                           uint32_t metricGroupCount,
                                                           zet_metric_group_handle_t *phMetricGroups,
                                                           sim_tracer_desc_exp_t *desc,
                                                           ze_event_handle_t hNotificationEvent,
                                                           sim_tracer_handle_t *phMetricTracer) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_context_t *ctx = ctx_of(hContext);
    sim_device_t *dev = dev_of(hDevice);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phMetricTracer == NULL || (metricGroupCount > 0 && phMetricGroups == NULL))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (metricGroupCount != 1) return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* one tracer-based group exists */
    sim_metric_group_t *g = grp_of(phMetricGroups[0]);
    if (g == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (g->dev != dev) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (g->kind != GK_EUSS) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_event_t *ev = NULL;
    if (hNotificationEvent != NULL && (ev = sim_event_from_handle(hNotificationEvent)) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_metric_dev_t *md = mdev_of(dev);
    if (md == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&g_mx);
    ze_result_t r = ZE_RESULT_SUCCESS;
    sim_streamer_t *s = NULL;
    if (!is_activated(md, ctx, g)) r = ZE_RESULT_NOT_READY;
    else if (stream_busy(dev)) r = ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    else if ((s = streamer_alloc()) == NULL) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (r != ZE_RESULT_SUCCESS) {
        pthread_mutex_unlock(&g_mx);
        return r;
    }
    collect_tiles(s, dev);
    uint64_t cap = 0;
    for (uint32_t t = 0; t < s->ntiles; t++) cap += tile_max_reports(s->tiles[t]) * REC_SIZE;
    uint64_t nb = desc->notifyEveryNBytes;
    nb = (nb + REC_SIZE - 1) / REC_SIZE * REC_SIZE; /* whole records */
    if (nb < REC_SIZE) nb = REC_SIZE;
    if (nb > cap) nb = cap;
    if (nb > UINT32_MAX) nb = UINT32_MAX / REC_SIZE * REC_SIZE;
    desc->notifyEveryNBytes = (uint32_t)nb;
    sim_obj_init(&s->obj, SIM_K_METRIC_TRACER);
    s->is_tracer = true;
    s->dev = dev;
    s->group = g;
    s->event = ev;
    s->active = false; /* created disabled */
    s->notify_n = (uint32_t)nb;
    s->period_ns = TRACER_RATE_MULT * 251 * gpu_period_ns();
    s->t0_ns = s->gen_upto = sim_now_ns();
    stream_claim(s);
    pthread_mutex_unlock(&g_mx);
    if (ev != NULL) sim_event_attach_streamer(ev, s);
    *phMetricTracer = s;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricTracerDestroyExp(sim_tracer_handle_t h) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return close_stream(s);
}

static ze_result_t ZE_APICALL sim_zetMetricTracerEnableExp(sim_tracer_handle_t h, ze_bool_t synchronous) {
    (void)synchronous; /* takes effect at once either way */
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&g_mx);
    if (!s->active) {
        s->active = true;
        s->t0_ns = s->gen_upto = sim_now_ns();
        set_sampling_flags(sim_root(s->dev));
    }
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricTracerDisableExp(sim_tracer_handle_t h, ze_bool_t synchronous) {
    (void)synchronous;
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&g_mx);
    if (s->active) {
        gen_and_prune(s);
        s->active = false;
        set_sampling_flags(sim_root(s->dev));
    }
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricTracerReadDataExp(sim_tracer_handle_t h, size_t *pRawDataSize,
                                                             uint8_t *pRawData) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pRawDataSize == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&g_mx);
    if (s->active) gen_and_prune(s);
    uint64_t avail = 0;
    for (uint32_t t = 0; t < s->ntiles; t++) avail += tile_records(s->tiles[t]);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (!s->active && avail == 0) {
        *pRawDataSize = 0;
        r = ZE_RESULT_NOT_READY;
    } else if (*pRawDataSize == 0) {
        *pRawDataSize = (size_t)(avail * REC_SIZE);
    } else if (pRawData == NULL) {
        r = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    } else {
        uint64_t n = *pRawDataSize / REC_SIZE, done = 0;
        bool dropped = false, xe2 = is_xe2(), i915 = is_i915();
        for (uint32_t t = 0; t < s->ntiles; t++) {
            sim_device_t *tile = s->tiles[t];
            sim_metric_dev_t *md = tile->metrics;
            bool onsub = tile->parent != NULL && tile->parent == s->dev;
            for (uint32_t i = 0; i < md->nbufs; i++) {
                ss_buf_t *b = &md->bufs[i];
                if (b->eio_pending) dropped = true;
                b->eio_pending = false;
                uint16_t flags = b->drop_mark ? I915_FLAG_DROP : 0;
                if (b->count > 0 && done < n) b->drop_mark = false;
                while (b->count > 0 && done < n) {
                    const ss_rec_t *rec = buf_front(b);
                    uint8_t *o = pRawData + done * REC_SIZE;
                    rec_encode(o, rec->ip, rec->raw, num_raw(), xe2, i915, (uint16_t)i, flags);
                    put64(o + TR_TS_OFF, sim_dev_ticks(tile, rec->t_ns));
                    put32(o + TR_ONSUB_OFF, onsub ? 1u : 0u);
                    put32(o + TR_SUBID_OFF, onsub ? tile->index : 0u);
                    buf_pop(b);
                    done++;
                }
            }
        }
        *pRawDataSize = (size_t)(done * REC_SIZE);
        if (dropped) r = ZE_RESULT_WARNING_DROPPED_DATA;
    }
    pthread_mutex_unlock(&g_mx);
    return r;
}

static ze_result_t ZE_APICALL sim_zetMetricDecoderCreateExp(sim_tracer_handle_t h, sim_decoder_handle_t *phDecoder) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_streamer_t *s = tracer_of(h);
    if (s == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phDecoder == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&g_mx);
    sim_decoder_t *d = g_free_decoders;
    if (d != NULL) g_free_decoders = d->next_free;
    else d = malloc(sizeof(*d));
    if (d != NULL) {
        memset(d, 0, sizeof(*d));
        sim_obj_init(&d->obj, SIM_K_METRIC_DECODER);
        d->dev = s->dev;
        d->group = s->group;
    }
    pthread_mutex_unlock(&g_mx);
    if (d == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *phDecoder = d;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zetMetricDecoderDestroyExp(sim_decoder_handle_t h) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_decoder_t *d = SIM_OBJ(sim_decoder_t, h, SIM_K_METRIC_DECODER);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&g_mx);
    sim_obj_kill(&d->obj);
    d->next_free = g_free_decoders;
    g_free_decoders = d;
    pthread_mutex_unlock(&g_mx);
    return ZE_RESULT_SUCCESS;
}

/* The decodable metrics are the group's own metric handles. */
static ze_result_t ZE_APICALL sim_zetMetricDecoderGetDecodableMetricsExp(sim_decoder_handle_t h, uint32_t *pCount,
                                                                        zet_metric_handle_t *phMetrics) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_decoder_t *d = SIM_OBJ(sim_decoder_t, h, SIM_K_METRIC_DECODER);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return sim_zetMetricGet((zet_metric_group_handle_t)d->group, pCount, phMetrics);
}

/* Entries: for every record, one entry per requested metric (metricIndex =
 * position in phMetrics), grouped by set (= sub-device for a COMPOSITE
 * root, else one set). Only whole records are decoded; *pRawDataSize
 * reports the bytes consumed when fewer entries were requested. */
static ze_result_t ZE_APICALL sim_zetMetricTracerDecodeExp(sim_decoder_handle_t h, size_t *pRawDataSize,
                                                           uint8_t *pRawData, uint32_t metricsCount,
                                                           zet_metric_handle_t *phMetrics, uint32_t *pSetCount,
                                                           uint32_t *pMetricEntriesCountPerSet,
                                                           uint32_t *pMetricEntriesCount,
                                                           sim_metric_entry_exp_t *pMetricEntries) {
    if (!sim_cfg.metric_tracer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    sim_decoder_t *d = SIM_OBJ(sim_decoder_t, h, SIM_K_METRIC_DECODER);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pRawDataSize == NULL || pSetCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pRawDataSize > 0 && pRawData == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (metricsCount > 0 && phMetrics == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pRawDataSize % REC_SIZE != 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    uint32_t midx[16];
    if (metricsCount > 16) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < metricsCount; i++) {
        sim_metric_t *m = SIM_OBJ(sim_metric_t, phMetrics[i], SIM_K_METRIC);
        if (m == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (m->group->kind != GK_EUSS) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        midx[i] = m->index;
    }
    uint32_t nsets = is_leaf(d->dev) ? 1 : d->dev->num_subdevices;
    size_t nrec = *pRawDataSize / REC_SIZE;
    uint64_t total = (uint64_t)nrec * metricsCount;
    if (pMetricEntriesCount == NULL) {
        *pSetCount = nsets;
        return ZE_RESULT_SUCCESS;
    }
    if (*pMetricEntriesCount == 0 || *pSetCount == 0) {
        *pSetCount = nsets;
        *pMetricEntriesCount = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
        return ZE_RESULT_SUCCESS;
    }
    if (pMetricEntries == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t use = metricsCount ? *pMetricEntriesCount / metricsCount : nrec;
    if (use > nrec) use = nrec;
    uint32_t nraw = num_raw();
    const uint8_t *map = metric_raw_map();
    uint32_t out_sets = *pSetCount < nsets ? *pSetCount : nsets;
    uint64_t w = 0;
    for (uint32_t set = 0; set < out_sets; set++) {
        uint64_t before = w;
        for (size_t i = 0; i < use; i++) {
            const uint8_t *rec = pRawData + i * REC_SIZE;
            uint32_t onsub = le32(rec + TR_ONSUB_OFF), sub = le32(rec + TR_SUBID_OFF);
            uint32_t rset = (nsets > 1 && onsub) ? sub : 0;
            if (rset != set) continue;
            uint32_t ip;
            uint8_t raw[MAX_COUNTERS];
            rec_decode(rec, &ip, raw, nraw, false);
            uint64_t ts = le64(rec + TR_TS_OFF);
            for (uint32_t m = 0; m < metricsCount; m++) {
                sim_metric_entry_exp_t *e = &pMetricEntries[w++];
                memset(e, 0, sizeof(*e));
                e->value.ui64 = midx[m] == 0 ? ip : raw[map[midx[m]]];
                e->timeStamp = ts;
                e->metricIndex = m;
                e->onSubdevice = (nsets > 1 && onsub) ? 1 : 0;
                e->subdeviceId = e->onSubdevice ? sub : 0;
            }
        }
        if (pMetricEntriesCountPerSet != NULL) pMetricEntriesCountPerSet[set] = (uint32_t)(w - before);
    }
    *pSetCount = out_sets;
    *pMetricEntriesCount = (uint32_t)w;
    *pRawDataSize = use * REC_SIZE;
    return ZE_RESULT_SUCCESS;
}

/* Intel's open-source driver: every tracer/decoder function answers
 * UNSUPPORTED_FEATURE (§10). Without ZESIM_METRIC_TRACER=1 the functions
 * above do the same (first line of each). */
void *sim_metrics_extension(const char *name) {
    static const struct {
        const char *name;
        void *fn;
    } tab[] = {
        {"zetIntelDeviceEnableMetricsExp", (void *)sim_zetIntelDeviceEnableMetricsExp},
        {"zetIntelDeviceDisableMetricsExp", (void *)sim_zetIntelDeviceDisableMetricsExp},
        {"zetMetricTracerCreateExp", (void *)sim_zetMetricTracerCreateExp},
        {"zetMetricTracerDestroyExp", (void *)sim_zetMetricTracerDestroyExp},
        {"zetMetricTracerEnableExp", (void *)sim_zetMetricTracerEnableExp},
        {"zetMetricTracerDisableExp", (void *)sim_zetMetricTracerDisableExp},
        {"zetMetricTracerReadDataExp", (void *)sim_zetMetricTracerReadDataExp},
        {"zetMetricTracerDecodeExp", (void *)sim_zetMetricTracerDecodeExp},
        {"zetMetricDecoderCreateExp", (void *)sim_zetMetricDecoderCreateExp},
        {"zetMetricDecoderDestroyExp", (void *)sim_zetMetricDecoderDestroyExp},
        {"zetMetricDecoderGetDecodableMetricsExp", (void *)sim_zetMetricDecoderGetDecodableMetricsExp},
        {"zetDeviceCreateMetricGroupsFromMetricsExp", (void *)unsup_any},
        {"zetMetricProgrammableGetExp", (void *)unsup_any},
        {"zetCommandListAppendMarkerExp", (void *)unsup_any},
        {"zetIntelCommandListAppendMarkerExp", (void *)unsup_any},
    };
    if (name == NULL) return NULL;
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strcmp(name, tab[i].name) == 0) return tab[i].fn;
    return NULL;
}

void sim_metrics_context_destroy(sim_context_t *ctx) {
    if (sim_driver == NULL || ctx == NULL) return;
    pthread_mutex_lock(&g_mx);
    for (uint32_t i = 0; i < sim_driver->num_devices; i++) {
        sim_device_t *root = sim_driver->devices[i];
        for (uint32_t j = 0; j <= root->num_subdevices; j++) {
            sim_device_t *d = j == 0 ? root : root->subdevices[j - 1];
            sim_metric_dev_t *md = d ? d->metrics : NULL;
            if (md == NULL) continue;
            for (uint32_t a = 0; a < md->num_acts; a++)
                if (md->acts[a].ctx == ctx) md->acts[a] = md->acts[--md->num_acts];
        }
    }
    pthread_mutex_unlock(&g_mx);
}

/* ------------------------------------------------------------------ */
/* DDI getters                                                         */
/* ------------------------------------------------------------------ */
#define CHECK_TABLE(v, t) \
    do { \
        if ((t) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER; \
        if (ZE_MAJOR_VERSION(v) != 1) return ZE_RESULT_ERROR_UNSUPPORTED_VERSION; \
    } while (0)

SIM_EXPORT ze_result_t ZE_APICALL zetGetContextProcAddrTable(ze_api_version_t version, zet_context_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnActivateMetricGroups = sim_zetContextActivateMetricGroups;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetCommandListProcAddrTable(ze_api_version_t version,
                                                                 zet_command_list_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnAppendMetricStreamerMarker = unsup_marker;
    t->pfnAppendMetricQueryBegin = unsup_query_begin;
    t->pfnAppendMetricQueryEnd = unsup_query_end;
    t->pfnAppendMetricMemoryBarrier = unsup_barrier;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricGroupProcAddrTable(ze_api_version_t version,
                                                                 zet_metric_group_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnGet = sim_zetMetricGroupGet;
    t->pfnGetProperties = sim_zetMetricGroupGetProperties;
    t->pfnCalculateMetricValues = sim_zetMetricGroupCalculateMetricValues;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricGroupExpProcAddrTable(ze_api_version_t version,
                                                                    zet_metric_group_exp_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnCalculateMultipleMetricValuesExp = sim_zetMetricGroupCalculateMultipleMetricValuesExp;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricProcAddrTable(ze_api_version_t version, zet_metric_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnGet = sim_zetMetricGet;
    t->pfnGetProperties = sim_zetMetricGetProperties;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricStreamerProcAddrTable(ze_api_version_t version,
                                                                    zet_metric_streamer_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnOpen = sim_zetMetricStreamerOpen;
    t->pfnClose = sim_zetMetricStreamerClose;
    t->pfnReadData = sim_zetMetricStreamerReadData;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricQueryPoolProcAddrTable(ze_api_version_t version,
                                                                     zet_metric_query_pool_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnCreate = unsup_pool_create;
    t->pfnDestroy = unsup_pool_destroy;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricQueryProcAddrTable(ze_api_version_t version,
                                                                 zet_metric_query_dditable_t *t) {
    CHECK_TABLE(version, t);
    t->pfnCreate = unsup_query_create;
    t->pfnDestroy = unsup_query_destroy;
    t->pfnReset = unsup_query_destroy;
    t->pfnGetData = unsup_query_getdata;
    return ZE_RESULT_SUCCESS;
}
