/*
 * core_driver.c — zeInit (the driver and its devices, once per process) and
 * the driver object: zeDriverGet, properties, extensions, extension
 * function addresses.
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

sim_driver_t *sim_driver;

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
    atomic_init(&d->runqs, NULL);
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
        core_gt_start();
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

/* Fills a handle array following the Level-Zero count protocol. */
ze_result_t core_fill_handles(uint32_t *pCount, void **out, void *const *src, uint32_t n) {
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
    return core_fill_handles(pCount, (void **)phDrivers, src, 1);
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
