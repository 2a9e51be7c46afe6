/*
 * core.c — configuration, device models, clocks, ground truth, and the
 * driver/device/context/memory parts of the simulated Level-Zero driver.
 * Also every DDI getter whose table is intentionally empty (images,
 * samplers, virtual/physical memory, fabric, debugger, API tracing, Sysman):
 * the loader requires them (docs/level-zero-loader.md §3.1 "Mandatory DDI getters (46)") and turns the NULL
 * entries into ZE_RESULT_ERROR_UNSUPPORTED_FEATURE.
 *
 * User documentation: test/sim/README.md.
 */
#include "sim.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

sim_config_t sim_cfg;
sim_driver_t *sim_driver;

/* ================================================================== */
/* Device models                                                       */
/* ================================================================== */

typedef struct sim_model {
    const char *key;          /* ZESIM_MODEL value */
    sim_platform_t platform;
    const char *name;
    uint32_t device_id;
    uint32_t tiles;
    uint32_t slices_per_tile; /* numSlices reported per tile */
    uint32_t xecores_per_tile;
    uint32_t eus_per_xecore;
    uint32_t threads_per_eu;
    uint32_t simd_width;
    uint32_t clock_mhz;
    uint64_t timestamp_hz;
    uint32_t ts_bits, kts_bits;
    uint64_t mem_per_tile;    /* bytes of device memory per tile */
    const char *mem_name;
    uint32_t mem_clock_mhz, mem_bus_width;
    uint64_t cache_per_tile;  /* L2 bytes per tile */
    uint32_t slm_bytes;       /* maxSharedLocalMemory */
    uint32_t subgroup_sizes[3];
    uint32_t num_subgroup_sizes;
    bool fp64;
    sim_kmd_t default_kmd;
    uint8_t pci_bus;
    int32_t pci_gen, pci_width;
} sim_model_t;

/* Numbers follow the public specifications of the products; the PVC
 * timestamp frequency and valid bits follow the reference (docs/eu-stall-sampling.md §2.2 "Extended group properties through pNext", docs/eu-stall-sampling.md §5.3 "samplingPeriod (nanoseconds)"). */
static const sim_model_t sim_models[] = {
    {"pvc", SIM_PLATFORM_PVC, "Intel(R) Data Center GPU Max 1550", 0x0BD5, 2, 1, 64, 8, 8, 16, 1600,
     38400000ull, 36, 32, 64ull << 30, "HBM", 3200, 4096, 204ull << 20, 128 * 1024, {16, 32, 0}, 2, true,
     SIM_KMD_I915_PRELIM, 0x29, 5, 16},
    {"pvc-1100", SIM_PLATFORM_PVC, "Intel(R) Data Center GPU Max 1100", 0x0BDA, 1, 1, 56, 8, 8, 16, 1550,
     38400000ull, 36, 32, 48ull << 30, "HBM", 3200, 4096, 108ull << 20, 128 * 1024, {16, 32, 0}, 2, true,
     SIM_KMD_I915_PRELIM, 0x29, 5, 16},
    /* PVC XL (0x0BD0): same layout as the 1550, but Intel's driver offers
     * no EuStallSampling on it (docs/eu-stall-sampling.md §2.5 "Where the group exists"). */
    {"pvc-xl", SIM_PLATFORM_PVC, "Intel(R) Data Center GPU Max", 0x0BD0, 2, 1, 64, 8, 8, 16, 1600,
     38400000ull, 36, 32, 64ull << 30, "HBM", 3200, 4096, 204ull << 20, 128 * 1024, {16, 32, 0}, 2, true,
     SIM_KMD_I915_PRELIM, 0x29, 5, 16},
    {"xe2", SIM_PLATFORM_XE2, "Intel(R) Arc(TM) B580 Graphics", 0xE20B, 1, 5, 20, 8, 8, 16, 2850,
     19200000ull, 36, 32, 12ull << 30, "GDDR6", 2375, 192, 18ull << 20, 128 * 1024, {16, 32, 0}, 2, true,
     SIM_KMD_XE, 0x03, 4, 8},
    {"dg2", SIM_PLATFORM_DG2, "Intel(R) Arc(TM) A770 Graphics", 0x56A0, 1, 8, 32, 16, 8, 8, 2400,
     19200000ull, 36, 32, 16ull << 30, "GDDR6", 2187, 256, 16ull << 20, 64 * 1024, {8, 16, 32}, 3, false,
     SIM_KMD_I915_PRELIM, 0x03, 4, 16},
};
#define SIM_NUM_MODELS (sizeof(sim_models) / sizeof(sim_models[0]))
static const sim_model_t *sim_model = &sim_models[0];

/* ================================================================== */
/* Configuration                                                       */
/* ================================================================== */

typedef struct sim_cost_entry {
    char *name;
    uint64_t ps_per_item;
    uint64_t overhead_ns;
} sim_cost_entry_t;
/* An entry without "/overhead_ns" uses the default overhead. */
#define SIM_COST_DEFAULT_OVERHEAD UINT64_MAX
static sim_cost_entry_t *sim_costs;
static size_t sim_num_costs;

static void cfg_warn(const char *var, const char *val, const char *used) {
    fprintf(stderr, "zesim: invalid %s=\"%s\", using %s\n", var, val, used);
}

static bool parse_u64(const char *s, uint64_t *out) {
    if (s == NULL || *s == '\0' || *s == '-') return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0') return false;
    *out = (uint64_t)v;
    return true;
}

/* "name=ps_per_item[/overhead_ns],..."; "*" sets the default for every
 * other kernel. Parsed once; a bad entry is skipped with a warning. */
static void parse_kernel_cost(const char *spec) {
    char *copy = strdup(spec);
    if (copy == NULL) return;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strrchr(tok, '=');
        uint64_t ps = 0, ov = SIM_COST_DEFAULT_OVERHEAD;
        bool ok = eq != NULL && eq != tok;
        if (ok) {
            *eq = '\0';
            char *val = eq + 1;
            char *slash = strchr(val, '/');
            if (slash != NULL) {
                *slash = '\0';
                ok = parse_u64(slash + 1, &ov);
            }
            ok = ok && parse_u64(val, &ps);
        }
        if (!ok) {
            fprintf(stderr, "zesim: invalid ZESIM_KERNEL_COST entry \"%s\", ignored (default: 10 ps per work-item, 2000 ns)\n",
                    tok);
            continue;
        }
        if (strcmp(tok, "*") == 0) {
            sim_cfg.default_ps_per_item = ps;
            if (ov != SIM_COST_DEFAULT_OVERHEAD) sim_cfg.launch_overhead_ns = ov;
            continue;
        }
        sim_cost_entry_t *n = realloc(sim_costs, (sim_num_costs + 1) * sizeof(*n));
        if (n == NULL) break;
        sim_costs = n;
        sim_costs[sim_num_costs].name = strdup(tok);
        sim_costs[sim_num_costs].ps_per_item = ps;
        sim_costs[sim_num_costs].overhead_ns = ov;
        if (sim_costs[sim_num_costs].name != NULL) sim_num_costs++;
    }
    free(copy);
}

void sim_kernel_cost(const char *kernel_name, uint64_t *ps_per_item, uint64_t *overhead_ns) {
    uint64_t ps = sim_cfg.default_ps_per_item, ov = sim_cfg.launch_overhead_ns;
    if (kernel_name != NULL) {
        for (size_t i = 0; i < sim_num_costs; i++) {
            if (strcmp(sim_costs[i].name, kernel_name) == 0) {
                ps = sim_costs[i].ps_per_item;
                if (sim_costs[i].overhead_ns != SIM_COST_DEFAULT_OVERHEAD) ov = sim_costs[i].overhead_ns;
                break;
            }
        }
    }
    if (ps_per_item) *ps_per_item = ps;
    if (overhead_ns) *overhead_ns = ov;
}

static bool streq_ci(const char *a, const char *b) { return strcasecmp(a, b) == 0; }

