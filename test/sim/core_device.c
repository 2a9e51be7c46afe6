/*
 * core_device.c — devices and sub-devices: enumeration, every property query
 * the model answers, global timestamps, PCI properties.
 *
 * Part of the core files of the simulated driver (core.h lists them).
 * User documentation: test/sim/README.md.
 */
#include "core.h"

#include <string.h>

static ze_result_t ZE_APICALL sim_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                                              ze_device_handle_t *phDevices) {
    sim_driver_t *d = drv_of(hDriver);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return core_fill_handles(pCount, (void **)phDevices, (void *const *)d->devices, d->num_devices);
}

static ze_result_t ZE_APICALL sim_zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount,
                                                        ze_device_handle_t *phSubdevices) {
    sim_device_t *d = dev_of(hDevice);
    if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return core_fill_handles(pCount, (void **)phSubdevices, (void *const *)d->subdevices, d->num_subdevices);
}

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

SIM_EXPORT ze_result_t ZE_APICALL zetGetDeviceProcAddrTable(ze_api_version_t version, zet_device_dditable_t *t) {
    SIM_DDI_TABLE_CHECK(version, t);
    t->pfnGetDebugProperties = sim_zetDeviceGetDebugProperties;
    return ZE_RESULT_SUCCESS;
}
