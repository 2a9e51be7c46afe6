/*
 * core_config.c — configuration: every ZESIM_* (and Intel) variable, read
 * once at the first zeInit into sim_cfg; kernel cost lookup; queue groups
 * per model.
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

sim_config_t sim_cfg;

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

void sim_config_load(void) {
    const char *v;

    v = getenv("ZESIM_MODEL");
    sim_model = &sim_models[0];
    if (v != NULL) {
        const char *key = streq_ci(v, "pvc-1550") ? "pvc" : v;
        size_t i;
        for (i = 0; i < sim_num_models; i++)
            if (streq_ci(key, sim_models[i].key)) break;
        if (i < sim_num_models)
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

    sim_cfg.destroy_pause_ns = 0;
    v = getenv("ZESIM_DESTROY_PAUSE_NS");
    if (v != NULL && (!parse_u64(v, &sim_cfg.destroy_pause_ns) || sim_cfg.destroy_pause_ns > 1000000000ull)) {
        sim_cfg.destroy_pause_ns = 0;
        cfg_warn("ZESIM_DESTROY_PAUSE_NS", v, "0");
    }

    sim_cfg.event_read_ns = 0;
    v = getenv("ZESIM_EVENT_READ_NS");
    if (v != NULL && (!parse_u64(v, &sim_cfg.event_read_ns) || sim_cfg.event_read_ns > 1000000ull)) {
        sim_cfg.event_read_ns = 0;
        cfg_warn("ZESIM_EVENT_READ_NS", v, "0");
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
    v = getenv("ZESIM_STATS");
    sim_cfg.stats = (v != NULL && *v != '\0' && strcmp(v, "0") != 0) ? strdup(v) : NULL;
    set_queue_groups();
}