static void set_queue_groups(void) {
    const ze_command_queue_group_property_flags_t compute =
        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY |
        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS;
    const ze_command_queue_group_property_flags_t copy = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    switch (sim_cfg.platform) {
    case SIM_PLATFORM_PVC: /* 4 CCS, main BCS, 7 link BCS per tile */
        sim_cfg.num_queue_groups = 3;
        sim_cfg.queue_groups[0].flags = compute;
        sim_cfg.queue_groups[0].num_queues = 4;
        sim_cfg.queue_groups[1].flags = copy;
        sim_cfg.queue_groups[1].num_queues = 1;
        sim_cfg.queue_groups[2].flags = copy;
        sim_cfg.queue_groups[2].num_queues = 7;
        break;
    case SIM_PLATFORM_XE2: /* BMG: 1 CCS, 2 BCS */
        sim_cfg.num_queue_groups = 2;
        sim_cfg.queue_groups[0].flags = compute;
        sim_cfg.queue_groups[0].num_queues = 1;
        sim_cfg.queue_groups[1].flags = copy;
        sim_cfg.queue_groups[1].num_queues = 2;
        break;
    case SIM_PLATFORM_DG2: /* ACM: 4 CCS, 1 BCS */
        sim_cfg.num_queue_groups = 2;
        sim_cfg.queue_groups[0].flags = compute;
        sim_cfg.queue_groups[0].num_queues = 4;
        sim_cfg.queue_groups[1].flags = copy;
        sim_cfg.queue_groups[1].num_queues = 1;
        break;
    }
}

static void sim_config_load(void) {
    const char *v;

    v = getenv("ZESIM_MODEL");
    sim_model = &sim_models[0];
    if (v != NULL) {
        const char *key = streq_ci(v, "pvc-1550") ? "pvc" : v;
        size_t i;
        for (i = 0; i < SIM_NUM_MODELS; i++)
            if (streq_ci(key, sim_models[i].key)) break;
        if (i < SIM_NUM_MODELS)
            sim_model = &sim_models[i];
        else
            cfg_warn("ZESIM_MODEL", v, "pvc");
    }
    const sim_model_t *m = sim_model;
    sim_cfg.platform = m->platform;
    sim_cfg.model_name = m->key;
    sim_cfg.device_id = m->device_id;
    sim_cfg.device_name = m->name;
    sim_cfg.tiles = m->tiles;
    sim_cfg.cards = 1;
    v = getenv("ZESIM_CARDS");
    if (v != NULL) {
        uint64_t c = 0;
        if (parse_u64(v, &c) && c >= 1 && c <= SIM_MAX_CARDS) sim_cfg.cards = (uint32_t)c;
        else cfg_warn("ZESIM_CARDS", v, "1");
    }
    /* Read by Intel's driver, so by us: which tiles this process sees. */
    sim_cfg.affinity_mask = getenv("ZE_AFFINITY_MASK");
    v = getenv("ZES_ENABLE_SYSMAN");
    sim_cfg.sysman_core = v != NULL && strcmp(v, "1") == 0;
    sim_cfg.xecores_per_tile = m->xecores_per_tile;
    sim_cfg.eus_per_xecore = m->eus_per_xecore;
    sim_cfg.threads_per_eu = m->threads_per_eu;
    sim_cfg.simd_width = m->simd_width;
    sim_cfg.core_clock_mhz = m->clock_mhz;
    sim_cfg.timestamp_hz = m->timestamp_hz;
    sim_cfg.timestamp_valid_bits = m->ts_bits;
    sim_cfg.kernel_timestamp_valid_bits = m->kts_bits;

    /* Hierarchy: Intel's variable first, ours overrides. COMBINED is
     * treated as COMPOSITE (no separate sub-device root handles). */
    sim_cfg.composite = false;
    v = getenv("ZE_FLAT_DEVICE_HIERARCHY");
    if (v != NULL) {
        if (streq_ci(v, "FLAT")) sim_cfg.composite = false;
        else if (streq_ci(v, "COMPOSITE") || streq_ci(v, "COMBINED")) sim_cfg.composite = true;
        else cfg_warn("ZE_FLAT_DEVICE_HIERARCHY", v, "FLAT");
    }
    v = getenv("ZESIM_HIERARCHY");
    if (v != NULL) {
        if (streq_ci(v, "flat")) sim_cfg.composite = false;
        else if (streq_ci(v, "composite") || streq_ci(v, "combined")) sim_cfg.composite = true;
        else cfg_warn("ZESIM_HIERARCHY", v, sim_cfg.composite ? "COMPOSITE" : "FLAT");
    }

    sim_cfg.kmd = m->default_kmd;
    v = getenv("ZESIM_KMD");
    if (v != NULL) {
        if (streq_ci(v, "i915")) sim_cfg.kmd = SIM_KMD_I915_PRELIM;
        else if (streq_ci(v, "xe")) sim_cfg.kmd = SIM_KMD_XE;
        else cfg_warn("ZESIM_KMD", v, m->default_kmd == SIM_KMD_XE ? "xe" : "i915");
    }

    /* Like Intel's driver: metrics only with ZET_ENABLE_METRICS=1. */
    sim_cfg.metrics_enabled = false;
    v = getenv("ZET_ENABLE_METRICS");
    if (v != NULL) {
        if (strcmp(v, "1") == 0) sim_cfg.metrics_enabled = true;
        else if (strcmp(v, "0") != 0) cfg_warn("ZET_ENABLE_METRICS", v, "0 (metrics disabled)");
    }
    sim_cfg.metrics_permitted = true;
    v = getenv("ZESIM_METRICS_PERMISSION");
    if (v != NULL) {
        if (streq_ci(v, "denied")) sim_cfg.metrics_permitted = false;
        else if (!streq_ci(v, "granted")) cfg_warn("ZESIM_METRICS_PERMISSION", v, "granted");
    }
    sim_cfg.metric_tracer = false;
    v = getenv("ZESIM_METRIC_TRACER");
    if (v != NULL) {
        if (strcmp(v, "1") == 0) sim_cfg.metric_tracer = true;
        else if (strcmp(v, "0") != 0) cfg_warn("ZESIM_METRIC_TRACER", v, "0");
    }

    sim_cfg.builtin_kernels = false;
    v = getenv("ZESIM_BUILTIN_KERNELS");
    if (v != NULL) {
        if (strcmp(v, "1") == 0) sim_cfg.builtin_kernels = true;
        else if (strcmp(v, "0") != 0) cfg_warn("ZESIM_BUILTIN_KERNELS", v, "0");
    }

    sim_cfg.euss_poll_ns = 0;
    v = getenv("ZESIM_EUSS_POLL_NS");
    if (v != NULL && (!parse_u64(v, &sim_cfg.euss_poll_ns) || sim_cfg.euss_poll_ns > 1000000000ull)) {
        sim_cfg.euss_poll_ns = 0;
        cfg_warn("ZESIM_EUSS_POLL_NS", v, "0");
    }

    sim_cfg.seed = 1;
    v = getenv("ZESIM_SEED");
    if (v != NULL && !parse_u64(v, &sim_cfg.seed)) cfg_warn("ZESIM_SEED", v, "1");

    /* A GPU's timestamp counter runs from boot, not from the process's
     * zeInit: by default the ticks start at a boot time drawn from the
     * seed, between 1 hour and 8 days (so the 32-bit kernel timestamps
     * wrap within minutes of a run, as on hardware). */
    uint64_t boot_s = 3600 + sim_mix64(sim_cfg.seed ^ 0x626f6f74ull) % (8ull * 24 * 3600 - 3600);
    sim_cfg.timestamp_offset_ticks = boot_s * sim_cfg.timestamp_hz;
    v = getenv("ZESIM_TIMESTAMP_OFFSET");
    if (v != NULL && !parse_u64(v, &sim_cfg.timestamp_offset_ticks)) {
        sim_cfg.timestamp_offset_ticks = boot_s * sim_cfg.timestamp_hz;
        cfg_warn("ZESIM_TIMESTAMP_OFFSET", v, "a boot time from ZESIM_SEED");
    }

    v = getenv("ZESIM_GROUND_TRUTH");
    sim_cfg.ground_truth_path = (v != NULL && *v != '\0') ? strdup(v) : NULL;
    if (v != NULL && *v == '\0') cfg_warn("ZESIM_GROUND_TRUTH", v, "no ground truth");

    sim_cfg.time_scale = 1.0;
    v = getenv("ZESIM_TIME_SCALE");
    if (v != NULL) {
        char *end = NULL;
        errno = 0;
        double d = strtod(v, &end);
        if (errno != 0 || end == v || *end != '\0' || !(d >= 0.0) || d > 1e6)
            cfg_warn("ZESIM_TIME_SCALE", v, "1.0");
        else
            sim_cfg.time_scale = d;
    }

    sim_cfg.launch_overhead_ns = 2000;
    sim_cfg.default_ps_per_item = 10;
    v = getenv("ZESIM_KERNEL_COST");
    sim_cfg.kernel_cost = v != NULL ? strdup(v) : NULL;
    if (v != NULL) parse_kernel_cost(v);

    sim_cfg.log = false;
    v = getenv("ZESIM_LOG");
    if (v != NULL) {
        if (strcmp(v, "1") == 0) sim_cfg.log = true;
        else if (strcmp(v, "0") != 0) cfg_warn("ZESIM_LOG", v, "0");
    }
    set_queue_groups();
}

