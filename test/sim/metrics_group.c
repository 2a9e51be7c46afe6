/*
 * metrics_group.c — metric groups and metrics of the simulated device:
 * the EuStallSampling group exactly as Intel's driver exposes it and two
 * placeholder OA groups, per-device metrics state, activation per
 * (context, device), and enabling (ZET_ENABLE_METRICS or Intel's
 * zetIntelDeviceEnableMetricsExp).
 */
#include "metrics.h"

pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t g_init_mx = PTHREAD_MUTEX_INITIALIZER;

/* docs/eu-stall-sampling.md §2.3 "Metric properties (all metrics)", docs/eu-stall-sampling.md §2.4 "Metric lists per platform (order = zetMetricGet order = order of calculated values)": order = zetMetricGet order = order of calculated values. */
#define EV(n, d) {n, d, "XVE", 4, ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64, "Events"}
SIM_HIDDEN const metric_def_t euss_pvc[EUSS_PVC_METRICS] = {
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
SIM_HIDDEN const metric_def_t euss_xe2[EUSS_XE2_METRICS] = {
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
/* Raw counter k feeding metric m (m >= 1), docs/eu-stall-sampling.md §3.4 "Decoding rule". */
SIM_HIDDEN const uint8_t pvc_metric_raw[EUSS_PVC_METRICS] = {0, 0, 2, 3, 4, 5, 6, 7, 8, 1};
SIM_HIDDEN const uint8_t xe2_metric_raw[EUSS_XE2_METRICS] = {0, 9, 0, 2, 3, 4, 5, 6, 7, 8, 1};

/* Placeholder OA groups: Intel's driver lists its OA (MDAPI) groups before
 * EuStallSampling (docs/eu-stall-sampling.md §2.5 "Where the group exists"). Ours exist so that tools must search by name;
 * they can be activated but not sampled. */
SIM_HIDDEN const metric_def_t oa_compute[OA_METRICS] = {
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
SIM_HIDDEN const metric_def_t oa_memory[OA_METRICS] = {
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
    /* Scopes: one per tile the device covers (a COMPOSITE root: its
     * sub-devices; a FLAT device or sub-device: its own tile). */
    uint32_t ntiles = dev->num_subdevices ? dev->num_subdevices : 1;
    for (uint32_t i = 0; i < ntiles && i < SCOPES_MAX; i++) {
        sim_metric_scope_t *sc = &md->scopes[md->nscopes];
        uint32_t tile = dev->num_subdevices ? dev->subdevices[i]->tile : dev->tile; /* tile of its card */
        sim_obj_init(&sc->obj, SIM_K_METRIC_SCOPE);
        sc->id = (uint16_t)md->nscopes++;
        snprintf(sc->name, sizeof(sc->name), "COMPUTE_TILE_%u", tile);
        snprintf(sc->desc, sizeof(sc->desc), "Metrics results for tile %u", tile);
    }
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

sim_metric_dev_t *mdev_of(sim_device_t *dev) {
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

sim_device_t *dev_of(zet_device_handle_t h) { return SIM_OBJ(sim_device_t, h, SIM_K_DEVICE); }
sim_context_t *ctx_of(zet_context_handle_t h) { return SIM_OBJ(sim_context_t, h, SIM_K_CONTEXT); }
sim_metric_group_t *grp_of(zet_metric_group_handle_t h) {
    return SIM_OBJ(sim_metric_group_t, h, SIM_K_METRIC_GROUP);
}

/* Which groups zetMetricGroupGet lists for dev, in order (OA first, docs/eu-stall-sampling.md §2.5 "Where the group exists"). */
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
     * group; without permission the group is simply absent (docs/eu-stall-sampling.md §2.5 "Where the group exists"). */
    if (euss_supported() && sim_cfg.metrics_permitted && md->groups[GK_EUSS].num_metrics > 0)
        out[n++] = &md->groups[GK_EUSS];
    return n;
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
    /* docs/eu-stall-sampling.md §2.2 "Extended group properties through pNext": with a chain, the answer is INVALID_ARGUMENT unless at least
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

ze_result_t ZE_APICALL sim_zetMetricGet(zet_metric_group_handle_t hMetricGroup, uint32_t *pCount,
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

bool is_activated(sim_metric_dev_t *md, sim_context_t *ctx, sim_metric_group_t *g) {
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
/* Enabling (Intel extension)                                          */
/* ------------------------------------------------------------------ */
ze_result_t ZE_APICALL sim_zetIntelDeviceEnableMetricsExp(zet_device_handle_t hDevice) {
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

ze_result_t ZE_APICALL sim_zetIntelDeviceDisableMetricsExp(zet_device_handle_t hDevice) {
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
/* Metric scopes (Intel extension ZET_intel_metric_scopes)             */
/* ------------------------------------------------------------------ */
/* zet_intel_metric_scope_properties_exp_t */
typedef struct sim_metric_scope_props {
    uint32_t stype; /* ZET_STRUCTURE_TYPE_INTEL_METRIC_SCOPE_PROPERTIES_EXP 0x00010006 */
    void *pNext;
    uint16_t iD;
    char name[SCOPE_NAME_MAX];
    char description[SCOPE_DESC_MAX];
} sim_metric_scope_props_t;

/* Count-then-fill over md's scopes. */
static ze_result_t scopes_out(const sim_metric_dev_t *md, uint32_t *pCount, void **out) {
    if (*pCount == 0) {
        *pCount = md->nscopes;
        return ZE_RESULT_SUCCESS;
    }
    if (out == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount > md->nscopes) *pCount = md->nscopes;
    for (uint32_t i = 0; i < *pCount; i++) out[i] = (void *)&md->scopes[i];
    return ZE_RESULT_SUCCESS;
}

/* Like Intel's driver: without an available metric source (metrics not
 * enabled for the device) the scopes cannot be initialised. */
static ze_result_t ZE_APICALL sim_zetIntelMetricScopesGetExp(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                                             uint32_t *pCount, void **phScopes) {
    sim_device_t *dev = dev_of(hDevice);
    if (ctx_of(hContext) == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_metric_dev_t *md = mdev_of(dev);
    if (md == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&g_mx);
    bool enabled = md->enabled;
    pthread_mutex_unlock(&g_mx);
    if (!enabled) {
        *pCount = 0;
        return ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE;
    }
    return scopes_out(md, pCount, phScopes);
}

/* Intel's driver copies its whole structure over the caller's, stype and
 * pNext included (they come back 0 and NULL). */
static ze_result_t ZE_APICALL sim_zetIntelMetricScopeGetPropertiesExp(void *hScope, sim_metric_scope_props_t *p) {
    sim_metric_scope_t *sc = SIM_OBJ(sim_metric_scope_t, hScope, SIM_K_METRIC_SCOPE);
    if (sc == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    memset(p, 0, sizeof(*p));
    p->iD = sc->id;
    snprintf(p->name, sizeof(p->name), "%s", sc->name);
    snprintf(p->description, sizeof(p->description), "%s", sc->desc);
    return ZE_RESULT_SUCCESS;
}

/* The scopes of the device the metric belongs to (every metric of the
 * device supports all of them). */
static ze_result_t ZE_APICALL sim_zetIntelMetricSupportedScopesGetExp(zet_metric_handle_t hMetric, uint32_t *pCount,
                                                                      void **phScopes) {
    sim_metric_t *m = SIM_OBJ(sim_metric_t, hMetric, SIM_K_METRIC);
    if (m == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_metric_dev_t *md = m->group ? mdev_of(m->group->dev) : NULL;
    if (md == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return scopes_out(md, pCount, phScopes);
}

void *sim_metrics_scope_extension(const char *name) {
    if (name == NULL) return NULL;
    if (strcmp(name, "zetIntelMetricScopesGetExp") == 0) return (void *)sim_zetIntelMetricScopesGetExp;
    if (strcmp(name, "zetIntelMetricScopeGetPropertiesExp") == 0) return (void *)sim_zetIntelMetricScopeGetPropertiesExp;
    if (strcmp(name, "zetIntelMetricSupportedScopesGetExp") == 0) return (void *)sim_zetIntelMetricSupportedScopesGetExp;
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
SIM_EXPORT ze_result_t ZE_APICALL zetGetContextProcAddrTable(ze_api_version_t version, zet_context_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnActivateMetricGroups = sim_zetContextActivateMetricGroups;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricGroupProcAddrTable(ze_api_version_t version,
                                                                 zet_metric_group_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnGet = sim_zetMetricGroupGet;
    t->pfnGetProperties = sim_zetMetricGroupGetProperties;
    t->pfnCalculateMetricValues = sim_zetMetricGroupCalculateMetricValues;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zetGetMetricProcAddrTable(ze_api_version_t version, zet_metric_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnGet = sim_zetMetricGet;
    t->pfnGetProperties = sim_zetMetricGetProperties;
    return ZE_RESULT_SUCCESS;
}