/* ================================================================== */
/* Small helpers                                                       */
/* ================================================================== */

uint64_t sim_hash_str(const char *s) {
    /* FNV-1a, then mixed: stable across runs and platforms. */
    uint64_t h = 0xcbf29ce484222325ull;
    if (s != NULL)
        for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return sim_mix64(h);
}

const char *sim_json_str(const char *s, char *buf, size_t cap) {
    size_t o = 0;
    if (cap == 0) return buf;
    for (; s != NULL && *s; s++) {
        unsigned char c = (unsigned char)*s;
        char tmp[8];
        const char *rep = NULL;
        size_t n;
        if (c == '"') rep = "\\\"";
        else if (c == '\\') rep = "\\\\";
        else if (c == '\n') rep = "\\n";
        else if (c == '\r') rep = "\\r";
        else if (c == '\t') rep = "\\t";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(tmp, sizeof(tmp), "\\u%04x", c);
            rep = tmp;
        } else if (c >= 0x80) {
            /* Valid UTF-8 passes through; any other byte becomes U+FFFD,
             * so that every line stays valid JSON. */
            size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
            size_t k = 1;
            while (len && k < len && ((unsigned char)s[k] & 0xc0) == 0x80) k++;
            if (len >= 2 && k == len && !(len == 2 && c < 0xc2)) {
                if (o + len + 1 > cap) break;
                memcpy(buf + o, s, len);
                o += len;
                s += len - 1;
                continue;
            }
            rep = "\\ufffd";
        }
        n = rep ? strlen(rep) : 1;
        if (o + n + 1 > cap) break;
        if (rep) memcpy(buf + o, rep, n);
        else buf[o] = (char)c;
        o += n;
    }
    buf[o] = '\0';
    return buf;
}

void sim_log(const char *fmt, ...) {
    if (!sim_cfg.log) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "zesim: %s\n", line);
}

/* ================================================================== */
/* Clocks                                                              */
/* ================================================================== */

uint64_t sim_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sim_sleep_until(uint64_t t, uint64_t max_ns) {
    /* clock_nanosleep does not accept CLOCK_MONOTONIC_RAW, so sleep
     * relative to a fresh reading. */
    uint64_t now = sim_now_ns();
    if (t <= now) return;
    uint64_t d = t - now;
    if (d > max_ns) d = max_ns;
    if (d == 0) return;
    struct timespec req = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)}, rem;
    while (nanosleep(&req, &rem) != 0 && errno == EINTR) req = rem;
}

/* ticks = offset + floor((host_ns - epoch) * hz / 1e9), exact in 128 bits,
 * floor also for host times before the epoch. */
uint64_t sim_dev_ticks(const sim_device_t *dev, uint64_t host_ns) {
    __int128 d = (__int128)host_ns - (__int128)dev->epoch_ns;
    __int128 num = d * (__int128)sim_cfg.timestamp_hz;
    __int128 q = num / 1000000000;
    if (num % 1000000000 != 0 && num < 0) q -= 1;
    return sim_cfg.timestamp_offset_ticks + (uint64_t)q;
}

/* Inverse: the first host ns at which the device clock reads `ticks`
 * (ceil), so sim_dev_ticks(sim_dev_host_ns(k)) == k for every k. */
uint64_t sim_dev_host_ns(const sim_device_t *dev, uint64_t ticks) {
    __int128 k = (__int128)(int64_t)(ticks - sim_cfg.timestamp_offset_ticks);
    __int128 num = k * 1000000000;
    __int128 hz = (__int128)sim_cfg.timestamp_hz;
    __int128 q = num / hz;
    if (num % hz != 0 && num > 0) q += 1;
    return (uint64_t)((__int128)dev->epoch_ns + q);
}

/* ================================================================== */
/* Ground truth                                                        */
/* ================================================================== */

static pthread_mutex_t gt_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *gt_file;
static atomic_bool gt_failed;

bool sim_gt_enabled(void) { return sim_cfg.ground_truth_path != NULL && !atomic_load(&gt_failed); }

/* fork(): flush first, so that parent and child do not both write the
 * lines buffered before the fork. */
static void gt_atfork_prepare(void) {
    pthread_mutex_lock(&gt_lock);
    if (gt_file != NULL) fflush(gt_file);
}
static void gt_atfork_done(void) { pthread_mutex_unlock(&gt_lock); }

static const char *kmd_name(void) { return sim_cfg.kmd == SIM_KMD_XE ? "xe" : "i915"; }

/* Called with gt_lock held. */
static bool gt_open_locked(void) {
    if (gt_file != NULL) return true;
    if (atomic_load(&gt_failed) || sim_cfg.ground_truth_path == NULL) return false;
    int fd = open(sim_cfg.ground_truth_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) gt_file = fdopen(fd, "w");
    if (gt_file == NULL) {
        if (fd >= 0) close(fd);
        atomic_store(&gt_failed, true);
        fprintf(stderr, "zesim: cannot open ZESIM_GROUND_TRUTH=\"%s\": %s\n", sim_cfg.ground_truth_path,
                strerror(errno));
        return false;
    }
    setvbuf(gt_file, NULL, _IOFBF, 1 << 16);
    char name[256], mask[256];
    fprintf(gt_file,
            "{\"type\":\"config\",\"model\":\"%s\",\"device_name\":\"%s\",\"device_id\":%u,"
            "\"hierarchy\":\"%s\",\"tiles\":%u,\"xecores_per_tile\":%u,\"eus_per_xecore\":%u,"
            "\"threads_per_eu\":%u,\"timestamp_hz\":%llu,\"timestamp_valid_bits\":%u,"
            "\"kernel_timestamp_valid_bits\":%u,\"timestamp_offset_ticks\":%llu,\"seed\":%llu,"
            "\"kmd\":\"%s\",\"time_scale\":%.17g,\"cards\":%u,\"affinity_mask\":\"%s\",\"pid\":%ld,\"time_ns\":%llu}\n",
            sim_cfg.model_name, sim_json_str(sim_cfg.device_name, name, sizeof(name)), sim_cfg.device_id,
            sim_cfg.composite ? "COMPOSITE" : "FLAT", sim_cfg.tiles, sim_cfg.xecores_per_tile,
            sim_cfg.eus_per_xecore, sim_cfg.threads_per_eu, (unsigned long long)sim_cfg.timestamp_hz,
            sim_cfg.timestamp_valid_bits, sim_cfg.kernel_timestamp_valid_bits,
            (unsigned long long)sim_cfg.timestamp_offset_ticks, (unsigned long long)sim_cfg.seed, kmd_name(),
            sim_cfg.time_scale, sim_cfg.cards,
            sim_json_str(sim_cfg.affinity_mask ? sim_cfg.affinity_mask : "", mask, sizeof(mask)), (long)getpid(),
            (unsigned long long)sim_now_ns());
    return true;
}

void sim_gt_printf(const char *fmt, ...) {
    if (!sim_gt_enabled()) return;
    pthread_mutex_lock(&gt_lock);
    if (gt_open_locked()) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(gt_file, fmt, ap);
        va_end(ap);
        fputc('\n', gt_file);
    }
    pthread_mutex_unlock(&gt_lock);
}

void sim_gt_flush(void) {
    pthread_mutex_lock(&gt_lock);
    if (gt_file != NULL) fflush(gt_file);
    pthread_mutex_unlock(&gt_lock);
}

__attribute__((destructor)) static void sim_core_fini(void) { sim_gt_flush(); }

/* ================================================================== */
/* Driver and device creation                                          */
/* ================================================================== */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static ze_result_t init_result = ZE_RESULT_ERROR_UNINITIALIZED;

static sim_device_t *device_new(sim_driver_t *drv, sim_device_t *parent, uint32_t index, uint32_t xecores,
                                uint32_t first_xecore, uint64_t epoch) {
    sim_device_t *d = calloc(1, sizeof(*d));
    if (d == NULL) return NULL;
    sim_obj_init(&d->obj, SIM_K_DEVICE);
    d->driver = drv;
    d->parent = parent;
    d->index = index;
    d->xecores = xecores;
    d->first_xecore = first_xecore;
    d->ns_per_tick_q32 = (uint64_t)(((__int128)1000000000 << 32) / sim_cfg.timestamp_hz);
    d->epoch_ns = epoch;
    pthread_mutex_init(&d->exec_lock, NULL);
    pthread_mutex_init(&d->run_lock, NULL);
    atomic_init(&d->runs_incoming, NULL);
    atomic_init(&d->runs_incoming_n, 0);
    atomic_init(&d->runs_free, NULL);
    atomic_init(&d->sampling_active, false);
    return d;
}

static void sim_init_once(void) {
    sim_config_load();
    sim_driver_t *drv = calloc(1, sizeof(*drv));
    if (drv == NULL) return;
    sim_obj_init(&drv->obj, SIM_K_DRIVER);
    /* Driver UUID: deterministic, derived from the driver version and model. */
    uint64_t a = sim_hash_str("zestall-sim-driver"), b = sim_hash_str(sim_cfg.model_name);
    memcpy(drv->uuid.id, &a, 8);
    memcpy(drv->uuid.id + 8, &b, 8);

    /* One timestamp clock for the node: every (sub)device shares the epoch. */
    uint64_t epoch = sim_now_ns();
    uint32_t tiles = sim_cfg.tiles, per = sim_cfg.xecores_per_tile;
    /* A single-tile card has no sub-devices in either mode. */
    bool composite = sim_cfg.composite && tiles > 1;
    sim_cfg.composite = composite;
    sim_node_dev_t sel[SIM_MAX_CARDS * 2];
    char bad[80];
    uint32_t nsel = sim_node_select(sim_cfg.cards, tiles, composite, sim_cfg.affinity_mask, sel,
                                    SIM_MAX_CARDS * 2, bad, sizeof(bad));
    if (bad[0] != '\0')
        fprintf(stderr, "zesim: ZE_AFFINITY_MASK=\"%s\": entry \"%s\" is not an index, X or X.Y; ignored\n",
                sim_cfg.affinity_mask, bad);
    if (nsel == 0)
        fprintf(stderr, "zesim: ZE_AFFINITY_MASK=\"%s\" selects no device of %u card(s) x %u tile(s) (%s)\n",
                sim_cfg.affinity_mask ? sim_cfg.affinity_mask : "", sim_cfg.cards, tiles,
                composite ? "COMPOSITE: X = card, X.Y = tile Y of card X" : "FLAT: X = tile in card-major order");
    drv->num_devices = nsel;
    drv->devices = calloc(nsel ? nsel : 1, sizeof(*drv->devices));
    if (drv->devices == NULL) return;
    for (uint32_t i = 0; i < nsel; i++) {
        uint32_t card = sel[i].card, bits = sel[i].tiles, ntiles = (uint32_t)__builtin_popcount(bits);
        uint32_t first_tile = (uint32_t)__builtin_ctz(bits);
        uint32_t node_tile = card * tiles + first_tile;
        /* Several tiles: a COMPOSITE card with one sub-device per tile
         * (contiguous Xe-cores: a PVC card has two tiles). One tile: a root
         * device of that tile alone, also in COMPOSITE mode, as Intel's
         * driver makes a card with one tile left by the mask. */
        sim_device_t *root = device_new(drv, NULL, i, ntiles * per, node_tile * per, epoch);
        if (root == NULL) return;
        root->card = card;
        root->tile = first_tile;
        root->node_tile = node_tile;
        if (ntiles > 1) {
            root->subdevices = calloc(ntiles, sizeof(*root->subdevices));
            if (root->subdevices == NULL) return;
            uint32_t s = 0;
            for (uint32_t t = 0; t < tiles && t < 32; t++) {
                if (!(bits & (1u << t))) continue;
                sim_device_t *sd = device_new(drv, root, t, per, (card * tiles + t) * per, epoch);
                if (sd == NULL) return;
                sd->card = card;
                sd->tile = t;
                sd->node_tile = card * tiles + t;
                root->subdevices[s++] = sd;
            }
            root->num_subdevices = ntiles;
        }
        drv->devices[i] = root;
    }
    sim_driver = drv;
    /* Other processes of the machine see this one on its tiles (Sysman). */
    for (uint32_t i = 0; i < drv->num_devices; i++) {
        sim_device_t *r = drv->devices[i];
        if (r->num_subdevices == 0) sim_machine_register(r);
        for (uint32_t s = 0; s < r->num_subdevices; s++) sim_machine_register(r->subdevices[s]);
    }
    sim_metrics_init();
    if (sim_gt_enabled()) {
        pthread_atfork(gt_atfork_prepare, gt_atfork_done, gt_atfork_done);
        /* Write the config line now, so that it exists even if nothing else happens. */
        pthread_mutex_lock(&gt_lock);
        gt_open_locked();
        pthread_mutex_unlock(&gt_lock);
        /* Which physical card and tile each device is (ZE_AFFINITY_MASK). */
        for (uint32_t i = 0; i < drv->num_devices; i++) {
            sim_device_t *r = drv->devices[i];
            for (uint32_t s = 0; s <= r->num_subdevices; s++) {
                sim_device_t *d = s == 0 ? r : r->subdevices[s - 1];
                if (s == 0 && r->num_subdevices > 0) {
                    sim_gt_printf("{\"type\":\"device\",\"device\":%u,\"subdevice\":-1,\"card\":%u,\"tiles\":%u}",
                                  i, r->card, r->num_subdevices);
                    continue;
                }
                sim_gt_printf("{\"type\":\"device\",\"device\":%u,\"subdevice\":%d,\"card\":%u,\"tile\":%u,"
                              "\"node_tile\":%u,\"tiles\":1}",
                              i, d->parent ? (int)d->index : -1, d->card, d->tile, d->node_tile);
            }
        }
        sim_gt_flush();
    }
    sim_log("zeInit: model %s, %u card(s), %u root device(s), %s", sim_cfg.model_name, sim_cfg.cards,
            drv->num_devices, composite ? "COMPOSITE" : "FLAT");
    init_result = ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeInit(ze_init_flags_t flags) {
    pthread_once(&init_once, sim_init_once);
    if (init_result != ZE_RESULT_SUCCESS) return init_result;
    /* A GPU driver does not answer a VPU-only request. */
    if (flags != 0 && (flags & ZE_INIT_FLAG_GPU_ONLY) == 0) return ZE_RESULT_ERROR_UNINITIALIZED;
    return ZE_RESULT_SUCCESS;
}

#define CHECK_INIT() \
    do { \
        if (sim_driver == NULL) return ZE_RESULT_ERROR_UNINITIALIZED; \
    } while (0)

/* Fills a handle array following the Level-Zero count protocol. */
static ze_result_t fill_handles(uint32_t *pCount, void **out, void *const *src, uint32_t n) {
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || out == NULL) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n) *pCount = n;
    for (uint32_t i = 0; i < *pCount; i++) out[i] = src[i];
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers) {
    CHECK_INIT();
    void *src[1] = {sim_driver};
    return fill_handles(pCount, (void **)phDrivers, src, 1);
}

static sim_driver_t *drv_of(ze_driver_handle_t h) {
    sim_driver_t *d = SIM_OBJ(sim_driver_t, h, SIM_K_DRIVER);
    return d;
}

static ze_result_t ZE_APICALL sim_zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version) {
    if (drv_of(hDriver) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (version == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *version = ZE_API_VERSION_1_4;
    return ZE_RESULT_SUCCESS;
}

/* Intel encodes driverVersion as (major << 24) | (minor << 16) | build;
 * we report 1.3.24595 (the build of Debian's intel-opencl-icd). */
#define SIM_DRIVER_VERSION ((1u << 24) | (3u << 16) | 24595u)

static ze_result_t ZE_APICALL sim_zeDriverGetProperties(ze_driver_handle_t hDriver, ze_driver_properties_t *p) {
    sim_driver_t *d = drv_of(hDriver);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->uuid = d->uuid;
    p->driverVersion = SIM_DRIVER_VERSION;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDriverGetIpcProperties(ze_driver_handle_t hDriver, ze_driver_ipc_properties_t *p) {
    if (drv_of(hDriver) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0; /* IPC is not simulated */
    return ZE_RESULT_SUCCESS;
}

/* Only extensions this library actually implements (see README). */
static const struct {
    const char *name;
    uint32_t version;
} sim_extensions[] = {
    {ZE_PCI_PROPERTIES_EXT_NAME, ZE_PCI_PROPERTIES_EXT_VERSION_CURRENT},
    {ZE_EU_COUNT_EXT_NAME, ZE_EU_COUNT_EXT_VERSION_CURRENT},
    {ZE_RELAXED_ALLOCATION_LIMITS_EXP_NAME, ZE_RELAXED_ALLOCATION_LIMITS_EXP_VERSION_CURRENT},
    {ZE_GLOBAL_OFFSET_EXP_NAME, ZE_GLOBAL_OFFSET_EXP_VERSION_CURRENT},
    {ZE_EVENT_QUERY_TIMESTAMPS_EXP_NAME, ZE_EVENT_QUERY_TIMESTAMPS_EXP_VERSION_CURRENT},
    /* zeEventQueryKernelTimestampsExt: through zeDriverGetExtensionFunctionAddress */
    {SIM_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_NAME, ZE_MAKE_VERSION(1, 0)},
    {ZET_MULTI_METRICS_EXP_NAME, ZE_CALCULATE_MULTIPLE_METRICS_EXP_VERSION_CURRENT},
};

static ze_result_t ZE_APICALL sim_zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                                                                 ze_driver_extension_properties_t *p) {
    if (drv_of(hDriver) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t n = (uint32_t)(sizeof(sim_extensions) / sizeof(sim_extensions[0]));
    if (*pCount == 0 || p == NULL) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n) *pCount = n;
    for (uint32_t i = 0; i < *pCount; i++) {
        memset(p[i].name, 0, sizeof(p[i].name));
        snprintf(p[i].name, sizeof(p[i].name), "%s", sim_extensions[i].name);
        p[i].version = sim_extensions[i].version;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char *name,
                                                                      void **ppFunctionAddress) {
    if (drv_of(hDriver) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (name == NULL || ppFunctionAddress == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    void *f = sim_module_extension(name);
    if (f == NULL) f = sim_metrics_extension(name);
    if (f == NULL) f = sim_exec_extension(name);
    *ppFunctionAddress = f;
    sim_log("zeDriverGetExtensionFunctionAddress(%s) -> %s", name, f ? "found" : "unknown");
    return f != NULL ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* ================================================================== */
/* Devices                                                             */
/* ================================================================== */

static sim_device_t *dev_of(ze_device_handle_t h) { return SIM_OBJ(sim_device_t, h, SIM_K_DEVICE); }

static ze_result_t ZE_APICALL sim_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                                              ze_device_handle_t *phDevices) {
    sim_driver_t *d = drv_of(hDriver);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return fill_handles(pCount, (void **)phDevices, (void *const *)d->devices, d->num_devices);
}

static ze_result_t ZE_APICALL sim_zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount,
                                                        ze_device_handle_t *phSubdevices) {
    sim_device_t *d = dev_of(hDevice);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return fill_handles(pCount, (void **)phSubdevices, (void *const *)d->subdevices, d->num_subdevices);
}

/* Number of tiles a (sub)device spans. */
static uint32_t dev_tiles(const sim_device_t *d) { return d->num_subdevices ? d->num_subdevices : 1; }

static void dev_uuid(const sim_device_t *d, uint8_t out[ZE_MAX_DEVICE_UUID_SIZE]) {
    /* Like Intel's: vendor, device id, PCI location, sub-device id + 1. */
    memset(out, 0, ZE_MAX_DEVICE_UUID_SIZE);
    uint16_t vendor = 0x8086, devid = (uint16_t)sim_cfg.device_id;
    memcpy(out, &vendor, 2);
    memcpy(out + 2, &devid, 2);
    const sim_device_t *root = d->parent ? d->parent : d;
    out[4] = (uint8_t)(sim_model->pci_bus + root->card); /* one PCI bus per card */
    /* The tile of the card + 1 for a device of one tile (a FLAT root, a
     * sub-device, a COMPOSITE card with one tile left); 0 for a whole card. */
    out[8] = (uint8_t)(d->num_subdevices ? 0 : d->tile + 1);
    out[9] = (uint8_t)(d->parent ? d->index + 1 : 0);
}

static ze_result_t ZE_APICALL sim_zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *p) {
    sim_device_t *d = dev_of(hDevice);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const sim_model_t *m = sim_model;
    uint32_t tiles = dev_tiles(d);
    p->type = ZE_DEVICE_TYPE_GPU;
    p->vendorId = 0x8086;
    p->deviceId = sim_cfg.device_id;
    p->flags = 0;
    if (sim_cfg.platform == SIM_PLATFORM_PVC) p->flags |= ZE_DEVICE_PROPERTY_FLAG_ECC | ZE_DEVICE_PROPERTY_FLAG_ONDEMANDPAGING;
    p->subdeviceId = 0;
    if (d->parent != NULL) {
        p->flags |= ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE;
        p->subdeviceId = d->index;
    }
    p->coreClockRate = sim_cfg.core_clock_mhz;
    p->maxMemAllocSize = m->mem_per_tile * tiles;
    p->maxHardwareContexts = 4096;
    p->maxCommandQueuePriority = 0;
    p->numThreadsPerEU = sim_cfg.threads_per_eu;
    p->physicalEUSimdWidth = sim_cfg.simd_width;
    p->numEUsPerSubslice = sim_cfg.eus_per_xecore;
    p->numSlices = m->slices_per_tile * tiles;
    p->numSubslicesPerSlice = sim_cfg.xecores_per_tile / m->slices_per_tile;
    if (p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2)
        p->timerResolution = sim_cfg.timestamp_hz; /* cycles per second */
    else
        p->timerResolution = (1000000000ull + sim_cfg.timestamp_hz / 2) / sim_cfg.timestamp_hz; /* ns per cycle */
    p->timestampValidBits = sim_cfg.timestamp_valid_bits;
    p->kernelTimestampValidBits = sim_cfg.kernel_timestamp_valid_bits;
    dev_uuid(d, p->uuid.id);
    memset(p->name, 0, sizeof(p->name));
    snprintf(p->name, sizeof(p->name), "%s", sim_cfg.device_name);
    /* Known extension structures; unknown ones are left untouched. */
    for (sim_base_desc_t *e = (sim_base_desc_t *)p->pNext; e != NULL; e = (sim_base_desc_t *)e->pNext) {
        if (e->stype == ZE_STRUCTURE_TYPE_EU_COUNT_EXT)
            ((ze_eu_count_ext_t *)e)->numTotalEUs = d->xecores * sim_cfg.eus_per_xecore;
        else if (e->stype == SIM_STYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES)
            ((sim_event_query_kernel_timestamps_ext_properties_t *)e)->flags =
                SIM_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_KERNEL | SIM_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_SYNCHRONIZED;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetComputeProperties(ze_device_handle_t hDevice,
                                                               ze_device_compute_properties_t *p) {
    if (dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->maxTotalGroupSize = 1024;
    p->maxGroupSizeX = 1024;
    p->maxGroupSizeY = 1024;
    p->maxGroupSizeZ = 1024;
    p->maxGroupCountX = UINT32_MAX;
    p->maxGroupCountY = UINT32_MAX;
    p->maxGroupCountZ = UINT32_MAX;
    p->maxSharedLocalMemory = sim_model->slm_bytes;
    memset(p->subGroupSizes, 0, sizeof(p->subGroupSizes));
    p->numSubGroupSizes = sim_model->num_subgroup_sizes;
    for (uint32_t i = 0; i < p->numSubGroupSizes; i++) p->subGroupSizes[i] = sim_model->subgroup_sizes[i];
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetModuleProperties(ze_device_handle_t hDevice,
                                                              ze_device_module_properties_t *p) {
    if (dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const ze_device_fp_flags_t fp = ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN |
                                    ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST | ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO |
                                    ZE_DEVICE_FP_FLAG_ROUND_TO_INF | ZE_DEVICE_FP_FLAG_FMA;
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 2);
    p->flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS | ZE_DEVICE_MODULE_FLAG_DP4A;
    if (sim_model->fp64) p->flags |= ZE_DEVICE_MODULE_FLAG_FP64;
    p->fp16flags = fp;
    p->fp32flags = fp | ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT;
    p->fp64flags = sim_model->fp64 ? fp : 0;
    p->maxArgumentsSize = 2048;
    p->printfBufferSize = 4 * 1024 * 1024;
    /* Native-binary compatibility id: derived from the model's platform. */
    uint64_t a = sim_hash_str("zestall-sim-native"), b = (uint64_t)sim_cfg.platform;
    memcpy(p->nativeKernelSupported.id, &a, 8);
    memcpy(p->nativeKernelSupported.id + 8, &b, 8);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                                         ze_command_queue_group_properties_t *p) {
    if (dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint32_t n = sim_cfg.num_queue_groups;
    if (*pCount == 0 || p == NULL) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n) *pCount = n;
    for (uint32_t i = 0; i < *pCount; i++) {
        p[i].flags = sim_cfg.queue_groups[i].flags;
        p[i].numQueues = sim_cfg.queue_groups[i].num_queues;
        p[i].maxMemoryFillPatternSize =
            (p[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ? sizeof(uint64_t) * 16 : 4;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                              ze_device_memory_properties_t *p) {
    sim_device_t *d = dev_of(hDevice);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || p == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    *pCount = 1;
    p->flags = 0;
    p->maxClockRate = sim_model->mem_clock_mhz;
    p->maxBusWidth = sim_model->mem_bus_width;
    p->totalSize = sim_model->mem_per_tile * dev_tiles(d);
    memset(p->name, 0, sizeof(p->name));
    snprintf(p->name, sizeof(p->name), "%s", sim_model->mem_name);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetMemoryAccessProperties(ze_device_handle_t hDevice,
                                                                    ze_device_memory_access_properties_t *p) {
    if (dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const ze_memory_access_cap_flags_t all = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC |
                                             ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT |
                                             ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;
    p->hostAllocCapabilities = all;
    p->deviceAllocCapabilities = all;
    p->sharedSingleDeviceAllocCapabilities = all;
    p->sharedCrossDeviceAllocCapabilities = sim_cfg.platform == SIM_PLATFORM_PVC ? all : 0;
    p->sharedSystemAllocCapabilities = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                             ze_device_cache_properties_t *p) {
    sim_device_t *d = dev_of(hDevice);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || p == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    *pCount = 1;
    p->flags = 0;
    p->cacheSize = (size_t)(sim_model->cache_per_tile * dev_tiles(d));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetImageProperties(ze_device_handle_t hDevice,
                                                             ze_device_image_properties_t *p) {
    if (dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Images are not simulated: every limit 0 means "unsupported". */
    p->maxImageDims1D = p->maxImageDims2D = p->maxImageDims3D = 0;
    p->maxImageBufferSize = 0;
    p->maxImageArraySlices = p->maxSamplers = p->maxReadImageArgs = p->maxWriteImageArgs = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetExternalMemoryProperties(ze_device_handle_t hDevice,
                                                                      ze_device_external_memory_properties_t *p) {
    if (dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->memoryAllocationImportTypes = p->memoryAllocationExportTypes = 0;
    p->imageImportTypes = p->imageExportTypes = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetP2PProperties(ze_device_handle_t hDevice, ze_device_handle_t hPeer,
                                                           ze_device_p2p_properties_t *p) {
    if (dev_of(hDevice) == NULL || dev_of(hPeer) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* All simulated (sub)devices are tiles of one card. */
    p->flags = ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS | ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeer,
                                                        ze_bool_t *value) {
    if (dev_of(hDevice) == NULL || dev_of(hPeer) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (value == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *value = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceGetStatus(ze_device_handle_t hDevice) {
    return dev_of(hDevice) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

/* The device value is what the timestamp register holds: masked to
 * timestampValidBits (36 on PVC), so it wraps like the hardware's. */
static ze_result_t ZE_APICALL sim_zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice, uint64_t *hostTimestamp,
                                                              uint64_t *deviceTimestamp) {
    sim_device_t *d = dev_of(hDevice);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (hostTimestamp == NULL || deviceTimestamp == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    uint64_t now = sim_now_ns();
    uint64_t mask = sim_cfg.timestamp_valid_bits >= 64 ? UINT64_MAX : ((1ull << sim_cfg.timestamp_valid_bits) - 1);
    *hostTimestamp = now;
    *deviceTimestamp = sim_dev_ticks(d, now) & mask;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice, ze_pci_ext_properties_t *p) {
    if (dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Every tile of the card shares the card's PCI function; one bus per card. */
    p->address.domain = 0;
    p->address.bus = (uint32_t)sim_model->pci_bus + sim_root(dev_of(hDevice))->card;
    p->address.device = 0;
    p->address.function = 0;
    p->maxSpeed.genVersion = sim_model->pci_gen;
    p->maxSpeed.width = sim_model->pci_width;
    /* GT/s per lane × 128/130 encoding / 8 bits, in bytes/s. */
    int64_t gts = sim_model->pci_gen >= 5 ? 32 : sim_model->pci_gen == 4 ? 16 : 8;
    p->maxSpeed.maxBandwidth = gts * 1000000000ll / 8 * 128 / 130 * sim_model->pci_width;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeDeviceReserveCacheExt(ze_device_handle_t hDevice, size_t cacheLevel,
                                                          size_t cacheReservationSize) {
    (void)cacheLevel;
    (void)cacheReservationSize;
    return dev_of(hDevice) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

static ze_result_t ZE_APICALL sim_zeDeviceSetCacheAdviceExt(ze_device_handle_t hDevice, void *ptr, size_t regionSize,
                                                            ze_cache_ext_region_t cacheRegion) {
    (void)ptr;
    (void)regionSize;
    (void)cacheRegion;
    return dev_of(hDevice) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

static ze_result_t ZE_APICALL sim_zetDeviceGetDebugProperties(zet_device_handle_t hDevice,
                                                              zet_device_debug_properties_t *p) {
    if (dev_of((ze_device_handle_t)hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0; /* no debugger attach */
    return ZE_RESULT_SUCCESS;
}

/* ================================================================== */
/* Contexts                                                            */
/* ================================================================== */

static sim_context_t *ctx_of(ze_context_handle_t h) { return SIM_OBJ(sim_context_t, h, SIM_K_CONTEXT); }

static ze_result_t ZE_APICALL sim_zeContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                                    uint32_t numDevices, ze_device_handle_t *phDevices,
                                                    ze_context_handle_t *phContext) {
    sim_driver_t *drv = drv_of(hDriver);
    if (drv == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phContext == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (numDevices > 0 && phDevices == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numDevices; i++)
        if (dev_of(phDevices[i]) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_context_t *c = calloc(1, sizeof(*c));
    if (c == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_obj_init(&c->obj, SIM_K_CONTEXT);
    c->driver = drv;
    *phContext = (ze_context_handle_t)c;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                                  ze_context_handle_t *phContext) {
    return sim_zeContextCreateEx(hDriver, desc, 0, NULL, phContext);
}

static ze_result_t ZE_APICALL sim_zeContextDestroy(ze_context_handle_t hContext) {
    sim_context_t *c = ctx_of(hContext);
    if (c == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Drop the context's metric-group activations before its address can
     * be reused by a new context. */
    sim_metrics_context_destroy(c);
    sim_obj_kill(&c->obj);
    free(c);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextGetStatus(ze_context_handle_t hContext) {
    return ctx_of(hContext) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

static ze_result_t ZE_APICALL sim_zeContextSystemBarrier(ze_context_handle_t hContext, ze_device_handle_t hDevice) {
    if (ctx_of(hContext) == NULL || dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                              void *ptr, size_t size) {
    (void)size;
    if (ctx_of(hContext) == NULL || dev_of(hDevice) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextEvictMemory(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                       void *ptr, size_t size) {
    return sim_zeContextMakeMemoryResident(hContext, hDevice, ptr, size);
}

static ze_result_t ZE_APICALL sim_zeContextMakeImageResident(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                             ze_image_handle_t hImage) {
    if (ctx_of(hContext) == NULL || dev_of(hDevice) == NULL || hImage == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeContextEvictImage(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                      ze_image_handle_t hImage) {
    return sim_zeContextMakeImageResident(hContext, hDevice, hImage);
}

/* ================================================================== */
/* Memory                                                              */
/* ================================================================== */

typedef struct sim_alloc {
    uintptr_t base;
    size_t size;
    ze_memory_type_t type;
    sim_device_t *dev;
    uint64_t id;
} sim_alloc_t;

/* Sorted by base; binary search finds interior pointers. */
static pthread_rwlock_t mem_lock = PTHREAD_RWLOCK_INITIALIZER;
static sim_alloc_t *mem_tab;
static size_t mem_n, mem_cap;
static uint64_t mem_next_id = 1;

/* Index of the last allocation with base <= p, or (size_t)-1. Lock held. */
static size_t mem_find_le(uintptr_t p) {
    size_t lo = 0, hi = mem_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mem_tab[mid].base <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo == 0 ? (size_t)-1 : lo - 1;
}

static const sim_alloc_t *mem_find(const void *ptr) {
    uintptr_t p = (uintptr_t)ptr;
    size_t i = mem_find_le(p);
    if (i == (size_t)-1) return NULL;
    if (p - mem_tab[i].base >= mem_tab[i].size) return NULL;
    return &mem_tab[i];
}

bool sim_mem_lookup(const void *ptr, size_t *size, ze_memory_type_t *type, sim_device_t **dev) {
    bool found = false;
    pthread_rwlock_rdlock(&mem_lock);
    const sim_alloc_t *a = mem_find(ptr);
    if (a != NULL) {
        found = true;
        if (size) *size = a->size - ((uintptr_t)ptr - a->base);
        if (type) *type = a->type;
        if (dev) *dev = a->dev;
    }
    pthread_rwlock_unlock(&mem_lock);
    return found;
}

static ze_result_t mem_register(void *p, size_t size, ze_memory_type_t type, sim_device_t *dev) {
    pthread_rwlock_wrlock(&mem_lock);
    if (mem_n == mem_cap) {
        size_t nc = mem_cap ? mem_cap * 2 : 64;
        sim_alloc_t *n = realloc(mem_tab, nc * sizeof(*n));
        if (n == NULL) {
            pthread_rwlock_unlock(&mem_lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        mem_tab = n;
        mem_cap = nc;
    }
    size_t i = mem_find_le((uintptr_t)p) + 1; /* (size_t)-1 + 1 == 0 */
    memmove(&mem_tab[i + 1], &mem_tab[i], (mem_n - i) * sizeof(*mem_tab));
    mem_tab[i] = (sim_alloc_t){(uintptr_t)p, size, type, dev, mem_next_id++};
    mem_n++;
    pthread_rwlock_unlock(&mem_lock);
    return ZE_RESULT_SUCCESS;
}

/* Relaxed limits (ZE_experimental_relaxed_allocation_limits) in a pNext chain. */
static bool relaxed_max_size(const void *pNext) {
    for (const sim_base_desc_t *e = pNext; e != NULL; e = e->pNext)
        if (e->stype == ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC &&
            (((const ze_relaxed_allocation_limits_exp_desc_t *)e)->flags & ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE))
            return true;
    return false;
}

static ze_result_t mem_alloc(ze_memory_type_t type, sim_device_t *dev, const void *pNext1, const void *pNext2,
                             size_t size, size_t alignment, void **pptr) {
    if (size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment != 0 && (alignment & (alignment - 1)) != 0) return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    uint64_t limit = sim_model->mem_per_tile * (dev ? dev_tiles(dev) : sim_cfg.tiles);
    if (size > limit && !relaxed_max_size(pNext1) && !relaxed_max_size(pNext2)) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    /* Real host memory: at least 64-byte (cache-line) aligned, like a GPU allocation. */
    size_t align = alignment < 64 ? 64 : alignment;
    void *p = NULL;
    if (posix_memalign(&p, align, size) != 0 || p == NULL)
        return type == ZE_MEMORY_TYPE_HOST ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    ze_result_t r = mem_register(p, size, type, dev);
    if (r != ZE_RESULT_SUCCESS) {
        free(p);
        return r;
    }
    *pptr = p;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeMemAllocShared(ze_context_handle_t hContext,
                                                   const ze_device_mem_alloc_desc_t *device_desc,
                                                   const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                                                   size_t alignment, ze_device_handle_t hDevice, void **pptr) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_device_t *dev = NULL;
    if (hDevice != NULL && (dev = dev_of(hDevice)) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (device_desc == NULL || host_desc == NULL || pptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return mem_alloc(ZE_MEMORY_TYPE_SHARED, dev, device_desc->pNext, host_desc->pNext, size, alignment, pptr);
}

static ze_result_t ZE_APICALL sim_zeMemAllocDevice(ze_context_handle_t hContext,
                                                   const ze_device_mem_alloc_desc_t *device_desc, size_t size,
                                                   size_t alignment, ze_device_handle_t hDevice, void **pptr) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_device_t *dev = dev_of(hDevice);
    if (dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (device_desc == NULL || pptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return mem_alloc(ZE_MEMORY_TYPE_DEVICE, dev, device_desc->pNext, NULL, size, alignment, pptr);
}

static ze_result_t ZE_APICALL sim_zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *host_desc,
                                                 size_t size, size_t alignment, void **pptr) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (host_desc == NULL || pptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return mem_alloc(ZE_MEMORY_TYPE_HOST, NULL, host_desc->pNext, NULL, size, alignment, pptr);
}

static ze_result_t ZE_APICALL sim_zeMemFree(ze_context_handle_t hContext, void *ptr) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_rwlock_wrlock(&mem_lock);
    size_t i = mem_find_le((uintptr_t)ptr);
    if (i == (size_t)-1 || mem_tab[i].base != (uintptr_t)ptr) {
        pthread_rwlock_unlock(&mem_lock);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* not the start of an allocation */
    }
    memmove(&mem_tab[i], &mem_tab[i + 1], (mem_n - i - 1) * sizeof(*mem_tab));
    mem_n--;
    pthread_rwlock_unlock(&mem_lock);
    free(ptr);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeMemFreeExt(ze_context_handle_t hContext, const ze_memory_free_ext_desc_t *desc,
                                               void *ptr) {
    if (desc == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return sim_zeMemFree(hContext, ptr); /* every policy frees at once: nothing runs concurrently on host memory */
}

static ze_result_t ZE_APICALL sim_zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                                                          ze_memory_allocation_properties_t *p,
                                                          ze_device_handle_t *phDevice) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL || p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_rwlock_rdlock(&mem_lock);
    const sim_alloc_t *a = mem_find(ptr);
    if (a == NULL) {
        p->type = ZE_MEMORY_TYPE_UNKNOWN;
        p->id = 0;
        p->pageSize = 0;
        if (phDevice) *phDevice = NULL;
    } else {
        p->type = a->type;
        p->id = a->id;
        p->pageSize = a->type == ZE_MEMORY_TYPE_HOST ? 4096 : (a->size >= (2u << 20) ? (2u << 20) : 65536);
        if (phDevice) *phDevice = (ze_device_handle_t)a->dev;
    }
    pthread_rwlock_unlock(&mem_lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr, void **pBase,
                                                       size_t *pSize) {
    if (ctx_of(hContext) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = ZE_RESULT_SUCCESS;
    pthread_rwlock_rdlock(&mem_lock);
    const sim_alloc_t *a = mem_find(ptr);
    if (a == NULL) {
        r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    } else {
        if (pBase) *pBase = (void *)a->base;
        if (pSize) *pSize = a->size;
    }
    pthread_rwlock_unlock(&mem_lock);
    return r;
}

static ze_result_t ZE_APICALL sim_zeMemGetIpcHandle(ze_context_handle_t hContext, const void *ptr,
                                                    ze_ipc_mem_handle_t *pIpcHandle) {
    (void)ptr;
    (void)pIpcHandle;
    return ctx_of(hContext) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

static ze_result_t ZE_APICALL sim_zeMemOpenIpcHandle(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                     ze_ipc_mem_handle_t handle, ze_ipc_memory_flags_t flags,
                                                     void **pptr) {
    (void)hDevice;
    (void)handle;
    (void)flags;
    (void)pptr;
    return ctx_of(hContext) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

static ze_result_t ZE_APICALL sim_zeMemCloseIpcHandle(ze_context_handle_t hContext, const void *ptr) {
    (void)ptr;
    return ctx_of(hContext) ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

/* ================================================================== */
/* DDI getters                                                         */
/* ================================================================== */

SIM_EXPORT ze_result_t ZE_APICALL zeGetGlobalProcAddrTable(ze_api_version_t version, ze_global_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnInit = sim_zeInit;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetDriverProcAddrTable(ze_api_version_t version, ze_driver_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnGet = sim_zeDriverGet;
    t->pfnGetApiVersion = sim_zeDriverGetApiVersion;
    t->pfnGetProperties = sim_zeDriverGetProperties;
    t->pfnGetIpcProperties = sim_zeDriverGetIpcProperties;
    t->pfnGetExtensionProperties = sim_zeDriverGetExtensionProperties;
    t->pfnGetExtensionFunctionAddress = sim_zeDriverGetExtensionFunctionAddress;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetDeviceProcAddrTable(ze_api_version_t version, ze_device_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnGet = sim_zeDeviceGet;
    t->pfnGetSubDevices = sim_zeDeviceGetSubDevices;
    t->pfnGetProperties = sim_zeDeviceGetProperties;
    t->pfnGetComputeProperties = sim_zeDeviceGetComputeProperties;
    t->pfnGetModuleProperties = sim_zeDeviceGetModuleProperties;
    t->pfnGetCommandQueueGroupProperties = sim_zeDeviceGetCommandQueueGroupProperties;
    t->pfnGetMemoryProperties = sim_zeDeviceGetMemoryProperties;
    t->pfnGetMemoryAccessProperties = sim_zeDeviceGetMemoryAccessProperties;
    t->pfnGetCacheProperties = sim_zeDeviceGetCacheProperties;
    t->pfnGetImageProperties = sim_zeDeviceGetImageProperties;
    t->pfnGetExternalMemoryProperties = sim_zeDeviceGetExternalMemoryProperties;
    t->pfnGetP2PProperties = sim_zeDeviceGetP2PProperties;
    t->pfnCanAccessPeer = sim_zeDeviceCanAccessPeer;
    t->pfnGetStatus = sim_zeDeviceGetStatus;
    t->pfnGetGlobalTimestamps = sim_zeDeviceGetGlobalTimestamps;
    t->pfnReserveCacheExt = sim_zeDeviceReserveCacheExt;
    t->pfnSetCacheAdviceExt = sim_zeDeviceSetCacheAdviceExt;
    t->pfnPciGetPropertiesExt = sim_zeDevicePciGetPropertiesExt;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t version, ze_context_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnCreate = sim_zeContextCreate;
    t->pfnDestroy = sim_zeContextDestroy;
    t->pfnGetStatus = sim_zeContextGetStatus;
    t->pfnSystemBarrier = sim_zeContextSystemBarrier;
    t->pfnMakeMemoryResident = sim_zeContextMakeMemoryResident;
    t->pfnEvictMemory = sim_zeContextEvictMemory;
    t->pfnMakeImageResident = sim_zeContextMakeImageResident;
    t->pfnEvictImage = sim_zeContextEvictImage;
    t->pfnCreateEx = sim_zeContextCreateEx;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnAllocShared = sim_zeMemAllocShared;
    t->pfnAllocDevice = sim_zeMemAllocDevice;
    t->pfnAllocHost = sim_zeMemAllocHost;
    t->pfnFree = sim_zeMemFree;
    t->pfnGetAllocProperties = sim_zeMemGetAllocProperties;
    t->pfnGetAddressRange = sim_zeMemGetAddressRange;
    t->pfnGetIpcHandle = sim_zeMemGetIpcHandle;
    t->pfnOpenIpcHandle = sim_zeMemOpenIpcHandle;
    t->pfnCloseIpcHandle = sim_zeMemCloseIpcHandle;
    t->pfnFreeExt = sim_zeMemFreeExt;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetDeviceProcAddrTable(ze_api_version_t version, zet_device_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnGetDebugProperties = sim_zetDeviceGetDebugProperties;
    return ZE_RESULT_SUCCESS;
}

/* Tables with nothing simulated: every entry NULL, so the loader answers
 * ZE_RESULT_ERROR_UNSUPPORTED_FEATURE. */
#define SIM_EMPTY_GETTER(fn, type) \
    SIM_EXPORT ze_result_t ZE_APICALL fn(ze_api_version_t version, type *t) { \
        SIM_DDI_TABLE_CHECK(version, t); \
        memset(t, 0, sizeof(*t)); \
        return ZE_RESULT_SUCCESS; \
    }

SIM_EMPTY_GETTER(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t)
SIM_EMPTY_GETTER(zeGetImageProcAddrTable, ze_image_dditable_t)
SIM_EMPTY_GETTER(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t)
SIM_EMPTY_GETTER(zeGetSamplerProcAddrTable, ze_sampler_dditable_t)
SIM_EMPTY_GETTER(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t)
SIM_EMPTY_GETTER(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t)
SIM_EMPTY_GETTER(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t)
SIM_EMPTY_GETTER(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t)
SIM_EMPTY_GETTER(zetGetDebugProcAddrTable, zet_debug_dditable_t)
SIM_EMPTY_GETTER(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t)
/* Sysman: only zesDeviceProcessesGetState (which processes use a device;
 * zestall's hint that samples may come from another process). It accepts
 * core device handles, as Intel's driver does with ZES_ENABLE_SYSMAN=1. */
static ze_result_t ZE_APICALL sim_zesDeviceProcessesGetState(zes_device_handle_t hDevice, uint32_t *pCount,
                                                             zes_process_state_t *pProcesses) {
    sim_device_t *d = dev_of((ze_device_handle_t)hDevice);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Intel's driver serves core handles only with ZES_ENABLE_SYSMAN=1 set
     * at its initialisation (zesInit, Sysman's own handles, is not simulated). */
    if (!sim_cfg.sysman_core) return ZE_RESULT_ERROR_UNINITIALIZED;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    enum { CAP = 256 };
    uint32_t pids[CAP], launched[CAP], n = 0;
    uint32_t ntiles = d->num_subdevices ? d->num_subdevices : 1;
    for (uint32_t t = 0; t < ntiles; t++) {
        const sim_device_t *leaf = d->num_subdevices ? d->subdevices[t] : d;
        uint32_t p[64], l[64];
        uint32_t k = sim_machine_processes(leaf, p, l, 64);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t j = 0;
            while (j < n && pids[j] != p[i]) j++;
            if (j == n && n < CAP) {
                pids[n] = p[i];
                launched[n++] = l[i];
            } else if (j < n) {
                launched[j] |= l[i];
            }
        }
    }
    /* This process uses the device, machine or not. */
    uint32_t me = sim_machine_pid(), j = 0;
    while (j < n && pids[j] != me) j++;
    if (j == n && n < CAP) {
        pids[n] = me;
        launched[n++] = 1;
    }
    if (*pCount == 0 || pProcesses == NULL) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n) *pCount = n;
    for (uint32_t i = 0; i < *pCount; i++) {
        pProcesses[i].processId = pids[i];
        pProcesses[i].memSize = 0;
        pProcesses[i].sharedSize = 0;
        pProcesses[i].engines = launched[i] ? ZES_ENGINE_TYPE_FLAG_COMPUTE : 0;
    }
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zesGetDeviceProcAddrTable(ze_api_version_t version, zes_device_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    memset(t, 0, sizeof(*t));
    t->pfnProcessesGetState = sim_zesDeviceProcessesGetState;
    return ZE_RESULT_SUCCESS;
}
SIM_EMPTY_GETTER(zesGetDriverProcAddrTable, zes_driver_dditable_t)
SIM_EMPTY_GETTER(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t)
SIM_EMPTY_GETTER(zesGetEngineProcAddrTable, zes_engine_dditable_t)
SIM_EMPTY_GETTER(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t)
SIM_EMPTY_GETTER(zesGetFanProcAddrTable, zes_fan_dditable_t)
SIM_EMPTY_GETTER(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t)
SIM_EMPTY_GETTER(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t)
SIM_EMPTY_GETTER(zesGetLedProcAddrTable, zes_led_dditable_t)
SIM_EMPTY_GETTER(zesGetMemoryProcAddrTable, zes_memory_dditable_t)
SIM_EMPTY_GETTER(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t)
SIM_EMPTY_GETTER(zesGetPowerProcAddrTable, zes_power_dditable_t)
SIM_EMPTY_GETTER(zesGetPsuProcAddrTable, zes_psu_dditable_t)
SIM_EMPTY_GETTER(zesGetRasProcAddrTable, zes_ras_dditable_t)
SIM_EMPTY_GETTER(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t)
SIM_EMPTY_GETTER(zesGetStandbyProcAddrTable, zes_standby_dditable_t)
SIM_EMPTY_GETTER(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t)
